"""An interrupted `merge` says what it wrote and what it did not (it has no events.jsonl of its own)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from khaos_action.report.merge import _interrupted
from tests.signed import signed_copy

SHARDS = Path(__file__).resolve().parent.parent / "fixtures" / "manifests" / "v2"

SLOW_FORMAT = '''
import os, time
from pathlib import Path
from khaos_action.reporters import register_reporter

@register_reporter("slow", file="slow.txt", summary="a report that takes its time")
def render(manifest):
    Path(os.environ["SLOW_MARKER"]).touch()  # the test interrupts merge from here on
    time.sleep(60)
    return "never"
'''


def _merge(ws: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    environ.update(env or {})
    return subprocess.Popen([sys.executable, "-m", "khaos_action.cli", "merge", *args, "--out", "merged"], cwd=ws,
                            env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _interrupt(process: subprocess.Popen) -> str:
    process.send_signal(signal.SIGINT)  # what Ctrl-C (or a cancelled CI job) sends
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "events.jsonl" not in stderr, stderr
    return stderr


def test_merge_interrupted_while_reading_a_shard_wrote_nothing(tmp_path) -> None:
    (tmp_path / "merged").mkdir()
    earlier = tmp_path / "merged" / "report.md"
    earlier.write_text("an earlier merge's report\n")
    fifo = tmp_path / "shard2.json"
    os.mkfifo(fifo)
    process = _merge(tmp_path, str(SHARDS / "shard1.json"), str(fifo))
    try:
        with open(fifo, "w"):  # opens once merge opened it to read: merge is now waiting for the shard's bytes
            stderr = _interrupt(process)
    finally:
        process.kill()
    assert "merge interrupted: nothing was written to merged (the files already there are as they were); run " \
           "merge again" in stderr
    assert earlier.read_text() == "an earlier merge's report\n"
    assert sorted(p.name for p in (tmp_path / "merged").iterdir()) == ["report.md"]


def test_merge_interrupted_while_writing_reports_leaves_no_file_half_written(tmp_path) -> None:
    (tmp_path / "slow.py").write_text(SLOW_FORMAT)
    marker = tmp_path / "rendering"
    shards = [signed_copy(SHARDS / name, tmp_path) for name in ("shard1.json", "shard2.json")]  # written unsigned
    process = _merge(tmp_path, *map(str, shards), "--extension", "slow.py",
                     "--format", "md,junit,slow", env={"SLOW_MARKER": str(marker)})
    try:
        deadline = time.monotonic() + 30
        while not marker.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.02)
        assert marker.exists(), process.communicate()
        stderr = _interrupt(process)
    finally:
        process.kill()
    # every file is staged first and renamed into place at the end: an interrupt before that leaves none of them
    assert "merge interrupted: nothing was written to merged; run merge again" in stderr
    assert list((tmp_path / "merged").iterdir()) == []


def test_the_message_names_what_merge_wrote_and_what_it_did_not(tmp_path) -> None:
    before = {"manifest.json": (1, 10), "report.md": None, "junit.xml": None}
    assert _interrupted(tmp_path, before, {"manifest.json": (7, 20), "report.md": (8, 21), "junit.xml": None}) == (
        f"merge interrupted: wrote manifest.json, report.md in {tmp_path} but not junit.xml; run merge again for "
        f"the whole set")
    assert _interrupted(tmp_path, before, {**before, "junit.xml": (9, 22)}).startswith(
        "merge interrupted: wrote junit.xml in")
    assert _interrupted(tmp_path, before, {"manifest.json": (2, 2), "report.md": (3, 3), "junit.xml": (4, 4)}) == (
        f"merge interrupted after it wrote every file (manifest.json, report.md, junit.xml in {tmp_path})")
