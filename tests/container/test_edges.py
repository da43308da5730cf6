"""The action's edges in the real image, run as GitHub's runner runs it, against pull-request code that attacks them.

- The checkout's persisted token (actions/checkout's real formats: v4's header in .git/config, v6's credentials file
  in the runner's temp folder named by `includeIf`) is unreadable to every kind of pull-request code: a python, an
  http and a command agent, and `install`; every mode is restored when the action ends.
- A link the pull request commits where the action writes (`.khaos/comment.md` → the runner's event payload,
  `.khaos/runs/<run>` → the runner's HOME, `.khaos` → the command-file folder) is an error naming it; nothing is
  written through it.
- `install` is bounded: a background process does not hold the action, `install-timeout` stops it, and the caps on
  all pull-request processes together (processes, memory, disk) hold, each overrun an exit-3 summary saying which.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import time

import pytest

from tests.container.runner import RUNNER_UID, not_owned_by, pull_request_event
from tests.container.test_image import LEAKY_AGENT, LEAKY_CONFIG
from tests.fixtures.checkout import CREDENTIALS_NAME, basic_credential, extraheader, persisted_v4, persisted_v6
from tests.github_api import TOKEN

pytestmark = [pytest.mark.container, pytest.mark.timeout(2400)]

# ---- credentials ------------------------------------------------------------------------------------------------

CRED_PROBE = r'''
"""Reads everything it can under /github (the workspace and the runner's folders) looking for the job's token;
writes what it found and what was refused to /hostile-out/<stage>.json."""
import json, os, sys

MARKERS = [m[::-1].encode() for m in json.loads(%(markers)r)]  # reversed here: this file holds none of them
EXPLICIT = ["/github/workspace/.git/config", "/github/runner_temp/%(credentials)s",
            "/github/runner_temp/_github_workflow/event.json", "/github/home/.gitconfig"]


def probe(stage):
    found, refused, read = [], [], 0
    paths = list(EXPLICIT)
    for top in ("/github", "/github/runner_temp"):
        for root, dirs, files in os.walk(top, onerror=lambda e: refused.append(e.filename)):
            paths += [os.path.join(root, name) for name in files]
    for path in paths:
        try:
            with open(path, "rb") as handle:
                data = handle.read(10_000_000)
        except OSError:
            refused.append(path)
            continue
        read += 1
        if any(marker in data for marker in MARKERS):
            found.append(path)
    with open(f"/hostile-out/{stage}.json", "w") as handle:
        json.dump({"stage": stage, "uid": os.getuid(), "found": sorted(set(found)), "refused": sorted(set(refused)),
                   "read": read}, handle)


if __name__ == "__main__":
    probe(sys.argv[1])
'''

PYTHON_AGENT = """\
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cred_probe

cred_probe.probe("agent-python")

def handle(prompt):
    return "fine: " + prompt
"""
HTTP_AGENT = """\
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
import cred_probe

cred_probe.probe("agent-http")

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"ok")
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        out = json.dumps({"output": "fine: " + body["input"]}).encode()
        self.send_response(200); self.send_header("content-type", "application/json"); self.end_headers()
        self.wfile.write(out)
    def log_message(self, *args):
        pass

HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
"""
COMMAND_AGENT = """\
import json, sys
import cred_probe

cred_probe.probe("agent-command")
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "reset":
        print(json.dumps({"type": "reset", "ok": True}), flush=True)
        continue
    print(json.dumps({"id": msg["id"], "output": "fine: " + msg["input"]}), flush=True)
"""
CONFIG_TAIL = """\
  timeout_s: 20
concurrency: 1
golden_prompts: ["hello", "where is my order"]
chaos_matrix: [{name: no-chaos}]
contract:
  name: c
  invariants: [{id: answers, type: output_not_empty, severity: critical}]
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def agent_files(kind: str) -> dict[str, str]:
    if kind == "python":
        return {"agent.py": PYTHON_AGENT,
                "khaos.yaml": "version: 1\nagent:\n  name: creds-bot\n  type: python\n  entry: agent.py:handle\n"
                + CONFIG_TAIL}
    if kind == "http":
        port = free_port()
        return {"server.py": HTTP_AGENT,
                "khaos.yaml": f"version: 1\nagent:\n  name: creds-bot\n  type: http\n"
                              f"  url: http://127.0.0.1:{port}/chat\n  start: python server.py {port}\n"
                              f"  ready_url: http://127.0.0.1:{port}/health\n"
                              '  request: {input: "{{input}}"}\n  response_path: output\n' + CONFIG_TAIL}
    return {"cmd_agent.py": COMMAND_AGENT,
            "khaos.yaml": "version: 1\nagent:\n  name: creds-bot\n  type: command\n  command: python cmd_agent.py\n"
            + CONFIG_TAIL}


