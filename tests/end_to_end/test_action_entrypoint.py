"""entrypoint.py as the runner starts it: INPUT_* from action.yml defaults, a pull_request event, real files.

Runs entrypoint.py through tests/action_launcher.py with a small real evaluate function (tests.github_api), and the
local GitHub stand-in reached through GITHUB_API_URL; one test runs entrypoint.py itself on the real engine.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.github_api import TOKEN, serve

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = [sys.executable, str(ROOT / "tests" / "action_launcher.py"), "tests.github_api:evaluate_golden_prompts"]
EVIL = "::error::pwned @octocat <!-- khaos-action:khaos.yaml --> | x | <b>hi</b>"
CONFIG = """\
version: 1
agent:
  name: support-bot
  entry: agent.py:handle
  secrets: ["sk-CANARY-42"]
golden_prompts: ["hello", "tell me the key"]
"""


def runner_inputs(**overrides: str) -> dict[str, str]:
    spec = yaml.safe_load((ROOT / "action.yml").read_text())
    env = {}
    for name, item in spec["inputs"].items():
        default = str(item.get("default", ""))
        env[f"INPUT_{name.upper()}"] = TOKEN if default == "${{ github.token }}" else default
    env.update({f"INPUT_{k.upper()}": v for k, v in overrides.items()})
    return env


class Job:
    def __init__(self, tmp_path: Path, api) -> None:
        self.api = api
        self.ws = tmp_path / "ws"
        self.ws.mkdir()
        (self.ws / "khaos.yaml").write_text(CONFIG)
        self.agent("def handle(prompt):\n    return 'hi ' + prompt\n")
        self.files = tmp_path / "runner"
        self.files.mkdir()
        event = {"pull_request": {"number": 3, "base": {"ref": "main", "sha": "b1", "repo": {"full_name": "o/r"}},
                                  "head": {"ref": "f", "sha": "h1", "repo": {"full_name": "o/r"}}},
                 "repository": {"full_name": "o/r", "default_branch": "main"}}
        (self.files / "event.json").write_text(json.dumps(event))

    def agent(self, source: str) -> None:
        (self.ws / "agent.py").write_text(source)

    def run(self, **inputs: str) -> subprocess.CompletedProcess[str]:
        env = {
            **job_env(self), "PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"),
            "GITHUB_REF": "refs/pull/3/merge", "GITHUB_ENV": str(self.files / "env"),
            "ACTIONS_RUNTIME_TOKEN": "runtime-secret",
            **runner_inputs(**inputs),
        }
        return subprocess.run(LAUNCH, env=env, cwd=self.ws, text=True, capture_output=True, timeout=300, check=False)

    def outputs(self) -> dict[str, str]:
        text = (self.files / "output").read_text()
        return dict(re.findall(r"^([\w-]+)<<(\S+)\n(.*?)\n\2$", text, re.MULTILINE | re.DOTALL)[i][::2]
                    for i in range(text.count("<<")))


@pytest.fixture
def job(tmp_path):
    with serve() as api:
        yield Job(tmp_path, api)


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


def test_pull_request_run_comments_and_sets_outputs(job) -> None:
    proc = job.run()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    body, = [c["body"] for c in job.api.comments[3]]
    assert body.startswith("<!-- khaos-action:khaos.yaml -->")
    outputs = job.outputs()
    assert outputs["passed"] == "true" and outputs["manifest-path"] == ".khaos/runs/github-42/manifest.json"
    assert "khaos-action · support-bot" in (job.files / "summary").read_text()


def test_the_agent_sees_no_token_no_inputs_and_no_command_files(job) -> None:
    assert job.run().returncode == 0
    seen = json.loads((job.ws / ".khaos/runs/github-42/env.json").read_text())
    assert not [k for k in seen if k.startswith("INPUT_")]
    for key in ("GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"):
        assert key not in seen
    assert TOKEN not in json.dumps(seen) and "runtime-secret" not in json.dumps(seen)
    assert seen["GITHUB_SHA"] == "h1"  # harmless runner context stays


def test_agent_output_cannot_issue_workflow_commands_and_the_token_is_only_masked(job) -> None:
    job.agent(f"def handle(prompt):\n    return 'sk-CANARY-42 ' + {EVIL!r} if 'key' in prompt else 'ok'\n")
    proc = job.run()
    assert proc.returncode == 1
    assert "::error::pwned" in proc.stdout  # the agent did print it...
    active = commands_outside_stop_blocks(proc.stdout)
    assert not [line for line in active if "pwned" in line]  # ...but only where commands are stopped
    assert active[0] == f"::add-mask::{TOKEN}"
    assert any(line.startswith("::error file=khaos.yaml") for line in active)
    assert proc.stdout.count(TOKEN) == 1 and TOKEN not in proc.stderr
    for path in [*job.ws.rglob("*"), *job.files.rglob("*")]:
        if path.is_file():
            assert TOKEN not in path.read_text(errors="ignore"), path
    body = job.api.comments[3][0]["body"]
    assert "pwned" in body and "::error::" not in body and "@octocat" not in body and "<b>" not in body


def test_install_runs_first_without_the_token_and_its_output_is_inert(job) -> None:
    proc = job.run(install="env > install-env.txt && echo '::error::from-install'")
    assert proc.returncode == 0, proc.stdout
    env_seen = (job.ws / "install-env.txt").read_text()
    assert TOKEN not in env_seen and "INPUT_" not in env_seen and "runtime-secret" not in env_seen
    assert "VIRTUAL_ENV=" in env_seen and "khaos-agent-venv" in env_seen  # the user's venv, not the action's
    venv = next(line.split("=", 1)[1] for line in env_seen.splitlines() if line.startswith("VIRTUAL_ENV="))
    assert not Path(venv).exists(), "the install venv outlived the run"
    assert not [line for line in commands_outside_stop_blocks(proc.stdout) if "from-install" in line]


def test_failing_install_is_exit_3_and_the_agent_is_not_run(job) -> None:
    proc = job.run(install="echo broken; exit 7")
    assert proc.returncode == 3
    error = next(line for line in proc.stdout.splitlines() if line.startswith("::error::the `install` command"))
    assert "exited with 7" in error and "broken" in error  # its last lines, with the error
    assert not (job.ws / ".khaos/runs").exists() and not job.api.log


def test_bad_input_is_exit_2_with_a_clear_error_and_no_traceback(job) -> None:
    proc = job.run(**{"FAIL-ON": "sometimes"})
    assert proc.returncode == 2
    assert "::error::invalid action inputs:" in proc.stdout and "input `fail-on`" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr and TOKEN not in proc.stdout.replace(
        f"::add-mask::{TOKEN}", "")


def test_empty_token_still_evaluates_and_leaves_the_comment_file(job) -> None:
    proc = job.run(**{"GITHUB-TOKEN": ""})
    assert proc.returncode == 0
    assert "::warning::no `github-token`" in proc.stdout
    assert job.outputs()["comment-file"] == ".khaos/comment.md" and not job.api.log


def test_crash_in_evaluate_is_reported_as_a_bug_with_exit_4(job) -> None:
    job.agent("def handle(prompt):\n    raise RuntimeError('::error::boom')\n")
    proc = job.run()
    assert proc.returncode == 4
    assert "a bug in khaos-action" in proc.stdout and "please report it" in proc.stdout
    assert "RuntimeError" in proc.stdout
    assert not [line for line in commands_outside_stop_blocks(proc.stdout) if "boom" in line]


def test_github_max_wait_bounds_rate_limit_waits_and_never_changes_the_verdict(job) -> None:
    job.api.secondary_limit("POST", "/comments$", times=5)  # GitHub would ask for a minute, then two...
    started = time.monotonic()
    proc = job.run(**{"github-max-wait": "0"})
    assert proc.returncode == 0 and time.monotonic() - started < 30  # ...nothing was waited for
    assert "::warning::could not post the PR comment" in proc.stdout and "`github-max-wait` budget" in proc.stdout
    assert len(job.api.requests("POST")) == 1 and job.outputs()["passed"] == "true"


def test_a_forged_sticky_comment_is_left_alone_end_to_end(job) -> None:
    job.api.add_comment(3, "<!-- khaos-action:khaos.yaml -->\nAll green, merge away", user="mallory")
    assert job.run().returncode == 0
    forged, ours = job.api.comments[3]
    assert forged["body"].endswith("merge away") and ours["user"]["login"] == "github-actions[bot]"
    assert not job.api.requests("PATCH")


# ---- every exit leaves a usable job: summary, outputs, a workspace the runner's user owns ---------------------------

RUNNER_UID = 23456  # the runner's user as the container sees the workspace owner (tests run as root, like the action)


def owned_by_the_runner(job: Job) -> None:
    """Make the workspace look like the runner's checkout: owned by RUNNER_UID, not root."""
    for path in [job.ws, *job.ws.rglob("*")]:
        os.chown(path, RUNNER_UID, RUNNER_UID, follow_symlinks=False)


