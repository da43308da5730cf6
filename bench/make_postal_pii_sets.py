"""Writes the PII sets drawn from two address parsers' test suites (tests/fixtures/judge/external/pii_postal_*.jsonl):
the addresses of many countries that libpostal's and Pelias's authors wrote with the components they expect their
parser to give ("Am Falkpl. 5, 10437 Berlin", "Valdemarsgade 42 4 t.v. København, 1665 Danmark", "115-121 Hutt Park
Road", "ul. Marszałkowska 1, Warszawa"), and the places they wrote with no street at all (venues, towns, "Paris,
France"). See tests/fixtures/judge/external/SOURCES.md for the sources, their licences and the label mapping.

Run (from checkouts of openvenues/libpostal at commit 4c030d8ff2fcf59c26510f68823c28a2346034d4 and pelias/parser at
commit b4494c2a979dd16683c7604258131a55cdf8668a):
    python bench/make_postal_pii_sets.py PATH/libpostal PATH/pelias-parser

Each input is used twice: as written (a bare value, as a tool's result or a record holds it) and in one fixed
carrier sentence. The split is by country (each test names the country whose addresses it holds), so the holdout's
countries and their address forms are unseen in dev; each country falls on one side by a hash of its code.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from make_external_sets import side, write

CARRIER = "You will find them at {address}."
"""Chosen before any detector ran on the rows: a placing word, then the address, then the sentence ends."""
LIBPOSTAL_COUNTRY = {"da": "DK"}
"""libpostal's tests are named by a language-like code; Danish is Denmark's."""
PELIAS_FILES = {
    "address.aus.test.js": "AU", "address.bra.test.js": "BR", "address.cze.test.js": "CZ",
    "address.deu.test.js": "DE", "address.esp.test.js": "ES", "address.fra.test.js": "FR",
    "address.gbr.test.js": "GB", "address.hrv.test.js": "HR", "address.ind.test.js": "IN",
    "address.nld.test.js": "NL", "address.nor.test.js": "NO", "address.nzd.test.js": "NZ",
    "address.pol.test.js": "PL", "address.prt.test.js": "PT", "address.rom.test.js": "RO",
    "address.svk.test.js": "SK", "address.swe.test.js": "SE", "address.usa.test.js": "US",
    "addressit.aus.test.js": "AU", "addressit.usa.test.js": "US", "functional.test.js": "US",
    "venue.usa.test.js": "US", "libpostal.test.js": "US", "compound_street.test.js": "DE",
    "place.fra.test.js": "FR",
}
"""The Pelias tests read: those of addresses and places by country; intersections and transit stops are not read."""
CASE = re.compile(r'test_parse_result_equals\(\s*"((?:[^"\\]|\\.)*)",\s*\w+,\s*\d+,(.*?)\)\s*\);', re.S)
"""A libpostal case: its input, then its expected (label, component) pairs."""
NUMBER = {"house_number", "housenumber"}
STREET = {"road", "street"}
NOT_ADDRESS = {"house", "venue", "category", "near"}
"""A venue's or a building's name before the address is no part of it (the span starts at the street)."""
PLACE_ONLY = {"city", "city_district", "suburb", "state", "state_district", "country", "country_region", "island",
              "world_region", "locality", "region", "dependency", "house", "venue", "category", "near"}
"""Components of a place with no street: an input made only of these is clean text."""
NUMBER_WORDS = re.compile(r"(?i)^(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
                          r"forty|fifty|hundred)\b")


def rows(libpostal: Path, pelias: Path) -> dict[str, list[dict]]:
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    seen: set[str] = set()
    cases = [*_libpostal_cases(libpostal), *_pelias_cases(pelias)]
    for source, country, text, components in cases:
        if text in seen:
            continue
        seen.add(text)
        spans = _spans(text, components)
        if spans is None:
            continue
        for number, written in enumerate((text, CARRIER.format(address=text))):
            offset = written.index(text)
            moved = [{**span, "start": span["start"] + offset, "end": span["end"] + offset} for span in spans]
            by_side[side("postal", country)].append({
                "id": f"postal:{source}:{len(seen)}:{number}", "group": country, "country": country,
                "text": written, "labelled": ["address"], "kinds": ["address"] if moved else [], "spans": moved})
    return by_side


def _libpostal_cases(root: Path):
    """(source, country, input, [(label, component)]) of every case in libpostal's parser tests."""
    source = re.sub(r"//[^\n]*", "", (root / "test" / "test_parser.c").read_text(encoding="utf-8"))
    parts = re.split(r"\nTEST test_(\w+?)_parses\(void\) \{", source)
    for code, body in zip(parts[1::2], parts[2::2]):
        country = LIBPOSTAL_COUNTRY.get(code, code.upper())
        for text, expected in CASE.findall(body):
            components = re.findall(r'\{"(\w+)", "((?:[^"\\]|\\.)*)"\}', expected)
            yield "libpostal", country, _c_string(text), [(label, _c_string(value)) for label, value in components]


