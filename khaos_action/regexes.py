"""Regular expressions written in configs and packs: validated at load, and searched with a time limit.

Engine choice: the `regex` package (mrab-regex) with its `timeout=` argument, not RE2 bindings (`google-re2`).
- It accepts Python `re` syntax unchanged (VERSION0), including lookarounds and backreferences, which leak and PII
  patterns copied from Python code use; RE2 rejects those, so existing configs would stop loading.
- The timeout is checked inside its matching loop, so catastrophic backtracking (`(a|aa)+$` on 41 characters)
  raises TimeoutError instead of hanging; a linear engine would avoid the blow-up, but at the price above.
- It is maintained (monthly releases, binary wheels for every platform) and small.
A search that times out raises RegexTimeout: the check using it is an error on that check, never a hang. A pattern
that timed out once is not tried again in the same process (it fails at once), so a broken pattern costs at most
one time limit per run, not one per case.

A search that cannot take long is run without the time limit (`_worst_case`): each repetition in the pattern
repeats one character or class, and the text is short enough that trying every way to match at every position is
a few million steps at most. The limit reads a clock through a system call twice per search, which on a loaded
virtual machine is most of a large run's judging (docs/performance.md).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import regex

REGEX_TIMEOUT_S = 1.0
"""Per search. Legitimate patterns search a 1 MB reply in milliseconds."""
UNTIMED_STEPS = 10_000_000
"""The most backtracking steps a search run without the time limit may take (tens of milliseconds)."""

_timed_out: set[tuple[str, int]] = set()
_IGNORECASE, _MULTILINE = int(regex.IGNORECASE), int(regex.MULTILINE)


class RegexTimeout(Exception):
    """A config regex ran past REGEX_TIMEOUT_S (catastrophic backtracking)."""

    def __init__(self, pattern: str) -> None:
        shown = pattern if len(pattern) <= 60 else pattern[:59] + "…"
        super().__init__(f"regex /{shown}/ timed out after {REGEX_TIMEOUT_S:g}s (catastrophic backtracking?); "
                         "simplify it, e.g. avoid nested repetition like (a+)+")
        self.pattern = pattern


def check_pattern(pattern: str) -> str:
    """Raise ValueError (for pydantic) if `pattern` does not compile; the message says where it breaks."""
    try:
        compiled(pattern, 0)
    except regex.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    return pattern


@lru_cache(maxsize=1024)
def compiled(pattern: str, flags: int = 0) -> regex.Pattern:
    return regex.compile(pattern, flags)


def search(pattern: str, text: str, *, ignore_case: bool = False, multiline: bool = False,
           timeout: float = REGEX_TIMEOUT_S) -> regex.Match | None:
    """`re.search` semantics with a time limit; raises RegexTimeout."""
    flags = (_IGNORECASE if ignore_case else 0) | (_MULTILINE if multiline else 0)  # ints: an enum's `|` is slow
    key = (pattern, flags)
    if key in _timed_out:
        raise RegexTimeout(pattern)
    shape = _worst_case(pattern)
    if shape is not None:
        unbounded, choices = shape
        positions = len(text) + 1
        if positions * positions ** unbounded * choices <= UNTIMED_STEPS:
            return compiled(pattern, flags).search(text)
    try:
        return compiled(pattern, flags).search(text, timeout=timeout)
    except TimeoutError:
        _timed_out.add(key)
        raise RegexTimeout(pattern) from None


_ATOMS = frozenset({"LITERAL", "NOT_LITERAL", "ANY", "IN", "CATEGORY"})
_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


class _Unbounded(Exception):
    """The pattern's backtracking is not bounded by `_worst_case`'s rule."""


@lru_cache(maxsize=1024)
def _worst_case(pattern: str) -> tuple[int, int] | None:
    """How much a search for `pattern` can backtrack at one position: (repetitions without an upper bound, product
    of the bounded repetitions' choices), when every repetition repeats a single character or class (no repeated
    group or alternation, no back reference); None otherwise (or for syntax Python's own parser does not read, such
    as `regex`'s extensions): such a search keeps its time limit. An upper bound: alternatives and lookarounds are
    counted as if they multiplied."""
    try:
        from re import _parser as parser  # type: ignore[attr-defined]  # Python 3.11+
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse as parser  # type: ignore[no-redef]
    try:
        tree = parser.parse(pattern)
    except Exception:  # noqa: BLE001 - not Python syntax: keep the limit
        return None
    counts = [0, 1]

    def walk(items: Any) -> None:
        for op, value in items:
            name = str(op)
            if name in _REPEATS:
                low, high, item = value
                if len(item) != 1 or str(item[0][0]) not in _ATOMS:
                    raise _Unbounded
                if high == parser.MAXREPEAT:
                    counts[0] += 1
                else:
                    counts[1] *= high - low + 1
            elif name == "SUBPATTERN":
                walk(value[-1])
            elif name == "BRANCH":
                for branch in value[1]:
                    walk(branch)
            elif name in ("ASSERT", "ASSERT_NOT"):
                walk(value[1])
            elif name == "ATOMIC_GROUP":
                walk(value)
            elif name not in _ATOMS and name != "AT":
                raise _Unbounded  # back references, conditionals, anything else

    try:
        walk(tree)
    except _Unbounded:
        return None
    return counts[0], counts[1]


def found(pattern: str, text: str) -> bool:
    """For fault targeting (tool arguments, request paths): a pattern that times out matches nothing."""
    try:
        return search(pattern, text) is not None
    except RegexTimeout:
        return False
