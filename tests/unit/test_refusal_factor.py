"""The refusal detector's alternations factored by their first character: the same matches (span and groups, from
every position) as the pattern as written, on random patterns of the kinds the detector writes and random texts
over their letters; syntax the rewrite does not read is left as written."""

import random
import re

import pytest

from khaos_action.detect.refusal_factor import _SAFE_KEYS, factored

_PIECES = ("a", "b", "ab", "ba", "abc", "A", "B", "é", "É", " ", "'", "-", r"\w", r"\w*", r"\s+", ".", "[ab]",
           "[^a ]", "a?", "b+", "c{1,2}", "ç")
_TEXT_CHARS = "aabbcABCéÉç '-.x\n"


def _random_pattern(rng: random.Random, depth: int = 0) -> str:
    branches = []
    for _ in range(rng.randint(1, 6)):
        parts = []
        for _ in range(rng.randint(0, 4)):
            roll = rng.random()
            if roll < 0.15 and depth < 3:
                prefix = rng.choice(("(?:", "(?:", "(", f"(?P<g{rng.randint(0, 10**6)}>", "(?=", "(?!", "(?i:",
                                     "(?-i:"))
                parts.append(prefix + _random_pattern(rng, depth + 1) + ")" + rng.choice(("", "", "?", "??")))
            elif roll < 0.25:
                parts.append(rng.choice((r"\b", r"\B", "^", "$")))
            else:
                parts.append(rng.choice(_PIECES))
        branches.append("".join(parts))
    return "|".join(branches)


def _matches(pattern: re.Pattern[str], text: str) -> list:
    found = [(m.span(), m.groups()) for m in pattern.finditer(text)]
    for start in range(len(text) + 1):
        m = pattern.match(text, start)
        found.append(m and (m.span(), m.groups(), m.lastindex))
    return found


@pytest.mark.parametrize("flags", [re.IGNORECASE, 0])
def test_factored_patterns_match_as_written(flags):
    rng = random.Random(20261128 + flags)
    rewritten = 0
    for _ in range(800):
        pattern = _random_pattern(rng)
        try:
            written = re.compile(pattern, flags)
        except re.error:
            continue
        new = factored(pattern, flags)
        rewritten += new != pattern
        compiled = re.compile(new, flags)
        assert compiled.groupindex == written.groupindex and compiled.groups == written.groups, (pattern, new)
        for _ in range(4):
            text = "".join(rng.choice(_TEXT_CHARS) for _ in range(rng.randint(0, 14)))
            assert _matches(compiled, text) == _matches(written, text), (pattern, new, text)
    assert rewritten > 150  # the test reads rewritten patterns, not only ones left as written


def test_a_vocabulary_becomes_a_trie():
    assert factored(r"\b(?:important|importantly|crucial|I can|(?:I|we) must)\b", re.IGNORECASE) == (
        r"\b(?:i(?:m(?:p(?:o(?:r(?:t(?:a(?:n(?:t(?:|ly))))))))| (?:can|must))|crucial|we must)\b")
    # two vocabularies, each a group with its tail, meet in one trie
    assert factored(r"\b(?:sorry|safe)\b|\b(?:sicher|sorge)\b", re.IGNORECASE) == (
        r"\b(?:s(?:o(?:r(?:ry\b|ge\b))|afe\b|icher\b))")
    # branches of separate groups meet under their first letter; "b" keeps its place
    assert factored("(?:ab|ac)|(?:ad|b)|ae", 0) == "a(?:b|c|d|e)|b"
    # ignoring case, "A" and "a" lead the same branches: the "a" after "A" is not moved above it
    assert re.compile(factored(r"ab|A\w|a\w\w", re.IGNORECASE), re.IGNORECASE).match("acd").span() == (0, 2)
    # a capturing group keeps its number: its branch is not moved
    assert factored("ab|(a)c|ad", 0) == "ab|(a)c|ad"


@pytest.mark.parametrize("pattern", [r"(a)|\1", "(?#note)a|ab", "a{x|ab", "(?(1)a|b)", "(?x: a | b )", "[[a]b]|ab"])
def test_unread_syntax_is_left_as_written(pattern):
    assert factored(pattern, re.IGNORECASE) == pattern


def test_safe_keys_have_no_other_equal_ignoring_case():
    keys = sorted(_SAFE_KEYS)
    for a in keys:
        equal = re.compile(re.escape(a), re.IGNORECASE)
        assert [b for b in keys if b.lower() != a.lower() and equal.fullmatch(b)] == [], a
