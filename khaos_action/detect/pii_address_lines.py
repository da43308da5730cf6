"""Address lines known by their end rather than by a house number before a street: a US state and a ZIP code, a
Canadian province and postcode, an Australian state and postcode, a British postcode, a state or province alone at
the end of a line, or a town and a ZIP code; before that end, a street's line in any case with any units and town
between."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from khaos_action.detect.pii_address_words import (
    DIRECTION,
    EN_STREET,
    NOT_A_HOUSE,
    UK_POSTCODE,
    a_year_or_a_count,
)

_US_STATE = (r"A[LKZR]|C[AOT]|D[EC]|FL|GA|HI|I[DLNA]|K[SY]|LA|M[EDAINSOT]|N[EVHJMYCD]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|"
             r"V[TAI]|W[AVIY]|PR|GU|N\.Y")
_ZIP = re.compile(r"(?<!\d)\d{5}(?:-?\d{4})?\b")
_US_STATE_NAME = (r"Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|"
                  r"Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|"
                  r"Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|"
                  r"New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|"
                  r"South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|West Virginia|"
                  r"Wisconsin|Wyoming|District of Columbia")
_CA_PROVINCE = (r"AB|BC|B\.C|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT|Alberta|British Columbia|Colombie-Britannique|"
                r"Manitoba|New Brunswick|Nouveau-Brunswick|Newfoundland and Labrador|Newfoundland|Nova Scotia|"
                r"Nouvelle-Écosse|Ontario|Prince Edward Island|Quebec|Québec|Saskatchewan|Yukon|Nunavut")
_STATE_BEFORE = re.compile(rf"[\s,](?:(?i:{_US_STATE})|{_US_STATE_NAME})\.?\s?,?\s+$")
"""A US state's code or name before a ZIP code ("IL 60601", "fl 33458", "ny 14616-1234", "Charlotte , North
Carolina 28273"): where a US address line ends."""
_CA_POSTCODE = re.compile(r"\b[ABCEGHJ-NPRSTVXY]\d[A-Z] ?\d[A-Z]\d\b")
_PROVINCE_BEFORE = re.compile(rf"[\s,(](?:{_CA_PROVINCE})\)?\.?,?\s+$")
"""A Canadian province before its postcode ("Calgary, AB T2J 6T5", "Montréal (Québec) H2L 2C4")."""
_AU_STATE_POSTCODE = re.compile(r"(?<![\w-])(?:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)\.?,?\s+\d{4}\b(?!-)")
"""An Australian state and postcode: "Toorak VIC 3142", "Sydney NSW 2000"."""
_REGION_END = re.compile(
    rf",\s*(?!OK\b)(?:{_US_STATE}|{_US_STATE_NAME}|{_CA_PROVINCE})\.?(?=\s*(?:$|\n|[.;!?)]|,?\s+"
    rf"(?:USA|U\.S\.A|United States|Canada|CANADA)\b))")
"""A state or province alone after a comma, at the end of a line or before its country: "1720 HARDING HWY NEWFIELD,
NJ", "1730 McPherson Crt. Unit 35, Pickering, ON", "25 Bethridge Road Toronto, Ontario, Canada"."""
_STATE_ENDS_LINE = re.compile(
    rf"(?<=[^\W\d_])\s+(?!OK\b)(?:{_US_STATE}|(?!(?:ok|in|me|or|hi|oh|la|pa|de|co|ma|al|id|ga|mo|ne)\b)"
    rf"(?i:{_US_STATE}))\.?[^\S\n]*$")
"""A state's code alone at the end of a line, in any case: "465 pack lane cheshire ct", "8725 nw 18th ter ste 106
doral fl"; never one that is also a word ("ok", "in", "me", "or", "hi", "OK")."""
_DIGIT = re.compile(r"\d")
_PHRASE_END = re.compile(r"\s*(?:$|[\n.,;!?)])")
_NUMBER_WORDS = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
                 r"sixty|seventy|eighty|ninety)(?:[ -](?:hundred|thousand|one|two|three|four|five|six|seven|eight|"
                 r"nine))?")
