"""Write the run's files from the manifest: manifest.json always, then the requested report formats (the format
registry, khaos_action/reporters.py, says which file and which renderer each one has)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from khaos_action.atomic import atomic_file, make_dirs, write_atomic
from khaos_action.manifest import CaseResult, Manifest
from khaos_action.report.kept import kept_note
from khaos_action.reporters import REPORTERS


def write_all(manifest: Manifest, out_dir: Path, formats: Sequence[str], *, fork: bool = False) -> dict[str, Path]:
    """manifest.json first (every report can be rebuilt from it), then each report; each file whole or absent.
    A write that fails (disk full, `ulimit -f`, permission) is an OutputError (exit 3) saying which files were kept.

    `fork`: render part of the reports in a forked child while this process writes the rest. The files, the errors
    and which files a failure keeps are the same either way."""
    _make(out_dir)
    kinds = [kind for kind in dict.fromkeys(formats) if kind != "json"]
    if fork and hasattr(os, "fork") and kinds:
        from khaos_action.report.forked_writer import write_forked

        child_kinds = kinds[:-1] if len(kinds) > 2 else kinds  # this process writes manifest.json and the last report
        return write_forked(lambda: manifest.cases, lambda: manifest, out_dir, kinds, child_kinds)[1]
    written = {"json": out_dir / REPORTERS["json"].file}
    manifest.write(written["json"], kept=kept_note(out_dir, []))
    for kind in kinds:
        reporter = REPORTERS[kind]
        path = out_dir / reporter.file
        kept = kept_note(out_dir, list(written.values()))
        rendered = reporter.renderer()(manifest)
        if isinstance(rendered, str):
            write_atomic(path, rendered, kept=kept)
        else:  # chunks (a large run's junit.xml), written as they come
            with atomic_file(path, kept=kept) as out:
                for chunk in rendered:
                    out.write(chunk.encode("utf-8", "replace"))
        written[kind] = path
    return written


def write_scored(cases: Callable[[], list[CaseResult]], score: Callable[[], Manifest], out_dir: Path,
                 formats: Sequence[str]) -> tuple[Manifest, dict[str, Path]]:
    """What `write_all` writes, for the manifest `score()` builds: a child forked first makes its cases again
    (`cases()`, the same cases `score()` makes here) and writes out what needs the cases alone (manifest.json's
    cases, junit.xml's testcases) while this process makes and scores them, then finishes those files with the
    manifest this process sends it; this process writes the other reports. The two processes share nothing but
    what existed at the fork: sharing the cases copy-on-write cost the child a page fault per case or so, and it
    waited for the loading to end. Without fork, or with one core, everything is done here, once."""
    _make(out_dir)
    if not hasattr(os, "fork") or _cores() < 2:
        manifest = score()
        return manifest, write_all(manifest, out_dir, formats)
    from khaos_action.report.forked_writer import TWO_STEPS, write_forked

    kinds = [kind for kind in dict.fromkeys(formats) if kind != "json"]
    child_kinds = ["json", *(kind for kind in kinds if kind in TWO_STEPS)]
    return write_forked(cases, score, out_dir, kinds, child_kinds)


def _cores() -> int:
    """The cores this process may run on (a container's cpuset, `taskset`), not the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _make(out_dir: Path) -> None:
    make_dirs(out_dir)
