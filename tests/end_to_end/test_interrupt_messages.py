"""Ctrl-C says what the interrupted command left behind: only a run (`run`, `demo`, `contract run/score`) has an
events.jsonl of finished cases, and says how many (or that none had finished). Each command is stopped by a real
SIGINT while it waits (an agent or extension importing slowly, a manifest or source file that is a FIFO nobody
writes) and exits 130 with its own message."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from khaos_action.commands import writing
from khaos_action.errors import Interrupted

SHARDS = Path(__file__).resolve().parent.parent / "fixtures" / "manifests" / "v2"

SLOW_IMPORT = '''
import os, time
from pathlib import Path

Path(os.environ["SLOW_MARKER"]).write_text(str(os.getpid()))  # the test interrupts from here on
time.sleep(60)


def handle(message: str) -> str:
    return message
'''

CONFIG = """\
version: 1
agent: {name: slow, entry: agent.py:handle}
golden_prompts: ["hello"]
contract:
  name: c
  invariants: [{id: answers, type: output_not_empty, severity: critical}]
chaos_matrix: [{name: no-chaos}]
"""


def _start(ws: Path, *args: str) -> subprocess.Popen:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    environ["SLOW_MARKER"] = str(ws / "importing")
    return subprocess.Popen([sys.executable, "-m", "khaos_action.cli", *args], cwd=ws, env=environ,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _interrupt_when(process: subprocess.Popen, ready: Callable[[], bool]) -> tuple[str, str]:
    """SIGINT (what Ctrl-C or a cancelled CI job sends) once `ready()`; the command's stdout and stderr."""
    try:
        deadline = time.monotonic() + 60
        while not ready() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.02)
        assert process.poll() is None, process.communicate()
        assert ready(), "the command never reached the point to interrupt"
        time.sleep(0.1)  # it is blocked there (the import sleeps, the FIFO stays empty)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "events.jsonl" not in stderr, stderr
    return stdout, stderr


def _fifo_opened(fifo: Path, holder: list[int]) -> Callable[[], bool]:
    """True once the command opened `fifo` to read (its write end is then held open, empty, so the read waits)."""
    def ready() -> bool:
        if holder:
            return True
        try:
            holder.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            return False
        return True
    return ready


def _with_fifo(ws: Path, name: str, *args: str) -> str:
    fifo = ws / name
    os.mkfifo(fifo)
    holder: list[int] = []
    try:
        _, stderr = _interrupt_when(_start(ws, *args), _fifo_opened(fifo, holder))
    finally:
        for fd in holder:
            os.close(fd)
    return stderr


@pytest.mark.parametrize("existing", [False, True])
def test_init_interrupted_while_importing_the_agent_wrote_nothing(tmp_path: Path, existing: bool) -> None:
    (tmp_path / "agent.py").write_text(SLOW_IMPORT)
    if existing:
        (tmp_path / "khaos.yaml").write_text("# mine\n")
    marker = tmp_path / "importing"
    _, stderr = _interrupt_when(_start(tmp_path, "init", "--entry", "agent.py:handle", *["--force"] * existing),
                                marker.exists)
    kept = " (the file already there is as it was)" if existing else ""
    assert f"init interrupted: khaos.yaml was not written{kept}; run it again" in stderr, stderr
    assert (tmp_path / "khaos.yaml").read_text() == "# mine\n" if existing else not (tmp_path / "khaos.yaml").exists()
    worker = int(marker.read_text())  # the sandboxed worker importing the agent was ended with init
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)


def test_validate_interrupted_while_importing_the_agent_says_it_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(SLOW_IMPORT)
    (tmp_path / "khaos.yaml").write_text(CONFIG)
    _, stderr = _interrupt_when(_start(tmp_path, "validate"), (tmp_path / "importing").exists)
    assert "validate interrupted; it writes no files: run it again" in stderr, stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.py", "importing", "khaos.yaml"]


