"""The one error boundary: each kind of failure becomes its row of the exit-code table, tracebacks only for bugs."""

from __future__ import annotations

import errno

import pytest

from khaos_action.errors import (
    AgentError,
    ConfigError,
    ExitCode,
    OutputError,
    guard,
    output_error,
)


class Shell:
    def __init__(self) -> None:
        self.said: list[str] = []
        self.tracebacks: list[str] = []
        self.exits: list[tuple[int, str | None]] = []

    def run(self, body, **kw) -> int:
        return guard(body, say=self.said.append, show_traceback=self.tracebacks.append,
                     on_exit=lambda code, message: self.exits.append((code, message)), **kw)


def _raise(exc: BaseException):
    def body() -> int:
        raise exc
    return body


@pytest.mark.parametrize(("exc", "code"), [
    (ConfigError("khaos.yaml:3:1: bad"), ExitCode.CONFIG),
    (AgentError("agent gone"), ExitCode.AGENT),
    (OutputError("disk full"), ExitCode.AGENT),
    (KeyboardInterrupt(), ExitCode.INTERRUPTED),
    (RecursionError("maximum recursion depth exceeded"), ExitCode.CONFIG),
])
def test_errors_the_user_can_act_on_are_one_line_without_a_traceback(exc, code) -> None:
    shell = Shell()
    assert shell.run(_raise(exc)) == code
    assert len(shell.said) == 1 and not shell.tracebacks
    assert shell.exits == [(code, shell.said[0])]


def test_a_bug_is_exit_4_with_the_traceback_and_a_request_to_report() -> None:
    shell = Shell()
    assert shell.run(_raise(ZeroDivisionError("oops"))) == ExitCode.INTERNAL == 4
    assert "ZeroDivisionError: oops" in shell.tracebacks[0] and "Traceback" in shell.tracebacks[0]
    assert "please report" in shell.said[0]


def test_debug_shows_the_traceback_of_a_user_error_but_keeps_its_code() -> None:
    shell = Shell()
    assert shell.run(_raise(ConfigError("bad")), debug=True) == 2
    assert "ConfigError: bad" in shell.tracebacks[0]


def test_the_body_code_passes_through_and_a_failing_clean_up_is_only_said() -> None:
    said: list[str] = []

    def on_exit(code, message):
        raise OSError("cannot chown")

    assert guard(lambda: 1, say=said.append, on_exit=on_exit) == 1
    assert said == ["while finishing: OSError: cannot chown"]


@pytest.mark.parametrize(("err", "words"), [
    (errno.ENOSPC, "the disk is full"), (errno.EFBIG, "file size limit"), (errno.EACCES, "permission denied"),
    (errno.EROFS, "read-only"),
])
def test_output_errors_name_the_file_and_the_reason(err, words) -> None:
    exc = output_error("out/manifest.json", OSError(err, "x"), kept="events.jsonl is whole")
    assert exc.exit_code == 3
    assert str(exc).startswith("cannot write out/manifest.json: ") and words in str(exc)
    assert "events.jsonl is whole" in str(exc)
