"""Addresses that end in a country's name, on one line with commas or as a block of lines, whatever the street's
language: "2407 tawastintie 6, sé, portugal", "2613 avenida praia 1 suite 463, mohács, hungary 24743", and the
block a letter or an e-mail signature writes ("2274 Via delle Coste 41" / "Apt. 322" / "Colle Di Tora" / "Italy
95787"), each line perhaps quoted ("> ") or prefixed.

The country is found first (it must end its line or phrase), then the street before it, its unit and its towns. A
house number, some words and a town before a country say little on their own ("We visited 3 cities, Lyon, France"):
the street must have a second number (a house number after its name, "Coronilla 3599"), a unit ("Suite 967") or a
postcode after the country ("Norway 64389").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from khaos_action.detect.pii_address_words import YEAR, a_year_or_a_count

_COUNTRIES = (
    "afghanistan|albania|algeria|andorra|angola|argentina|armenia|australia|austria|azerbaijan|bahrain|bangladesh|"
    "belarus|belgium|belgique|belgië|bolivia|bosnia and herzegovina|brazil|brasil|bulgaria|cambodia|cameroon|canada|"
    "chile|china|colombia|costa rica|croatia|cuba|cyprus|czech republic|czechia|denmark|danmark|ecuador|egypt|"
    "el salvador|estonia|ethiopia|finland|suomi|france|georgia|germany|deutschland|ghana|greece|greenland|guatemala|"
    "honduras|hong kong|hungary|magyarország|iceland|ísland|india|indonesia|iran|iraq|ireland|israel|italy|italia|"
    "jamaica|japan|jordan|kazakhstan|kenya|kuwait|latvia|lebanon|liechtenstein|lithuania|luxembourg|malaysia|malta|"
    "mexico|méxico|moldova|monaco|mongolia|montenegro|morocco|mozambique|nepal|netherlands|the netherlands|nederland|"
    "new zealand|nicaragua|nigeria|north macedonia|norway|norge|oman|pakistan|panama|paraguay|peru|perú|philippines|"
    "poland|polska|portugal|qatar|romania|românia|russia|saudi arabia|senegal|serbia|singapore|slovakia|slovenia|"
    "south africa|south korea|korea|spain|españa|sri lanka|sweden|sverige|switzerland|schweiz|suisse|svizzera|taiwan|"
    "tanzania|thailand|tunisia|turkey|türkiye|uganda|ukraine|united arab emirates|uae|united kingdom|uk|"
    "united states|usa|u\\.s\\.a\\.|uruguay|uzbekistan|venezuela|vietnam|viet nam|zambia|zimbabwe")


def _by_first_letter(names: list[str]) -> str:
    """One branch per first letter, so a word is tried against the names of its first letter only (a search of a
    long reply for a hundred and fifty names, each tried at every letter, would cost more than the rest)."""
    firsts: dict[str, list[str]] = {}
    for name in sorted(names, key=len, reverse=True):
        firsts.setdefault(name[0], []).append(name[1:])
    return "|".join(f"{first}(?:{'|'.join(rests)})" for first, rests in sorted(firsts.items()))


_COUNTRY_END = re.compile(rf"(?<![\w-])(?:{_by_first_letter(_COUNTRIES.split('|'))})"
                          r"(?:[^\S\n]+(\d{4,6}(?:-\d{3,4})?)(?![\w-])|(?=[^\S\n]*(?:$|\n|[.;!?)](?:\s|$))))")
"""A country's name at the end of its line or phrase, or with a postcode after it ("Norway 64389", "Netherlands
62971 in case of an issue"), in lower case: it is looked for in the text lowered, twice as fast as a search that
ignores case."""
_COUNTRY_END_ANY_CASE = re.compile(_COUNTRY_END.pattern, re.IGNORECASE)
"""For a text that lowering would lengthen ("İ" is two characters lowered), so the spans stay the text's."""

_WORD = r"[^\W\d_][\w'’.-]*"
_SEP = r"(?:[^\S\n]*,[^\S\n]*|[^\S\n]*\n[^\w\n]{0,6}(?:,[^\S\n]*)?)"
"""Between the parts: a comma, or a line's end and the next line's prefix ("> ", "??? ", a comma that starts it)."""
_UNIT = r"(?i:apt|apartment|suite|ste|unit|flat)\.?[^\S\n]*#?\d{1,5}[A-Za-z]?"
_STREET = re.compile(
    rf"(?<![\w.,/-])(?P<house>\d{{1,6}}[A-Za-z]?)[^\S\n]+(?P<name>{_WORD}(?:[^\S\n]+{_WORD}){{0,3}})"
    rf"(?:[^\S\n]+(?P<second>\d{{1,5}}[A-Za-z]?))?"
    rf"(?P<unit>(?:[^\S\n]+|{_SEP}){_UNIT})?"
    rf"(?:{_SEP}(?:{_WORD}|\d{{4,6}})(?:[^\S\n]+{_WORD}){{0,3}}){{1,3}}{_SEP}$")
"""The house number, one to four words of the street's name, perhaps a second number (the house after the name),
perhaps a unit, then one to three places (towns, regions, a postcode) before the country."""
_LINKING = re.compile(r"(?i)\b(?:to|from|in|on|at|and|or|the|of|for|with|by|times|cities|countries|people|"
                      r"years|days|hours|miles|km|stores|shops|offices|branches|users|customers|items|orders)\b")
"""Words of a sentence, not of a street's name: "We shipped 3 parcels to Lyon, France"."""
_COUNTED = re.compile(r"(?i)\bof\s+$")


def country_addresses(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every address in `text` that ends in a country's name (see the module docstring)."""
    if "," not in text and "\n" not in text:
        return  # the street and its places are parted by a comma or a line's end
    lowered = text.lower()
    found = _COUNTRY_END.finditer(lowered) if len(lowered) == len(text) else _COUNTRY_END_ANY_CASE.finditer(text)
    for country in found:
        street = _STREET.search(text, max(0, country.start() - 160), country.start())
        if street and _a_street(text, street, postcode=country.group(1) is not None):
            yield street.start(), country.end()


def _a_street(text: str, street: re.Match[str], *, postcode: bool) -> bool:
    """A house's number and a street's name, not a count or a year ("Team of 12 engineers 4", "Top 10 hotels
    2024"), with the evidence the module docstring asks for."""
    second = street.group("second")
    if (_LINKING.search(street.group("name")) or any(YEAR.fullmatch(n or "") for n in (street.group("house"), second))
            or a_year_or_a_count(text, street.start()) or _COUNTED.search(text, max(0, street.start() - 4),
                                                                           street.start())):
        return False
    return bool(second or street.group("unit") or postcode)
