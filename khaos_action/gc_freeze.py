"""The garbage collector at scale: a run builds a few million long-lived objects that hold no reference cycles
(cases, results, the manifest), and CPython's collector kept re-scanning them.

Left alone, building reports, loading a manifest and `compare` grow superlinear in the number of cases; with the
objects frozen they stay linear (figures in docs/performance.md, "The garbage collector"). So what is built
in bulk is built with the collector paused and then frozen (moved out of its generations, never scanned again),
instead of tuning thresholds that would also delay the collection of real garbage during the run.

Frozen objects are invisible to `gc.get_referrers`: the tool patcher (engine/chaos/tools.py), which finds every
reference to a tool function that way, unfreezes first.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
_HELD: list[object] = []


def settle() -> None:
    """Freeze everything allocated so far: the run's setup (config, plan, imported modules) is alive until exit."""
    gc.freeze()


def keep() -> None:
    """Freeze what survived the young generations: called while results pile up (the engine, every
    `KEEP_EVERY` finished cases), so the collector's full passes do not re-scan every result so far (they paused the
    run with calls in flight: docs/performance.md). Young
    garbage is collected first; what is frozen is only what is alive (or an older cycle: nothing the engine
    makes per case)."""
    gc.collect(1)
    gc.freeze()


KEEP_EVERY = 1000


@contextmanager
def bulk() -> Iterator[None]:
    """Build many long-lived objects without collections in between, then freeze them. A cycle created inside is
    never collected; use it only around code that builds data (parsing, validating, rendering)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def hold(value: T) -> T:
    """Keep `value` until the process ends: a shell that holds anything (cli.py) ends with `os._exit` once its
    output is flushed, rather than have the interpreter free millions of objects one by one on the way out."""
    _HELD.append(value)
    return value


def holding() -> bool:
    return bool(_HELD)
