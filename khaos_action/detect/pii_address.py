"""Postal addresses of a home or a person, found by their structure:

- a house number bound to a street of a known kind, in the ways the supported languages write them ("742 Evergreen
  Terrace", "Hauptstraße 12", "12 rue de la Paix", "Calle Mayor 5", "Via Roma 10", "Keizersgracht 123"), or a UK
  postcode after a street;
- a house number and a street name followed by a unit ("6750 Koskikatu 25 Apt. 864", "14 Crown St Suite 321"),
  whatever the street's language;
- the US forces' postal forms ("PSC 0413, Box 8144", "APO AE 42323", "USNS Bergman FPO AP 93757");
- after words that introduce an address ("my address is", "lives on", "located at", "send it to", "Adresse :",
  "address updated to"), a place phrase where a number stands next to a name ("Rue Dielhère 130", "5366 Pivovarská
  276");
- a street without a house number followed by its places and a postcode ("14th Cross Road, Indiranagar, Bengaluru
  560038"), a name and a house number followed by a postcode and a town ("Am Lindenhof 3, 04109 Leipzig");
- a street's line followed by a line with its town and postcode ("Hauptstraße 5" / "10115 Berlin"); a Hungarian
  street kind before the number ("Király u. 15", "Andrássy út 60");
- Japanese block addresses: the postal mark and its postcode, a municipality and its chōme-banchi-gō
  ("東京都渋谷区渋谷2-21-1"), or their romanised form with the ward ("3-14-2 Nishi-Shinjuku, Shinjuku-ku").
- a house number in words ("One Jelly Belly Lane") where a word places it, a unit follows it or it stands alone on
  its line; a long street kind misspelt by one slip of the keys ("1200 Market Stret");
- lines known by their end, a state, a province or a postcode (pii_address_lines: "28 Gorgo Lane Newfield, NJ",
  "67 Lougheed Rd Unit B Barrie, Ontario L4N 8G1").
- national forms known by their own kinds (pii_address_intl: "Maria Dehlis vei 15", "Szewska 6, Kraków", "ул.
  Тверская д. 7", "建国路88号").

A street word alone ("Main Street"), a year after a word ("During 2008"), a route, a room, a floor or a platform
number is no address.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from khaos_action.detect.pii_address_country import country_addresses
from khaos_action.detect.pii_address_grid import grid_addresses
from khaos_action.detect.pii_address_intl import national_addresses
from khaos_action.detect.pii_address_lines import us_lines
from khaos_action.detect.pii_address_words import (
    CAP,
    DIRECTION,
    EN_STREET,
    NAME,
    NOT_A_HOUSE,
    NOT_AN_ENGLISH_WORD,
    NOT_COUNTED,
    NUMBERED_BEFORE,
    ORDINAL,
    UK_POSTCODE,
    UNITS,
    UPPER,
    YEAR,
    a_names_number,
    a_year_or_a_count,
    misspelt_kind,
)

_OF = r"(?:de la|de los|de las|del|de|della|dei|di|do|da|dos|das)"
"""The words between a Romance street's names: "Avenida Almirante Silvio de Noronha, 365"."""
_ROMANCE_KIND = r"(?:Camino|Alameda|Calle|Avenida|Paseo|Via|Vía|Rambla|Calzada|Rua|Plaza|Corso|Viale|Piazza)"
_ROMANCE_IN_ENGLISH_ORDER = re.compile(
    rf"\b\d{{1,5}}[A-Za-z]?\s+(?:{DIRECTION}\s+)?(?:(?:El|La|Las|Los|The)\s+{_ROMANCE_KIND}"
    rf"(?:\s+(?:{_OF}\s+)?{NAME}){{0,3}}|{_ROMANCE_KIND}(?:\s+(?:{_OF}\s+)?{NAME}){{1,3}}){UNITS}")
