"""The words street addresses are written with, shared by the address finders (pii_address, pii_address_lines):
street kinds, directions, units, and the words that make a number something other than a house's."""

from __future__ import annotations

import re

UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮİĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽΑ-ΩА-Я"
CAP = rf"[{UPPER}][\w'’.-]{{0,40}}"
NAME = rf"[{UPPER}][^\W\d_]+"
EN_STREET = (r"street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|"
             r"parkway|pkwy|circle|cir|close|crescent|gardens?|squares?|sq|highway|hwy|row|mews|grove|walk|hills?|"
             r"alley|bend|bridge|brooks?|bypass|cliffs?|commons?|corners?|cove|creek|crest|crossing|dale|estates?|"
             r"expressway|falls|ferry|fields?|forest|forges?|forks?|freeway|gateway|glens?|greens?|harbou?r|haven|"
             r"heights|hollow|junction|knolls?|landing|loop|manors?|meadows?|mills?|orchard|parks?|pass|path|pike|"
             r"plaza|points?|ridges?|route|run|shores?|springs?|stream|summit|trace|trail|turnpike|valley|views?|"
             r"village|vista|wells?|rapids|ports?|islands?|lakes?|ville|parade|embankment|broadway|quay|wharf|rise|vale|"
             r"approach|causeway|esplanade|promenade")
ORDINAL = r"\d{1,3}(?i:st|nd|rd|th)"
"""A numbered street's name: "300 East 57th Street", "12 3rd Avenue", "3849 W 69TH PLACE", "2616 20Th Street"."""
DIRECTION = r"(?:NW|NE|SW|SE|N|S|E|W|North|South|East|West|Northwest|Northeast|Southwest|Southeast)"
UNITS = (r"(?:,?\s+(?:(?i:apt|apartment|suite|ste|unit|flat|building|bldg)\b\.?\s*#?\s*(?:(?=\w*\d)\w+|[A-Z]\b)|"
         rf"#\s*\w+|{ORDINAL}\s+(?i:floor)))*")
"""What may follow a street: its units ("Apt. 4", "Suite #3", "# 125C", "Building #1 Suite #3", "2nd Floor")."""
UK_POSTCODE = re.compile(r"\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[ABD-HJLNP-UW-Z]{2}\b")
"""A British postcode ("SW1A 1AA", "M1 1AE"): it ends a street's line in the United Kingdom."""
NOT_A_HOUSE = (r"(?:room|rooms|floor|floors|gate|gates|platform|terminal|building|level|flight|row|seat|page|"
               r"chapter|step|table|line|route|bus|train|track|version|box office|exit|minutes?|hours?|days?|weeks?|"
               r"months?|years?|people|persons|items?|units|times|percent|kg|km|miles?)")
YEAR = re.compile(r"(?:19|20)\d\d\b")
"""A year of this century or the last: a number that dates something rather than numbering a house."""
_TIME_BEFORE = re.compile(r"(?i)\b(?:in|since|by|during|of|from|until|till|circa|before|after|year)\s+$")
NUMBERED_BEFORE = re.compile(rf"(?i)\b(?:{NOT_A_HOUSE[3:-1]}|no\.?|number|part|volume|issue|episode|season|series|"
                             r"stage|phase|round|sprint|step|lot|unit|top|over|nearly|model|size|type|class|grade|"
                             r"the|our|your|all|up to|batch|order|invoice|ticket|sku|(?<!how )(?<!what )about|around|"
                             r"approximately|"
                             r"some|than|almost|roughly|only|just)\s+$")


_UNIT_AND_HOUSE = re.compile(r"\d{1,4}[A-Za-z]?/\d{1,5}[A-Za-z]?\s")
_UNIT_WORD = re.compile(r"(?i)\b(?:unit|flat|apartment|apt|villa|townhouse|shop|suite)\.?\s+$")


def a_year_or_a_count(text: str, start: int) -> bool:
    """"In 2019 Abbey Road was remastered": a year after a word of time; "Room 12 Ocean View is free", "Season 2
    Ocean Drive was": a number that counts or numbers something, not a house. A unit's number and the house's
    written with a slash, as Australia and New Zealand write them, number a home after "Unit" or "Flat" too ("Unit
    4/18 Smith St")."""
    before = text[max(0, start - 16):start]
    if _UNIT_AND_HOUSE.match(text, start) and _UNIT_WORD.search(before):
        return False
    return bool((YEAR.match(text, start) and _TIME_BEFORE.search(before)) or NUMBERED_BEFORE.search(before))


_LONG_KINDS = ("street", "avenue", "boulevard", "parkway", "landing", "terrace", "highway", "drive", "circle", "court",
               "place", "plaza", "crescent")
