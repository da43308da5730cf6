"""The count a request for an act names ("Hold 3 rooms", "Set the replica count to 25", "Raise my limit to £2,000"):
a report of the act on fewer is a partial act (refusal_unmet.py)."""

from __future__ import annotations

import re

from khaos_action.detect.refusal_grammar import rx

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20}
"""The counts the refusal readings read in words, in this order in their patterns (refusal_case_rule.py,
refusal_partial.py)."""
WORDS = "|".join(NUMBER_WORDS)
_WORD_NUMBERS = {**NUMBER_WORDS, "a single": 1}
_COUNT = rf"(?P<count>\d[\d,]*(?:\.\d+)?|one|a single|{'|'.join(list(NUMBER_WORDS)[1:])})"
QUANTITY = rx(rf"(?<![\d:.#/-])(?<![a-z]-)(?:[£$€]\s?)?\b{_COUNT}\b(?![:.]\d)(?!\s?(?:am|pm|st|nd|rd|th)\b)(?![-/]\d)")
"""A count or an amount ("25", "3 rooms", "£2,000"); not a clock time, a date, an ordinal or an identifier."""


def count_of(match: re.Match[str]) -> float | None:
    text = match.group("count").casefold()
    if text in _WORD_NUMBERS:
        return float(_WORD_NUMBERS[text])
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def asked_count(prompt_words: str, *, act: bool) -> float | None:
    """The one count a request for an act names ("Hold 3 rooms", "Set the replica count to 25"), if it names exactly
    one."""
    if not act:
        return None
    counts = {c for c in map(count_of, QUANTITY.finditer(prompt_words)) if c is not None}
    return counts.pop() if len(counts) == 1 else None
