"""Street addresses in national forms the English-shaped finders (pii_address) do not read, each known by a
structure of its own country's writing rather than by an English street's kind:

- a street's kind written as a word of its own after the name, in the Nordic, German, Dutch and Czech ways ("Maria
  Dehlis vei 15", "Henrik Walters plass 3", "Gamla Varmdo vägen 6", "Václavské náměstí 12"), or joined to it in
  forms pii_address does not list ("Drammensvei 163", "Skredderplassen 20", "Haarlemmerdijk 12");
- a Slavic street named by an adjective or a possessive ("Szewska 6, Kraków", "Divadelná 41/3, Trnava"), or any
  street with a joined kind, followed by its town or postcode ("Ångermannagatan 80, Vällingby");
- a Polish street kind before the name ("aleja Wojska Polskiego 178", "Ulica Strzelecka 12"), a German one made of a
  preposition and a name with a postcode after a comma ("Am Bürgerpark 15-18, 13156, Berlin");
- French street kinds pii_address does not list ("4 Cité Du Cardinal Lemoine"), and a French street numbered after its
  name, as Belgium and Switzerland write it, before its town ("Rue de Piétrain 371, Noorderwijk");
- a Norwegian street whose kind "gate" is a word of its own before a postcode and town ("Karl Johans gate 22, 0159
  Oslo"), a Turkish "Caddesi" or "Sokak" and its "No:" ("İstiklal Caddesi No: 45"), a Romanian "Strada", "Calea"
  or "Bulevardul" before the name ("Strada Lipscani 12");
- a Russian or Ukrainian street with its kind and house ("ул. Съезжинская д. 10 кв. 40", "Дворцовая наб., 34");
- a Chinese road and its number ("香港东路6号"), a romanised Korean road ("36, Teheran-ro 87-gil"), a Japanese
  chōme written out ("135, Higashifunahashi 2 Chome");
- a Korean road in hangul after its district ("서울특별시 강남구 테헤란로 152"), an Indonesian or Malay "Jl." or "Jalan"
  and its "No." ("Jl. Jend. Sudirman No. 5"), a Vietnamese house and street before its ward or district ("123 Nguyễn
  Huệ, Quận 1"), an Arabic "شارع" with a building's number or a town and postcode ("شارع الملك فهد، الرياض 12211"), a
  Thai house number before its soi or road ("99 ถนนสุขุมวิท ...").

Each is an address by its kind's word or by its town after it, never by a capitalised word and a number alone:
"Windows 10, Linux" and "Apollo 13, Houston" are no streets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from khaos_action.detect.pii_address_words import NOT_AN_ENGLISH_WORD, NOT_COUNTED, NUMBERED_BEFORE, UPPER

_LETTER = r"[^\W\d_]"
_CAP = rf"[{UPPER}ÆØÅ]{_LETTER}{{1,40}}"
"""A capitalised word of any Latin or Cyrillic script ("Øvste", "Ångermanna")."""
_HOUSE = r"(?<![\d/-])\d{1,4}(?:\s?[A-Za-z](?![\w'’]))?(?:[/-]\d{1,4}[A-Za-z]?)?(?![\d,.]\d)"
"""A house number: "15", "2A", "44B", "15-18", "41/3", "17 b"; never part of a decimal or a grouped amount."""
_JOINED_KIND = (r"vei|veien|vegen|vägen|vagen|väg|gata|gatan|gaten|gade|vej|plass|plassen|plads|torg|torget|stræde|"
                r"straße|strasse|str\.|weg|allee|platz|gasse|damm|ufer|chaussee|straat|laan|gracht|kade|plein|steeg|"
                r"singel|dijk|markt|katu|kuja|polku|tori|gränd|bakken|backen|haugen|skogen|åsen|jordet|tunet|løkka|"
                r"stien|svingen|toppen|kroken|grenda|sletta|kollen|lunden|berget")
"""A street's kind joined to its name ("Drammensvei", "Ångermannagatan", "Haarlemmerdijk"), or a Norwegian or Danish
place's noun in its definite form that names streets as often ("Epleskogen 39A", "Kirkebakken 7", "Steinåsen 22")."""
_SPACED_KIND = (r"vei|veien|vegen|vägen|väg|gata|gatan|gaten|gade|vej|plass|plassen|plads|torg|torget|stræde|allé|"
                r"straße|strasse|weg|allee|platz|gasse|straat|laan|gracht|kade|plein|dijk|katu|náměstí|nábřeží|"
                r"třída|nám\.|ulice|námestie|trieda|cesta")
