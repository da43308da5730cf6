"""A run starts its python worker's zygote before it validates its config (engine/transport/early.py). No
process outlives the run, whatever ends it after that start: a config or environment error, an agent that does not
import, Ctrl-C while our process still imports an extension (the zygote not adopted yet) or while the agent runs
(adopted). The CLI runs as a user would; what is left is looked for in /proc: every process the run started works in
the run's folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.builders import write_project
from tests.fixtures.cli.harness import khaos, manifest

AGENT = """
import os, time
from pathlib import Path


def handle(text: str) -> str:
    if text == "wait":
        Path("calling").write_text(str(os.getpid()))
        time.sleep(60)
    return f"parent {os.getppid()}"
"""

SLOW_EXTENSION = """
import os, time
from pathlib import Path

Path("importing").write_text(str(os.getpid()))
time.sleep(60)
"""


def config(prompt: str = "hello", invariant: str = "output_not_empty", entry: str = "agent.py:handle") -> str:
    return f"""\
version: 1
agent: {{name: a, entry: {entry}}}
golden_prompts: [{prompt!r}]
contract:
  name: c
  invariants: [{{id: answers, type: {invariant}, severity: critical}}]
chaos_matrix: [{{name: no-chaos}}]
"""


def left_in(folder: Path) -> list[str]:
    """Processes working in `folder` (the run's zygote and workers have it as their cwd), with their command."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and Path(os.readlink(entry / "cwd")) == folder.resolve():
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{entry.name}: {command[:200]}")
        except OSError:
            continue
    return found


def workspace(tmp_path: Path, text: str) -> Path:
    return write_project(tmp_path, text, {"agent.py": AGENT}).parent


def test_a_run_forks_its_agent_from_one_zygote_that_ends_with_it(tmp_path: Path) -> None:
    ran = khaos("contract", "run", "--out", "out", cwd=workspace(tmp_path, config()))
    assert ran.code == 0, ran
    parent = int(manifest(tmp_path / "out")["cases"][0]["output"].split()[1])
    assert parent != 0
    assert not Path(f"/proc/{parent}").exists()
    assert left_in(tmp_path) == []


@pytest.mark.parametrize(("text", "env", "code", "says"), [
    (config(invariant="no_such_checker"), {}, 2, "no_such_checker"),  # the config's models refuse it
    (config(), {"KHAOS_LLM_CACHE": "bogus"}, 2, "KHAOS_LLM_CACHE='bogus'"),  # the session refuses it
    (config(entry="broken.py:handle"), {}, 3, "khaos_cli_missing_dependency"),  # the agent does not import
], ids=["invalid config", "invalid environment", "agent import error"])
def test_a_run_that_fails_after_its_zygote_started_leaves_no_process(tmp_path: Path, text: str, env: dict,
                                                                      code: int, says: str) -> None:
    (tmp_path / "broken.py").write_text("import khaos_cli_missing_dependency\n", encoding="utf-8")
    ran = khaos("contract", "run", "--out", "out", cwd=workspace(tmp_path, text), env=env)
    assert ran.code == code and says in ran.stderr, ran
    assert left_in(tmp_path) == []


@pytest.mark.parametrize("when", ["importing", "calling"])
def test_ctrl_c_leaves_no_process(tmp_path: Path, when: str) -> None:
    # "importing": our process imports an extension (the zygote started, not adopted yet); "calling": the agent runs.
    workspace(tmp_path, config(prompt="wait"))
    (tmp_path / "slow_ext.py").write_text(SLOW_EXTENSION if when == "importing" else "", encoding="utf-8")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    process = subprocess.Popen([sys.executable, "-m", "khaos_action.cli", "contract", "run", "--out", "out",
                                "--extension", "slow_ext.py"], cwd=tmp_path, env=environ,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / when).exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.02)
        assert (tmp_path / when).exists(), process.communicate()
        assert [line for line in left_in(tmp_path) if "zygote" in line], "the zygote had started"
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert left_in(tmp_path) == []
