"""The run's files written by two processes (`merge` of large manifests): the second core renders part of them.

Each file is staged (written and fsynced under a temp name) by whichever process renders it; this process then
renames them in the order the sequential path writes them (report/writers.py), and stops at the first file that
failed, keeping the ones before it: the directory ends as it would have. The child gets its cases from `cases()`:
the very objects when they exist before the fork (a run, copy-on-write), or made again from the same bytes
(`merge`); it is sent the manifest without its cases (a few kB) and sends back only what went wrong, never a report.

manifest.json and junit.xml are written in two steps (`TWO_STEPS`): what needs the cases alone, then the document
around it once the manifest is built. For `merge` (`write_scored`), the child does the first step while this
process scores the cases (scoring, the cases' JSON and junit.xml's testcases take about as long as each other:
docs/performance.md, "The forked report writer"); this process also makes the JSON of the last `PARENT_SHARE` of the
cases for the child.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from khaos_action.atomic import discard, fsync_dir, replace, staged_file, temp_beside
from khaos_action.errors import KhaosError, OutputError, output_error
from khaos_action.manifest import CaseResult, Manifest, cases_json
from khaos_action.report.kept import kept_note
from khaos_action.reporters import REPORTERS

TWO_STEPS = ("json", "junit")
"""Only our own formats: `REPORTERS` never lets another take their names."""
PARENT_SHARE = 0.3
"""When the child writes manifest.json, the share of its cases (the last ones) whose JSON this process makes, for
the child to write after its own: the child has both files' first steps, this process only scores and renders the
small reports, so with this share made here the two end about together (docs/performance.md). It goes through an
unlinked temp file both processes hold, not the pipe: megabytes through a pipe the child drains between its own
steps held this one up."""


def _child_case_count(count: int) -> int:
    """How many of the first cases' JSON the child makes (the rest is PARENT_SHARE's)."""
    return count - int(count * PARENT_SHARE)


def _two_steps(kind: str) -> tuple[Callable[[list[CaseResult]], Any], Callable[[Manifest, Any], Iterable[str | bytes]]]:
    """(first step: the cases -> a part, second: the manifest and the part -> the document's chunks)."""
    if kind == "json":
        return _child_cases_json, Manifest.json_chunks
    from khaos_action.report.junit import junit_document, junit_suites

    return junit_suites, junit_document


def _child_cases_json(cases: list[CaseResult]) -> list[bytes | memoryview]:
    """The child's part of manifest.json's cases: all but the last PARENT_SHARE (`_parent_cases_json` adds those)."""
    return list(cases_json(cases[:_child_case_count(len(cases))]))


class ReportProcessFailed(Exception):
    """A bug in a renderer that ran in the child: its traceback, shown by the error boundary like any bug's."""


def write_forked(cases: Callable[[], list[CaseResult]], build: Callable[[], Manifest], out_dir: Path,
                 kinds: list[str], child_kinds: list[str]) -> tuple[Manifest, dict[str, Path]]:
    """`child_kinds`: the files the child writes (it starts on those with two steps before `build()` returns).
    `cases()`, called in the child, gives the cases of the manifest `build()` gives here: the same list when the
    cases exist before the fork (shared copy-on-write), or the same cases made again there (`merge`)."""
    files = _Files.of(out_dir, kinds)
    _import_renderers(child_kinds)
    result_read, result_write = os.pipe()  # the child's failures
    head_read, head_write = os.pipe()  # the manifest without its cases, once built
    share = _share_file() if "json" in child_kinds else None
    _widen(head_write)
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
        stream.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; its work is checked through the files the parent keeps
        os.close(result_read)
        os.close(head_write)
        _child(result_write, head_read, share, cases, files, child_kinds)
    os.close(result_write)
    os.close(head_read)
    ends = _ParentEnds(result_read, head_write, share)
    done = False
    try:
        manifest = build()
        ends.send_head(manifest)
        failures = {kind: _stage(kind, manifest, files) for kind in files.order if kind not in child_kinds}
        failures.update(_child_result(pid, result_read, child_kinds, files.paths,
                                      kept=files.kept_before(child_kinds[0])))
        done = True
    finally:
        ends.close()
        if not done:  # interrupted or a bug here: the child must not outlive us, nor its files
            _end(pid)
            for temp in files.temps.values():
                discard(temp)
    return manifest, _commit(files, failures)


@dataclass(frozen=True, slots=True)
class _Files:
    """The run's files in the order they are committed, each with its temp file beside it."""

    out_dir: Path
    order: list[str]
    paths: dict[str, Path]
    temps: dict[str, Path]

    @classmethod
    def of(cls, out_dir: Path, kinds: list[str]) -> _Files:
        order = ["json", *kinds]
        paths = {kind: out_dir / REPORTERS[kind].file for kind in order}
        return cls(out_dir, order, paths, {kind: temp_beside(path) for kind, path in paths.items()})

    def kept_before(self, kind: str) -> str:
        """What survives when `kind` fails: the files before it."""
        return kept_note(self.out_dir, [self.paths[k] for k in self.order[:self.order.index(kind)]])


class _ParentEnds:
    """This process's end of the pipe the manifest head goes through, of the child's result pipe, and the share
    file; each closed once."""

    def __init__(self, result_read: int, head_write: int, share: BinaryIO | None) -> None:
        self.result_read, self.head_write, self.share = result_read, head_write, share

    def send_head(self, manifest: Manifest) -> None:
        """The manifest without its cases, and the size of the share of the cases' JSON written here."""
        shared = _write_share(self.share, manifest.cases) if self.share is not None else None
        fd, self.head_write = self.head_write, -1
        _send(fd, (manifest.model_copy(update={"cases": []}), shared))

    def close(self) -> None:
        os.close(self.result_read)
        if self.share is not None:
            self.share.close()
        if self.head_write != -1:
            os.close(self.head_write)  # the child, waiting for the manifest, reads its end: it stops


def _import_renderers(child_kinds: list[str]) -> None:
    """Imported here, not in the child: no import can be half done in another thread at the fork."""
    for kind in child_kinds:
        if kind != "json":
            REPORTERS[kind].renderer()
            if kind in TWO_STEPS:
                _two_steps(kind)


def _widen(fd: int) -> None:
    """A pipe that holds the whole manifest head (1 MiB, Linux's limit for anyone): the write does not wait for the
    child to be done with its first step."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):
        pass  # the default size (64 kB): at worst the parent waits for the child to read


def _share_file() -> BinaryIO | None:
    try:
        return tempfile.TemporaryFile()  # noqa: SIM115 - closed by write_forked, in both processes
    except OSError:
        return None  # the child makes every case's JSON


def _write_share(share: BinaryIO, cases: list[CaseResult]) -> int | None:
    """PARENT_SHARE of the cases' JSON, written to `share` from its start: its size, or None when it could not be
    written (a full /tmp: the child then makes that JSON too)."""
    data = b"".join(cases_json(cases[_child_case_count(len(cases)):]))
    view, at = memoryview(data), 0
    try:
        while at < len(view):
            at += os.pwrite(share.fileno(), view[at:], at)
    except OSError:
        return None
    return len(data)


def _read_share(share: BinaryIO, size: int) -> bytes:
    chunks, at = [], 0
    while at < size:
        chunk = os.pread(share.fileno(), size - at, at)
        if not chunk:
            raise OSError(f"the cases' JSON this process was sent ended after {at} of {size} bytes")
        chunks.append(chunk)
        at += len(chunk)
    return b"".join(chunks)


def _parent_cases_json(share: BinaryIO | None, shared: int | None, cases: list[CaseResult]) -> list[bytes | memoryview]:
    """The JSON of the cases after the child's own: what the parent wrote to `share`, or made here when it could
    not (no temp file, or `shared` is None)."""
    if share is None or shared is None:
        return list(cases_json(cases[_child_case_count(len(cases)):]))
    return [_read_share(share, shared)]


def _send(fd: int, head: tuple[Manifest, int | None]) -> None:
    try:
        _write_all(fd, pickle.dumps(head))
    except BrokenPipeError:
        pass  # the child is gone: its exit status says how
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)  # no copy of what is left per write
    while view:
        view = view[os.write(fd, view):]


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def _stage(kind: str, manifest: Manifest, files: _Files, first: Any = None) -> BaseException | None:
    """Render `kind` into its temp file (from `first`, its first step, when the child did that); what went wrong is
    returned (the earliest failure in `order` wins)."""
    kept = files.kept_before(kind)
    paths, temps = files.paths, files.temps
    try:
        with staged_file(temps[kind]) as out:
            if first is not None:
                chunks = _two_steps(kind)[1](manifest, first)
            elif kind == "json":
                chunks = manifest.json_chunks(cases_json(manifest.cases))
            else:
                rendered = REPORTERS[kind].renderer()(manifest)
                chunks = [rendered] if isinstance(rendered, str) else rendered
            for chunk in chunks:
                out.write(chunk.encode("utf-8", "replace") if isinstance(chunk, str) else chunk)
    except OSError as exc:
        return output_error(paths[kind], exc, kept=kept)
    except Exception as exc:  # noqa: BLE001 - raised by the parent once the files before it are in place
        return exc
    return None


def _child(result_write: int, head_read: int, share: BinaryIO | None, make_cases: Callable[[], list[CaseResult]],
           files: _Files, child_kinds: list[str]) -> None:  # pragma: no cover - the child
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C reaches the whole group: the parent reports it
        cases, first, failures = _first_steps(make_cases, child_kinds)
        data = _read_all(head_read)
        if not data:
            return  # the parent failed before it had a manifest: it reports why
        head, shared = pickle.loads(data)
        manifest = head.model_copy(update={"cases": cases})
        if "json" in first:  # the parent's share, after this process's own
            _add_parent_share(first, share, shared, cases, files, failures)
        _stage_all(manifest, files, child_kinds, first, failures)
        _write_all(result_write, pickle.dumps(failures))
        code = 0
    finally:
        os._exit(code)  # no atexit, no buffers flushed twice, no interpreter teardown


def _first_steps(make_cases: Callable[[], list[CaseResult]], child_kinds: list[str]
                 ) -> tuple[list[CaseResult], dict[str, Any], dict[str, tuple[str, object]]]:  # pragma: no cover
    """The child's cases and the first step of its two-step files, done while the parent builds the manifest."""
    two_steps = [kind for kind in child_kinds if kind in TWO_STEPS]
    cases: list[CaseResult] = []
    try:
        cases = make_cases()
        return cases, {kind: _two_steps(kind)[0](cases) for kind in two_steps}, {}
    except Exception as exc:  # noqa: BLE001 - reported as the first such file's failure
        return cases, {}, {(two_steps or child_kinds)[0]: _portable(exc)}


def _add_parent_share(first: dict[str, Any], share: BinaryIO | None, shared: int | None, cases: list[CaseResult],
                      files: _Files, failures: dict[str, tuple[str, object]]) -> None:  # pragma: no cover
    try:
        rest = _parent_cases_json(share, shared, cases)
    except OSError as exc:
        failures["json"] = _portable(output_error(files.paths["json"], exc))
    else:
        first["json"] += [b",", *rest] if first["json"] and rest and rest[0] else rest


def _stage_all(manifest: Manifest, files: _Files, child_kinds: list[str], first: dict[str, Any],
               failures: dict[str, tuple[str, object]]) -> None:  # pragma: no cover - the child
    for kind in child_kinds:
        if kind in failures:
            break  # what follows would be discarded: the parent keeps only the files before a failure
        failure = _stage(kind, manifest, files, first.pop(kind, None))
        if failure is not None:
            failures[kind] = _portable(failure)
            break


def _portable(exc: BaseException) -> tuple[str, object]:
    if isinstance(exc, KhaosError):
        return "error", (type(exc).exit_code, str(exc))
    import traceback

    return "bug", "".join(traceback.format_exception(exc))


def _child_result(pid: int, read_end: int, child_kinds: list[str], paths: dict[str, Path], *,
                  kept: str) -> dict[str, BaseException]:
    """What went wrong in the child, by file; `kept`: what survives if the child itself died."""
    chunks = []
    while chunk := os.read(read_end, 1 << 16):
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        code = os.waitstatus_to_exitcode(status)
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        names = ", ".join(paths[kind].name for kind in child_kinds)
        first = child_kinds[0]
        return {first: OutputError(f"cannot write {paths[first].parent}: the process writing {names} {how}; {kept}")}
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


def _commit(files: _Files, failures: dict[str, BaseException | None]) -> dict[str, Path]:
    order, paths, temps, out_dir = files.order, files.paths, files.temps, files.out_dir
    written: dict[str, Path] = {}
    try:
        for kind in order:
            failure = failures.get(kind)
            if failure is not None:
                raise failure
            kept = kept_note(out_dir, list(written.values()))
            try:
                replace(temps[kind], paths[kind])
            except OSError as exc:
                raise output_error(paths[kind], exc, kept=kept) from None
            written[kind] = paths[kind]
    finally:
        for kind in order:
            if kind not in written:
                discard(temps[kind])
        fsync_dir(out_dir)
    return written
