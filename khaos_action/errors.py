"""The one exception family, the one exit-code table, and the one error boundary both shells (cli.py, the action) use.

Exit codes (docs/spec.md, "Exit codes"):
    0 passed · 1 a gate failed · 2 config or usage error · 3 the agent could not run (or its results could not be
    written) · 4 an internal error (a bug in khaos-action: the only case that prints a traceback and asks for a report).
An interrupted run exits 130 (128 + SIGINT) and a closed output pipe (`khaos-action validate | head -1`) 141 (128 +
SIGPIPE), as any Unix tool killed by those signals would, with nothing on stderr for the pipe.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
from collections.abc import Callable
from enum import IntEnum


class ExitCode(IntEnum):
    PASSED = 0
    GATE_FAILED = 1
    CONFIG = 2
    AGENT = 3
    INTERNAL = 4
    INTERRUPTED = 130
    BROKEN_PIPE = 141


class KhaosError(Exception):
    """An error the user can act on: shown without a traceback."""

    exit_code = ExitCode.CONFIG


class ConfigError(KhaosError):
    """The configuration or the command line is wrong (exit 2)."""

    exit_code = ExitCode.CONFIG


class UsageError(KhaosError):
    """The command line is wrong (exit 2)."""

    exit_code = ExitCode.CONFIG


class AgentError(KhaosError):
    """The agent could not be started or reached at all (exit 3)."""

    exit_code = ExitCode.AGENT


class Interrupted(KhaosError):
    """Ctrl-C or a cancelled job, raised by a command that can say what it left behind (exit 130).
    Without one, the boundary's own message speaks for a run (its events.jsonl keeps every finished case)."""

    exit_code = ExitCode.INTERRUPTED


class OutputError(KhaosError):
    """Results could not be written (disk full, file too large, permission): exit 3, what was kept is named."""

    exit_code = ExitCode.AGENT


_OS_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EFBIG: "the file size limit was reached (ulimit -f)",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "the file system is read-only",
}


def output_error(path: object, exc: OSError, *, kept: str = "") -> OutputError:
    """One clear sentence for an OSError met while writing `path` (no traceback: the user fixes the disk)."""
    reason = _OS_REASONS.get(exc.errno or 0, exc.strerror or str(exc))
    tail = f"; {kept}" if kept else ""
    return OutputError(f"cannot write {path}: {reason}{tail}. Free space or fix permissions and run again")


Say = Callable[[str], None]


def _format_exc() -> str:
    import traceback  # only a failing run pays for it (traceback imports textwrap, tokenize, linecache)

    return traceback.format_exc()


def _stderr_traceback(text: str) -> None:
    sys.stderr.write(text)


BUG_MESSAGE = ("khaos-action hit an unexpected error (a bug in khaos-action, not in your agent or config); "
               "please report it with the traceback above")


def guard(body: Callable[[], int], *, say: Say, show_traceback: Say = _stderr_traceback, debug: bool = False,
          on_exit: Callable[[int, str | None], None] | None = None) -> int:
    """Run a shell's body and turn whatever escapes it into the exit-code table.

    `say` shows a one-line error (a plain `error:` line in a terminal, `::error::` in a workflow);
    `show_traceback` prints a traceback (the action prints it where workflow commands are stopped);
    `on_exit(code, message)` runs last whatever happened (the action hands files back and writes its summary there);
    its own failure is reported, never raised.
    """
    ignore_file_size_signal()
    message: str | None = None
    try:
        code = int(body())
        _flush_stdout()
    except KhaosError as exc:
        if debug:
            show_traceback(_format_exc())
        message = str(exc)
        code = int(exc.exit_code)
        _say(say, message)
    except KeyboardInterrupt:
        message = "interrupted"  # a run says what it kept itself (engine/events.py keeping_cases)
        code = ExitCode.INTERRUPTED
        _say(say, message)
    except BrokenPipeError:
        _silence_stdout()
        code = ExitCode.BROKEN_PIPE
    except RecursionError:
        # Deep input that slipped past a depth limit is still the input's fault: say so, no traceback.
        message = "input nested too deeply to process (maximum recursion depth exceeded)"
        code = ExitCode.CONFIG
        if debug:
            show_traceback(_format_exc())
        _say(say, message)
    except Exception:  # noqa: BLE001 - the one place that turns a bug of ours into a readable report
        show_traceback(_format_exc())
        message = BUG_MESSAGE
        code = ExitCode.INTERNAL
        _say(say, message)
    if on_exit is not None:
        try:
            on_exit(code, message)
        except Exception as exc:  # noqa: BLE001 - a failing clean-up must not hide the verdict
            _say(say, f"while finishing: {type(exc).__name__}: {exc}")
    return code


def _say(say: Say, message: str) -> None:
    try:
        say(message)
    except BrokenPipeError:
        _silence_stdout()
    except OSError:
        pass  # stderr itself is gone: nothing left to tell


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        raise


def _silence_stdout() -> None:
    """The reader went away: point stdout at /dev/null so the interpreter's final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def ignore_file_size_signal() -> None:
    """`ulimit -f`: without this SIGXFSZ kills us mid-write; ignored, the write raises EFBIG and we say so (exit 3)."""
    if hasattr(signal, "SIGXFSZ"):
        try:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        except (ValueError, OSError):
            pass  # not the main thread (tests calling a shell in a thread): nothing to do


def exit_now(code: int, *, wait_for_threads: bool = True) -> int:
    """End a real process with `code` without the interpreter's teardown of every module: after a run, that
    teardown (pydantic's schemas among what it frees) is CPU time on every run's critical path. atexit handlers still
    run and stdout/stderr are flushed first. With another thread still alive and `wait_for_threads`, the normal
    shutdown (which waits for it) is kept and `code` is returned."""
    import atexit
    import threading

    if wait_for_threads and threading.active_count() > 1:
        return code
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed, or its reader went away: nothing more can be said on it
            pass
    os._exit(code)