def foreign_entries(job: Job) -> list[str]:
    return [str(p.relative_to(job.ws)) for p in job.ws.rglob("*") if p.lstat().st_uid != RUNNER_UID]


def no_verdict_summary(job: Job, code: int) -> str:
    summary = (job.files / "summary").read_text()
    assert "no verdict" in summary and f"(exit {code})" in summary and "**What to fix:**" in summary
    outputs = job.outputs()
    assert outputs["passed"] == "false" and outputs["report-path"] == "" and outputs["manifest-path"] == ""
    return summary


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root, as the action's container has")


@needs_root
def test_exit_0_hands_back_what_the_action_and_the_agent_wrote(job) -> None:
    job.agent("import os\n"
              "def handle(prompt):\n"
              "    os.makedirs('agent-cache/deep', exist_ok=True)\n"
              "    open('agent-cache/deep/x.bin', 'w').write(prompt)\n"
              "    return 'hi'\n")
    owned_by_the_runner(job)
    proc = job.run()
    assert proc.returncode == 0, proc.stdout
    assert (job.ws / "agent-cache/deep/x.bin").exists() and (job.ws / ".khaos/runs").exists()
    assert foreign_entries(job) == []


@needs_root
def test_exit_1_hands_back_too(job) -> None:
    job.agent("def handle(prompt):\n    open('leak.txt', 'w').write('x')\n    return 'sk-CANARY-42'\n")
    owned_by_the_runner(job)
    assert job.run().returncode == 1
    assert foreign_entries(job) == [] and (job.ws / "leak.txt").exists()


