"""The daemon worker pool that runs sync agents: results and errors come back, and a call that never returns does
not keep the interpreter alive (the reason it exists: ThreadPoolExecutor workers are joined at exit)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import pytest

from khaos_action.engine.transport.threads import DaemonThreadPool


def test_results_and_exceptions_come_back_through_the_futures() -> None:
    pool = DaemonThreadPool(2, "t")
    assert pool.submit(lambda a, b: a + b, 2, b=3).result(timeout=5) == 5
    with pytest.raises(ValueError, match="bad input"):
        pool.submit(lambda: (_ for _ in ()).throw(ValueError("bad input"))).result(timeout=5)
    pool.shutdown()


def test_no_more_than_max_workers_run_at_once_and_queued_calls_still_run() -> None:
    pool = DaemonThreadPool(3, "t")
    running, peak, lock = [0], [0], threading.Lock()

    def work(n: int) -> int:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        return n

    futures = [pool.submit(work, n) for n in range(12)]
    assert [f.result(timeout=5) for f in futures] == list(range(12))
    assert peak[0] == 3 and len(pool._threads) == 3
    assert all(t.daemon for t in pool._threads)
    pool.shutdown()


def test_shutdown_cancels_queued_calls_when_asked() -> None:
    pool = DaemonThreadPool(1, "t")
    gate = threading.Event()
    first = pool.submit(gate.wait, 5)
    queued = pool.submit(lambda: "never")
    pool.shutdown(wait=False, cancel_futures=True)
    gate.set()
    assert first.result(timeout=5) is True
    assert queued.cancelled()
    with pytest.raises(RuntimeError):
        pool.submit(lambda: None)


def test_a_call_that_never_returns_does_not_keep_the_process_alive() -> None:
    script = textwrap.dedent("""
        import time
        from khaos_action.engine.transport.threads import DaemonThreadPool
        pool = DaemonThreadPool(2, "agent")
        pool.submit(time.sleep, 60)
        time.sleep(0.1)
        pool.shutdown(wait=False, cancel_futures=True)
        print("done", flush=True)
    """)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "done"), done.stderr
    assert time.perf_counter() - started < 10
