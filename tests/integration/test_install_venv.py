"""`install` runs in a venv of its own and the python agent's worker runs with that venv's interpreter: what the
user installs (here a `pydantic==1.10.13` stand-in that cannot even be imported) changes the agent's environment,
never the action's, and the run still reaches its verdict."""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pydantic
import pytest

from khaos_action.engine.install import run_install
from khaos_action.engine.worker.start import PYTHON_ENV
from tests.fixtures.cli.harness import khaos, manifest

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

HOSTILE = Path(__file__).resolve().parent.parent / "fixtures" / "hostile"
STAND_IN = '''raise ImportError("the user's pydantic==1.10.13 stand-in: the action must never import it")\n'''


def stand_in_wheel(folder: Path) -> Path:
    """A wheel named pydantic 1.10.13 whose module cannot be imported (built by hand: no index, no build step)."""
    path = folder / "pydantic-1.10.13-py3-none-any.whl"
    info = "pydantic-1.10.13.dist-info"
    files = {"pydantic/__init__.py": STAND_IN,
             f"{info}/METADATA": "Metadata-Version: 2.1\nName: pydantic\nVersion: 1.10.13\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: khaos-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
    return path


CONFIG = """\
version: 1
agent: {name: venv-agent, entry: venv_agent.py:handle}
golden_prompts: ["hello"]
contract:
  name: venv-contract
  invariants: [{id: answers, type: output_not_empty, severity: critical}]
chaos_matrix:
  - {name: no-chaos}
  # A case with faults makes the worker import the fault machinery, and pydantic under it, after the agent's own
  # packages come first: it must still be the action's pydantic.
  - {name: llm-down, llm_faults: [{mode: model_unavailable}]}
"""


def test_install_goes_to_the_agents_venv_and_the_agent_runs_there_on_the_actions_own_packages(tmp_path: Path) -> None:
    lines: list[str] = []
    venv = tmp_path / "venv"
    done = run_install(f"pip install --no-index {stand_in_wheel(tmp_path)}", str(tmp_path), venv=venv,
                       environ=dict(os.environ), echo=lines.append)
    assert done.code == 0, "\n".join(lines)
    assert done.python == str(venv / "bin" / "python")
    installed = subprocess.run([done.python, "-c", "import importlib.metadata as m; print(m.version('pydantic'))"],
                               capture_output=True, text=True, check=True)
    assert installed.stdout.strip() == "1.10.13"
    assert pydantic.VERSION.startswith("2")  # the action's interpreter is untouched

    (tmp_path / "venv_agent.py").write_text((HOSTILE / "venv_agent.py").read_text(), encoding="utf-8")
    (tmp_path / "khaos.yaml").write_text(CONFIG, encoding="utf-8")
    ran = khaos("contract", "run", "--out", "out", cwd=tmp_path, env={PYTHON_ENV: done.python}, timeout=120)
    assert ran.code == 0, ran
    cases = manifest(tmp_path / "out")["cases"]
    assert cases and all(case["output"] == f"prefix={venv}" for case in cases), cases


def test_a_failing_install_returns_its_exit_code_and_last_lines(tmp_path: Path) -> None:
    command = "for i in $(seq 1 30); do echo line-$i; done; echo oops >&2; exit 7"
    done = run_install(command, str(tmp_path), venv=tmp_path / "venv", environ=dict(os.environ))
    assert done.code == 7
    assert done.tail[-3:] == ["line-29", "line-30", "oops"] and len(done.tail) == 20


def gone(pid: int, within_s: float = 10.0) -> bool:
    """The process ended (a zombie not yet reaped by its parent counts as ended)."""
    import time

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


def test_a_background_process_holding_the_output_does_not_hold_the_install(tmp_path: Path) -> None:
    """`sleep 100000 & echo started`: read until the command exits, not until every descendant closes the pipe;
    what it left running is ended with stop_group (the action's end)."""
    import time

    from khaos_action.engine.install import stop_group

    lines: list[str] = []
    started = time.monotonic()
    done = run_install("sleep 100000 & echo $! > sleeper.pid; echo started", str(tmp_path), venv=tmp_path / "venv",
                       environ=dict(os.environ), echo=lines.append, timeout_s=120)
    assert done.code == 0 and lines == ["started"] and done.tail == ["started"]
    assert time.monotonic() - started < 60  # the venv's creation, not the sleep
    sleeper = int((tmp_path / "sleeper.pid").read_text())
    assert not gone(sleeper, within_s=0.2)  # still running: a server it started may be what the agent needs
    stop_group(done.pgid)
    assert gone(sleeper)


def test_an_install_past_its_time_limit_is_stopped_with_everything_it_started(tmp_path: Path) -> None:
    lines: list[str] = []
    done = run_install("sleep 100000 & echo $! > sleeper.pid; echo working; sleep 100000", str(tmp_path),
                       venv=tmp_path / "venv", environ=dict(os.environ), echo=lines.append, timeout_s=1.5)
    assert done.timed_out and done.code is None and done.tail == ["working"]
    assert gone(int((tmp_path / "sleeper.pid").read_text()))


def test_an_install_gets_the_agents_rlimits(tmp_path: Path) -> None:
    from khaos_action.engine.sandbox import Limits

    lines: list[str] = []
    done = run_install("ulimit -v; ulimit -n; ulimit -f", str(tmp_path), venv=tmp_path / "venv",
                       environ=dict(os.environ), echo=lines.append,
                       limits=Limits(memory_bytes=2048 * 1024 * 1024, open_files=512, file_size_bytes=1024 * 1024))
    assert done.code == 0 and lines == [str(2048 * 1024), "512", "2048"]  # KiB, -, 512-byte blocks
