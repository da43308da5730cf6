"""Addresses written on a numbered grid or by plot, as Colombia, South Asia and Nigeria write them:

- Colombia's "Calle 72 # 10-34", "Carrera 7 No. 32-16", "Cra. 15 #93A-62": the street's kind and number, then "#" or
  "No." and the cross street's number, a hyphen and the house's distance from the corner;
- a house's number, then a numbered street, road, lane, block or sector, as Pakistan, India and Bangladesh write it
  ("House No. 45, Street 7, F-8/3, Islamabad", "House #12, Road 5, Dhanmondi");
- a plot and a named street, as Nigeria and Kenya write it ("Plot 12, Admiralty Way, Lekki Phase 1");
- a Spanish, Italian or Portuguese street typed in lower case, its number, then a five-digit postcode ("calle gran
  vía 28, 28013 madrid"), which the capitalised forms of pii_address do not read.

Each form is its own evidence (a "# 10-34" after a street's number, a house's number beside a numbered street), so no
town or postcode need follow it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_COLOMBIAN = re.compile(
    r"(?i)(?<![\w-])(?:avenida calle|avenida carrera|calle|cll?|carrera|cra|kra|kr|transversal|tv|diagonal|dg|ac|ak|"
    r"avenida)\.?\s+\d{1,3}\s?[a-z]?(?:\s?bis)?(?:\s?[a-z])?(?:\s+(?:sur|este|norte))?\s*"
    r"(?:#|no\.?|n[°º]\.?|nro\.?|número)\s*\d{1,3}\s?[a-z]?\s*-\s*\d{1,3}(?![\d-])")
_SOUTH_ASIAN = re.compile(
    r"(?i)(?<![\w-])(?:house|h\.)\s*(?:no\.?|#|number)\s*[a-z]?-?\d{1,4}(?:[-/]\d{1,4}){0,3}[a-z]?\s*,\s*"
    r"(?:street|st\.?|road|rd\.?|lane|block|sector|gali)\s*(?:no\.?|#)?\s*[a-z]?-?\d{1,4}[a-z]?(?![\w-])")
_PLOT = re.compile(
    r"(?<![\w-])Plot\s+(?:No\.?\s*)?\d{1,5}[A-Z]?\s*,\s*(?:[A-Z][\w'’.-]*\s+){1,4}"
    r"(?:Way|Street|Road|Close|Crescent|Avenue|Drive|Lane|Estate)\b")
_ROMANCE_KINDS = r"calle|avenida|paseo|plaza|camino|carrer|via|viale|piazza|corso|rua|travessa|praça"
_ROMANCE_LOWER = re.compile(
    rf"(?<![\w-])(?i:{_ROMANCE_KINDS})\s+"
    r"(?:[^\W\d_][\w'’.-]*\s+){0,4}?[^\W\d_][\w'’.-]*,?\s+(?:n[º°o]\.?\s*)?\d{1,4}[a-z]?,?\s+\d{5}(?![\d-])")
_CROSS_STREET = re.compile(r"[#Nn](?<![\w][Nn])(?:(?<=#)|(?:o\.?|º|°|ro\.?))\s*\d{1,3}\s?[A-Za-z]?\s*-\s*\d{1,3}"
                           r"(?![\d-])")
"""A Colombian address's end: "# 10-34", "No. 32-16"; a set of characters first, which the search skips to (a
word boundary or an alternation first would have it tried at every place)."""
_POSTCODE = re.compile(r"\s\d{5}(?![\d-])")
_NUMBER_BEFORE = re.compile(r"\d{1,4}[a-z]?,?$")
"""A lower-case Romance street's end: a postcode, and its number before it."""
_REACH = 80
"""How far before its end a street's start is looked for."""


def grid_addresses(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every address in one of the forms above. Each form's end is looked for first (a cross
    street's "# 10-34", a number and a postcode) or its word ("house", "Plot"), and its pattern only there: most
    texts have none, and the patterns, tried at every word, would cost more than the rest of the addresses."""
    ends = [(end, _COLOMBIAN) for end in (_CROSS_STREET.finditer(text) if "-" in text else ())]
    ends += [(end, _ROMANCE_LOWER) for end in _POSTCODE.finditer(text)
             if _NUMBER_BEFORE.search(text, max(0, end.start() - 6), end.start())]
    for end, pattern in ends:
        m = pattern.search(text, max(0, end.start() - _REACH), end.end())
        if m and m.end() == end.end():
            yield m.start(), m.end()
    house = -1
    if "ouse" in text or "OUSE" in text or "h." in text or "H." in text:
        lowered = text.lower()
        house = min((at for at in map(lowered.find, _HOUSE_WORDS) if at >= 0), default=-1)
    for pattern, first in ((_SOUTH_ASIAN, house), (_PLOT, text.find("Plot "))):
        for m in pattern.finditer(text, first) if first >= 0 else ():
            yield m.start(), m.end()


_HOUSE_WORDS = ("house no", "house #", "house number", "h.no", "h. no", "h.#")