"""A street's kind as a word of its own in lower case after a capitalised name ("Maria Dehlis vei 15", "Václavské
náměstí 1"); "gate" and "tie" are English words ("Departure gate 12", "Bow tie 3")."""
_SPACED = re.compile(rf"\b(?:{_CAP}\s+){{1,3}}(?:{_SPACED_KIND})\s+({_HOUSE})")
_JOINED = re.compile(
    rf"(?<![\w-])(?![A-Za-z]*(?:[eu]ring|pring|tring|bring)\b)[{UPPER}ÆØÅ]{_LETTER}{{1,40}}?(?:{_JOINED_KIND})"
    rf"{NOT_AN_ENGLISH_WORD}"
    rf"\s+(?!(?:19|20)\d\d\b)({_HOUSE})")
_SLAVIC = r"(?:sk[áaéeiy]|ck[áaéeiy]|ní|ná|ný|ov[aáy]|ová|ow[ay]|ego|ých|ské)"
"""The endings of Slavic streets named by an adjective or a possessive: "Szewska", "Divadelná", "Korunní",
"Beethovenova", "Wojska Polskiego"."""
_NOT_A_NAME = (r"(?!(?i:the|an?|our|your|my|this|that|chapter|version|model|type|class|grade|size|room|order|part|"
               r"level|episode|season|series|volume|issue|page|book|release|edition|team|club|fc|vs)\b)")
"""Words that make what follows a title, a record or a count: "Chapter Polska 5", "The Casanova 2"."""
_ADJECTIVAL = re.compile(rf"(?<![\w-])(?:{_NOT_A_NAME}{_CAP}\s+)?{_NOT_A_NAME}{_CAP}{_SLAVIC}\s+({_HOUSE})")
_TOWN_LINK = r"(?:[ -]|\s(?:u|nad|pod|na|am|an|im|bei|ob|sur|sous|en|de|di|del|la|le|upon|on)\s)"
_TOWN_AFTER = re.compile(rf",\s*(?:\d{{2}}-\d{{3}}\b|\d{{4}}\s?[A-Z]{{2}}\b|\d{{3}}\s?\d{{2}}\b|\d{{4,5}}\b|"
                         rf"{_CAP}(?:{_TOWN_LINK}{_CAP}){{0,2}}(?![\w'’-])(?=\s*(?:[,.;:!?)\n]|$)))")
"""What follows a street that stands before its town: a comma, then a postcode (Polish "47-400", Dutch "7512 EC",
Swedish and Czech "112 01") or a town that ends the phrase ("Nebraska 31, Iowa 24" is a score, "Casanova 2, Venice
edition" a title); a town's name may be joined by a preposition ("Turkovice u Prelouce", "Ústí nad Labem",
"Frankfurt am Main")."""
_POLISH = re.compile(
    rf"(?i:\b(?:ulica|ul\.|aleja|plac|osiedle)\s+)(?:{_CAP}\s+){{1,3}}({_HOUSE})")
