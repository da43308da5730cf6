"""Writes the PII sets drawn from DataFog's detection-accuracy corpus (tests/fixtures/judge/external/
pii_datafog_*.jsonl): sentences with their entities' spans, and look-alikes with none (an ISBN, a part number, a
UUID, a version, an order id). See tests/fixtures/judge/external/SOURCES.md for the source, its licence and the label
mapping.

Run (from a checkout of DataFog/datafog-python):
    python bench/make_datafog_pii_sets.py PATH/datafog-python

The split is by family, not by row: a row's id names its family before the first hyphen ("email-simple",
"email-plus-addressing"; "isbn-not-ssn"), the family's rows are variants of one another, and each family falls on
one side by a hash of its file and name.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from make_external_sets import no_host, side, write

FILES = ("structured_pii.json", "unstructured_pii.json", "mixed_pii.json", "edge_cases.json", "negative_cases.json")
# DataFog's entity types → our kinds: required (recall counts them) and allowed (a match there is no false positive:
# a date may be a date of birth, a ZIP code is part of an address). Names, places, organisations and a company's
# VAT id are no kind the detector reports: a row holding only those is clean text.
REQUIRED = {"EMAIL": "email", "PHONE": "phone", "CREDIT_CARD": "credit_card", "SSN": "us_ssn", "IP_ADDRESS": "ip",
            "ADDRESS": "address", "DE_IBAN": "iban"}
ALLOWED = {"DATE": "date_of_birth", "ZIP_CODE": "address", "LOCATION": "address"}


def rows(root: Path) -> dict[str, list[dict]]:
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    for name in FILES:
        for case in json.loads((root / "tests" / "corpus" / name).read_text(encoding="utf-8")):
            family = f"{name}:{case['id'].split('-')[0]}"
            spans = [_span(e) for e in case["expected_entities"]]
            if not case["input"] or any(s is None for s in spans):
                continue
            by_side[side("datafog", family)].append({
                "id": f"datafog:{name}:{case['id']}", "family": family, "text": case["input"],
                "kinds": sorted({s["kind"] for s in spans if s["kind"]}), "spans": spans})
    return by_side


def _span(entity: dict) -> dict | None:
    """None for an address that names no host (loopback, unspecified): not a kind the detector claims, so its row
    is neither required nor clean."""
    kind = REQUIRED.get(entity["type"])
    if kind == "ip" and no_host(entity["text"]):
        return None
    return {"type": entity["type"], "kind": kind, "allowed": ALLOWED.get(entity["type"]), "start": entity["start"],
            "end": entity["end"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a checkout of DataFog/datafog-python")
    args = parser.parse_args()
    for split, data in rows(args.root).items():
        write(f"pii_datafog_{split}.jsonl", data)


if __name__ == "__main__":
    main()