"""A street named in Spanish or Italian and numbered the English way, as in California: "555 East El Camino Real",
"754 The Alameda #10", "1200 Paseo Padre Parkway". Complete as an English street must be ("3 Via Rail trains" is a
count of trains), and never after a word that numbers something ("Flight 12 Via Dallas")."""
_PATTERNS = (
    # 742 Evergreen Terrace · 1600 Pennsylvania Avenue NW · 300 East 57th Street · 4-6 High Street · 9042/1044 Tower
    # Avenue · 35-B Sunset Drive · 16½ Windward Road · 1365 Broadway (optionally ", London SW1A 2AA")
    re.compile(rf"\b\d{{1,5}}[A-Za-z½]?(?:[/-]\d{{1,5}}[A-Za-z]?|-[A-Z](?=\s))?\s+(?:(?:(?:{CAP}|{ORDINAL})\s+){{1,4}}"
               rf"(?=[A-Z])(?i:{EN_STREET})|Broadway|BROADWAY)\b\.?"
               rf"(?:\s+{DIRECTION}\b)?{UNITS}"),
    # Hauptstraße 12 · Am Markt 3 · Lindenallee 4a · Keizersgracht 123 · Kalverstraat 92 · Koskikatu 25
    re.compile(r"\b(?![A-Za-z]*(?:[aeiou]ring|pring|tring|bring)\b)[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|str\.|weg|"
               r"allee|platz|gasse|ring|damm|ufer|chaussee|straat|laan|gracht|kade|plein|steeg|singel|gatan|gata|"
               rf"vägen|gade|vej|veien|vegen|gate|katu|tie|kuja){NOT_AN_ENGLISH_WORD}\s+(?!(?:19|20)\d\d\b)\d{{1,4}}"
               r"(?:\s?[a-z])?\b"),
    # ul. Marszałkowska 10 · P.O. Box 1234 · Postfach 12 34
    re.compile(rf"\bul\.\s+{CAP}(?:\s+{CAP}){{0,2}}\s+\d{{1,4}}[a-z]?\b|\bP\.?\s?O\.?\s?Box\s+\d{{1,6}}\b|"
               r"\bPostfach\s+\d{1,3}(?:\s?\d{2,3})?\b", re.IGNORECASE),
    re.compile(r"\b(?:[A-ZÄÖÜ][a-zäöüß]+[ -])(?:Straße|Strasse|Weg|Allee|Platz|Gasse|Ring|Damm)\s+\d{1,4}\s?[a-z]?\b"),
    # 12 rue de la Paix · 5 bis, avenue Victor Hugo · 3 place du Marché: the street's kind in either case; after a
    # kind that is also an English word its name capitalised ("at 1 place and it would take off" is no square), after
    # the others in any case ("6 rue gustave charpentier")
    re.compile(r"\b\d{1,4}(?:\s?(?i:bis|ter))?,?\s+(?:(?i:avenue|av\.|boulevard|place|route|cours|square)\s+"
               rf"(?:(?i:de la|de l'|du|des|de|d')\s*)?{CAP}(?:\s+{CAP})*|"
               r"(?i:rue|bd|boul\.|chemin|allée|impasse|quai)\s+"
               r"(?:(?i:de la|de l'|du|des|de|d')\s*)?[^\W\d_][\w'’.-]*(?:\s+[^\W\d_][\w'’.-]*){0,3})"),
    # Calle Mayor 5 · Avenida de la Constitución, 12 · C/ Alcalá 45 · Via Roma 10 · Piazza Navona 2 · Rua do Sol 9 ·
    # Av. Paulista, 1578 · Av. Corrientes 1234 · Travessa do Carmo, 12
    re.compile(rf"\b(?:Calle|C/|Avenida|Avda\.?|Av\.|Plaza|Paseo|Camino|Carrer|Rua|Rúa|Via|Viale|Piazza|Corso|Largo|"
               rf"Alameda|Calzada|Travessa|Praça|Estrada|Rodovia)\s+"
               rf"(?:{_OF}\s+)?{CAP}(?:\s+(?:{_OF}\s+)?{CAP}){{0,4}},?\s+"
               rf"(?:n[º°o]\.?\s*)?\d{{1,4}}\b"),
    # a house number, a street name in any language, a unit: 6750 Koskikatu 25 Apt. 864 · 14 Crown St Suite 321
    re.compile(rf"\b\d{{1,6}}[A-Za-z]?\s+{CAP}\s+(?:[\w'’.-]+\s+){{0,3}}?(?:\d{{1,5}}[A-Za-z]?\.?\s+)?"
               r"(?i:apt|apartment|suite|ste|flat)\.?\s*#?\d{1,5}\b"),
    # the US forces' post: PSC 0413, Box 8144 · Unit 5022 Box 1225 · APO AE 42323 · USNS Bergman FPO AP 93757
    re.compile(r"\b(?:PSC|Unit|CMR)\s+\d{3,5},?\s+Box\s+\d{1,5}\b(?:\s*(?:APO|FPO|DPO)\s+(?:AA|AE|AP)\s+\d{5}\b)?|"
               rf"\b(?:USNS|USNV|USS|USCGC)\s+{CAP}\s*(?:APO|FPO|DPO)\s+(?:AA|AE|AP)\s+\d{{5}}\b|"
               r"\b(?:APO|FPO|DPO)\s+(?:AA|AE|AP)\s+\d{5}\b", re.IGNORECASE),
)
_NUMBER_WORD = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|"
                r"fifty|sixty|seventy|eighty|ninety|hundred|thousand)")