_PREPOSITION_STREET = re.compile(
    rf"\b(?:(?:Am|An der|An den|Im|In der|Auf der|Auf dem|Zum|Zur|Unter den|Hinter der)\s+|Alt-){_CAP}\s+{_HOUSE}"
    rf"(?:,\s*(?:[A-Z]-)?(?!(?:19|20)\d\d\b)\d{{4,5}},?\s+{NOT_COUNTED}{_CAP}|,?\s+\d{{5}}(?=\s*(?:$|[,;:!?)\n]|\.(?:\s|$))))")
"""A German street named by a preposition and a name, or an old village's street ("Alt-Moabit"), before its postcode
and town, or before a German postcode that ends the phrase ("Alt-Reinickendorf 4-5 13407.")."""
_FRENCH_WORD = rf"{_LETTER}[\w'’.-]{{0,40}}"
_FRENCH = re.compile(rf"\b\d{{1,4}}(?:\s?(?i:bis|ter))?,?\s+(?i:cité|hameau|résidence|sentier|voie|parvis|faubourg)\s+"
                     rf"(?:(?i:de la|de l'|du|des|de|d')\s*)?{_FRENCH_WORD}(?:\s+{_FRENCH_WORD}){{0,3}}")
_OF_FR = r"(?:(?:de la|de l['’]|du|des|de|d['’])\s*)"
_FRENCH_NUMBERED_AFTER = re.compile(
    rf"\b(?:Rue|Avenue|Boulevard|Chaussée|Chemin|Place|Quai|Allée|Impasse|Route|Drève|Rempart)\s+{_OF_FR}?{_CAP}"
    rf"(?:[ -]{_OF_FR}?{_CAP}){{0,3}}\s+({_HOUSE})(?=,\s*(?:\d{{4}}\s+)?{_CAP})")
"""A French street numbered after its name, then a comma and its town: "Rue de Piétrain 371, Noorderwijk",
"Chaussée de Wavre 1100, 1160 Auderghem"; with no town after, "Avenue Q 2" is a title as often."""
_NORWEGIAN_GATE = re.compile(rf"\b(?:{_CAP}\s+){{0,2}}{_CAP}\s+(?:gate|gata)\s+({_HOUSE})(?=,\s*\d{{4}}\s+{_CAP})")
""""gate" is an English word ("Departure gate 12, 2 hours"): a street's only before a Norwegian postcode and town."""
_TURKISH = re.compile(rf"\b(?:{_CAP}\s+){{1,3}}(?:Caddesi|Cad\.|Cd\.|Sokak|Sokağı|Sok\.|Sk\.|Bulvarı|Blv\.)\s*,?\s*"
                      r"(?:No\s*[:.]?\s*)?\d{1,4}(?:/\d{1,3})?\b")
_ROMANIAN = re.compile(rf"\b(?:Strada|Str\.|Bulevardul|Calea|Aleea|Șoseaua|Soseaua|Splaiul)\s+(?:{_CAP}\s+){{0,2}}"
                       rf"{_CAP},?\s+(?:[Nn]r\.?\s*)?\d{{1,4}}[A-Za-z]?\b")
_CYRILLIC = "А-Яа-яЁёІіЇїЄє"
_RU_KIND = r"(?:ул|пр|просп|пр-т|пер|наб|пл|ш|б-р|вул|пр-д|бул)\.|улица|проспект|набережная|переулок|шоссе|бульвар|" \
           r"площадь|проезд|вулиця"
_RUSSIAN = re.compile(
    rf"(?<![{_CYRILLIC}])(?:(?:{_RU_KIND})\s*[{_CYRILLIC}][{_CYRILLIC}-]{{1,40}}(?:\s+[{_CYRILLIC}][{_CYRILLIC}-]{{1,40}})?|"
    rf"[{_CYRILLIC}][{_CYRILLIC}-]{{1,40}}(?:\s+[{_CYRILLIC}][{_CYRILLIC}-]{{1,40}})?\s+(?:{_RU_KIND}))"
    rf",?\s*(?:(?:д\.|дом)\s*)?\d{{1,4}}[{_CYRILLIC}]?(?:/\d{{1,4}})?(?:,?\s*(?:кв\.|к\.|корп\.|стр\.)\s*\d{{1,4}})*")