"""A house number in words, as a line before its state and ZIP code may begin: "One Microsoft Way, Redmond, WA"."""
_LINE_KIND = r"fwy|expy|roads|streets|mall|crt|cv|ter|trl|xing|cres|hts|lndg|tpke|ctr|center|centre"
"""Street kinds a line known by its end may also have: abbreviations and the plurals Faker writes ("Graham roads")."""
_STREET_WORD = re.compile(rf"(?i)\b(?:{EN_STREET}|{_LINE_KIND}|{DIRECTION}|hwy|highway|route|rt|us|sr)\b")
"""A word the line before a state and ZIP must hold (a street's kind, a direction, a highway): looked for before the
line's pattern, which would be tried at every number of the window."""
_LINKING = (r"(?:to|from|via|and|or|the|of|for|with|in|on|at|by|near|around|outside|inside|into|across|through|"
            r"within|over|under|about|after|before|during|than|per|each|is|are|was|were|has|have|had|we|our|your|"
            r"their)")
_US_LINE = re.compile(
    rf"(?i)(?<![\w.,/-])(?:\d{{1,6}}[a-z]?(?:-[a-z\d]{{1,3}})?(?:\s-)?|{_NUMBER_WORDS}|[nsew]\d{{1,4}}\s?[nsew]\d{{3,6}}),?"
    rf"\s+(?:(?:(?!(?:{_LINKING}|{NOT_A_HOUSE[3:-1]})\b)[a-z\d][\w.'’-]*\s+){{1,4}}?(?:{EN_STREET}|{_LINE_KIND})\b\.?|"
    rf"(?:{DIRECTION})\.?\s+(?!{_LINKING}\b)(?:[a-z][\w'’-]*|\d{{1,3}}(?:st|nd|rd|th)\b)|"
    rf"(?:(?!{_LINKING}\b)[a-z][\w'’-]*\s+){{0,2}}?(?:hwy|highway|route|rt|us|sr|state road|county road)\.?"
    rf"\s+\d{{1,4}}\b)"
    rf"(?:[\s,#]+(?!{_LINKING}\b)[\w.#'’/-]+){{0,8}}?[\s,]*$")
"""A house number (a comma may follow it: "Flat 05, Byrne shores"; a range "718 - 8th Avenue"; Wisconsin's grid
"W156N9762"), one to four words of a name, a street's kind,
then up to eight words of units, directions and the town before the line's end, in any case: "317 conniston road west
palm beach" before "fl 33458"; or a direction and a name for the street ("1100 n dearborn # 403 chicago" before "il
60610"); or a highway and its number ("5028 hwy 15 n. jackson" before "ky 41339"). A word that links a clause
("3 park rangers in Boulder", "300 miles on highway 5 to fresno") or counts something ("miles", "people") is no part
of it."""


_TOWN_BEFORE_ZIP = re.compile(
    rf"(?i)(?<![\w.,/-])\d{{1,6}}[a-z]?[^\S\n]+(?:(?!(?:{_LINKING}|{NOT_A_HOUSE[3:-1]})\b)[a-z][\w'’-]*[^\S\n]+)"
    rf"{{1,3}}?(?:{EN_STREET}|{_LINE_KIND})\b\.?(?:[^\S\n]+{DIRECTION}\b\.?)?,?(?:[^\S\n]+"
    rf"(?!(?:{_LINKING}|{EN_STREET})\b)[a-z][\w'’-]*){{1,3}},?[^\S\n]+$")
"""A street and a town with no state before a ZIP code that ends the line, all on one line: "4450 camrose court
cumming 30041", "1300 E MOUNT GARFIELD ROAD, NORTON SHORES 49441"."""


