"""Phone number candidates: runs of digits and phone punctuation in a text, each cut where two numbers meet and
cleared of an amount or an extension glued to it. Whether a candidate is a phone number is pii_phone's to decide.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
"""Kana, CJK ideographs and hangul: scripts written without spaces, so a number stands right next to their words
("我的电话号是0176-12345678", "私のIPは1.1.1.1です") and they end no value as a letter of a word would."""
WORD = rf"[^\W{UNSPACED}]"
"""A letter or digit that may continue a value's word (`\\w` without the unspaced scripts)."""
# A number never runs over a line break: "Hungary 34796\n(37) 788-063" is a postcode and then a phone. It may be glued
# to a sentence's last word ("an email soon.925-824-2555"), never to a number or a code before a dot; an extension
# may follow it ("837.824.1482x6388", "269-541-4584 ext. 68"). A "+" right after an operand is arithmetic
# ("45+31-339243873", "(12)+(34)-567890"). The "+" may be doubled, as some write it ("++1 (650) 333-6000"), and
# may follow a word directly ("call+64 3 331 6005"): it starts the number; after a lone letter it is algebra
# ("x+12345678901"). A slash after the number ends it when no digit follows ("Call 03 331 6005/x12 more").
# Poland's exit code may be written with its wait for a dial tone ("0~01-650-333-6000").
_CANDIDATE = re.compile(rf"(?:(?<!{WORD})|(?<=[^\W\d_]{{2}})(?=\++\d))"
                        rf"(?<![+/,-])(?<!(?<![a-z][a-z])\.)(?!(?<=\))\+)(?:\+\+?|00|0~0)?\(?\d"
                        rf"[\d \t\u00a0().\-/]{{5,22}}\d"
                        rf"(?:(?=\s?(?i:x|ext\.?)\s?\d{{1,6}}\b)|(?!{WORD}|/\d|[.,]\d))")


@dataclass(frozen=True, slots=True)
class Candidate:
    text: str
    raw: str
    start: int
    end: int

    @property
    def before(self) -> str:
        return self.text[max(0, self.start - 30):self.start]

    @property
    def after(self) -> str:
        return self.text[self.end:self.end + 12]


def candidates(text: str) -> Iterator[Candidate]:
    at = 0
    while (m := _CANDIDATE.search(text, at)) is not None:
        cut = _between_numbers(m.group(0))
        end, at = (m.start() + cut.start(), m.start() + cut.end()) if cut else (m.end(), m.end())
        start, end = _without_money(text, m.start(), end)
        end = _without_hyphen_extension(text, start, end)
        if 7 <= sum(c.isdigit() for c in text[start:end]) <= 15:
            raw = text[start:end].rstrip(" -./(")
            yield Candidate(text, raw, start, start + len(raw))


CURRENCY = "$€£¥"
_MONEY_FIRST = re.compile(r"\d+(?:[.,]\d+)?\s+")
_MONEY_LAST = re.compile(r"\s+\d+(?:[.,]\d+)?$")


_HYPHEN_EXTENSION = re.compile(r"-\d{1,5}$")


def _without_hyphen_extension(text: str, start: int, end: int) -> int:
    """An international number too long by a group after a hyphen ends before it: that group is its extension
    ("+86 20 61302222-8866", "+86 20 6130-2222-8866")."""
    raw = text[start:end]
    if raw.startswith("+") and sum(c.isdigit() for c in raw) > 15 and (extension := _HYPHEN_EXTENSION.search(raw)):
        return start + extension.start()
    return end


def _without_money(text: str, start: int, end: int) -> tuple[int, int]:
    """An amount glued to a number by a space is no part of it: "$20 415-666-7777", "415-666-7777 100$"."""
    if start and text[start - 1] in CURRENCY and (first := _MONEY_FIRST.match(text, start, end)):
        start = first.end()
    if end < len(text) and text[end] in CURRENCY and (last := _MONEY_LAST.search(text, start, end)):
        end = last.start()
    return start, end


_BETWEEN_NUMBERS = re.compile(r"\.\s+|\s+[-–—]{1,2}\s+|(?<=\d)\s+(?=\()")
"""What may stand between two numbers: a sentence's period ("(415) 666 7777. 34215 is my zip-code"), never inside
one; a dash with spaces on both sides ("415-666-7777 - 800-443-1223", "CA 34215 - 415-666-7777") and a space before
a parenthesis ("(415) 666-7777 (800) 443-1223") only beside a whole number: "010 - 123 45 67" and "+1 (650)
333-6000" are one. The next number is looked for where the separator ends."""


def _between_numbers(raw: str) -> re.Match[str] | None:
    for m in _BETWEEN_NUMBERS.finditer(raw):
        before, after = (sum(c.isdigit() for c in part) for part in (raw[:m.start()], raw[m.end():]))
        if m.group(0).startswith(".") or before >= 7 or ("-" in m.group(0) and after >= 10):
            return m
    return None
