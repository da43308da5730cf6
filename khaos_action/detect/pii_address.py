"""Postal addresses of a home or a person: a house number bound to a street of a known kind, in the ways the
countries of the supported languages write them ("742 Evergreen Terrace", "Hauptstraße 12", "12 rue de la Paix",
"Calle Mayor 5", "Via Roma 10", "Keizersgracht 123"), or a UK postcode after a street. A street word alone
("Main Street"), a route or a platform number is no address.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_CAP = r"[A-ZÄÖÜÉÈÁÍÓÚÑ][\w'’.-]*"
_EN_STREET = (r"street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|"
              r"parkway|pkwy|circle|cir|close|crescent|gardens|square|sq|highway|hwy|row|mews|grove|walk|hill")
_PATTERNS = (
    # 742 Evergreen Terrace · 1600 Pennsylvania Avenue NW · 10 Downing Street (optionally ", London SW1A 2AA")
    re.compile(rf"\b\d{{1,5}}[A-Za-z]?\s+(?:{_CAP}\s+){{1,3}}(?i:{_EN_STREET})\b\.?(?:\s+(?:NW|NE|SW|SE|N|S|E|W|North|South|East|West)\b)?"
               rf"(?:,?\s+(?:apt|apartment|suite|unit|flat)\.?\s*#?\w+)?"),
    # Hauptstraße 12 · Am Markt 3 · Lindenallee 4a · Keizersgracht 123 · Kalverstraat 92
    re.compile(r"\b[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|str\.|weg|allee|platz|gasse|ring|damm|ufer|chaussee|"
               r"straat|laan|gracht|kade|plein|steeg|singel|gatan|gata|vägen|gade|vej|veien|gate)\s+\d{1,4}\s?"
               r"[a-z]?\b"),
    # ul. Marszałkowska 10 · P.O. Box 1234 · Postfach 12 34
    re.compile(rf"\bul\.\s+{_CAP}(?:\s+{_CAP}){{0,2}}\s+\d{{1,4}}[a-z]?\b|\bP\.?\s?O\.?\s?Box\s+\d{{1,6}}\b|"
               r"\bPostfach\s+\d{1,3}(?:\s?\d{2,3})?\b", re.IGNORECASE),
    re.compile(r"\b(?:[A-ZÄÖÜ][a-zäöüß]+[ -])(?:Straße|Strasse|Weg|Allee|Platz|Gasse|Ring|Damm)\s+\d{1,4}\s?[a-z]?\b"),
    # 12 rue de la Paix · 5 bis, avenue Victor Hugo · 3 place du Marché
    re.compile(r"\b\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|av\.|boulevard|bd|place|chemin|allée|impasse|quai|"
               rf"route|cours|square)\s+(?:(?:de la|de l'|du|des|de|d')\s*)?{_CAP}(?:\s+{_CAP})*", re.IGNORECASE),
    # Calle Mayor 5 · Avenida de la Constitución, 12 · C/ Alcalá 45 · Via Roma 10 · Piazza Navona 2
    re.compile(rf"\b(?:Calle|C/|Avenida|Avda\.?|Plaza|Paseo|Camino|Carrer|Rua|Via|Viale|Piazza|Corso|Largo)\s+"
               rf"(?:(?:de la|de los|de las|del|de|della|dei|di)\s+)?{_CAP}(?:\s+{_CAP}){{0,3}},?\s+"
               rf"(?:n[º°o]\.?\s*)?\d{{1,4}}\b"),
)
_UK_POSTCODE = re.compile(r"\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[ABD-HJLNP-UW-Z]{2}\b")


_ENDS = re.compile(r"\s*(?:[,;:)\n]|[.!?](?:\s|$)|$)")
_CONTEXT = re.compile(r"(?i)\b(?:live[sd]? (?:at|on)|address|ship(?:ped)? to|send (?:it |them )?to|deliver(?:ed)? to|"
                      r"moved to|located at|lives? at|residence|home|wohne|adresse|dirección|domicilio|indirizzo)\b")


def addresses(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every street address in `text`, extended over a UK postcode that follows it. An English
    "<number> <name> <street>" counts when it ends its phrase (a comma, the sentence's end) or follows an address
    word ("ship to", "lives at"): "3 Main Street stores" and "the 2 Oak Road exit" are not addresses."""
    for index, pattern in enumerate(_PATTERNS):
        for m in pattern.finditer(text):
            end = m.end()
            post = _UK_POSTCODE.search(text, end, min(len(text), end + 40))
            if index == 0 and not (post or _ENDS.match(text, end)
                                   or _CONTEXT.search(text, max(0, m.start() - 40), m.start())):
                continue
            yield m.start(), post.end() if post else end
