"""The garbage collector at scale (khaos_action/gc_freeze.py): what is frozen is what is alive, so a long-lived
process (pytest, a worker, a run's engine) does not keep cyclic garbage for good."""

from __future__ import annotations

import gc
import weakref

from khaos_action import gc_freeze


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


def test_keep_collects_young_garbage_before_it_freezes_what_is_alive() -> None:
    gc.collect()
    garbage = Node()
    gone = weakref.ref(garbage)
    del garbage
    alive = Node()
    frozen_before = gc.get_freeze_count()
    gc_freeze.keep()
    try:
        assert gone() is None  # collected, not frozen
        assert gc.get_freeze_count() > frozen_before and gc.is_tracked(alive)
    finally:
        gc.unfreeze()


def test_bulk_pauses_the_collector_and_restores_it() -> None:
    assert gc.isenabled()
    with gc_freeze.bulk():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.unfreeze()
