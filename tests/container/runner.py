"""GitHub's runner starting a Docker action, reproduced: the job's directories, the mounts, the environment.

The runner (actions/runner, ContainerOperationProvider) starts a Docker action roughly as
`docker run --workdir /github/workspace -v <work>:/github/workspace -v <temp>:/github/runner_temp
-v <temp>/_github_home:/github/home -v <temp>/_github_workflow:/github/workflow
-v <temp>/_runner_file_commands:/github/file_commands -e INPUT_X -e …`
with the job's directories owned by the runner user (uid 1001 on hosted runners) and the container running as root.
`RunnerJob` does the same against the local GitHub REST stand-in (tests/github_api.py) over --network host.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import yaml

from tests.container import engine as engine_mod
from tests.github_api import TOKEN

ROOT = engine_mod.ROOT
RUNNER_UID = 1001  # the hosted runner's user; the workspace and the runner's files belong to it
RUNTIME_TOKEN = "runtime-secret-0123456789"
FILE_COMMANDS = ("set_output", "step_summary", "set_env", "add_path", "save_state")


def runner_inputs(**overrides: str) -> dict[str, str]:
    """INPUT_<NAME> with hyphens, as the runner sets them: action.yml defaults, then the step's `with:`."""
    spec = yaml.safe_load((ROOT / "action.yml").read_text())
    env = {}
    for name, item in spec["inputs"].items():
        default = str(item.get("default", ""))
        env[f"INPUT_{name.upper()}"] = TOKEN if default == "${{ github.token }}" else default
    env.update({f"INPUT_{k.upper()}": v for k, v in overrides.items()})
    return env


def pull_request_event(number: int = 3, head_repo: str = "o/r") -> dict:
    return {"action": "synchronize", "number": number,
            "pull_request": {"number": number,
                             "base": {"ref": "main", "sha": "base0000", "repo": {"full_name": "o/r"}},
                             "head": {"ref": "feature", "sha": "head1111", "repo": {"full_name": head_repo}}},
            "repository": {"full_name": "o/r", "default_branch": "main"}}


def push_event() -> dict:
    return {"ref": "refs/heads/main", "after": "base0000", "repository": {"full_name": "o/r", "default_branch": "main"}}


def chown_tree(path: Path, uid: int = RUNNER_UID) -> None:
    for item in [path, *path.rglob("*")]:
        os.chown(item, uid, uid, follow_symlinks=False)


def not_owned_by(path: Path, uid: int = RUNNER_UID) -> list[str]:
    return [f"{p.relative_to(path)} (uid {p.lstat().st_uid})" for p in [path, *path.rglob("*")]
            if p.lstat().st_uid != uid]


def parse_outputs(text: str) -> dict[str, str]:
    return {m[0]: m[2] for m in re.findall(r"^([\w-]+)<<(\S+)\n(.*?)\n\2$", text, re.MULTILINE | re.DOTALL)}


def commands_outside_stop_blocks(stdout: str) -> list[str]:
    """Workflow commands the runner would act on: every `::` line not inside a stop-commands block."""
    active, token = [], None
    for line in stdout.splitlines():
        if token is None:
            if m := re.fullmatch(r"::stop-commands::(\S+)", line):
                token = m[1]
            elif line.startswith("::"):
                active.append(line)
        elif line == f"::{token}::":
            token = None
    return active