_ROAD = (r"street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|parkway|pkwy|place|pl|plaza|court|ct|"
         r"circle|cir|terrace|square|sq|highway|hwy")
_WORDED = re.compile(
    rf"(?<![\w-])(?=[A-Z])(?i:{_NUMBER_WORD}(?:[ -](?:and )?{_NUMBER_WORD}){{0,3}})\s+(?:{DIRECTION}\.?\s+)?"
    rf"(?!(?i:mile|miles|way|more|of|the|and|or)\b)(?:{CAP}\s+){{1,3}}(?=[A-Z])(?i:{_ROAD})\b\.?"
    rf"(?:\s+{DIRECTION}\b\.?)?({UNITS})")
"""A house number written in words: "One Jelly Belly Lane", "Two Hundred South Alloy Drive", "Twenty-two Elm
Street". Many roads are named so ("Eight Mile Road", "Seven Pines Road"), so it is an address only where a word places
it, a unit follows it or it stands alone on its line."""
_CJK = "\u3005\u3040-\u30ff\u4e00-\u9fff"
_JP_BLOCK = r"[0-9０-９]{1,4}(?:(?:丁目|番地?|号|の|[-−－‐])[0-9０-９]{1,4}){1,3}号?"
"""A Japanese block address: chōme, banchi and gō, "2-21-1" or "3丁目1番1号"."""
_PLACE_WORD = (rf"(?=[{UPPER}])(?!(?i:{NOT_A_HOUSE}|order|invoice|ticket|case|item|batch|lot|release|part|model|"
               rf"article|section|volume|issue|episode|season|week|day|stage|phase|round|level|total|subtotal|balance|"
               rf"amount|qty)\b){CAP}")
"""A capitalised word that may name a street: not a count, a record or a part of something. The capital is looked
for first, so the long exclusion is tried only where a word starts with one."""
_POSTCODE = (r"\d{3}\s?\d{3}|\d{5}(?:-\d{4})?|[A-Z]{2}\s+\d{5}(?:-\d{4})?|[A-Z]\d[A-Z]\s?\d[A-Z]\d|"
             r"[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}|\d{3}-\d{4}")