_REAL_WORDS = frozenset({"drove", "dive", "diver", "driver", "driven", "derive", "drivel", "count", "plane", "plate",
                         "placed", "palace", "peace", "plaice", "avenge", "lending", "circe", "courtly"})
"""English words one slip away from a street's kind: "3 friends drove", "12 Main plane" are no streets."""


def misspelt_kind(word: str) -> bool:
    """A word one slip of the keys from a long street kind (a letter left out, doubled, swapped or mistyped:
    "Stret", "Streeet", "Aevnue", "lnding"), that is no word of its own."""
    word = word.lower()
    if len(word) < 5 or word in _REAL_WORDS or word.rstrip("s") in _LONG_KINDS:
        return False
    return any(_one_slip(word, kind) for kind in _LONG_KINDS)


def _one_slip(word: str, kind: str) -> bool:
    if abs(len(word) - len(kind)) > 1 or word[0] != kind[0]:
        return False
    if len(word) == len(kind):
        diff = [i for i, (a, b) in enumerate(zip(word, kind, strict=True)) if a != b]
        if len(diff) != 2 or diff[1] != diff[0] + 1:
            return len(diff) == 1
        return word[diff[0]:diff[1] + 1] == kind[diff[1]] + kind[diff[0]]  # two letters swapped
    short, long_ = sorted((word, kind), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


_ENGLISH_WORDS = ("aggregate", "navigate", "investigate", "irrigate", "propagate", "mitigate", "obligate", "instigate",
                  "interrogate", "subjugate", "segregate", "congregate", "surrogate", "promulgate", "castigate",
                  "fumigate", "litigate", "variegate", "corrugate", "relegate", "delegate", "abrogate", "arrogate",
                  "derogate", "elongate", "stargate", "watergate", "tailgate", "floodgate", "colgate", "brigade",
                  "renegade", "bowtie", "necktie", "hogtie", "blockade")
NOT_AN_ENGLISH_WORD = "(?i:" + "".join(f"(?<!{word})" for word in _ENGLISH_WORDS) + ")"
"""Placed after a Danish, Norwegian or Finnish street's kind: the word is none of these English ones that end the same
way ("Brigade 12", "Stargate 3", "Navigate 2 screens", "Bowtie 3"). Lookbehinds, so they are tried only where a
kind has matched."""
NOT_COUNTED = (r"(?!(?i:euros?|eur|dollars?|usd|franken|chf|pfund|kronen|złoty|zloty|kunden|mitarbeiter|menschen|"
               r"einwohner|besucher|personen|leute|stück|punkte|meter|exemplare|nutzer|users|people|points|"
               r"clients|visitors|copies)\b)")
"""An amount or a count after the five digits is none of a town's: "Am Ende 3, 12000 Euro"."""


_NAME_BEFORE = re.compile(r"(?<![\w'’.-])[A-Z][a-z]{2,}[^\S\n]$")
_NOT_A_NAME = re.compile(r"(?i)(?:flat|studio|apt|apartment|unit|suite|box|highway|route|house|block|villa|shop|"
                         r"office|lot|plot|stand|no)\s$")
_PLACED_NAME = re.compile(r"(?i)\b(?:at|to)\s+\S+\s$")
_SHORT_NUMBER = re.compile(r"\d{1,2}(?!\d)")
_NUMBER_LATER = re.compile(r"\d{3}|[A-Z]{1,2}\d")
_LINE_OR_SENTENCE_END = re.compile(r"\n|[.!?](?:\s|$)")


def a_names_number(text: str, start: int, end: int) -> bool:
    """"Apollo 13 Moon Landing, FL", "Pier 39 Fisherman Wharf, CA", "Area 51 Alien Center, NV": a number of one or
    two digits right after a capitalised name belongs to the name, and a state's code after a place is no address.
    A unit's word ("Flat 05", "Studio 53"), "at" or "to" before the name ("send it to Barboncino 12 Oak Street") or a
    postcode later on its line ("Hixenbaugh 9 Front St Washington DC 20001", "Coffee 15 Melle St. Braamfontein
    Johannesburg, 2001") keep it an address."""
    if start < 2 or text[start - 1] not in " \t" or not text[start - 2].isalpha():
        return False  # most spans start at a line's or a phrase's start, or after a digit or a sign
    number = _SHORT_NUMBER.match(text, start)
    if not number or not _NAME_BEFORE.search(text, max(0, start - 30), start):
        return False
    before = text[max(0, start - 40):start]
    if _NOT_A_NAME.search(before) or _PLACED_NAME.search(before):
        return False
    after = _LINE_OR_SENTENCE_END.search(text, end, end + 60)
    return not _NUMBER_LATER.search(text, number.end(), after.start() if after else end + 60)
