"""Writes the PII sets drawn from pyap's test suite (tests/fixtures/judge/external/pii_pyap_*.jsonl): the US, British
and Canadian street addresses its authors expect the address parser to find whole (street lines, full addresses with
town, region and postcode, in English and Canadian French, in every case, with units, ranges and house numbers in
words), and the look-alikes they expect it to reject (truncated product lines of a parts list, "4 BODY WAVE MODEL
MO", "2013 Courtesy of DONNA LUPI, PR"). See tests/fixtures/judge/external/SOURCES.md for the source, its licence and
the label mapping.

Run (from a checkout of vladimarius/pyap at commit 471812d1e992e6d26834e26523071632e165c5dd):
    python bench/make_pyap_pii_sets.py PATH/pyap

Each input is used twice: as written (a bare value, as a tool's result or a record holds it) and in one fixed
carrier sentence. The split is by street: a row's group is the first word of its street's name (house numbers,
number words, directions, units and post office boxes skipped: "200 S. Alloy Drive" and "Two Hundred South Alloy
Dr." are one group, and so are the street lines that reappear inside a full address), and each group falls on one
side by a hash of it.
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

from make_external_sets import side, write

FILES = {"tests/test_parser_us.py": "US", "tests/test_parser_gb.py": "GB", "tests/test_parser_ca.py": "CA",
         "tests/test_parser.py": "US"}
TESTS = re.compile(r"test_full_street\w*|test_full_address(?:_positive)?|test_parse_address")
"""The tests whose inputs are whole addresses or texts holding one; the others test a component ("Suite #2",
"T2P 1H3", "NW") and are not read."""
CARRIER = "The letter went to {address} on Monday."
"""Chosen before any detector ran on the rows: a verb of going and "to", then the address, then the sentence goes on."""
NUMBER_WORDS = (r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
                r"sixty|seventy|eighty|ninety|hundred|thousand")
HOUSE_NUMBER = re.compile(
    rf"(?i)(?<![\w-])(?:\d+[a-z]?(?:\s?-\s?(?:\d+(?:st|nd|rd|th|[a-z])?|[a-z]\b))?|"
    rf"(?:{NUMBER_WORDS})(?:\s+(?:and\s+)?(?:{NUMBER_WORDS}))*),?\s+(?!(?:box|bay|sq\.|ft\.)\b)"
    r"(?:[^\W\d]|\d+(?i:st|nd|rd|th|e)\b)")
"""A house number before a word or an ordinal of the street: digits, a range ("185-187", "718 - 8th"), or words ("Two
Hundred"); "3409 16th St"."""
PO_BOX_ONLY = re.compile(r"(?i)^\W*(?:p\.?\s?o\.?\s?box|post office box|pmb)\s*#?\d+\W*(?:,|$)")
NOT_CLEAN = {
    "123 Curvy Way, Littleville, USA": "a house number on a named street: an address to us, rejected by pyap only "
                                       "for its missing state",
    ", 666 Hell ST PMB 29700": "the same street line as a positive, rejected by pyap only for its leading comma",
    "44 sq. ft. 000 Columbia Ave. See Remarks, Newfield, NJ 08344": "holds a street, a town, a state and a ZIP code "
                                                                     "after a listing's area",
}
"""Inputs pyap expects no full address from that still hold a street address as this project counts one: neither
required nor clean (left out)."""
SKIPPED_WORDS = re.compile(rf"(?i)^(?:{NUMBER_WORDS}|and|n|s|e|w|ne|nw|se|sw|north|south|east|west|suite|ste|flat|"
                           r"studio|apt|unit|building|bldg|no|p|o|po|box|post|office|pobox|pmb|xxx|rue|avenue|"
                           r"boulevard|boul|chemin|place|the|at|old|de|du|des|la|l)$")


def rows(root: Path) -> dict[str, list[dict]]:
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    seen: set[str] = set()
    for name, country in FILES.items():
        for test, text, expected in _cases(root / name):
            if text in seen:
                continue
            seen.add(text)
            row = _row(text, expected)
            if row is None:
                continue
            group = _group(text)
            for number, written in enumerate((text, CARRIER.format(address=text))):
                offset = written.index(text)
                spans = [{**span, "start": span["start"] + offset, "end": span["end"] + offset} for span in row]
                by_side[side("pyap", group)].append({
                    "id": f"pyap:{country}:{test}:{len(seen)}:{number}", "group": group, "country": country,
                    "text": written, "labelled": ["address"], "kinds": ["address"] if spans else [],
                    "spans": spans})
    return by_side


def _cases(path: Path):
    """(test name, input, expected) of every parametrised case of the tests TESTS names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and TESTS.fullmatch(node.name)):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and len(decorator.args) == 2:
                for case in ast.literal_eval(decorator.args[1]):
                    yield node.name, case[0], case[1]


def _row(text: str, expected) -> list[dict] | None:
    """The row's spans: [] for clean text, None for an input left out. A positive with a house number is a required
    address over the whole address pyap expects; one without (a street alone, "SHEPPEY WAY", a landmark's street,
    a post office box alone) is left out, as in the usaddress sets."""
    if expected is False or expected is None:
        return None if text in NOT_CLEAN else []
    start, end = _address_span(text, expected)
    if PO_BOX_ONLY.match(text) and not HOUSE_NUMBER.search(text, text.find(",") + 1):
        return None
    if not HOUSE_NUMBER.search(text[start:end]):
        return None
    return [{"type": "full_address", "kind": "address", "allowed": None, "start": start, "end": end}]


def _address_span(text: str, expected) -> tuple[int, int]:
    """The whole input for a bare positive; within a text (test_parse_address), from the street number pyap
    expects to the end of the last part it expects (the full address it states, or the postcode, region or city)."""
    if expected is True:
        stripped = text.strip()
        start = text.index(stripped)
        return start, start + len(stripped)
    full = expected.get("full_address")
    if full and full in text:
        start = text.index(full)
        return start, start + len(full)
    start = text.index(expected["street_number"])
    ends = [text.index(value, start) + len(value) for value in expected.values() if value and value in text[start:]]
    return start, max(ends)


def _group(text: str) -> str:
    for word in re.findall(r"(?<![\w-])[^\W\d_][\w'’-]*", text):
        if not SKIPPED_WORDS.match(word):
            return word.lower()
    return text.lower()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a checkout of vladimarius/pyap")
    args = parser.parse_args()
    for split, data in rows(args.root).items():
        write(f"pii_pyap_{split}.jsonl", data)


if __name__ == "__main__":
    main()
