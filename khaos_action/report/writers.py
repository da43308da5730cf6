"""Write the run's files from the manifest: manifest.json always, then the requested report formats (the format
registry, khaos_action/reporters.py, says which file and which renderer each one has)."""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from khaos_action.atomic import atomic_file, discard, fsync_dir, staged_file, temp_beside, write_atomic
from khaos_action.errors import KhaosError, OutputError, output_error
from khaos_action.manifest import Manifest
from khaos_action.reporters import REPORTERS


def write_all(manifest: Manifest, out_dir: Path, formats: Sequence[str], *, fork: bool = False) -> dict[str, Path]:
    """manifest.json first (every report can be rebuilt from it), then each report; each file whole or absent.
    A write that fails (disk full, `ulimit -f`, permission) is an OutputError (exit 3) saying which files were kept.

    `fork`: render part of the reports in a forked child while this process writes the rest (`merge` of large
    manifests: the second core). The files, the errors and which files a failure keeps are the same either way."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise output_error(out_dir, exc) from None
    if fork and hasattr(os, "fork") and any(kind != "json" for kind in formats):
        return _write_forked(manifest, out_dir, [kind for kind in dict.fromkeys(formats) if kind != "json"])
    written = {"json": out_dir / REPORTERS["json"].file}
    manifest.write(written["json"], kept=_kept(out_dir, []))
    for kind in formats:
        if kind == "json":
            continue
        reporter = REPORTERS[kind]
        path = out_dir / reporter.file
        kept = _kept(out_dir, list(written.values()))
        rendered = reporter.renderer()(manifest)
        if isinstance(rendered, str):
            write_atomic(path, rendered, kept=kept)
        else:  # chunks (junit.xml: 36 MB at 50k cases), written as they come
            with atomic_file(path, kept=kept) as out:
                for chunk in rendered:
                    out.write(chunk.encode("utf-8", "replace"))
        written[kind] = path
    return written


def _kept(out_dir: Path, written: list[Path]) -> str:
    names = ["events.jsonl"] if (out_dir / "events.jsonl").exists() else []
    names += [p.name for p in written]
    return f"kept whole in {out_dir}: {', '.join(names)}" if names else "nothing was written"


# ---- two processes ---------------------------------------------------------------------------------------------------
# Each file is staged (written and fsynced under a temp name) by whichever process renders it; this process then
# renames them in the order the sequential path writes them, and stops at the first file that failed, keeping the
# ones before it: the directory ends as it would have. The child is forked after the manifest is built, so it reads
# the same objects (copy-on-write) and sends back only what went wrong, never the manifest or a report.


class ReportProcessFailed(Exception):
    """A bug in a renderer that ran in the child: its traceback, shown by the error boundary like any bug's."""


def _write_forked(manifest: Manifest, out_dir: Path, kinds: list[str]) -> dict[str, Path]:
    order = ["json", *kinds]
    paths = {kind: out_dir / REPORTERS[kind].file for kind in order}
    temps = {kind: temp_beside(path) for kind, path in paths.items()}
    # This process writes manifest.json (0.3 s at 50k cases) and the last report (html, 0.2 s, by default); the
    # child the others (md, junit, sarif: 0.5 s). Measured per format in issue 19.
    theirs = kinds[:-1] if len(kinds) > 2 else kinds
    ours = [kind for kind in order if kind not in theirs]
    for kind in kinds:  # imported here, not in the child: no import can be half done in another thread at the fork
        REPORTERS[kind].renderer()
    read_end, write_end = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
        stream.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; its work is checked through the files the parent keeps
        _child(write_end, read_end, manifest, out_dir, order, theirs, paths, temps)
    os.close(write_end)
    done = False
    try:
        failures = {kind: _stage(kind, manifest, out_dir, order, paths, temps) for kind in ours}
        failures.update(_child_result(pid, read_end, theirs, paths, kept=_kept(
            out_dir, [paths[k] for k in order[:order.index(theirs[0])]])))
        done = True
    finally:
        os.close(read_end)
        if not done:  # interrupted or a bug here: the child must not outlive us, nor its files
            _end(pid)
            for temp in temps.values():
                discard(temp)
    return _commit(order, paths, temps, failures, out_dir)