"""Postcodes that end an address line: Indian PIN, US ZIP (with its state), Canadian, UK, Japanese."""
_LINES = (
    # 14th Cross Road, Indiranagar, Bengaluru 560038 · Main Street, Springfield, IL 62701: a street without a house
    # number, the places after it and their postcode
    re.compile(rf"\b(?=[\d{UPPER}])(?:(?:{ORDINAL}|{CAP})\s+){{1,3}}(?i:{EN_STREET})\b\.?"
               rf"(?:,\s*{CAP}(?:[ -]{CAP}){{0,2}}){{1,3}},?\s+(?:{_POSTCODE})\b"),
    # 19, Anna Salai, Teynampet, Chennai 600018 · 12 Kingsway, London WC2B 6NH: a house number, the places after it
    # and their postcode
    re.compile(rf"\b\d{{1,5}}[A-Za-z]?,?\s+{_PLACE_WORD}(?:[ -]{_PLACE_WORD}){{0,3}}"
               rf"(?:,\s*{_PLACE_WORD}(?:[ -]{_PLACE_WORD}){{0,2}}){{1,3}},?\s+(?:{_POSTCODE})\b"),
    # Am Lindenhof 3, 04109 Leipzig · Bahnhofstr. 5a, 8001 Zürich · Ermou 25, 105 63 Athens: a name, its house number,
    # a postcode (Greek, Swedish and Czech ones split in three and two) and a town
    re.compile(rf"\b{_PLACE_WORD}(?:\s+{_PLACE_WORD}){{0,3}}\s+\d{{1,4}}\s?[a-z]?,\s+(?:[A-Z]{{1,2}}-)?"
               rf"(?!(?:19|20)\d\d\b)(?:\d{{4,5}}|\d{{3}} \d{{2}})\s+{NOT_COUNTED}{NAME}"),
    # Király u. 15 · Andrássy út 60 · hegyalja út 98: a Hungarian street kind before the house number
    re.compile(r"\b[^\W\d_]{2,}(?:\s+[^\W\d_]{2,})?\s+(?:utca|u\.|út|útja|tér|körút|krt\.)\s+\d{1,4}\b"),
    # Hauptstraße 5 / 10115 Berlin · 5638 Aasa 43 / Humilimont, nan 78618: a street's line, then a line that holds its
    # town and postcode
    re.compile(rf"(?:\b\d{{1,6}}[A-Za-z]?\s+)?\b{_PLACE_WORD}(?: {_PLACE_WORD}|\s+[a-zà-ÿ]+){{0,3}}\s+"
               rf"\d{{1,5}}[A-Za-z]?[^\S\n]*\n[^\S\n]*(?:\d{{4,5}}\s+{_PLACE_WORD}|"
               rf"{_PLACE_WORD}(?:[ -]{_PLACE_WORD}){{0,2}},?\s+(?:[a-zA-Z]{{2,3}}\s+)?"
               r"(?:\d{3}\s?\d{2}|\d{4,6}))\b"),
    # 〒150-0002 東京都渋谷区渋谷2-21-1 · 大阪市北区梅田3丁目1番1号: the postal mark, or a municipality and its block
    re.compile(rf"〒\s?\d{{3}}-?\d{{4}}(?:\s*[{_CJK}]+{_JP_BLOCK})?|[{_CJK}]{{1,12}}[都道府県市区町村郡][{_CJK}]{{0,12}}"
               rf"{_JP_BLOCK}"),
    # 3-14-2 Nishi-Shinjuku, Shinjuku-ku: a romanised block address and its ward, city or town
    re.compile(rf"\b\d{{1,4}}-\d{{1,4}}(?:-\d{{1,4}})?\s+{NAME}(?:-{NAME})?,\s+{NAME}-(?:ku|shi|cho|machi|gun)\b"),
)
_CONTINUES = re.compile(r"(?i)\s+(?:and|with|that|which|where|whose|has|had|have|is|was|are|were|near|for|but|so|"
                        r"or|if|it|its|it's|they|their|you|rated|offers|features|boasts|as)\b")
"""Words that go on after a whole noun phrase: a street before them is no modifier of a noun ("gave 9 Pine Street as
his address"). Not "in": "1 room in 1 Hotel Brooklyn Bridge in New York" names a hotel."""
_PLACED_BEFORE = re.compile(r"(?i)(?:\bat|(?<!\bup )(?<!\bdown )\bto)\s+(?:(?:suite|ste|flat|apt|apartment|unit|studio|"
                            r"building|bldg)\.?\s*#?\s*\w{1,6},?\s+)?$")
"""A place's preposition right before the number, or before the unit before it: "at 1059 Reed Avenue costing
$2,750,000", "head to 501 Buckingham Way on the day", "went to Suite 1800 233 Richmond Highway on Monday" name a
place whatever follows ("up to 3 Park Avenue flats" counts)."""
_LOWER_STREET = re.compile(
    r"(?i)\b(?:at|is|in|on|to|about|it's|that's|there's)\s+(\d{1,5}[a-z]?\s+(?:(?!(?:the|a|an|of|down|up|along|from|"
    rf"to|by|my|your|our|this|that|lane|way|min|mins|hrs?|secs?|{NOT_A_HOUSE[3:-1]})\b)(?:[a-z][\w'-]*|[a-z]\.|{ORDINAL})"
    r"\s+){1,3}(?:(?:street|st|avenue|ave|road|rd|boulevard|blvd|drive|dr|lane|ln|plaza|parkway|pkwy|cir)\b\.?|"
    r"(?:hwy|highway)\b\.?(?:\s+\d{1,4}\b)?))((?:\s+(?:n|s|e|w|ne|nw|se|sw|north|south|east|west)\b\.?)?"
    rf"(?:,?\s+(?:(?:apt|apartment|suite|ste|unit)\b\.?\s*#?|#)\s*[a-z]?-?\d{{1,5}}[a-z]?\b|,?\s+{ORDINAL}\s+floor\b)*)")
