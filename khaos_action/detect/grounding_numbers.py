"""Numbers as a reply and the texts it rests on write them (detect/grounding.py reads claims with them): digits
with their currency, separators and suffix, ids that mix letters and digits, numbers spelled in English words, and
the normal forms a claim and its support are compared in (1,200 = 1200 = 1200.00; P-1042 = p1042)."""

from __future__ import annotations

import re

_UNIT_WORDS = ("days?", "weeks?", "months?", "years?", "hours?", "minutes?", "mins?", "seconds?", "percent",
               "per cent", "dollars?", "euros?", "pounds?", "cents?", "times", "nights?", "sessions?", "visits?",
               "doses?", "tablets?", "mg", "kg", "km", "miles?", "people", "employees", "items?", "points?",
               "credits?", "shares?")
_UNIT = r"(?:" + "|".join(_UNIT_WORDS) + r")"

_ONES = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
         "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
         "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_VALUES = {**_ONES, **_TENS}
_NUMBER_WORD = "|".join([*_ONES, *_TENS, *_SCALES, "a"])
# "twenty-five", "two hundred", "one thousand five hundred"; "one" alone only before a unit (see SPELLED)
SPELLED_NUMBER = rf"(?:(?:{_NUMBER_WORD})(?:[\s-]+(?:and[\s-]+)?(?:{_NUMBER_WORD}))*)"
# A spelled number alone ("one or two sentences", "no one") supports nothing; a compound one is a number.
COMPOUND = re.compile(rf"\b(?:{'|'.join(_TENS)})-(?:{'|'.join(_ONES)})\b|\b(?:{_NUMBER_WORD})\s+(?:hundred|thousand|"
                      rf"million)\b", re.IGNORECASE)
SPELLED = re.compile(rf"\b({SPELLED_NUMBER})(?:\s+[a-z]+){{0,2}}?\s+({_UNIT})\b", re.IGNORECASE)
# A spelled number before a plural noun ("two options") counts only what the user asked about (grounding's counts).
COUNT = re.compile(rf"\b({SPELLED_NUMBER})(?:\s+[a-z]+){{0,2}}?\s+([a-z]+s)\b", re.IGNORECASE)

# A number as people write it: optional currency, digits with thousands/decimal/time/date separators, optional
# suffix; or an id mixing letters and digits (P-1042, AZ611, GR-38211, 9am, 25th).
NUMERIC = re.compile(
    r"(?<![\w@/.])(?:[$€£¥₹]\s?)?\d+(?:[.,:/\-]\d+)*(?:\s?%)?(?![\w@])"
    r"|(?<![\w@/.])[A-Za-z]+[-_#]?\d[\w\-]*"
    r"|(?<![\w@/.])\d+[A-Za-z][\w\-]*")


def spelled_value(words: str) -> float | None:
    """'twenty-five' → 25, 'two hundred and ten' → 210, 'a thousand' → 1000; None for what is not a number."""
    total = current = 0
    seen = False
    for word in re.split(r"[\s-]+", words.casefold()):
        if word in ("and", ""):
            continue
        if word == "a":
            current = current or 1
            continue
        if word not in _VALUES and word not in _SCALES:
            return None
        total, current = _read_number_word(word, total, current)
        seen = True
    return float(total + current) if seen else None


def _read_number_word(word: str, total: int, current: int) -> tuple[int, int]:
    """(total, current) after one number word: a unit adds to the current group, a scale multiplies it (and a
    thousand or more closes the group)."""
    if word in _VALUES:
        return total, current + _VALUES[word]
    current = (current or 1) * _SCALES[word]
    return (total + current, 0) if _SCALES[word] >= 1000 else (total, current)


# ---- normal forms ----------------------------------------------------------------------------------------------


def number_key(value: float) -> str:
    return f"{value:g}"


def token_key(token: str) -> str:
    """An id or number with case, currency and separators dropped: P-1042 = p1042, $1,200 = 1200."""
    return re.sub(r"[^\w]|_", "", token.casefold())


def whole_value(token: str) -> str | None:
    """The number a token stands for as a whole ($1,200.50 → 1200.5, 1.200,50 → 1200.5, 25% → 25), or None for
    a time, a date or an id."""
    digits = token.strip("$€£¥₹% ").replace(" ", "")
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", digits):
        digits = digits.replace(",", "")
    elif re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", digits):  # 1.200,50 (German, Spanish, ...)
        digits = digits.replace(".", "").replace(",", ".")
    elif re.fullmatch(r"\d+,\d{1,2}", digits):  # 3,5
        digits = digits.replace(",", ".")
    if not re.fullmatch(r"\d+(?:\.\d+)?", digits):
        return None
    return number_key(float(digits))


def groups(token: str) -> list[str]:
    """Each run of digits of a token as a number: 09:30 → 9, 30; 2025-03-07 → 2025, 3, 7; P-1042 → 1042."""
    return [number_key(float(group)) for group in re.findall(r"\d+", token)]