def modes(*paths) -> dict[str, int]:
    return {str(p): stat.S_IMODE(p.stat().st_mode) for p in paths}


@pytest.mark.parametrize("kind", ["python", "http", "command"])
def test_the_checkouts_persisted_token_is_unreadable_to_every_kind_of_pull_request_code(job, image, tmp_path,
                                                                                       kind) -> None:
    out = tmp_path / "hostile-out"
    out.mkdir()
    os.chmod(out, 0o1777)
    job.extra_mounts.append(f"{out}:/hostile-out")
    # Both of checkout's formats at once: v4's header in .git/config of the workspace, and v6's credentials file in
    # the runner's temp folder (/github/runner_temp in the container) that a nested checkout's config includes.
    (job.workspace / ".git").mkdir()
    (job.workspace / ".git" / "config").write_text(persisted_v4(TOKEN))
    (job.temp / CREDENTIALS_NAME).write_text(extraheader(TOKEN))
    (job.workspace / "lib" / ".git").mkdir(parents=True)
    (job.workspace / "lib" / ".git" / "config").write_text(persisted_v6(str(job.workspace / "lib"), str(job.temp)))
    for path in (job.workspace / ".git" / "config", job.temp / CREDENTIALS_NAME, job.workspace / "lib/.git/config"):
        os.chmod(path, 0o644)  # as checkout leaves them
    markers = [TOKEN, basic_credential(TOKEN), "extraheader"]
    job.write("cred_probe.py", CRED_PROBE % {"markers": json.dumps([m[::-1] for m in markers]),
                                             "credentials": CREDENTIALS_NAME})
    for name, text in agent_files(kind).items():
        job.write(name, text)
    watched = [job.workspace / ".git" / "config", job.temp / CREDENTIALS_NAME, job.workspace / "lib/.git/config",
               job.temp, job.home, job.workflow, job.file_commands]
    before = modes(*watched)

    # `sleep & echo` also checks that a background process of install's does not hold the action.
    proc = job.run(image, install="python cred_probe.py install && (sleep 100000 & echo started)", timeout=1200)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    reports = {r["stage"]: r for r in (json.loads(p.read_text()) for p in out.glob("*.json"))}
    assert set(reports) == {"install", f"agent-{kind}"}, (sorted(reports), log[-3000:])
    for stage, report in reports.items():
        assert report["uid"] not in (0, RUNNER_UID), stage
        assert report["found"] == [], f"{stage} read the token in {report['found']}"
        assert report["read"] >= 3, report  # it did read the pull request's own files
        assert "/github/workspace/.git/config" in report["refused"], report["refused"]
    assert "the workspace held credentials pull-request code could read (.git/config" in proc.stdout
    assert "persist-credentials: false" in proc.stdout
    assert modes(*watched) == before  # restored when the action ended
    assert not_owned_by(job.workspace) == []
    assert TOKEN not in log.replace(f"::add-mask::{TOKEN}", "")


