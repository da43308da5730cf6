"""The unit tier's guard (tests/unit/conftest.py) fails a unit test that starts a process or uses the network, even
when the test catches the error, and lets the rest through: checked by running pytest on a few such tests, in a
pytest process of their own, with the guard's conftest beside them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parents[1] / "unit" / "conftest.py"

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
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", "/dev/null",
                           "--rootdir", str(tmp_path), "-rfE", str(unit)],
                          capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
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
