"""events.jsonl: one line per agent invocation, written and flushed the moment it finishes.

An interrupted run (Ctrl-C, a killed runner, a budget) keeps every case that finished; nothing is buffered until the
end. Lines are plain JSON so `jq` and `tail -f` work on a running evaluation.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from khaos_action.atomic import open_text, stamp
from khaos_action.errors import Interrupted, output_error


class EventLog:
    def __init__(self, path: Path | None, *, redact: Callable[[Any], Any] | None = None) -> None:
        """`redact`: applied to every event before it is written (khaos_action.redact: agent.secrets masked)."""
        self.path = path
        self._redact = redact
        self._file: TextIO | None = None
        self._lock = threading.Lock()
        if path is not None:
            # "w": the run directory was claimed for this run (main.claim_out_dir), so nothing is appended to another
            # run's lines; through no link in the action's workspace (atomic.open_text).
            try:
                self._file = open_text(path)
            except OSError as exc:
                raise output_error(path, exc) from None

    def write(self, event: dict[str, Any]) -> None:
        if self._file is None:
            return
        event = {"ts": round(time.time(), 3), **event}
        if self._redact is not None:
            event = self._redact(json.loads(json.dumps(event, ensure_ascii=False, default=str)))
        line = json.dumps(event, ensure_ascii=False, default=str)
        with self._lock:
            try:
                self._file.write(line + "\n")
                self._file.flush()
            except OSError as exc:
                raise output_error(self.path, exc, kept="events.jsonl holds every case before this one") from None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_events(path: Path) -> list[dict[str, Any]]:
    """Read an events file, skipping a torn last line (the run may have been killed mid-write)."""
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events


@contextmanager
def keeping_cases(out_dir: Path) -> Iterator[None]:
    """Ctrl-C in a run (a command's, the action's) says what it kept: events.jsonl holds every case that finished,
    each line written the moment it did, or no case had finished yet."""
    events = out_dir / "events.jsonl"
    before = stamp(events)
    try:
        yield
    except KeyboardInterrupt:
        finished = _lines(events) if stamp(events) not in (None, before) else 0
        if not finished:
            raise Interrupted(f"interrupted before any case finished: no results in {out_dir}") from None
        raise Interrupted(f"interrupted; the {finished} case{'s' if finished != 1 else ''} that finished "
                          f"{'are' if finished != 1 else 'is'} in {events}") from None


def _lines(path: Path) -> int:
    try:
        with path.open("rb") as events:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: events.read(1 << 20), b""))
    except OSError:
        return 0
