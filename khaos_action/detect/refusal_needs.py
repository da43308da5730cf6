"""The words a pattern's every match holds, read from the pattern itself, so a text holding none of them is not
searched: a substring test costs a fraction of a regex search that enters every branch at every position.

`needs(pattern, flags)` is a set of lower-cased strings such that any match of the pattern holds one of them: each
branch gives a run of literal characters it must match, or the needs of a group it must match (a lookahead's and a
lookbehind's included: what they match is in the text too); a branch with none, or with only what it may skip,
makes the pattern need nothing (None). `finder(needed)` is searched in a text lower-cased with str.lower: that is
what the engine matches, ignoring case, but for the dotted and dotless i, the long s and the Greek mu, which a text
holding any of them is searched for in full.
"""

from __future__ import annotations

import re

from khaos_action.detect.refusal_factor import GROUP, RUN, parsed

_UNLIKE_LOWER = frozenset("\u0130\u0131\u017f\u039c\u03bc")
"""Text characters that the engine, ignoring case, takes for a Latin letter other than their str.lower (İ and ı
for "i", ſ for "s", Μ and μ for the micro sign): a text holding one is searched without the test."""
_LOWERED_UNLIKE = "".join(sorted({char.lower()[-1] for char in _UNLIKE_LOWER}))
"""What str.lower leaves of them, to find in a lower-cased text: İ lowers to "i" and a combining dot above, Μ to
μ."""
_READ = frozenset(chr(c) for c in range(0x20, 0x250) if chr(c).isprintable()) - frozenset("\u0130\u0131\u017f\u00b5")
"""The characters a needed run may hold: Latin ones, each matched only by text characters with its own lower case
(the exceptions above aside)."""
_LOOKAROUND_NOT = ("(?!", "(?<!")


def needs(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """Lower-cased strings one of which every match of `pattern` holds; None when the pattern needs none."""
    branches = parsed(pattern, flags)
    return None if branches is None else _alternation(branches)


def finder(needed: frozenset[str] | None) -> re.Pattern[str] | None:
    """A pattern found in a text lower-cased with str.lower when the text may match a pattern that needs `needed`:
    one of the needed strings, or what str.lower leaves of a character it reads otherwise than the engine (İ lowers to
    "i" and a combining dot). None when the pattern needs nothing: every text may match. One search of literal
    branches costs less than a substring test per word."""
    if needed is None:
        return None
    words = sorted(needed, key=lambda word: (-len(word), word))
    return re.compile("|".join(map(re.escape, words)) + "|[" + _LOWERED_UNLIKE + "]")


def _alternation(branches: list[list[tuple]]) -> frozenset[str] | None:
    found: set[str] = set()
    for branch in branches:
        need = _branch(branch)
        if need is None:
            return None
        found |= need
    return frozenset(found)


def _branch(branch: list[tuple]) -> frozenset[str] | None:
    """The best of what the branch must match: the set whose shortest string is longest, then the smallest."""
    best: frozenset[str] | None = None
    for kind, text, _, inner, opening in branch:
        if kind == RUN:
            need = frozenset((text.lower(),)) if _READ.issuperset(text) else None
        elif kind == GROUP and opening not in _LOOKAROUND_NOT:
            need = _alternation(inner)
        else:
            continue
        if need and (best is None or _rank(need) > _rank(best)):
            best = need
    return best


def _rank(need: frozenset[str]) -> tuple[int, int]:
    return min(len(word) for word in need), -len(need)
