"""Writes the PII sets drawn from libphonenumber's matcher tests (tests/fixtures/judge/external/
pii_libphonenumber_*.jsonl): phone numbers of many regions in the sentences the library's authors wrote around them,
with the span they expect found, and strings they expect no number in. See tests/fixtures/judge/external/SOURCES.md
for the source, its licence and the label mapping.

Run (from a checkout of google/libphonenumber at commit f7e3e88c92b905c8d6edb81f336dbe25edc05b52):
    python bench/make_libphonenumber_pii_sets.py PATH/libphonenumber

Each case is assembled as its test assembles it (a number between a context's leading and trailing text) from the
literals of the Java file. A number the test expects found is required when the real numbering plan of the
region the test gives makes it valid (the `phonenumbers` package); the test's own metadata is not the real one.
The split is by a hash of each case's group: a number's national digits for a number tested in the shared sentences
or as a bare string, the test's name for a context test or a single test's text, the text itself for a clean one.
"""

from __future__ import annotations

import argparse
import re
import unicodedata
from pathlib import Path

import phonenumbers
from make_external_sets import side, write

TEST = Path("java/libphonenumber/test/com/google/i18n/phonenumbers/PhoneNumberMatcherTest.java")
DEFAULT_NUMBER, DEFAULT_REGION = "415-666-7777", "US"
"""The number and region `findMatchesInContexts` uses when a test names none."""
REQUIRED_ARRAYS = ("EXACT_GROUPING_CASES", "STRICT_GROUPING_CASES")
LOOK_ALIKE_VALID_CASES = {"12 7/8 - 14 12/34 - 5", "12.1 - 23.71 - 23.45", "1979-2011 100", "2012-0102 08",
                          "2012-01-02 08"}
"""`VALID_CASES` that are fractions, decimal numbers, a range of years and a count, or a date with an hour: clean.
The others are a phone number's digits in an odd grouping, found only at some strictness: left out."""
CONTEXT_TESTS = {
    # test name -> (the list of contexts, whether its number is a phone number there)
    "testMoneyNotSeenAsPhoneNumber": ("possibleOnlyContexts", False),
    "testPercentageNotSeenAsPhoneNumber": ("possibleOnlyContexts", False),
    "testPhoneNumberWithLeadingOrTrailingMoneyMatches": ("contexts", True),
    "testMatchesWithSurroundingLatinCharsAndLeadingPunctuation": ("validContexts", True),
    "testMatchesWithSurroundingChineseChars": ("validContexts", True),
    "testMatchesWithSurroundingPunctuation": ("validContexts", True),
}
"""Tests of one number in several contexts. testMatchesWithSurroundingLatinChars and the possible-only contexts of
the leading-punctuation test are found only at the loosest strictness: left out."""
SINGLE_TEXTS = (
    # (test name, text, region, the numbers it expects in order)
    ("testMatchesMultiplePhoneNumbersSeparatedByPhoneNumberPunctuation", "Call 650-253-4561 -- 455-234-3451", "US",
     ("650-253-4561", "455-234-3451")),
    ("testFourMatchesInARow", "415-666-7777 - 800-443-1223 - 212-443-1223 - 650-443-1223", "US",
     ("415-666-7777", "800-443-1223", "212-443-1223", "650-443-1223")),
    ("testMatchesFoundWithMultipleSpaces", "(415) 666-7777 (800) 443-1223", "US", ("(415) 666-7777", "(800) 443-1223")),
    ("testMatchWithSurroundingZipcodes", "My address is CA 34215 - 415-666-7777 is my number.", "US",
     ("415-666-7777",)),
    ("testMatchWithSurroundingZipcodes", "My number is (415) 666 7777. 34215 is my zip-code.", "US",
     ("(415) 666 7777",)),
    ("testSequences", "Call 033316005  or 032316005!", "NZ", ("033316005", "032316005")),
    ("testDoubleIteration", "+14156667777 foobar +14156667777 ", None, ("+14156667777", "+14156667777")),
    ("testSingleIteration", "+14156667777", None, ("+14156667777",)),
)
CLEAN_TEXTS = (
    ("testNonMatchingBracketsAreInvalid", "80.585 [79.964, 81.191]", "US"),
    ("testNonMatchingBracketsAreInvalid", "80.585 [79.964]", "US"),
    ("testNonMatchingBracketsAreInvalid", "80.585 ((79.964)", "US"),
    ("testNonMatchingBracketsAreInvalid", "(80).(585) (79).(9)64", "US"),
    ("testNoMatchIfNoNumber", "Random text body - number is foobar, see you there", "US"),
)
OTHER_NUMBER = re.compile(r"\+\d[\d-]{9,}\d")
"""A second number a shared sentence holds and its test does not label ("Call ... or +1800-123-4567!"): allowed."""


