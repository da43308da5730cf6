"""The test tiers' conftests, checked on small suites of their own, each run in a pytest process of its own.

The unit tier's guard (tests/unit/conftest.py) fails a unit test that starts a process or uses the network, even when
the test catches the error, and lets the rest through. tests/conftest.py runs the unit tier first, so another tier's
session-scoped fixture that starts a process when it ends (the container tier's engine removing its images) is not
torn down under the guard; and a module marked slow as a whole is not even imported when `-m` leaves slow tests
out."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parents[1] / "unit" / "conftest.py"
TIERS_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
# the pytest plugins pyproject.toml switches off (the runs below read no configuration file)
PLUGINS_OFF = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:anyio",
               "-p", "no:benchmark")

TESTS = '''
import asyncio
import os
import socket
import subprocess
import sys

import pytest


def test_a_subprocess():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_a_subprocess_whose_error_is_swallowed():
    try:
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    except Exception:
        pass


def test_a_fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def test_a_connection():
    socket.create_connection(("127.0.0.1", 9), timeout=1)


def test_a_server():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))


def test_a_name_lookup():
    socket.getaddrinfo("example.com", 443)


@pytest.fixture(scope="module")
def server_for_the_module():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield


def test_a_module_fixture_that_serves(server_for_the_module):
    pass


def test_an_event_loop_and_a_socket_pair_are_fine():
    async def go():
        await asyncio.sleep(0)
        return 1
    assert asyncio.run(go()) == 1
    left, right = socket.socketpair()
    left.sendall(b"x")
    assert right.recv(1) == b"x"
    left.close()
    right.close()
'''


def test_the_guard_fails_processes_and_sockets_and_passes_the_rest(tmp_path: Path) -> None:
    unit = tmp_path / "unit"
    unit.mkdir()
    shutil.copy(CONFTEST, unit / "conftest.py")
    (unit / "test_guarded.py").write_text(TESTS, encoding="utf-8")
    done = run_pytest(tmp_path, unit)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    failed = {line.split("::")[1].split(" ")[0] for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))}
    assert failed == {"test_a_subprocess", "test_a_subprocess_whose_error_is_swallowed", "test_a_fork",
                      "test_a_connection", "test_a_server", "test_a_name_lookup",
                      "test_a_module_fixture_that_serves"}, out
    assert "1 passed" in out, out
    assert "Popen.__init__([" in out and "starts a process" in out and "os.fork() starts a process" in out
    assert "socket.bind(('127.0.0.1', 0)) uses the network" in out
    assert "getaddrinfo('example.com', 443) resolves a host name" in out
    assert "move the test to tests/integration" in out


CONTAINER_TESTS = """
import subprocess
import sys

import pytest


@pytest.fixture(scope="session")
def engine():
    yield "engine"
    subprocess.run([sys.executable, "-c", "pass"], check=True)  # as the container engine removes its images


def test_with_the_engine(engine):
    assert engine == "engine"
"""


def test_another_tiers_session_fixture_ends_before_the_unit_tier_whatever_the_order_given(tmp_path: Path) -> None:
    shutil.copy(TIERS_CONFTEST, tmp_path / "conftest.py")
    for tier, name, text in (("unit", "test_pure.py", "def test_pure():\n    assert 1 + 1 == 2\n"),
                             ("container", "test_image.py", CONTAINER_TESTS)):
        (tmp_path / tier).mkdir()
        (tmp_path / tier / name).write_text(text, encoding="utf-8")
    shutil.copy(CONFTEST, tmp_path / "unit" / "conftest.py")
    done = run_pytest(tmp_path, tmp_path / "container", tmp_path / "unit", "-v")  # with -q: a line per module
    assert done.returncode == 0, done.stdout + done.stderr
    ran = [line.split()[0] for line in done.stdout.splitlines() if line.endswith("%]")]
    assert ran == ["unit/test_pure.py", "container/test_image.py"], done.stdout


SLOW_MODULE = """
import pytest

pytestmark = pytest.mark.slow

raise RuntimeError("imported")


def test_slow():
    pass
"""


def test_a_module_marked_slow_is_not_imported_when_the_marks_leave_it_out(tmp_path: Path) -> None:
    shutil.copy(TIERS_CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "integration").mkdir()
    (tmp_path / "integration" / "test_fast.py").write_text("def test_fast():\n    pass\n", encoding="utf-8")
    (tmp_path / "integration" / "test_slow.py").write_text(SLOW_MODULE, encoding="utf-8")
    listed = SLOW_MODULE.replace("pytestmark = pytest.mark.slow",
                                 "pytestmark = [pytest.mark.slow,\n              pytest.mark.skipif(False, reason='')]")
    (tmp_path / "integration" / "test_slow_among_marks.py").write_text(listed, encoding="utf-8")
    for marks, code, said in (("not slow", 0, "1 passed"), ("integration and not slow", 0, "1 passed"),
                              ("not slow or other", 2, "RuntimeError: imported"), ("", 2, "RuntimeError: imported")):
        done = run_pytest(tmp_path, tmp_path / "integration", *(("-m", marks) if marks else ()))
        assert done.returncode == code and said in done.stdout, (marks, done.stdout + done.stderr)


def run_pytest(root: Path, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", *PLUGINS_OFF, "-c", "/dev/null", "--rootdir",
                           str(root), "-rfE", *map(str, args)],
                          capture_output=True, text=True, timeout=120, check=False, cwd=root)