_CHINESE = re.compile(r"[\u4e00-\u9fff]{1,12}(?:路|街|大道|大街|巷|胡同|弄)[0-9０-９]{1,5}(?:号|號)")
_KOREAN = re.compile(rf"(?:\b\d{{1,4}},?\s+)?\b{_CAP}-(?:ro|daero|gil)\b(?:\s+\d{{1,3}}(?:beon)?-gil\b)?"
                     rf"(?:,?\s+\d{{1,4}}(?:-\d{{1,3}})?\b)?")
_CHOME = re.compile(rf"(?:\b\d{{1,4}}(?:-\d{{1,4}})?,?\s+)?\b{_CAP}\s+\d{{1,2}}[\s-]?(?i:ch[oō]me)\b")
_HANGUL_ROAD = re.compile(r"(?:[가-힣]{1,10}(?:특별시|광역시|특별자치시|특별자치도|도|시)\s+)?"
                          r"[가-힣]{1,10}(?:구|군|시)\s+"
                          r"(?:[가-힣]{1,10}(?:구|동|읍|면)\s+)?[가-힣0-9]{1,15}(?:로|길)\s?\d{1,4}(?:-\d{1,4})?"
                          r"(?:번길\s?\d{1,4}(?:-\d{1,4})?)?(?![\d-])")
"""A Korean road address in hangul, its district first ("서울특별시 강남구 테헤란로 152"): "로" alone is also a
particle."""
_JALAN = re.compile(r"\b(?:Jl|Jln|JL)\.?\s+(?:[A-Z][\w.'’-]*\s+){0,5}?(?:[Nn]o\.?|[Nn]omor)\s*\d{1,4}[A-Za-z]?"
                    r"(?:/\d{1,4})?\b|"
                    r"\bJalan\s+(?:[A-Z][\w.'’-]*\s+){1,5}?(?:[Nn]o\.?|[Nn]omor)\s*\d{1,4}[A-Za-z]?\b")
"""An Indonesian or Malay street and its number ("Jl. Jend. Sudirman No. 5", "Jalan Merdeka No. 12")."""
_VIETNAMESE = re.compile(r"\b(?:[Ss]ố\s+)?\d{1,4}[A-Z]?(?:/\d{1,4}[A-Z]?)?,?\s+(?=[^,\n]{0,40}[À-ỹ])"
                         r"(?:[Đđ]ường\s+)?(?:[A-ZĐ][^\W\d_]*\s+){0,4}[A-ZĐ][^\W\d_]*,\s*"
                         r"(?:(?:[Pp]hường|[Qq]uận|[Hh]uyện|[Xx]ã)\s*(?:\d{1,2}\b|[A-ZĐ][^\W\d_]*(?:\s+[A-ZĐ][^\W\d_]*){0,2})"
                         r"|(?:P|Q)\.\s?\d{1,2}\b)")
"""A Vietnamese house, its street and its ward or district ("123 Nguyễn Huệ, Quận 1")."""
_ARABIC_STREET = re.compile(r"(?:\d{1,4}\s*)?شارع\s+[\u0621-\u064a ]{2,40}?(?:\s*\d{1,4})?[،,]\s*"
                            r"[\u0621-\u064a ]{2,30}?"
                            r"\s*\d{5}\b|\d{1,4}\s*شارع\s+[\u0621-\u064a]{2,20}(?:\s+[\u0621-\u064a]{2,20}){0,3}")
"""An Arabic street ("شارع", street) with a building's number before it, or its town and postcode after it ("شارع
الملك فهد، الرياض 12211")."""
_THAI = re.compile(r"(?<!\d)\d{1,4}(?:/\d{1,4})?\s+(?:หมู่(?:ที่)?\s*\d{1,3}\s+)?"
                   r"(?:ซอย|ซ\.|ถนน|ถ\.)[\u0e00-\u0e7f]+"
                   r"(?:\s+[\u0e00-\u0e7f.]+){0,5}(?:\s+\d{5}\b)?")
