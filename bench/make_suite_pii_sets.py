"""Writes the PII sets drawn from other PII detectors' test suites (tests/fixtures/judge/external/pii_suites_*.jsonl):
the values and sentences Presidio's analyzer tests and scrubadub's tests say hold, or do not hold, an entity of a
kind. See tests/fixtures/judge/external/SOURCES.md for the sources, their licences and the label mapping.

Run (from checkouts of the two source repositories):
    python bench/make_suite_pii_sets.py --presidio PATH/presidio --scrubadub PATH/scrubadub

The split is by test file (one recognizer or detector each), not by row: a file's rows are variants of one another,
so each file falls on one side by a hash of its name; the IBAN tests' rows by country (each country's IBAN valid,
with a letter inside, short and with a wrong digit).
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

from make_external_sets import side, write

# Presidio's recognizer test files → the kind find_pii reports, and whether the detector claims the kind only where
# the text names it (a bare nine digits is a Canadian SIN to Presidio; to us, only after "SIN").
PRESIDIO = {
    "test_credit_card_recognizer.py": ("credit_card", False), "test_email_recognizer.py": ("email", False),
    "test_iban_recognizer.py": ("iban", False), "test_ip_recognizer.py": ("ip", False),
    "test_phone_recognizer.py": ("phone", False), "test_us_ssn_recognizer.py": ("us_ssn", False),
    "test_uk_nino_recognizer.py": ("national_id", False), "test_es_nif_recognizer.py": ("national_id", False),
    "test_es_nie_recognizer.py": ("national_id", False), "test_it_fiscal_code_recognizer.py": ("national_id", False),
    "test_uk_nhs_recognizer.py": ("national_id", True), "test_ca_sin_recognizer.py": ("national_id", True),
    "test_de_tax_id_recognizer.py": ("national_id", True), "test_in_aadhaar_recognizer.py": ("national_id", True),
    "test_de_passport_recognizer.py": ("national_id", True),
}
CONFIDENT = 0.4
"""A positive the source itself expects only at a low score (a bare nine digits as an SSN at 0.0-0.3, "::" as an
IPv6 address at 0.05) is left out: the source does not say it is one. (0.4 is the score of every phone number.)"""
# scrubadub's placeholders → our kinds. Placeholders of kinds we do not report (names, URLs, Twitter and Skype
# handles, credentials, driving licences, tax references) make a sentence neither required nor clean: left out.
SCRUBADUB = {"EMAIL": "email", "PHONE": "phone", "CREDIT_CARD": "credit_card", "SOCIAL_SECURITY_NUMBER": "us_ssn",
             "NATIONAL_INSURANCE_NUMBER": "national_id", "DATE_OF_BIRTH": "date_of_birth"}
_PLACEHOLDER = re.compile(r"\{\{([A-Z_]+)\}\}")


def presidio_rows(root: Path) -> list[dict]:
    rows = []
    for name, (kind, named_only) in PRESIDIO.items():
        tree = ast.parse((root / "presidio-analyzer" / "tests" / name).read_text(encoding="utf-8"))
        for number, case in enumerate(_cases(tree)):
            r = _presidio_row(case, kind, named_only)
            if r is not None:
                # an IBAN's rows are variants per country (valid, a letter inside, short, a wrong digit): a document
                country = f":{r['text'][:2].upper()}" if kind == "iban" else ""
                rows.append({"id": f"presidio:{name}[{number}]", "document": f"presidio:{name}{country}", **r})
    return rows


def _cases(tree: ast.Module):
    """The literal cases of each test function's `parametrize` whose first argument is the text, as a mapping of
    the argument names to the case's values."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "parametrize"):
            continue
        names = [n.strip() for n in ast.literal_eval(node.args[0]).split(",")]
        if names[0] not in ("text", "iban") or "leniency" in names:
            continue
        for element in node.args[1].elts:
            try:
                yield dict(zip(names, ast.literal_eval(element)))
            except ValueError:
                continue  # a case built by a function call (an IBAN given a fresh checksum): not a literal