class RunnerJob:
    """One job's directories on the "runner" (owned by RUNNER_UID) and `docker run` as the runner does it."""

    def __init__(self, root: Path, engine: engine_mod.Engine, api) -> None:
        self.engine, self.api = engine, api
        self.workspace = root / "work" / "repo"
        self.temp = root / "_temp"
        self.home = root / "_temp" / "_github_home"
        self.workflow = root / "_temp" / "_github_workflow"
        self.file_commands = root / "_temp" / "_runner_file_commands"
        for path in (self.workspace, self.home, self.workflow, self.file_commands):
            path.mkdir(parents=True)
        self.suffix = uuid.uuid4().hex[:8]
        self.event_name = "pull_request"
        self.event: dict = pull_request_event()
        self.ref = "refs/pull/3/merge"
        self.sha = "head1111"
        self.extra_mounts: list[str] = []
        self.extra_env: dict[str, str] = {}
        self.evaluate: str | None = None
        """`module:function` run as the action's evaluate through tests/action_launcher.py (mounted next to
        entrypoint.py in the image); None runs the image's own entrypoint."""

    def demo(self) -> None:
        """The bundled demo project (agent, tools, replay sessions, khaos.yaml) as the repository."""
        for path in (ROOT / "khaos_action" / "demo").iterdir():
            if path.is_file() and path.name != "__init__.py":
                shutil.copy(path, self.workspace / path.name)

    def write(self, name: str, text: str) -> None:
        path = self.workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def command_file(self, kind: str) -> Path:
        return self.file_commands / f"{kind}_{self.suffix}"

    def container_env(self, inputs: dict[str, str]) -> dict[str, str]:
        def inside(kind: str) -> str:
            return f"/github/file_commands/{kind}_{self.suffix}"

        return {
            "HOME": "/github/home", "CI": "true", "GITHUB_ACTIONS": "true", "RUNNER_OS": "Linux",
            "GITHUB_WORKSPACE": "/github/workspace", "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_EVENT_NAME": self.event_name, "GITHUB_REF": self.ref, "GITHUB_SHA": self.sha,
            "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_WORKFLOW_REF": f"o/r/.github/workflows/khaos.yml@{self.ref}",
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_API_URL": self.api.api_url,
            "GITHUB_OUTPUT": inside("set_output"), "GITHUB_STEP_SUMMARY": inside("step_summary"),
            "GITHUB_ENV": inside("set_env"), "GITHUB_PATH": inside("add_path"), "GITHUB_STATE": inside("save_state"),
            "GITHUB_TOKEN": TOKEN, "ACTIONS_RUNTIME_TOKEN": RUNTIME_TOKEN,
            "ACTIONS_RUNTIME_URL": "http://127.0.0.1:9/runtime/",
            **runner_inputs(**inputs), **self.extra_env,
        }

    def run(self, image: str, *, timeout: float = 600, **inputs: str) -> subprocess.CompletedProcess[str]:
        (self.workflow / "event.json").write_text(json.dumps(self.event))
        for kind in FILE_COMMANDS:
            self.command_file(kind).touch()
        for path in (self.workspace, self.temp):
            chown_tree(path)
        env = self.container_env(inputs)
        name = f"khaos-job-{self.suffix}-{uuid.uuid4().hex[:6]}"
        args = ["run", "--rm", "--name", name, "--network", "host", "--workdir", "/github/workspace",
                "-v", f"{self.workspace}:/github/workspace", "-v", f"{self.temp}:/github/runner_temp",
                "-v", f"{self.home}:/github/home",
                "-v", f"{self.workflow}:/github/workflow", "-v", f"{self.file_commands}:/github/file_commands"]
        for mount in self.extra_mounts:
            args += ["-v", mount]
        for key in env:  # `-e NAME` takes the value from docker's own environment, as the runner passes them
            args += ["-e", key]
        command: list[str] = []
        if self.evaluate is not None:
            launcher = "/opt/khaos-action/action_launcher.py"
            args += ["-v", f"{ROOT / 'tests' / 'action_launcher.py'}:{launcher}:ro",
                     "--entrypoint", "/opt/khaos-action/bin/python"]
            command = [launcher, self.evaluate]
        self.started = time.monotonic()
        proc = self.engine(*args, image, *command, timeout=timeout, check=False, env={**os.environ, **env})
        self.seconds = time.monotonic() - self.started
        self.engine("rm", "--force", name, check=False, timeout=60)
        return proc

    def outputs(self) -> dict[str, str]:
        return parse_outputs(self.command_file("set_output").read_text())

    def summary(self) -> str:
        return self.command_file("step_summary").read_text()
