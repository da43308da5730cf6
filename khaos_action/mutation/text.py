"""Character-level mutators: how real users mistype (typos, casing, spacing, lookalike letters, leetspeak).

Every mutator is a pure function `(prompt, rng) -> str`. Tokens that carry the request's key content (anything
with a digit, e-mail addresses, URLs, ALL-CAPS identifiers such as INV-2024-0042) are never touched, so an order
number still reaches the agent intact and the golden-prompt invariants stay meaningful.
"""

from __future__ import annotations

import random
import re

_TOKEN = re.compile(r"\S+")
_WORD = re.compile(r"[A-Za-z]+")


def is_protected(token: str) -> bool:
    """A token that carries key content and must survive every noise mutation unchanged."""
    core = token.strip(".,;:!?()[]{}\"'")
    if any(ch.isdigit() for ch in core):
        return True
    if "@" in core or "://" in core or core.startswith("www."):
        return True
    # Identifiers and acronyms (SKU, INV-ABC, API): all letters upper-case and at least two of them.
    letters = [ch for ch in core if ch.isalpha()]
    return len(letters) >= 2 and all(ch.isupper() for ch in letters)


def editable_words(text: str, min_len: int = 1) -> list[tuple[int, int]]:
    """(start, end) spans of alphabetic runs inside unprotected tokens, in order."""
    spans: list[tuple[int, int]] = []
    for token in _TOKEN.finditer(text):
        if is_protected(token.group()):
            continue
        for word in _WORD.finditer(token.group()):
            if word.end() - word.start() >= min_len:
                spans.append((token.start() + word.start(), token.start() + word.end()))
    return spans


def lower_first(text: str) -> str:
    """Lower-case the first letter, so a sentence reads on after a prefix ("Hi, where is..."), unless it is "I"
    or a protected token."""
    first = text.split(" ", 1)[0]
    if not first or is_protected(first) or first == "I" or first.startswith("I'"):
        return text
    return text[:1].lower() + text[1:]


def _map_unprotected(text: str, change) -> str:
    """Apply `change` to every unprotected token, keeping whitespace and protected tokens exactly."""
    return re.sub(r"\S+", lambda m: m.group() if is_protected(m.group()) else change(m.group()), text)


def _replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


# ---- typos ---------------------------------------------------------------------------------------

_QWERTY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEIGHBOURS: dict[str, str] = {}
for _r, _row in enumerate(_QWERTY_ROWS):
    for _i, _ch in enumerate(_row):
        near = [_row[j] for j in (_i - 1, _i + 1) if 0 <= j < len(_row)]
        for _other in (_r - 1, _r + 1):
            if 0 <= _other < len(_QWERTY_ROWS):
                near += [_QWERTY_ROWS[_other][j] for j in (_i - 1, _i, _i + 1) if 0 <= j < len(_QWERTY_ROWS[_other])]
        _NEIGHBOURS[_ch] = "".join(near)


def _typo_in_word(word: str, rng: random.Random) -> str:
    ops = ["neighbour", "double"]
    if len(word) >= 3:
        ops += ["drop", "transpose"]
    op = rng.choice(ops)
    i = rng.randrange(len(word))
    if op == "neighbour":
        lower = word[i].lower()
        options = _NEIGHBOURS.get(lower, "")
        if not options:
            return word[:i] + word[i] * 2 + word[i + 1:]
        new = rng.choice(options)
        new = new.upper() if word[i].isupper() else new
        return word[:i] + new + word[i + 1:]
    if op == "double":
        return word[:i] + word[i] * 2 + word[i + 1:]
    if op == "drop":
        i = rng.randrange(1, len(word))  # keep the first letter: people rarely mistype it
        return word[:i] + word[i + 1:]
    i = rng.randrange(len(word) - 1)
    if word[i] == word[i + 1]:
        return word[:i] + word[i] * 3 + word[i + 2:]
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def typos(text: str, rng: random.Random) -> str:
    """Adjacent-key slips, dropped, doubled and swapped letters in about one word of six (at least one)."""
    spans = editable_words(text, min_len=3) or editable_words(text)
    if not spans:
        return text
    count = max(1, round(len(spans) / 6 + rng.random()))
    chosen = sorted(rng.sample(spans, min(count, len(spans))), reverse=True)
    for start, end in chosen:  # right to left keeps the earlier spans valid
        text = _replace_span(text, start, end, _typo_in_word(text[start:end], rng))
    return text


# ---- casing --------------------------------------------------------------------------------------

def _random_case(text: str, rng: random.Random) -> str:
    return "".join(ch.upper() if rng.random() < 0.5 else ch.lower() for ch in text)


