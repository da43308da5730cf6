"""How a detector's time grows with its input, asserted without a wall-clock bound a loaded machine can break."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def assert_linear(read: Callable[[str], Any], text: str) -> None:
    """`read` on a quarter of `text` and on all of it: linear time takes about four times as long, the costs these
    tests guard against (a pattern retried at every place, each match checked against all before it, backtracking
    exponential in a run's length) sixteen times or far more. Both are timed on the same machine at the same moment,
    so a busy machine slows both; the loose absolute bound only stops a runaway."""
    quarter = _seconds(read, text[: len(text) // 4])
    whole = _seconds(read, text)
    assert whole < 60
    assert whole < 10 * quarter + 0.5, f"{whole:.2f} s on the whole text against {quarter:.2f} s on a quarter"


def _seconds(read: Callable[[str], Any], text: str) -> float:
    start = time.perf_counter()
    read(text)
    return time.perf_counter() - start