"""A street in lower case after a word that places it: its name may hold an initial ("201 joseph e. lowry blvd"),
its kind be followed by a direction and units ("5671 peachtree dunwoody rd ne", "17071 w dixie hwy # 312"), a
highway by its number ("3474 scenic hwy 98")."""
_PRODUCT_BEFORE = re.compile(r"(?i)\b(?:the|our|this|that|these|those|an?)\s+$")
_PRODUCT_AFTER = re.compile(r"(?:-|\s+)[a-z]")
_ENDS = re.compile(r"\s*(?:[,;:()\n]|[.!?](?:\s|$)|$)")
"""Where a street ends its phrase: a comma, a parenthesis ("728 w. roosevelt road (east side)"), the sentence's end."""
_CONTEXT = re.compile(r"(?i)\b(?:live[sd]? (?:at|on)|address|ship(?:ped)? to|send (?:it |them )?to|deliver(?:ed)? to|"
                      r"moved to|located at|lives? at|residence|home|wohne|adresse|dirección|domicilio|indirizzo|"
                      r"corner of)\b")
# Words that say an address follows; the phrase after them must still look like a place with a number.
_INTRODUCED = re.compile(
    r"(?i)\b(?:(?:my|new|home|billing|shipping|delivery|mailing|postal|his|her|their|our|the|an?) address(?: is| was)?"
    r"|(?:^|(?<=[.!?:]\s))address(?: is| was)|(?:the |their |its |our )?(?:location|venue) is"
    r"|address(?:es)?\s*:|address\s+(?:(?:has been|was|is)\s+)?(?:updated|changed|corrected|set)\s+to"
    r"|lives?\s+(?:at|on|in)|living\s+(?:at|on)|lived\s+(?:at|on|in)|live\s+in|located\s+at"
    r"|(?:office|shop|store|restaurant|house|home|flat|apartment) is (?:at|on)|sends?\s+(?:[\w']+\s+){0,3}?to"
    r"|ship(?:s|ped|ping)?\s+(?:[\w']+\s+){0,2}?to|deliver(?:s|ed|y)?\s+(?:[\w']+\s+){0,2}?to|moved\s+to"
    r"|drops?\s+(?:you\s+)?off\s+at|meet\s+(?:you|me|us)\s+at|corner\s+of|enter\s+on"
    r"|(?:wohne|wohnt|wohnen)\s+(?:in|an|am|im)|(?:liefer|post|wohn)?adresse\s*:?|anschrift\s*:?|j'habite\s+(?:au|à)"
    r"|(?:dirección|domicilio|indirizzo|adres|morada)\s*:?|vivo\s+en|abito\s+in|woon\s+(?:in|aan|op))[ \t]*:?[ \t]*"
)
_NOT_POSTAL = re.compile(r"(?i)\b(?:e-?mail|ip|ipv[46]|mac|web|url|internet|server|wallet|bitcoin|btc|eth|ethereum|"
                         r"crypto|delivery e-?mail|return e-?mail)\s+$")
