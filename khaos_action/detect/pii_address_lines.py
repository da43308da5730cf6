"""Address lines known by their end rather than by a house number before a street: a US state's code and a ZIP
code, after a street's line in any case and with any units and town between them."""

from __future__ import annotations

import re
from collections.abc import Iterator

from khaos_action.detect.pii_address_words import DIRECTION, EN_STREET, NOT_A_HOUSE, a_year_or_a_count

_US_STATE = (r"A[LKZR]|C[AOT]|D[EC]|FL|GA|HI|I[DLNA]|K[SY]|LA|M[EDAINSOT]|N[EVHJMYCD]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|"
             r"V[TAI]|W[AVIY]|PR|GU|N\.Y")
_ZIP = re.compile(r"(?<!\d)\d{5}(?:-?\d{4})?\b")
_STATE_BEFORE = re.compile(rf"(?i)[\s,](?:{_US_STATE})\.?,?\s+$")
"""A US state's code before a ZIP code ("IL 60601", "fl 33458", "ny 14616-1234"): where a US address line ends."""
_STREET_WORD = re.compile(rf"(?i)\b(?:{EN_STREET}|fwy|expy|{DIRECTION}|hwy|highway|route|rt|us|sr)\b")
"""A word the line before a state and ZIP must hold (a street's kind, a direction, a highway): looked for before the
line's pattern, which would be tried at every number of the window."""
_LINKING = (r"(?:to|from|via|and|or|the|of|for|with|in|on|at|by|near|around|outside|inside|into|across|through|"
            r"within|over|under|about|after|before|during|than|per|each|is|are|was|were|has|have|had|we|our|your|"
            r"their)")
_US_LINE = re.compile(
    rf"(?i)(?<![\w.,/-])\d{{1,6}}[a-z]?(?:-[a-z\d]{{1,3}})?\s+(?:(?:(?!(?:{_LINKING}|{NOT_A_HOUSE[3:-1]})\b)"
    rf"[a-z\d][\w.'’-]*\s+){{1,4}}?(?:{EN_STREET}|fwy|expy)\b\.?|(?:{DIRECTION})\.?\s+(?!{_LINKING}\b)[a-z][\w'’-]*|"
    rf"(?:(?!{_LINKING}\b)[a-z][\w'’-]*\s+){{0,2}}?(?:hwy|highway|route|rt|us|sr|state road|county road)\.?"
    rf"\s+\d{{1,4}}\b)"
    rf"(?:[\s,#]+(?!{_LINKING}\b)[\w.#'’/-]+){{0,8}}?[\s,]*$")
"""A house number, one to four words of a name, a street's kind, then up to eight words of units, directions and the
town before the state and ZIP code, in any case: "317 conniston road west palm beach" before "fl 33458"; or a
direction and a name for the street ("1100 n dearborn # 403 chicago" before "il 60610"); or a highway and its number
("5028 hwy 15 n. jackson" before "ky 41339"). A word that
links a clause ("3 park rangers in Boulder", "300 miles on highway 5 to fresno") or counts something ("miles",
"people") is no part of it."""


def us_lines(text: str) -> Iterator[tuple[int, int]]:
    """US address lines known by their end, a state's code and a ZIP code, in any case and with any units between:
    the state and ZIP are looked for first, then a street's line before them."""
    for zip_code in _ZIP.finditer(text):  # the ZIP code first: the state's pattern is tried only before one
        state = _STATE_BEFORE.search(text, max(0, zip_code.start() - 8), zip_code.start())
        window = max(0, state.start() - 120) if state else 0
        worded = state and _STREET_WORD.search(text, window, state.start())
        line = worded and _US_LINE.search(text, window, state.start())
        if line and not a_year_or_a_count(text, line.start()):
            yield line.start(), zip_code.end()