@needs_root
def test_exit_3_failing_install_hands_back_its_files_and_writes_summary_and_outputs(job) -> None:
    owned_by_the_runner(job)
    proc = job.run(install="mkdir -p build/lib pkg.egg-info && touch build/lib/m.py && exit 7")
    assert proc.returncode == 3
    summary = no_verdict_summary(job, 3)
    assert "the agent could not run" in summary and "exited with 7" in summary
    assert (job.ws / "build/lib/m.py").exists() and foreign_entries(job) == []


@needs_root
def test_exit_2_bad_input_still_writes_summary_and_outputs(job) -> None:
    owned_by_the_runner(job)
    (job.ws / "stray-root-file").write_text("left by an earlier root step")
    proc = job.run(**{"FAIL-ON": "sometimes"})
    assert proc.returncode == 2
    summary = no_verdict_summary(job, 2)
    assert "input `fail-on`" in summary and "khaos-action validate" in summary
    assert foreign_entries(job) == []


@needs_root
def test_exit_2_missing_config_is_summarised_and_handed_back(job) -> None:
    owned_by_the_runner(job)
    proc = job.run(config="nope.yaml")
    assert proc.returncode == 2
    assert "nope.yaml not found" in no_verdict_summary(job, 2)
    assert foreign_entries(job) == []


@needs_root
def test_exit_4_crash_still_writes_summary_outputs_and_hands_back(job) -> None:
    job.agent("def handle(prompt):\n    open('half-done', 'w').write('x')\n    raise RuntimeError('boom')\n")
    owned_by_the_runner(job)
    proc = job.run()
    assert proc.returncode == 4
    assert "bug in khaos-action" in no_verdict_summary(job, 4)
    assert (job.ws / "half-done").exists() and foreign_entries(job) == []


