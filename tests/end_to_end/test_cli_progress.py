"""A run shows its progress while it works, on stderr only: plain lines when stderr is no terminal (CI, the action),
a live bar on a terminal, nothing with --quiet. stdout (the summary) never carries any of it, and the progress
never carries agent text."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from tests.builders import write_project
from tests.fixtures.cli.harness import khaos

AGENT = '''
import time


def handle(message: str) -> str:
    time.sleep(3.2)
    return f"ZEBRA-REPLY: restock {message} before Friday's delivery window."
'''

PACK = """\
name: pantry
version: "1"
description: the agent's everyday requests
phases:
  - type: baseline
"""

CONFIG = """\
version: 1
agent: {name: pantry-planner, entry: pantry.py:handle, timeout_s: 20}
concurrency: 1
packs: [pack.yaml]
golden_prompts: ["oat milk", "basmati rice", "red lentils", "coffee beans"]
"""


def _project(tmp_path: Path) -> Path:
    return write_project(tmp_path, CONFIG, {"pantry.py": AGENT, "pack.yaml": PACK}).parent


def test_without_a_terminal_a_plain_line_every_few_seconds_on_stderr_only(tmp_path: Path) -> None:
    ran = khaos("run", "--out", "out", cwd=_project(tmp_path), timeout=120)
    assert ran.code == 0, ran
    lines = ran.stderr.splitlines()
    assert lines and all(line.startswith("khaos-action: ") and " cases · baseline " in line for line in lines), ran
    assert any(" failed · " in line and "elapsed" in line for line in lines)
    assert "ZEBRA" not in ran.stderr  # counts only: never the agent's text
    assert ran.stdout.startswith("PASSED") and "khaos-action: " not in ran.stdout


def test_quiet_shows_nothing(tmp_path: Path) -> None:
    ran = khaos("run", "--out", "out", "--quiet", cwd=_project(tmp_path), timeout=120)
    assert ran.code == 0 and ran.stderr == "", ran


def test_on_a_terminal_a_live_bar_that_never_reaches_stdout(tmp_path: Path) -> None:
    ws = _project(tmp_path)
    (ws / "khaos.yaml").write_text(CONFIG.replace('"red lentils", "coffee beans"', ""), encoding="utf-8")
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))  # a terminal of 120 columns
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    proc = subprocess.Popen([sys.executable, "-m", "khaos_action.cli", "run", "--out", "out"], cwd=ws, env=environ,
                            stdout=subprocess.PIPE, stderr=follower, text=True)
    os.close(follower)
    drawn = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the run
            break
        if not chunk:
            break
        drawn += chunk
    stdout = proc.stdout.read()
    assert proc.wait(timeout=120) == 0, stdout
    os.close(leader)
    screen = drawn.decode("utf-8", "replace")
    assert "khaos-action: baseline" in screen and "cases" in screen and "%|" in screen, screen
    assert "ZEBRA" not in screen
    assert stdout.startswith("PASSED") and "%|" not in stdout and "\r" not in stdout
