"""`merge` writes its reports from two processes: the directory ends as the one-process writer leaves it, whatever
fails and wherever (files whole or absent, the files before the failure kept, no temp file, no child left)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from khaos_action.manifest import AgentInfo, InvariantResult, Manifest, Scores
from khaos_action.report.writers import write_all
from khaos_action.reporters import REPORTERS, default_formats
from tests.builders import make_case, make_manifest

ORDER = ["manifest.json"] + [REPORTERS[k].file for k in default_formats() if k != "json"]


def shard(run_id: str, shard_name: str, first: int) -> Manifest:
    # many checks per case: junit.xml (a test case per check, each with the output) is then larger than
    # manifest.json, so a file size limit can stop the child's file first as well as the parent's
    cases = [make_case(f"c{i}", input=f"prompt {i}", scenario="s", output="reply " * 20, passed=i % 3 != 0,
                       invariants=[InvariantResult(id=f"invariant-{n}", severity="high", passed=i % 3 != 0 or n > 0)
                                   for n in range(8)])
             for i in range(first, first + 40)]
    return make_manifest(cases, run_id=run_id, tool_version="0", seed=1, config_hash="h", started_at="t0",
                         agent=AgentInfo(name="a", type="python"), scores=Scores(), shard=shard_name)


@pytest.fixture
def shards(tmp_path: Path) -> list[Path]:
    paths = []
    for index in (1, 2):
        path = tmp_path / f"shard{index}.json"
        shard(f"r-shard{index}", f"{index}/2", index * 100).write(path)
        paths.append(path)
    return paths


def merge_cli(shards: list[Path], out: Path, file_limit: int | None = None) -> subprocess.CompletedProcess:
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing the process
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run([sys.executable, "-m", "khaos_action.cli", "merge", *map(str, shards), "--out", str(out)],
                          capture_output=True, text=True, timeout=60, check=False,
                          preexec_fn=None if file_limit is None else limit)


def test_a_file_size_limit_keeps_the_files_before_the_first_too_big_one_as_one_process_would(shards, tmp_path):
    whole = tmp_path / "whole"
    assert merge_cli(shards, whole).returncode in (0, 1)
    sizes = {name: (whole / name).stat().st_size for name in ORDER}
    # one limit per file that can be the first too big one (written by the parent or by the child)
    limits = sorted({sizes[name] - 1 for name in ORDER if sizes[name] > 0})
    seen_first = set()
    for limit in limits:
        first_too_big = next(name for name in ORDER if sizes[name] > limit)
        seen_first.add(first_too_big)
        out = tmp_path / f"limit{limit}"
        done = merge_cli(shards, out, file_limit=limit)
        assert done.returncode == 3, done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
        kept = ORDER[:ORDER.index(first_too_big)]
        assert done.stderr.startswith(f"error: cannot write {out / first_too_big}: the file size limit"), done.stderr
        assert done.stderr.rstrip().endswith(
            f"{f'kept whole in {out}: ' + ', '.join(kept) if kept else 'nothing was written'}. Free space or fix "
            f"permissions and run again"), done.stderr
        assert sorted(os.listdir(out)) == sorted(kept)  # no temp file either
        for name in kept:
            assert (out / name).read_bytes() == (whole / name).read_bytes(), name
    assert {"manifest.json", "junit.xml", "report.html"} <= seen_first  # the parent's files and the child's


def test_a_bug_in_a_report_rendered_by_the_child_is_a_bug_report_with_its_traceback(tmp_path):
    # In a subprocess: the failing renderer is registered in the process-wide format registry.
    script = textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(Path(__file__).parents[2])!r}]  # shard(), tests.builders
        from test_report_writers_forked import shard
        from khaos_action.report.forked_writer import ReportProcessFailed
        from khaos_action.report.writers import write_all
        from khaos_action.reporters import register_reporter

        @register_reporter("boom", file="boom.txt", summary="fails")
        def boom(manifest):
            return str(1 / 0)

        out = Path({str(tmp_path / "out")!r})
        try:
            write_all(shard("r", "1/1", 0), out, ["md", "boom", "junit", "html"], fork=True)
        except ReportProcessFailed as exc:
            print(exc)
        try:
            os.waitpid(-1, os.WNOHANG)
            print("a child is left")
        except ChildProcessError:
            print("no child left")
        print(sorted(os.listdir(out)))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "rendering boom.txt failed in the child process" in done.stdout
    assert "ZeroDivisionError: division by zero" in done.stdout and ", in boom\n" in done.stdout
    assert "no child left" in done.stdout
    assert done.stdout.rstrip().endswith("['manifest.json', 'report.md']")


def children() -> set[int]:
    """This process's children, zombies included (pytest may have others of its own: a session's dockerd)."""
    return {int(pid) for task in Path("/proc/self/task").iterdir()
            for pid in (task / "children").read_text().split()}


def test_the_forked_writer_writes_the_same_bytes_as_one_process(tmp_path):
    manifest = shard("r", "1/1", 0)
    one = write_all(manifest, tmp_path / "one", default_formats())
    before = children()
    two = write_all(manifest, tmp_path / "two", default_formats(), fork=True)
    assert list(one) == list(two)
    for kind in one:
        assert one[kind].read_bytes() == two[kind].read_bytes(), kind
    assert sorted(os.listdir(tmp_path / "two")) == sorted(ORDER)
    assert children() == before  # the writer's child was reaped


def test_a_child_that_dies_is_exit_3_naming_its_files_and_the_files_before_them_are_kept(tmp_path):
    # The renderer kills the process it runs in (the child): an OOM kill or a stray SIGKILL, deterministically.
    script = textwrap.dedent(f"""
        import os, signal, sys
        from pathlib import Path
        sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(Path(__file__).parents[2])!r}]  # shard(), tests.builders
        from test_report_writers_forked import shard
        from khaos_action.errors import KhaosError
        from khaos_action.report.writers import write_all
        from khaos_action.reporters import register_reporter

        @register_reporter("die", file="die.txt", summary="dies")
        def die(manifest):
            os.kill(os.getpid(), signal.SIGKILL)

        out = Path({str(tmp_path / "out")!r})
        try:
            write_all(shard("r", "1/1", 0), out, ["md", "die", "junit", "html"], fork=True)
        except KhaosError as exc:
            print(int(exc.exit_code), exc)
        try:
            os.waitpid(-1, os.WNOHANG)
            print("a child is left")
        except ChildProcessError:
            print("no child left")
        print(sorted(os.listdir(out)))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    assert done.stdout.splitlines() == [
        f"3 cannot write {out}: the process writing report.md, die.txt, junit.xml was killed by signal 9; kept whole "
        f"in {out}: manifest.json",
        "no child left", "['manifest.json']"]