def rows(root: Path) -> dict[str, list[dict]]:
    java = (root / TEST).read_text(encoding="utf-8")
    cases = [*_numbers_in_sentences(java), *_context_tests(java), *_singles(java), *_arrays(java)]
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    seen: set[str] = set()
    for index, case in enumerate(cases):
        if case is None or case["text"] in seen:
            continue
        seen.add(case["text"])
        case["id"] = f"libphonenumber:{case['test']}:{index}"
        by_side[side("libphonenumber", case["group"])].append(case)
    return by_side


def _numbers_in_sentences(java: str):
    possible = _contexts(_body(java, "findPossibleInContext"), "contextPairs")
    valid = _contexts(_body(java, "findValidInContext"), "contextPairs")
    for test, number, region in _find_in_context_calls(java):
        group = _national_digits(number, region)
        contexts = possible + (valid if _valid(number, region) else [])
        for lead, trail in contexts:
            yield _case(test, group, lead + number + trail, region, [(len(lead), number)], trail)
    for test, contexts in (("findPossibleInContext", possible), ("findValidInContext", valid)):
        for lead, _ in contexts:
            if re.search(r"\d", lead):  # the tests assert their number is the first match: nothing before it is one
                yield _clean(test, lead, lead, None)


def _context_tests(java: str):
    for test, (name, is_phone) in CONTEXT_TESTS.items():
        body = _body(java, test)
        numbers = [_string(s) for s in re.findall(r'String numberWith\w+ = ("[^"]*");', body)] or [DEFAULT_NUMBER]
        for number in numbers:
            for lead, trail in _contexts(body, name):
                text = lead + number + trail
                if is_phone:
                    yield _case(test, test, text, DEFAULT_REGION, [(len(lead), number)], trail)
                else:
                    yield _clean(test, test, text, DEFAULT_REGION)


def _singles(java: str):
    for test, text, region, numbers in SINGLE_TEXTS:
        body = _body(java, test)
        assert all(f'"{n}"' in body or n in body for n in numbers), (test, numbers)
        at, spans = 0, []
        for number in numbers:
            at = text.index(number, at)
            spans.append((at, number))
            at += len(number)
        yield _case(test, test, text, region, spans, "")
    for test, text, region in CLEAN_TEXTS:
        assert f'"{text}"' in _body(java, test), (test, text)
        yield _clean(test, text, text, region)


def _arrays(java: str):
    for name, region_tests in _number_arrays(java).items():
        for raw, region in region_tests:
            if name in REQUIRED_ARRAYS:
                yield _case(name, _national_digits(raw, region), raw, region, [(0, raw)], "")
            elif name == "IMPOSSIBLE_CASES" or (name == "VALID_CASES" and raw in LOOK_ALIKE_VALID_CASES):
                yield _clean(name, raw, raw, region)