def us_lines(text: str) -> Iterator[tuple[int, int]]:
    """Address lines known by their end (a state, a province, a postcode), in any case and with any units between:
    the end is looked for first, then a street's line before it. Where no postcode vouches for the end, a line that
    mixes capitalised words and a lower-case noun is a sentence, not an address ("4 Green Park benches, OK")."""
    words: list[int] | None = None  # where the street words start, found in one pass once ends are many
    for count, (line_end, end, pattern, coded) in enumerate(_ends(text)):
        window = max(0, line_end - 120)
        if count == _FEW_ENDS:
            words = [m.start() for m in _STREET_WORD.finditer(text)]
        if not _street_word_between(text, words, window, line_end):
            continue  # no street word before this end: the line's pattern would be tried at every number of it
        line = _line_before(text, pattern, window, line_end)
        if line and (coded or not _mixed_case(line.group(0))):
            yield line.start(), end


def _line_before(text: str, pattern: re.Pattern[str], start: int, end: int) -> re.Match[str] | None:
    """The first street's line in text[start:end] that reaches `end` and whose number counts nothing ("Unit 4, 18
    Harbour Street": the line is read from 18, not from the unit's number)."""
    line = pattern.search(text, start, end)
    while line and a_year_or_a_count(text, line.start()):
        line = pattern.search(text, line.start() + 1, end)
    return line


_FEW_ENDS = 8
"""Up to this many ends, each looks for a street word in its own window; past it (a long list, a log), the street
words of the whole text are found once, so a text of thousands of ends is read in linear time."""


def _street_word_between(text: str, words: list[int] | None, start: int, end: int) -> bool:
    if words is None:
        return bool(_STREET_WORD.search(text, start, end))
    index = bisect_left(words, start)
    return index < len(words) and words[index] < end


_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_LOWER_IN_A_LINE = frozenset({"apt", "apartment", "suite", "ste", "unit", "bldg", "building", "floor", "fl", "rm",
                              "room", "de", "du", "des", "la", "le", "of", "st", "rd", "ave", "dr", "ln", "blvd"})


def _mixed_case(line: str) -> bool:
    words = _WORD.findall(line)
    capitalised = any(word[0].isupper() for word in words)
    return capitalised and any(word[0].islower() and word.lower() not in _LOWER_IN_A_LINE for word in words)


def _ends(text: str) -> Iterator[tuple[int, int, re.Pattern[str], bool]]:
    """(where the street's line must end, where the address ends, the line's pattern, whether a postcode ends it)
    for every end a line may have: postcodes (only in a text with a digit), a state after a comma (only in one with a
    comma), then each line's last word."""
    if _DIGIT.search(text):
        yield from _postcode_ends(text)
    if "," in text:
        for region in _REGION_END.finditer(text):
            yield region.start(), region.end(), _US_LINE, False
    line_end = -1
    while line_end < len(text):  # a line's last word is tried, not every word
        line_end = text.find("\n", line_end + 1)
        line_end = len(text) if line_end < 0 else line_end
        state = _STATE_ENDS_LINE.search(text, max(0, line_end - 8), line_end)
        if state:
            yield state.start(), state.end(), _US_LINE, False


def _postcode_ends(text: str) -> Iterator[tuple[int, int, re.Pattern[str], bool]]:
    for zip_code in _ZIP.finditer(text):  # the state's pattern is tried only before a ZIP code
        state = _STATE_BEFORE.search(text, max(0, zip_code.start() - 24), zip_code.start())
        if state:
            yield state.start(), zip_code.end(), _US_LINE, True
        elif _PHRASE_END.match(text, zip_code.end()):
            yield zip_code.start(), zip_code.end(), _TOWN_BEFORE_ZIP, True
    for postcode in _CA_POSTCODE.finditer(text):
        province = _PROVINCE_BEFORE.search(text, max(0, postcode.start() - 30), postcode.start())
        yield (province.start() if province else postcode.start()), postcode.end(), _US_LINE, True
    for pattern in (_AU_STATE_POSTCODE, UK_POSTCODE):
        for postcode in pattern.finditer(text):
            yield postcode.start(), postcode.end(), _US_LINE, True