def _presidio_row(case: dict, kind: str, named_only: bool) -> dict | None:
    text, count = case[_name(case, "text", "iban")], case[_name(case, "expected_len")]
    if not isinstance(text, str) or not isinstance(count, int):
        return None
    if count == 0:
        return {"text": text, "kinds": [], "spans": []}
    positions = _positions(case[_name(case, "expected_res", "expected_positions", "expected_position")])
    bare = not re.search(r"[^\W\d_]{3,}", _without(text, positions))
    score = next((v for k, v in case.items() if "score" in k), None)
    if (named_only and bare) or not _confident(score) or len(positions) != count:
        return None
    if kind == "ip" and any(_identifies_no_one(text[s:e]) for s, e in positions):
        return None
    spans = [{"type": kind, "kind": kind, "allowed": None, "start": s, "end": e} for s, e in positions]
    return {"text": text, "kinds": [kind], "spans": spans}


def _identifies_no_one(value: str) -> bool:
    """Loopback and unspecified addresses ("::1", "::"): not a kind the detector claims (they name no host)."""
    import ipaddress

    try:
        address = ipaddress.ip_address(value.split("%")[0])
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _name(case: dict, *names: str) -> str:
    return next(n for n in names if n in case)


def _positions(raw) -> list[tuple[int, int]]:
    if len(raw) == 2 and all(isinstance(n, int) for n in raw):
        return [tuple(raw)]
    return [tuple(p) for p in raw]


def _without(text: str, positions: list[tuple[int, int]]) -> str:
    for start, end in sorted(positions, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def _confident(score) -> bool:
    """Presidio's expected scores, in whatever shape a test gives them: none, a number, or (low, high) ranges."""
    if score in ((), None):
        return True
    if isinstance(score, (int, float)):
        return score >= CONFIDENT
    lows = [s[0] if isinstance(s, tuple) else s for s in score]
    return all(isinstance(low, (int, float)) and low >= CONFIDENT for low in lows)


def scrubadub_rows(root: Path) -> list[dict]:
    rows = []
    for path in sorted((root / "tests").glob("test_detector_*.py")):
        source = path.read_text(encoding="utf-8")
        for number, (before, after) in enumerate(_before_after(source, path.name)):
            r = _scrubadub_row(before, after)
            if r is not None:
                rows.append({"id": f"scrubadub:{path.name}[{number}]", "document": f"scrubadub:{path.name}", **r})
    return rows


def _before_after(source: str, name: str):
    for m in re.finditer(r"BEFORE:\s*(.+?)\n\s*AFTER:\s*(.+?)\n", source):
        yield m.group(1).strip(), m.group(2).strip()
    if name == "test_detector_phone_numbers.py":  # the numbers its one template ("My phone number is %s") is given
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "check_phone_numbers":
                for number in node.args:
                    yield f"My phone number is {ast.literal_eval(number)}", "My phone number is {{PHONE}}"


def _scrubadub_row(before: str, after: str) -> dict | None:
    """Spans from the AFTER text: the literal pieces between its placeholders are found in order in BEFORE."""
    if "%s" in before:
        return None
    pieces = _PLACEHOLDER.split(after)
    literals, labels = pieces[0::2], pieces[1::2]
    if any(label not in SCRUBADUB for label in labels):
        return None
    spans, at = [], len(literals[0])
    if not before.startswith(literals[0]):
        return None
    for number, (label, literal) in enumerate(zip(labels, literals[1:])):
        last = number == len(labels) - 1
        end = len(before) - len(literal) if last and before.endswith(literal) else before.find(literal, at + 1)
        if end < 0:
            return None
        kind = SCRUBADUB[label]
        spans.append({"type": label, "kind": kind, "allowed": None, "start": at, "end": end})
        at = end + len(literal)
    return {"text": before, "kinds": sorted({s["kind"] for s in spans}), "spans": spans}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presidio", type=Path, required=True, help="a checkout of microsoft/presidio")
    parser.add_argument("--scrubadub", type=Path, required=True, help="a checkout of LeapBeyond/scrubadub")
    args = parser.parse_args()
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    seen: set[str] = set()
    for r in presidio_rows(args.presidio) + scrubadub_rows(args.scrubadub):
        if r["text"] not in seen:
            seen.add(r["text"])
            by_side[side("suites", r["document"])].append(r)
    for split, rows in by_side.items():
        write(f"pii_suites_{split}.jsonl", rows)


if __name__ == "__main__":
    main()