# ---- links ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("link", "target", "fork"), [
    (".khaos/comment.md", "../../../github/workflow/event.json", True),
    (".khaos/runs/github-4242", "/github/home", False),
    (".khaos", "/github/file_commands", False),
])
def test_a_committed_link_where_the_action_writes_is_refused_naming_it(job, image, link, target, fork) -> None:
    job.demo()
    if fork:
        job.event = pull_request_event(head_repo="someone/r")
    (job.workspace / link).parent.mkdir(parents=True, exist_ok=True)
    (job.workspace / link).symlink_to(target)
    (job.home / ".bashrc").write_text("# the runner's\n")
    event = json.dumps(job.event)

    proc = job.run(image)
    assert proc.returncode == 3, proc.stdout[-4000:]
    assert f"::error::cannot write {link}: it is a symbolic link (to {target})" in proc.stdout
    assert "no verdict" in job.summary() and job.outputs()["passed"] == "false"
    # Nothing written through it: the event payload, the runner's HOME and the command-file folder are as they were.
    assert (job.workflow / "event.json").read_text() == event
    assert [p.name for p in job.home.iterdir()] == [".bashrc"]
    assert (job.home / ".bashrc").read_text() == "# the runner's\n"
    assert sorted(p.name for p in job.file_commands.iterdir()) == sorted(
        job.command_file(kind).name for kind in ("set_output", "step_summary", "set_env", "add_path", "save_state"))
    for folder in (job.home, job.workflow, job.file_commands):
        assert not_owned_by(folder) == [], folder
    assert not_owned_by(job.workspace) == []
    assert (job.workspace / link).is_symlink()


def test_outputs_are_workspace_paths_the_next_step_reads(job, image) -> None:
    job.write("khaos.yaml", LEAKY_CONFIG)
    job.write("agent.py", LEAKY_AGENT)
    proc = job.run(image)
    assert proc.returncode == 1, proc.stdout[-3000:]
    outputs = job.outputs()
    for name in ("report-path", "junit-path", "sarif-path", "manifest-path"):
        assert not outputs[name].startswith("/") and (job.workspace / outputs[name]).is_file(), (name, outputs)


# ---- install's bounds -------------------------------------------------------------------------------------------

def test_an_install_past_install_timeout_is_stopped_with_an_exit_3_summary(job, image) -> None:
    job.demo()
    started = time.monotonic()
    proc = job.run(image, install="echo resolving; sleep 100000", **{"install-timeout": "5"})
    assert proc.returncode == 3, proc.stdout[-4000:]
    assert "::error::the `install` command did not finish within 5 s (input `install-timeout`)" in proc.stdout
    summary = job.summary()
    assert "no verdict" in summary and "install-timeout" in summary and "resolving" in summary
    assert time.monotonic() - started < 600
    assert not_owned_by(job.workspace) == []


HOG = """\
import json, os, sys, time

def fork_many(n):
    started = []
    for _ in range(n):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        started.append(pid)
    return started

what = sys.argv[1]
if what == "processes":
    pids = fork_many(300)
    json.dump({"started": len(pids)}, open("/hostile-out/processes.json", "w"))
    for pid in pids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
elif what == "memory":  # two children, each under the per-process limit, together over the cap
    for _ in range(2):
        if os.fork() == 0:
            block = b"x" * (700 * 1024 * 1024)
            time.sleep(120)
            os._exit(0)
    time.sleep(120)
elif what == "disk":  # files each under the per-file limit, together over the cap
    for i in range(6):
        with open(f"/tmp/fill-{i}", "wb") as handle:
            for _ in range(200):
                handle.write(b"x" * (1024 * 1024))
                handle.flush()
    time.sleep(120)
"""


@pytest.mark.parametrize(("what", "inputs", "said"), [
    ("memory", {"max-memory-mb": "1024"}, "used"),
    ("disk", {"max-disk-mb": "512"}, "wrote"),
])
def test_the_cap_on_all_pull_request_processes_together_stops_install(job, image, tmp_path, what, inputs,
                                                                    said) -> None:
    out = tmp_path / "hostile-out"
    out.mkdir()
    os.chmod(out, 0o1777)
    job.extra_mounts.append(f"{out}:/hostile-out")
    job.demo()
    job.write("hog.py", HOG)
    install = f"python hog.py processes; python hog.py {what}"
    proc = job.run(image, install=install, **{"max-processes": "64", **inputs})
    assert proc.returncode == 3, proc.stdout[-4000:]
    cap = inputs[f"max-{what}-mb"]
    assert re.search(rf"::error::the `install` command was stopped: pull-request code {said} \d+ MiB of {what} in "
                     rf"all, over its cap of {cap} MiB \(input `max-{what}-mb`\)", proc.stdout), proc.stdout[-3000:]
    assert f"max-{what}-mb" in job.summary()
    # Processes: the kernel refused forks past the agent user's RLIMIT_NPROC (threads count too).
    started = json.loads((out / "processes.json").read_text())["started"]
    assert 0 < started < 64, started
