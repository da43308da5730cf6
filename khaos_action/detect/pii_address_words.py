"""The words street addresses are written with, shared by the address finders (pii_address, pii_address_lines):
street kinds, directions, units, and the words that make a number something other than a house's."""

from __future__ import annotations

import re

UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮİĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽΑ-ΩА-Я"
CAP = rf"[{UPPER}][\w'’.-]*"
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
NOT_A_HOUSE = (r"(?:room|rooms|floor|floors|gate|gates|platform|terminal|building|level|flight|row|seat|page|"
               r"chapter|step|table|line|route|bus|train|track|version|box office|exit|minutes?|hours?|days?|weeks?|"
               r"months?|years?|people|persons|items?|units|times|percent|kg|km|miles?)")
_YEAR = re.compile(r"(?:19|20)\d\d\b")
_TIME_BEFORE = re.compile(r"(?i)\b(?:in|since|by|during|of|from|until|till|circa|before|after|year)\s+$")
NUMBERED_BEFORE = re.compile(rf"(?i)\b(?:{NOT_A_HOUSE[3:-1]}|no\.?|number|part|volume|issue|episode|season|series|"
                             r"stage|phase|round|sprint|step|lot|unit|top|over|nearly|model|size|type|class|grade|"
                             r"the|our|your|all|up to|batch|order|invoice|ticket|sku)\s+$")


def a_year_or_a_count(text: str, start: int) -> bool:
    """"In 2019 Abbey Road was remastered": a year after a word of time; "Room 12 Ocean View is free", "Season 2
    Ocean Drive was": a number that counts or numbers something, not a house."""
    before = text[max(0, start - 12):start]
    return bool((_YEAR.match(text, start) and _TIME_BEFORE.search(before)) or NUMBERED_BEFORE.search(before))