def casing(text: str, rng: random.Random) -> str:
    """ALL CAPS, all lower, Title Case, rAnDoM case, sWAPPED or a lower-cased start (phones and caps lock)."""
    # Protected tokens keep their case: an id like INV-2024-0042 may be looked up case-sensitively.
    modes = [
        lambda t: _map_unprotected(t, str.upper), lambda t: _map_unprotected(t, str.lower),
        lambda t: _map_unprotected(t, str.capitalize), lambda t: _map_unprotected(t, lambda w: _random_case(w, rng)),
        lower_first, lambda t: _map_unprotected(t, str.swapcase),
    ]
    # Distinct outcomes only, so two modes giving the same text ("lower" and "lower first") are not twice as likely.
    outcomes = [c for c in dict.fromkeys(mode(text) for mode in modes) if c != text]
    return rng.choice(outcomes) if outcomes else text


# ---- whitespace and punctuation ------------------------------------------------------------------

def _double_spaces(text: str, rng: random.Random) -> str:
    return re.sub(r" ", lambda m: "  " if rng.random() < 0.4 else " ", text)


def _strip_punctuation(text: str, rng: random.Random) -> str:
    # Only sentence punctuation between words; inside protected tokens ("12.50", "a@b.com") it is content.
    return re.sub(r"[.,;:!?]+(?=\s|$)", "", text)


def _shout_punctuation(text: str, rng: random.Random) -> str:
    mark = rng.choice(["???", "?!", "!!!", "..."])
    stripped = text.rstrip()
    return re.sub(r"[.?!]*$", "", stripped) + mark


def _squash_after_commas(text: str, rng: random.Random) -> str:
    return re.sub(r"([,;])\s+", r"\1", text)


def _surrounding(text: str, rng: random.Random) -> str:
    return rng.choice(["   ", "\n\n", "\t", " \n "]) + text + rng.choice(["  ", "\n", "\n\n\n", " \t"])


def _line_breaks(text: str, rng: random.Random) -> str:
    spaces = [m.start() for m in re.finditer(" ", text)]
    if not spaces:
        return text
    at = rng.choice(spaces)
    return text[:at] + "\n" + text[at + 1:]


def whitespace_punctuation(text: str, rng: random.Random) -> str:
    """Two of: doubled spaces, missing or shouted punctuation, stray line breaks, padding whitespace."""
    ops = [_double_spaces, _strip_punctuation, _shout_punctuation, _squash_after_commas, _surrounding, _line_breaks]
    for _ in range(4):
        picked = rng.sample(ops, 2)
        candidate = text
        for op in picked:
            candidate = op(candidate, rng)
        if candidate != text:
            return candidate
    return _surrounding(text, rng)


# ---- homoglyphs ----------------------------------------------------------------------------------

HOMOGLYPHS: dict[str, str] = {
    # Cyrillic
    "a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e", "p": "\u0440", "x": "\u0445", "y": "\u0443",
    "i": "\u0456", "j": "\u0458", "s": "\u0455", "h": "\u04bb",
    "A": "\u0410", "B": "\u0412", "C": "\u0421", "E": "\u0415", "H": "\u041d", "K": "\u041a", "M": "\u041c",
    "O": "\u041e", "P": "\u0420", "T": "\u0422", "X": "\u0425",
    # Greek
    "v": "\u03bd", "u": "\u03c5", "N": "\u039d", "Z": "\u0396", "I": "\u0399",
}


def homoglyphs(text: str, rng: random.Random) -> str:
    """Swap about a quarter of the Latin letters (at least one) for Cyrillic/Greek lookalikes."""
    positions = [i for start, end in editable_words(text) for i in range(start, end) if text[i] in HOMOGLYPHS]
    if not positions:
        return text
    count = max(1, round(len(positions) * rng.uniform(0.15, 0.35)))
    chars = list(text)
    for i in rng.sample(positions, min(count, len(positions))):
        chars[i] = HOMOGLYPHS[chars[i]]
    return "".join(chars)


# ---- leetspeak -----------------------------------------------------------------------------------

_LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7", "l": "1", "g": "9", "b": "8"}


def leetspeak(text: str, rng: random.Random) -> str:
    """Replace most replaceable letters with digits (h3ll0) in ordinary words; numbers and ids are left alone."""
    positions = [i for start, end in editable_words(text) for i in range(start, end) if text[i].lower() in _LEET]
    if not positions:
        return text
    share = rng.uniform(0.5, 1.0)
    chosen = [i for i in positions if rng.random() < share] or [rng.choice(positions)]
    chars = list(text)
    for i in chosen:
        chars[i] = _LEET[chars[i].lower()]
    return "".join(chars)
