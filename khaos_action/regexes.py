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
"""

from __future__ import annotations

from functools import lru_cache

import regex

REGEX_TIMEOUT_S = 1.0
"""Per search. Legitimate patterns search a 1 MB reply in milliseconds."""

_timed_out: set[tuple[str, int]] = set()


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
    flags = (regex.IGNORECASE if ignore_case else 0) | (regex.MULTILINE if multiline else 0)
    key = (pattern, flags)
    if key in _timed_out:
        raise RegexTimeout(pattern)
    try:
        return compiled(pattern, flags).search(text, timeout=timeout)
    except TimeoutError:
        _timed_out.add(key)
        raise RegexTimeout(pattern) from None


def found(pattern: str, text: str) -> bool:
    """For fault targeting (tool arguments, request paths): a pattern that times out matches nothing."""
    try:
        return search(pattern, text) is not None
    except RegexTimeout:
        return False