def _case(test: str, group: str, text: str, region: str | None, numbers: list[tuple[int, str]],
          trail: str) -> dict | None:
    """A text with the numbers its test expects: None when a Latin letter touches one (found only at the loosest
    strictness) or when none of them is valid under the real numbering plan of `region`."""
    spans = []
    for start, number in numbers:
        end = start + len(number)
        if _latin_before(text, start, number) or (end < len(text) and _latin(text[end])):
            return None
        required = _valid(number, region)
        spans.append({"type": "phone", "kind": "phone" if required else None, "allowed": None if required else "phone",
                      "start": start, "end": end})
    for other in OTHER_NUMBER.finditer(trail):
        start = len(text) - len(trail) + other.start()
        spans.append({"type": "phone", "kind": None, "allowed": "phone", "start": start,
                      "end": start + len(other.group(0))})
    if not any(s["kind"] for s in spans):
        return None
    return _row(test, group, text, region, spans)


def _clean(test: str, group: str, text: str, region: str | None) -> dict:
    return _row(test, group, text, region, [])


def _row(test: str, group: str, text: str, region: str | None, spans: list[dict]) -> dict:
    row = {"test": test, "group": group, "text": text, "labelled": ["phone"],
           "kinds": sorted({s["kind"] for s in spans if s["kind"]}), "spans": spans}
    if region:
        row["regions"] = [region]
    return row


def _latin_before(text: str, start: int, number: str) -> bool:
    """The matcher takes a Latin letter right before a number only when the number starts with punctuation."""
    return start > 0 and _latin(text[start - 1]) and number[0] not in "+(\uff0b\uff08"


def _latin(char: str) -> bool:
    return unicodedata.category(char) == "Mn" or (char.isalpha() and "LATIN" in unicodedata.name(char, ""))


def _valid(number: str, region: str | None) -> bool:
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(number, region))
    except phonenumbers.NumberParseException:
        return False


def _national_digits(number: str, region: str | None) -> str:
    try:
        return str(phonenumbers.parse(number, region).national_number)
    except phonenumbers.NumberParseException:
        return "".join(c for c in number if c.isdigit())


def _find_in_context_calls(java: str):
    for test in re.findall(r"public void (test\w+)\(\)", java):
        for number, region in re.findall(r'doTestFindInContext\(((?:"[^"]*"\s*\+?\s*)+),\s*(RegionCode\.\w+|null)\)',
                                         _body(java, test)):
            yield test, _string(number), _region(region)


def _number_arrays(java: str) -> dict[str, list[tuple[str, str | None]]]:
    arrays = {}
    for name, body in re.findall(r"private static final NumberTest\[\] (\w+) = \{(.*?)\n  \};", java, re.S):
        arrays[name] = [(_string(raw), _region(region)) for raw, region in
                        re.findall(r'new NumberTest\(((?:"[^"]*"\s*\+?\s*)+),\s*(RegionCode\.\w+)\)', body)]
    return arrays


def _contexts(body: str, name: str) -> list[tuple[str, str]]:
    return [(_string(lead), _string(trail)) for lead, trail in
            re.findall(rf'{name}\.add\(new NumberContext\(\s*("[^"]*"),\s*("[^"]*")\)\)', body)]


def _body(java: str, method: str) -> str:
    start = re.search(rf"\n  (?:public|private) void {method}\(", java).end()
    return java[start:java.index("\n  }\n", start)]


def _string(literal: str) -> str:
    """The value of Java string literals joined with "+": \\uXXXX, \\t and \\" decoded."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', literal)
    return "".join(re.sub(r"\\u([0-9A-Fa-f]{4})|\\(.)", _unescape, part) for part in parts)


def _unescape(m: re.Match[str]) -> str:
    if m.group(1):
        return chr(int(m.group(1), 16))
    return {"t": "\t", "n": "\n"}.get(m.group(2), m.group(2))


def _region(code: str) -> str | None:
    region = code.removeprefix("RegionCode.")
    return None if region in ("null", "ZZ") else region


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a checkout of google/libphonenumber")
    args = parser.parse_args()
    for split, data in rows(args.root).items():
        write(f"pii_libphonenumber_{split}.jsonl", data)


if __name__ == "__main__":
    main()
