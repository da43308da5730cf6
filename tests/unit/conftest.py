"""The unit tier's rule, enforced: a unit test starts no process and touches no network.

While a test of this directory sets up, runs and tears down, the calls that start a process (subprocess, fork,
multiprocessing, os.system / posix_spawn) and the socket calls that reach or offer a network endpoint (connect,
bind, sendto, name resolution) raise `TierViolation`, and the test fails naming the call, even where the code under
test catches the error. This guards; it does not stand in for anything: nothing is faked, a test that needs a real
process or server belongs in tests/integration (or tests/end_to_end for the CLI as a subprocess). An in-process
socket pair (asyncio's self-pipe) stays allowed: it reaches nothing.
"""

from __future__ import annotations

import multiprocessing.process
import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

# urllib3 probes for IPv6 once, when it is imported, by binding a socket to ::1. It is imported here, before any
# test, so that a unit test importing a library built on it is not blamed for that probe.
try:
    import urllib3.util.connection  # noqa: F401
except ImportError:  # pragma: no cover
    pass

WHERE = "unit tests start no process and open no network connection: move the test to tests/integration " \
        "(real servers, worker processes) or tests/end_to_end (the CLI as a subprocess)"


class TierViolation(AssertionError):
    """Raised by a guarded call inside a unit test."""


# (owner, attribute, what it does): each is replaced for the duration of a unit test's phase
GUARDED: tuple[tuple[Any, str, str], ...] = (
    (subprocess.Popen, "__init__", "starts a process"),
    (multiprocessing.process.BaseProcess, "start", "starts a process"),
    *((os, name, "starts a process") for name in ("fork", "forkpty", "system", "posix_spawn", "posix_spawnp")
      if hasattr(os, name)),
    *((socket.socket, name, "uses the network") for name in ("connect", "connect_ex", "bind", "sendto")),
    (socket, "getaddrinfo", "resolves a host name"),
    (socket, "create_connection", "uses the network"),
)


MISSING = object()


def _refuse(what: str, label: str, method: bool, seen: list[str]) -> Callable[..., Any]:
    def refused(*args: Any, **kwargs: Any) -> Any:
        shown = ", ".join(repr(a)[:100] for a in args[1 if method else 0:][:2])
        message = f"{label}({shown}) {what}"
        seen.append(message)
        raise TierViolation(f"{message}: {WHERE}")

    return refused


@contextmanager
def _guarded(seen: list[str]) -> Iterator[None]:
    # a class's own attribute is put back; one it inherits (socket's C methods) is removed again
    saved = [(owner, attr, vars(owner).get(attr, MISSING)) for owner, attr, _ in GUARDED]
    for owner, attr, what in GUARDED:
        label = f"{owner.__name__}.{attr}"
        setattr(owner, attr, _refuse(what, label, isinstance(owner, type), seen))
    try:
        yield
    finally:
        for owner, attr, original in saved:
            if original is MISSING:
                delattr(owner, attr)
            else:
                setattr(owner, attr, original)


def _phase(item: pytest.Item) -> Iterator[None]:
    seen: list[str] = []
    try:
        with _guarded(seen):
            yield
    except TierViolation:
        raise
    except BaseException:
        _fail_if(item, seen)  # the code under test caught the TierViolation and then failed some other way
        raise
    _fail_if(item, seen)  # ... or caught it and went on


def _fail_if(item: pytest.Item, seen: list[str]) -> None:
    if seen:
        more = f" (and {len(seen) - 1} more)" if len(seen) > 1 else ""
        pytest.fail(f"{item.nodeid}: {seen[0]}{more}; {WHERE}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    yield from _phase(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield from _phase(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield from _phase(item)