_NUMBER_BY_NAME = re.compile(rf"\b\d{{1,6}}[A-Za-z]?\.?,?\s+{NAME}|{NAME}\.?,?\s+\d{{1,6}}[A-Za-z]?\b")
# After the word "address" itself the phrase may be written in lower case ("address:\n947 trg revolucije 17").
_NUMBER_BY_WORD = re.compile(r"^\s*\d{1,6}[A-Za-z]?\.?,?\s+[^\W\d_]{2,}")
_SENDING = re.compile(r"\b(?:send|ship|deliver)")
_NAME_THEN_NUMBER = re.compile(r"^\s*[^\W\d_]{3,}(?:\s+[^\W\d_]{2,}){0,2}\s+\d{1,5}[a-z]?\b")
"""After "the corner of" a street may be written in lower case, its number after it ("the corner of
heiligengeistbrücke 77 and minik courts")."""
_NOT_A_PLACE = re.compile(rf"(?i)\b{NOT_A_HOUSE}\b|\b\d{{1,4}}\s+of\s+(?:the|our|your|this|\d)|"
                          rf"\d{{1,2}}:\d{{2}}|[$€£¥%]|\b\d{{1,2}}(?:am|pm)\b")
_PHRASE_END = re.compile(r"\n|[?!]|\.(?=\s+[A-Z][a-z]+\s)|\s(?:for|after|before|because|and I|but|so)\s|"
                         r"(?i:,?\s(?:and|or)\s+(?:their|the|its|they|you|he|she|it|his|her|our|my|phone|call|"
                         r"contact|reach|is|was|has)\b)")
"""Where a place phrase stops: a new sentence, a clause ("... Church Street and their number is ...")."""


_DIRECTED = re.compile(
    rf"(?<![\w/.-])\d{{2,6}}[A-Z]?\s+(?:NE|NW|SE|SW|[NSEW])\.?\s+(?:{NAME}|{ORDINAL})(?:\s+{NAME}){{0,2}}"
    rf"(?:\s+{DIRECTION}\b\.?)?{UNITS}")
"""A street named after its direction with no street kind, as Chicago's grid writes them: "7257 S. State",
"4859 S. Wabash", "2820 N. Greenview Unit 1". The direction abbreviated, the house number of two digits or more."""


def _directed_streets(text: str) -> Iterator[tuple[int, int]]:
    for m in _DIRECTED.finditer(text):
        if not _a_product(text, m.start(), m.end()) and _complete(text, m) and not a_year_or_a_count(text, m.start()):
            yield m.start(), m.end()