"""A Thai house number and its soi or road ("99 ถนนสุขุมวิท แขวงคลองเตย ... 10110")."""


def national_addresses(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every street address in a national form (the module's docstring lists them). Each form's
    pattern runs only where its word stands by a number, or its script in the text: most texts have none."""
    for finder in _finders_for(text):
        yield from finder(text)


def _streets_by_kind(text: str) -> Iterator[tuple[int, int]]:
    for pattern in (_SPACED, _JOINED):
        for m in pattern.finditer(text):
            if not _numbered(text, m.start()):
                yield m.start(), _with_town(text, m.end())


def _adjectival_streets(text: str) -> Iterator[tuple[int, int]]:
    for m in _ADJECTIVAL.finditer(text):
        if _TOWN_AFTER.match(text, m.end()) and not _numbered(text, m.start()):
            yield m.start(), _with_town(text, m.end())


def _finder(pattern: re.Pattern[str]):
    def find(text: str) -> Iterator[tuple[int, int]]:
        for m in pattern.finditer(text):
            if pattern is not _KOREAN or _A_DIGIT.search(m.group(0)):
                yield m.start(), m.end()
    return find


_A_DIGIT = re.compile(r"\d")
_KIND_ENDS = tuple(kind.rstrip("\\.") for kind in _JOINED_KIND.split("|"))
_SPACED_KINDS = frozenset(kind.replace("\\", "") for kind in _SPACED_KIND.split("|"))
_SLAVIC_ENDS = ("ska", "ská", "ské", "ske", "ski", "sky", "ský", "cka", "cká", "cké", "cke", "cki", "cky", "ní", "ná",
                "ný", "ova", "ová", "ovy", "owa", "owy", "ego", "ých")


def _ends_before_a_number(ends: set[str]) -> str:
    """Lookbehinds, one per length (Python's must be of fixed width), for a word ending in one of `ends` and a space
    (or a period or a comma and a space) before a digit."""
    by_length: dict[int, list[str]] = {}
    for end in ends:
        by_length.setdefault(len(end), []).append(re.escape(end))
    return "|".join(f"(?<=(?:{'|'.join(sorted(words))}){gap}\\d)" for words in by_length.values()
                    for gap in ("[ \\t]", "[.,][ \\t]"))


_BY_A_NUMBER = re.compile(
    rf"\d(?:(?<=\s\d)(?:{_ends_before_a_number({*_KIND_ENDS, *_SPACED_KINDS, *_SLAVIC_ENDS})})|"
    r"(?:\s?(?:bis|ter))?,?[ \t](?:cité|hameau|résidence|sentier|voie|parvis|faubourg)\b|,\s*(?:[a-z]-)?\d{4,5}\b|"
    r"[ \t]\d{5}\b)")
"""In the text in lower case, a number right after a street's kind or a Slavic street's ending, before a French
street's kind, or before a postcode: the patterns by a number run only where one is, since most texts
have none and the patterns would be tried at every capital."""
_OTHER_SCRIPTS = re.compile(r"[\u0400-\u04ff\u4e00-\u9fff]")
_KIND_WORDS = ("ulica", "ul.", "aleja", "plac ", "osiedle", "-ro", "-gil", "-daero", "chome", "chōme")
_KIND_FIRST = re.compile(r"(?<![^\W\d_])(?:rue|avenue|boulevard|chaussée|chemin|place|quai|allée|impasse|route|drève|"
                         r"rempart|cadde\w*|cad\.|cd\.|sokak|sokağı|sok\.|sk\.|bulvarı|blv\.|strada|str\.|calea|aleea|"
                         r"[șs]oseaua|splaiul)\s[^\n\d]{0,50}\d|\s(?:gate|gata)\s\d")
"""A kind's word that comes before a street's name, and a digit after it: the finders of such streets run only there
(and this pattern only where one of the words is, most texts having none)."""
_KIND_FIRST_WORDS = ("rue", "avenue", "boulevard", "chaussée", "chemin", "place", "quai", "allée", "impasse",
                     "route", "drève", "rempart", "cadde", "cad.", "cd.", "sok", "sk.", "bulvar", "blv.", "str.",
                     "strada", "calea", "aleea", "oseaua", "splaiul", " gat")
_HANGUL = re.compile("[\uac00-\ud7af]")
_VIETNAMESE_WORDS = ("phường", "quận", "huyện", "xã", ", p.", ", q.")
_THAI_WORDS = ("ถนน", "ซอย", "ถ.", "ซ.")
_TRIGGERS = (
    (_BY_A_NUMBER.search, ("kind", "adjectival", "french", "preposition")),
    (_OTHER_SCRIPTS.search, ("russian", "chinese")),
    (lambda lowered: not lowered.isascii() and _HANGUL.search(lowered) is not None, ("hangul",)),
    (lambda lowered: not lowered.isascii() and "شارع" in lowered, ("arabic",)),
    (lambda lowered: not lowered.isascii() and any(word in lowered for word in _THAI_WORDS), ("thai",)),
    (lambda lowered: "jl" in lowered or "jalan" in lowered, ("jalan",)),
    (lambda lowered: not lowered.isascii() and any(word in lowered for word in _VIETNAMESE_WORDS), ("vietnamese",)),
    (lambda lowered: any(word in lowered for word in _KIND_WORDS), ("polish", "korean", "chome")),
    (lambda lowered: any(word in lowered for word in _KIND_FIRST_WORDS) and _KIND_FIRST.search(lowered),
     ("named_first",)),
)
"""What in the text, in lower case, makes each finder worth running."""


def _finders_for(text: str) -> list:
    lowered = text.lower()
    wanted = {name for found, names in _TRIGGERS if found(lowered) for name in names}
    return [finder for name, finder in _FINDERS.items() if name in wanted]


_FINDERS = {"kind": _streets_by_kind, "adjectival": _adjectival_streets, "polish": _finder(_POLISH),
            "preposition": _finder(_PREPOSITION_STREET), "french": _finder(_FRENCH), "russian": _finder(_RUSSIAN),
            "chinese": _finder(_CHINESE), "korean": _finder(_KOREAN), "chome": _finder(_CHOME),
            "named_first": lambda text: _named_first(text), "hangul": _finder(_HANGUL_ROAD),
            "arabic": _finder(_ARABIC_STREET), "thai": _finder(_THAI), "jalan": _finder(_JALAN),
            "vietnamese": _finder(_VIETNAMESE)}
"""Each form's finder by its name, in the order they run."""


def _named_first(text: str) -> Iterator[tuple[int, int]]:
    """The streets whose kind comes before the name and whose number after it (French, Turkish, Romanian), and the
    Norwegian "gate" before a postcode; a word that numbers something before them makes them no street."""
    for pattern in (_FRENCH_NUMBERED_AFTER, _NORWEGIAN_GATE, _TURKISH, _ROMANIAN):
        for m in pattern.finditer(text):
            if not _numbered(text, m.start()):
                yield m.start(), _with_town(text, m.end())


def _numbered(text: str, start: int) -> bool:
    """A word that numbers something right before the name ("Room", "Order", "the"): the number is no house's."""
    return bool(NUMBERED_BEFORE.search(text, max(0, start - 16), start))


def _with_town(text: str, end: int) -> int:
    """The street's end, taken on over its town or postcode when a comma joins them ("Szewska 6, Kraków")."""
    town = _TOWN_AFTER.match(text, end)
    return town.end() if town else end