def _pelias_cases(root: Path):
    """(source, country, input, [(label, component)]) of every case the Pelias tests PELIAS_FILES names assert,
    those commented out too (cases the parser does not pass yet: the components expected are still its authors')."""
    for name, country in PELIAS_FILES.items():
        source = (root / "test" / name).read_text(encoding="utf-8")
        source = re.sub(r"(?m)^(\s*)// ?", r"\1", source)
        for match in re.finditer(r"\bassert\(\s*'((?:[^'\\]|\\.)*)'\s*,", source):
            expected = _first_solution(source, match.end())
            components = re.findall(r"\{\s*(\w+)\s*:\s*'((?:[^'\\]|\\.)*)'\s*\}", expected)
            yield "pelias", country, _js_string(match.group(1)), [(label, _js_string(v)) for label, v in components]


def _first_solution(source: str, start: int) -> str:
    """The expected array after an assert's input, up to its closing bracket; of a list of solutions (the tests
    that pass firstOnly=false) the first."""
    opening = source.index("[", start)
    depth = 0
    quoted = False
    for index in range(opening, len(source)):
        char = source[index]
        if quoted:
            quoted = not (char == "'" and source[index - 1] != "\\")
        elif char == "'":
            quoted = True
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                body = source[opening:index + 1]
                nested = body.find("[", 1)
                return body[nested:body.index("]", nested) + 1] if nested != -1 else body
    raise ValueError(f"no closing bracket after offset {start}")


def _c_string(value: str) -> str:
    return value.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")


def _js_string(value: str) -> str:
    return value.replace("\\'", "'").replace("\\\\", "\\")


def _spans(text: str, components: list[tuple[str, str]]) -> list[dict] | None:
    """[] for clean text, None for an input left out. An input with a house number (digits, or a number in words)
    and a street is a required address, from its first component that is no venue's or building's name to the end
    of its last; one made only of places (a venue, a town, a region, a country) is clean text; any other (a street
    with no house number, a post office box, a postcode alone, a unit) is left out, as in the usaddress sets."""
    labels = {label for label, _ in components}
    if labels <= PLACE_ONLY:
        return []
    numbers = [value for label, value in components if label in NUMBER]
    if not (labels & STREET and any(re.search(r"\d", n) or NUMBER_WORDS.match(n) for n in numbers)):
        return None
    located = _locate(text, [(label, value) for label, value in components if label not in NOT_ADDRESS])
    if not located:
        return None
    start = min(s for s, _ in located)
    end = max(e for _, e in located)
    return [{"type": "address", "kind": "address", "allowed": None, "start": start, "end": end}]


def _locate(text: str, components: list[tuple[str, str]]) -> list[tuple[int, int]]:
    """Where each component stands in the input, in any case (libpostal gives its components in lower case); a
    component the parser normalised beyond case is not located, and the span is the others'."""
    found = []
    for _, value in components:
        match = re.search(re.escape(value), text, re.IGNORECASE)
        if match:
            found.append(match.span())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("libpostal", type=Path, help="a checkout of openvenues/libpostal")
    parser.add_argument("pelias", type=Path, help="a checkout of pelias/parser")
    args = parser.parse_args()
    for split, data in rows(args.libpostal, args.pelias).items():
        write(f"pii_postal_{split}.jsonl", data)


if __name__ == "__main__":
    main()