def _stage(kind: str, manifest: Manifest, out_dir: Path, order: list[str], paths: dict[str, Path],
           temps: dict[str, Path]) -> BaseException | None:
    """Render `kind` into its temp file; what went wrong is returned (the earliest failure in `order` wins)."""
    kept = _kept(out_dir, [paths[k] for k in order[:order.index(kind)]])
    try:
        with staged_file(temps[kind]) as out:
            if kind == "json":
                manifest.write_to(out)
            else:
                rendered = REPORTERS[kind].renderer()(manifest)
                for chunk in [rendered] if isinstance(rendered, str) else rendered:
                    out.write(chunk.encode("utf-8", "replace"))
    except OSError as exc:
        return output_error(paths[kind], exc, kept=kept)
    except Exception as exc:  # noqa: BLE001 - raised by the parent once the files before it are in place
        return exc
    return None


def _child(write_end: int, read_end: int, manifest: Manifest, out_dir: Path, order: list[str], theirs: list[str],
           paths: dict[str, Path], temps: dict[str, Path]) -> None:  # pragma: no cover - runs in the forked child
    code = 1
    try:
        os.close(read_end)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C reaches the whole group: the parent reports it
        failures = {}
        for kind in theirs:
            failure = _stage(kind, manifest, out_dir, order, paths, temps)
            if failure is not None:
                failures[kind] = _portable(failure)
                break  # what follows would be discarded: the parent keeps only the files before a failure
        data = pickle.dumps(failures)
        while data:
            data = data[os.write(write_end, data):]
        code = 0
    finally:
        os._exit(code)  # no atexit, no buffers flushed twice, no interpreter teardown


def _portable(exc: BaseException) -> tuple[str, object]:
    if isinstance(exc, KhaosError):
        return "error", (type(exc).exit_code, str(exc))
    import traceback

    return "bug", "".join(traceback.format_exception(exc))


def _child_result(pid: int, read_end: int, theirs: list[str], paths: dict[str, Path], *,
                  kept: str) -> dict[str, BaseException]:
    """What went wrong in the child, by file; `kept`: what survives if the child itself died."""
    chunks = []
    while chunk := os.read(read_end, 1 << 16):
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        code = os.waitstatus_to_exitcode(status)
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        names = ", ".join(paths[kind].name for kind in theirs)
        return {theirs[0]: OutputError(f"cannot write {paths[theirs[0]].parent}: the process writing {names} {how}; "
                                       f"{kept}")}
    failures: dict[str, BaseException] = {}
    for kind, (what, detail) in pickle.loads(b"".join(chunks)).items():
        if what == "error":
            exit_code, message = detail
            failures[kind] = error = KhaosError(message)
            error.exit_code = exit_code
        else:
            failures[kind] = ReportProcessFailed(f"rendering {paths[kind].name} failed in the child process:\n"
                                                 f"{detail}")
    return failures


def _end(pid: int) -> None:
    """Kill and reap the child, unless it was reaped already (then its pid may be another process's by now)."""
    try:
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            return  # it had ended: reaped just now
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass  # reaped already (the interruption came after the child's end)


def _commit(order: list[str], paths: dict[str, Path], temps: dict[str, Path],
            failures: dict[str, BaseException | None], out_dir: Path) -> dict[str, Path]:
    written: dict[str, Path] = {}
    try:
        for kind in order:
            failure = failures.get(kind)
            if failure is not None:
                raise failure
            kept = _kept(out_dir, list(written.values()))
            try:
                os.replace(temps[kind], paths[kind])
            except OSError as exc:
                raise output_error(paths[kind], exc, kept=kept) from None
            written[kind] = paths[kind]
    finally:
        for kind in order:
            if kind not in written:
                discard(temps[kind])
        fsync_dir(out_dir)
    return written