def addresses(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every street address in `text`, extended over a UK postcode that follows it. An English
    "<number> <name> <street>" counts when it ends its phrase (a comma, the sentence's end) or follows an address
    word ("ship to", "lives at"): "3 Main Street stores" and "the 2 Oak Road exit" are not addresses. The lines known
    by their end come first: where they overlap a street, the whole line to its postcode is the address. A name's
    number is none ("Apollo 13 Moon Landing, FL")."""
    for start, end in _addresses(text):
        if not a_names_number(text, start, end):
            yield start, end


def _addresses(text: str) -> Iterator[tuple[int, int]]:
    yield from us_lines(text)
    for index, pattern in enumerate(_PATTERNS):
        for m in pattern.finditer(text):
            end = m.end()
            post = UK_POSTCODE.search(text, end, min(len(text), end + 40))
            if _a_product(text, m.start(), end) or (index == 0 and not _english_street(text, m, post)):
                continue
            yield m.start(), post.end() if post else end
    yield from _worded_streets(text)
    yield from _introduced(text)
    yield from _lines(text)
    yield from _lower_case_streets(text)
    yield from _romance_in_english_order(text)
    yield from _directed_streets(text)
    yield from _misspelt_streets(text)
    yield from national_addresses(text)
    yield from country_addresses(text)
    yield from grid_addresses(text)


def _worded_streets(text: str) -> Iterator[tuple[int, int]]:
    for m in _WORDED.finditer(text):
        start, end = m.start(), m.end()
        placed = _AT_THE.search(text, max(0, start - 12), start) or _CONTEXT.search(text, max(0, start - 40), start)
        alone = _LINE_START.search(text, max(0, start - 2), start) and _LINE_END.match(text, end)
        if (placed or m.group(1) or alone) and not a_year_or_a_count(text, start):
            yield start, end


_SLIPPED = re.compile(rf"\b\d{{1,5}}[A-Za-z]?\s+(?:(?:{CAP}|{ORDINAL})\s+){{1,3}}([A-Z][A-Za-z]{{4,9}})\b\.?")
"""A capitalised street whose kind's word may be misspelt: "1200 Market Stret", "45 Lincoln Aevnue"."""


def _misspelt_streets(text: str) -> Iterator[tuple[int, int]]:
    for m in _SLIPPED.finditer(text):
        if misspelt_kind(m.group(1)) and _complete(text, m) and not a_year_or_a_count(text, m.start()):
            yield m.start(), m.end()


_LINE_START = re.compile(r"(?:^|\n)[^\S\n]*$")
_LINE_END = re.compile(r"[^\S\n]*(?:$|\n)")


def _english_street(text: str, m: re.Match[str], post: re.Match[str] | None) -> bool:
    """Complete, or followed by a postcode, and its number no count's ("Room 12 Building Way, Springfield") unless a
    word that places it comes first."""
    start = m.start()
    if not (post or _complete(text, m) or _a_house_number(text, start, m.end())):
        return False
    return not a_year_or_a_count(text, start) or bool(_AT_THE.search(text, max(0, start - 12), start))


def _a_house_number(text: str, start: int, end: int) -> bool:
    """A capitalised street is an address whatever follows it ("Tenants of 300 Pine Road complained", "The shop on
    45 Elm Street sells bread") when its number has three digits or more, which counts of a street's shops or
    residents seldom do, and is no price or year ("$300 Park Avenue rents", "2023 Market Street report"), or when a
    preposition of place comes before it."""
    if _MODIFIES.match(text, end):
        return False  # "We sold 500 Park Avenue condos", "on 3 Main Street stores": the street names the condos
    if _PLACE_PREPOSITION.search(text, max(0, start - 12), start):
        return True
    number = _HOUSE_NUMBER.match(text, start)
    return bool(number) and not (start and text[start - 1] in "$€£¥#") and not YEAR.fullmatch(number.group(0))


_AT_THE = re.compile(r"(?i)\b(?:at|to)\s+(?:the\s+)?$")
_PLACE_PREPOSITION = re.compile(r"(?i)\b(?:on|near|opposite|outside|behind|beside)\s+$")
_HOUSE_NUMBER = re.compile(r"\d{3,5}(?=[A-Za-z]?[\s/-])")
_MODIFIES = re.compile(r"\s+(?:stores|shops|units|condos|apartments|flats|homes|houses|residents|tenants|owners|"
                       r"tickets|dollars|properties|buildings|locations|branches|offices|signs|exits|listings|lots|fans|"
                       r"employees|customers|families|students|members|people|workers|sessions|records|products|"
                       r"items|deals|sales|prices|rents|guests|visitors|reviews|ratings|rooms|beds|nights|users|"
                       r"votes|patients|cars|spots|views|shows|albums|songs|tracks|episodes|games|events|photos|"
                       r"videos|books|films|movies|teams|players|restaurants|cafes|bars|hotels|sites|projects)\b")
"""A place's preposition before the number, or before "the" and the number ("held at the 1 Blue Jays Way")."""


_ROMANCE_WORD = re.compile(rf"\b{_ROMANCE_KIND}\b")


def _romance_in_english_order(text: str) -> Iterator[tuple[int, int]]:
    if not _ROMANCE_WORD.search(text):
        return  # the kind's word is looked for first: the pattern would be tried at every number
    for m in _ROMANCE_IN_ENGLISH_ORDER.finditer(text):
        numbered = NUMBERED_BEFORE.search(text, max(0, m.start() - 12), m.start())
        if not numbered and not _a_product(text, m.start(), m.end()) and _complete(text, m):
            yield m.start(), m.end()


def _complete(text: str, m: re.Match[str]) -> bool:
    """An English "<number> <name> <street>" is an address when an address word or "at" comes before it, when it ends
    its phrase ("Street." included), or when the sentence goes on after it as after a whole noun phrase ("at 1 Addington
    Street with a 4.3 rating", "1 Baffin Way has ..."): a noun after it makes the street a modifier ("the 2 Oak Road
    exit", "3 Main Street stores")."""
    start, end = m.start(), m.end()
    if _CONTEXT.search(text, max(0, start - 40), start) or _ENDS.match(text, end):
        return True
    if m.group(0).endswith(".") and (end == len(text) or text[end].isspace()):
        return True
    if _PLACED_BEFORE.search(text, max(0, start - 40), start):
        return True
    if _IN_A_TOWN.match(text, end) and _ROAD_KIND_AT_END.search(m.group(0)):
        return not a_year_or_a_count(text, start)
    return bool(_CONTINUES.match(text, end)) and not a_year_or_a_count(text, start)


_IN_A_TOWN = re.compile(rf"\s+in\s+{NAME}(?:[ -]{NAME}){{0,2}}(?=\s*(?:$|[\n,;:!?)]|\.(?:\s|$)))")
"""A town after "in" that ends the phrase: "8 Elm Ct in Springfield", "12 Oak Street in Boston, ...". "in" goes on
after a street only so: "1 room in 1 Hotel Brooklyn Bridge in New York" names a hotel, "3 Main Street stores in
Boston" a shop's count."""
_ROAD_KIND_AT_END = re.compile(r"(?i)\b(?:street|st|road|rd|avenue|ave|lane|ln|drive|dr|court|ct|boulevard|blvd|way|"
                               r"place|pl|terrace|ter|circle|cir|crescent|close|parkway|pkwy)\b\.?$")
"""A road's kind ends the street: "Brooklyn Bridge", "Union Landing", "Abbey Road Studios" name a place, not a
house on a road."""


def _lower_case_streets(text: str) -> Iterator[tuple[int, int]]:
    """A street written in lower case ("it is 150 muir rd", "at 1095 market street and ...") after a word that places
    it, and complete as the capitalised form must be; a count's words ("5 miles down the road") are no name."""
    for m in _LOWER_STREET.finditer(text):
        ends = [end for end in (m.end(2), m.end(1)) if _complete_at(text, end)]
        if ends and not a_year_or_a_count(text, m.start(1)):
            yield m.start(1), ends[0]


def _complete_at(text: str, end: int) -> bool:
    """The street, with or without its direction and units, ends its phrase or a whole noun phrase."""
    return bool(_ENDS.match(text, end) or _CONTINUES.match(text, end) or text[end - 1] == ".")


def _lines(text: str) -> Iterator[tuple[int, int]]:
    """Address lines known by their end or their block numbers rather than by a house number before a street."""
    for pattern in _LINES:
        for m in pattern.finditer(text):
            yield m.start(), m.end()


def _a_product(text: str, start: int, end: int) -> bool:
    """A street's name and a number that an article introduces and a noun follows name a product: "Our Calle
    Serrano 45 perfume", "the Baker Street 2-seat sofa". A home is not "the Hauptstraße 5 flat"."""
    return bool(_PRODUCT_BEFORE.search(text, max(0, start - 8), start) and _PRODUCT_AFTER.match(text, end))


def _introduced(text: str) -> Iterator[tuple[int, int]]:
    """The place phrase after an address word, when a number stands next to a name in it and nothing says it is
    a time, an amount, a room or a count."""
    for intro in _INTRODUCED.finditer(text):
        if _NOT_POSTAL.search(text, max(0, intro.start() - 12), intro.start()):
            continue  # "email address:", "IP address is": another kind of address
        start = intro.end()
        if text.startswith("\n", start):  # "Address:\n947 trg revolucije 17": the address is on the next line
            start += 1
        phrase = _phrase(text, start)
        if _a_place(phrase, intro.group(0).lower()):
            yield start, start + len(phrase.rstrip(" ,.;:"))


def _phrase(text: str, start: int) -> str:
    stop = _PHRASE_END.search(text, start, min(len(text), start + 100))
    return text[start:stop.start() if stop else min(len(text), start + 100)]


def _a_place(phrase: str, said: str) -> bool:
    if _SENDING.search(said) and not re.match(r"\s*\d", phrase):
        return False  # "send 5 copies to Unit 3": after a verb of sending, only a house number first makes a place
    placed = (_NUMBER_BY_NAME.search(phrase) or ("address" in said and _NUMBER_BY_WORD.match(phrase))
              or ("corner" in said and _NAME_THEN_NUMBER.match(phrase)))
    return bool(placed) and not _NOT_A_PLACE.search(phrase) and not _only_years(phrase)


def _only_years(phrase: str) -> bool:
    numbers = re.findall(r"\d+", phrase)
    return all(len(n) == 4 and n.startswith(("19", "20")) for n in numbers)