@pytest.mark.parametrize("command", [("run",), ("contract", "run")])
def test_a_run_interrupted_before_any_case_finished_says_so(tmp_path: Path, command: tuple[str, ...]) -> None:
    """Not "finished cases are in events.jsonl" when none has: the agent is still importing in its worker."""
    (tmp_path / "agent.py").write_text(SLOW_IMPORT)
    (tmp_path / "khaos.yaml").write_text(CONFIG)
    _, stderr = _interrupt_when(_start(tmp_path, *command, "--out", "out"), (tmp_path / "importing").exists)
    assert "interrupted before any case finished: no results in out" in stderr, stderr
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_contract_validate_interrupted_says_it_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "slow_ext.py").write_text(SLOW_IMPORT)  # an extension is imported in our process, and waits
    (tmp_path / "khaos.yaml").write_text(CONFIG)
    _, stderr = _interrupt_when(_start(tmp_path, "contract", "validate", "--extension", "slow_ext.py"),
                                (tmp_path / "importing").exists)
    assert "contract validate interrupted; it writes no files: run it again" in stderr, stderr


def test_compare_interrupted_says_it_writes_nothing(tmp_path: Path) -> None:
    stderr = _with_fifo(tmp_path, "head.json", "compare", str(SHARDS / "shard1.json"), "head.json")
    assert "compare interrupted; it writes no files: run it again" in stderr, stderr


def test_discover_interrupted_says_it_writes_nothing(tmp_path: Path) -> None:
    stderr = _with_fifo(tmp_path, "agent.py", "discover", ".")
    assert "discover interrupted; it writes no files: run it again" in stderr, stderr


def test_replay_export_interrupted_names_the_file_it_did_not_write(tmp_path: Path) -> None:
    stderr = _with_fifo(tmp_path, "manifest.json", "replay", "export", "manifest.json", "-o", "sessions.jsonl")
    assert "replay export interrupted: sessions.jsonl was not written; run it again" in stderr, stderr
    assert not (tmp_path / "sessions.jsonl").exists()


def test_replay_export_to_stdout_interrupted_says_its_output_is_incomplete(tmp_path: Path) -> None:
    stderr = _with_fifo(tmp_path, "manifest.json", "replay", "export", "manifest.json")
    assert "replay export interrupted: the sessions it printed (if any) are incomplete; run it again" in stderr


def test_merge_interrupted_while_loading_an_extension_wrote_nothing(tmp_path: Path) -> None:
    (tmp_path / "slow_ext.py").write_text(SLOW_IMPORT)
    _, stderr = _interrupt_when(
        _start(tmp_path, "merge", str(SHARDS / "shard1.json"), str(SHARDS / "shard2.json"), "--extension",
               "slow_ext.py", "--out", "merged"), (tmp_path / "importing").exists)
    assert "merge interrupted: nothing was written to merged; run merge again" in stderr, stderr
    assert not (tmp_path / "merged").exists()


def test_an_interrupt_after_the_file_was_written_says_so(tmp_path: Path) -> None:
    """The window between the rename into place and the command's end is too short to hit with a signal: the
    context that words the message, on its own."""
    target = tmp_path / "khaos.yaml"
    with pytest.raises(Interrupted) as raised, writing(target, "init"):
        target.write_text(json.dumps({"written": True}))
        raise KeyboardInterrupt
    assert str(raised.value) == f"init interrupted after it wrote {target}"
    with pytest.raises(Interrupted) as raised, writing(target, "init"):
        raise KeyboardInterrupt
    assert str(raised.value) == f"init interrupted: {target} was not written (the file already there is as it " \
                                "was); run it again"


def test_a_run_counts_the_cases_its_events_jsonl_kept(tmp_path: Path) -> None:
    """The context that words a run's message, on its own: an events.jsonl left by an earlier run is not this run's
    (a run rewrites it when its agent session starts)."""
    from khaos_action.engine.events import keeping_cases

    events = tmp_path / "events.jsonl"
    events.write_text('{"case": "earlier"}\n')
    with pytest.raises(Interrupted) as raised, keeping_cases(tmp_path):
        raise KeyboardInterrupt
    assert str(raised.value) == f"interrupted before any case finished: no results in {tmp_path}"
    for lines, said in ((1, "the 1 case that finished is"), (3, "the 3 cases that finished are")):
        with pytest.raises(Interrupted) as raised, keeping_cases(tmp_path):
            events.unlink()
            events.write_text('{"case": 1}\n' * lines)
            raise KeyboardInterrupt
        assert str(raised.value) == f"interrupted; {said} in {events}"
