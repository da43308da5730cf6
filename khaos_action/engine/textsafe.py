"""Whatever an agent sends back is made storable before it is stored: valid Unicode, JSON-safe, and capped per case.

An agent's reply, notes, tool calls and errors reach events.jsonl, the manifest and every report. A lone surrogate
(python "\\ud800", a JSON "\\ud800" escape) cannot be encoded as UTF-8, an `object()` in tool arguments cannot be
serialised, and 100,000 notes would make a 600 MB manifest: each of these used to crash a writer or flood it. Here
they become U+FFFD, `str(value)` and a "… N more dropped" note, and the case says what was changed.
Pure functions; the runner applies them once per invocation (README "Limits").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any

MAX_NOTES = 100
"""Notes kept per case (the agent's own plus ours); the rest are counted in one last note."""
MAX_NOTE_CHARS = 2_000
MAX_TOOL_CALLS = 200
"""Tool calls kept per case."""
MAX_STRING_CHARS = 10_000
"""Any one string inside tool-call arguments, results or extra reply fields."""
MAX_ITEMS = 1_000
"""Values (list items + mapping entries) kept in one JSON value (e.g. one tool call's arguments)."""
MAX_DEPTH = 20
"""Nesting kept in one JSON value; deeper parts become a string."""
MAX_ERROR_CHARS = 2_000


def valid_text(text: str) -> tuple[str, bool]:
    """`text` with lone surrogates replaced by U+FFFD (a proper surrogate pair becomes its character); and whether
    anything had to change."""
    try:
        text.encode("utf-8")
        return text, False
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"), True


def decode_bytes(data: bytes) -> tuple[str, bool]:
    """UTF-8 bytes to text, invalid sequences replaced by U+FFFD; and whether any were."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace"), True


def safe_str(value: Any, limit: int = MAX_STRING_CHARS) -> str:
    """`str(value)` that never raises, is valid text and at most `limit` characters."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = str(value)
        except Exception:  # noqa: BLE001 - an agent's object whose __str__ raises is still recorded
            text = f"<unprintable {type(value).__name__}>"
        if not isinstance(text, str):
            text = f"<unprintable {type(value).__name__}>"
    text = valid_text(text)[0]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_safe(value: Any, *, depth: int = MAX_DEPTH, items: int = MAX_ITEMS,
              chars: int = MAX_STRING_CHARS) -> Any:
    """A copy of `value` that json.dumps accepts and stays small: dict keys as strings, other objects as their
    str(), non-finite floats as strings, strings valid and capped, at most `items` values and `depth` levels."""
    budget = [items]
    return _safe(value, depth, budget, chars, set())


def _safe(value: Any, depth: int, budget: list[int], chars: int, active: set[int]) -> Any:
    budget[0] -= 1
    scalar = _scalar(value, chars)
    if scalar is not _CONTAINER:
        return scalar
    if depth <= 0 or budget[0] <= 0 or id(value) in active:
        return safe_str(f"<{type(value).__name__}: too deep or too large to keep>", 200)
    active.add(id(value))
    try:
        if isinstance(value, Mapping):
            return _mapping(value, depth, budget, chars, active)
        return _sequence(value, depth, budget, chars, active)
    finally:
        active.discard(id(value))


_CONTAINER = object()
"""`_scalar`'s answer for a mapping or a sequence: its items are made safe one by one."""


def _scalar(value: Any, chars: int) -> Any:
    """`value` made safe when it is not a container (anything else as its capped str())."""
    if isinstance(value, (bool, type(None))):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**63 else safe_str(value, 64)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return safe_str(value, chars)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return safe_str(decode_bytes(bytes(value[:chars]))[0], chars)
    if isinstance(value, (Mapping, list, tuple, set, frozenset)):
        return _CONTAINER
    return safe_str(value, chars)


def _mapping(value: Mapping[Any, Any], depth: int, budget: list[int], chars: int, active: set[int]) -> Any:
    out: dict[str, Any] = {}
    try:
        entries = list(islice(value.items(), max(budget[0], 0) + 1))
    except Exception:  # noqa: BLE001 - a hostile Mapping
        return safe_str(value)
    for key, item in entries:
        if budget[0] <= 0:
            out["…"] = "more entries dropped"
            break
        out[safe_str(key, 200)] = _safe(item, depth - 1, budget, chars, active)
    return out


def _sequence(value: Any, depth: int, budget: list[int], chars: int, active: set[int]) -> list[Any]:
    kept = []
    for item in list(islice(value, max(budget[0], 0) + 1)):
        if budget[0] <= 0:
            kept.append("… more items dropped")
            break
        kept.append(_safe(item, depth - 1, budget, chars, active))
    return kept


def cap_notes(notes: list[Any], *, dropped: int = 0, limit: int = MAX_NOTES) -> list[str]:
    """Valid, short notes, at most `limit`, the last saying how many were dropped (`dropped`: already counted)."""
    dropped += max(0, len(notes) - limit)
    kept = [safe_str(n, MAX_NOTE_CHARS) for n in notes[:limit]]
    if dropped:
        kept[-1:] = [f"… {dropped + (1 if len(kept) == limit else 0):,} more notes dropped (at most {limit} are "
                     "kept per case)"]
    return kept


def take_notes(value: Any, room: int) -> tuple[list[str], int]:
    """At most `room` notes from whatever an agent sent as `notes`, and how many more there were."""
    if value is None:
        return [], 0
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        value = [value]
    try:
        total = len(value)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - a generator, or a hostile __len__
        total = None
    try:
        taken = [safe_str(n, MAX_NOTE_CHARS) for n in islice(value, max(room, 0))]
    except Exception as exc:  # noqa: BLE001 - a hostile iterable is still only data about the agent
        return [safe_str(f"notes could not be read ({type(exc).__name__})")], 0
    return taken, (max(0, total - len(taken)) if total is not None else 0)


_REPR = re.compile(r"<(?P<what>[^<>\n]{1,300}?) at 0x[0-9a-fA-F]{4,16}>")
_BOUND = re.compile(r"<bound method [^<>\s]{1,200} of <[^<>\n]{1,300} at 0x[0-9a-fA-F]{4,16}>>")


def type_name(value: Any) -> str:
    kind = type(value)
    module = kind.__module__
    return kind.__qualname__ if module in ("builtins", "__main__") or module.startswith("_khaos_") \
        else f"{module}.{kind.__qualname__}"


def repr_type(text: str) -> str | None:
    """The type named by a reply that is only an object's repr (`<async_generator object handle at 0x7f…>` ->
    `async_generator`), else None."""
    text = text.strip()
    if _BOUND.fullmatch(text):
        return "method"
    found = _REPR.fullmatch(text)
    if found is None:
        return None
    what = found.group("what")
    head, sep, _ = what.partition(" object")
    return head if sep else what.split(" ")[0]