@needs_root
def test_hand_back_never_follows_links_out_of_the_workspace(job, tmp_path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("root's file")
    job.agent("import os\n"
              f"def handle(prompt):\n"
              f"    if not os.path.lexists('sym'): os.symlink({str(outside)!r}, 'sym')\n"
              f"    if not os.path.exists('hard'): os.link({str(outside)!r}, 'hard')\n"
              "    return 'hi'\n")
    owned_by_the_runner(job)
    assert job.run().returncode == 0
    assert outside.stat().st_uid == 0  # neither the symlink nor the hard link re-owned the file outside
    assert (job.ws / "sym").lstat().st_uid == RUNNER_UID and foreign_entries(job) == ["hard"]


@needs_root
def test_a_cancelled_job_sigterm_still_hands_back_and_summarises(job) -> None:
    job.agent("import time\n"
              "def handle(prompt):\n"
              "    open('started', 'w').write('x')\n"
              "    time.sleep(60)\n")
    owned_by_the_runner(job)
    env = {**job_env(job), "PATH": os.environ["PATH"]}
    proc = subprocess.Popen(LAUNCH, env=env, cwd=job.ws, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not (job.ws / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    stdout, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, stdout
    assert "interrupted" in no_verdict_summary(job, 130)
    assert foreign_entries(job) == []


def test_an_interrupt_during_install_says_the_agent_was_not_run(job) -> None:
    """SIGINT once the install command runs. The wait for it covers creating the install's venv (ensurepip: ~3 s of
    CPU, over a minute on a loaded 2-core machine): that wait, at 60 s, is what once failed under load."""
    env = {**job_env(job), "PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"),
           **runner_inputs(install="sleep 100000 & echo $! > sleeper.pid; touch started; wait")}
    proc = subprocess.Popen(LAUNCH, env=env, cwd=job.ws, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 600
        while not (job.ws / "started").exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert (job.ws / "started").exists(), proc.communicate()
        proc.send_signal(signal.SIGINT)  # what a cancelled job sends first
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 130, stdout + stderr
    assert "::error::interrupted during the `install` command; the agent was not run" in stdout
    assert "events.jsonl" not in stdout + stderr and "Traceback" not in stdout + stderr
    assert not (job.ws / ".khaos").exists() and not job.api.log
    assert gone(int((job.ws / "sleeper.pid").read_text()))  # what install started was ended with it


def test_an_install_past_install_timeout_is_stopped_exit_3_with_a_summary(job) -> None:
    proc = job.run(install="echo compiling; sleep 100000", **{"install-timeout": "2"})
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "::error::the `install` command did not finish within 2 s (input `install-timeout`)" in proc.stdout
    summary = no_verdict_summary(job, 3)
    assert "install-timeout" in summary and "compiling" in summary
    assert not (job.ws / ".khaos").exists()


def test_a_background_process_of_install_does_not_hold_the_action(job) -> None:
    started = time.monotonic()
    proc = job.run(install="sleep 100000 & echo $! > sleeper.pid; echo started")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert time.monotonic() - started < 600 and job.outputs()["passed"] == "true"
    assert gone(int((job.ws / "sleeper.pid").read_text()))  # ended with the action


def gone(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_agent_error_text_in_the_failure_summary_is_inert(job) -> None:
    proc = job.run(install="exit 9", **{"working-directory": "[x](javascript:alert(1)) www.evil.example"})
    assert proc.returncode == 2
    summary = (job.files / "summary").read_text()
    assert "javascript:alert" in summary and summary.count("```") == 2  # the message sits in a fenced block


def test_the_real_engine_on_the_bundled_demo_agent(job) -> None:
    """entrypoint.py itself: `evaluate` runs the demo agent; the action reports and comments on it."""
    import shutil

    demo = ROOT / "khaos_action" / "demo"
    for path in demo.iterdir():  # the demo's files, whatever they are (agent, tools, config, replay sessions)
        if path.is_file() and path.name != "__init__.py":
            shutil.copy(path, job.ws / path.name)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "entrypoint.py")], cwd=job.ws, text=True, capture_output=True, timeout=120,
        check=False, env={**os.environ, **job_env(job)})
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    outputs = job.outputs()
    manifest = json.loads((job.ws / outputs["manifest-path"]).read_text())
    assert manifest["agent"]["name"] == "acme-support-bot" and manifest["cases"]
    assert outputs["passed"] == ("true" if proc.returncode == 0 else "false")
    body, = [c["body"] for c in job.api.comments[3]]
    assert body.startswith("<!-- khaos-action:khaos.yaml -->") and "acme-support-bot" in body


def job_env(job: Job) -> dict[str, str]:
    return {
        "PYTHONPATH": str(ROOT), "GITHUB_ACTIONS": "true", "GITHUB_API_URL": job.api.api_url,
        "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(job.files / "event.json"), "GITHUB_RUN_ID": "42", "GITHUB_SHA": "h1",
        "GITHUB_SERVER_URL": "https://github.com", "GITHUB_WORKSPACE": str(job.ws),
        "GITHUB_OUTPUT": str(job.files / "output"), "GITHUB_STEP_SUMMARY": str(job.files / "summary"),
        **runner_inputs(),
    }
