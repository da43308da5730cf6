"""Writes the PII sets drawn from Microsoft Recognizers-Text's sequence specs (tests/fixtures/judge/external/
pii_recognizers_*.jsonl): the test inputs its authors wrote for the phone number, e-mail and IP address
recognizers, each with the spans they expect extracted, and inputs they expect nothing from (look-alike numbers,
formulas, dates, hexadecimal, account and card numbers). See tests/fixtures/judge/external/SOURCES.md for the
source, its licence and the label mapping.

Run (from a checkout of microsoft/Recognizers-Text at commit 90e968ea44dc8fda3f2e1c3e4b20aa233817488d):
    python bench/make_recognizers_pii_sets.py PATH/Recognizers-Text

The split is by value, not by row: the Chinese and Portuguese specs translate the English inputs ("My phone number is
0176-12345678", "Meu telefone é 0176-12345678", "我的电话号是0176-12345678"), so a row's group is the digits of the
value it expects (its input when it expects none) and each group falls on one side by a hash of it: a value's
translations are on one side.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from make_external_sets import no_host, side, write

MODELS = {"PhoneNumberModel.json": "phone", "EmailModel.json": "email", "IpAddressModel.json": "ip"}
MIN_DIGITS = 7
"""A number the spec calls a phone number is required only with this many digits or more: fewer are extensions,
short codes or a subscriber number without its area ("012234", an Italian landline the spec itself scores 0.1),
forms the detector does not claim. With fewer it is allowed (a match there is no false positive and no hit)."""


def rows(root: Path) -> dict[str, list[dict]]:
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    for path in sorted((root / "Specs" / "Sequence").glob("*/*.json")):
        kind = MODELS.get(path.name)
        if kind is None:
            continue
        language = path.parent.name
        for index, case in enumerate(json.loads(path.read_text(encoding="utf-8-sig"))):
            row = _row(case, kind, f"recognizers:{language}:{path.stem}:{index}", language)
            if row is not None:
                by_side[side("recognizers", row["group"])].append(row)
    return by_side


def _row(case: dict, kind: str, row_id: str, language: str) -> dict | None:
    text = case["Input"]
    spans = [_span(text, result, kind) for result in case.get("Results", [])]
    if any(s is None for s in spans):
        return None
    digits = [_digits(text[s["start"]:s["end"]]) for s in spans]
    group = digits[0] if spans and digits[0] else text
    return {"id": row_id, "lang": language, "group": group, "text": text, "labelled": [kind],
            "kinds": sorted({s["kind"] for s in spans if s["kind"]}), "spans": spans}


def _span(text: str, result: dict, kind: str) -> dict | None:
    """None for an IP address that names no host (loopback, unspecified): the detector does not claim them, so the
    row is neither required nor clean, as in the DataFog sets."""
    value = result["Text"]
    start = result.get("Start")
    if start is None:
        start = text.lower().index(value.lower())
    end = start + len(value)
    assert text[start:end].lower() == value.lower(), (text, value)
    if kind == "ip" and no_host(value):
        return None
    required = _required(kind, text[start:end], result.get("Resolution") or {})
    return {"type": result.get("TypeName", kind), "kind": kind if required else None,
            "allowed": None if required else kind, "start": start, "end": end}


def _required(kind: str, value: str, resolution: dict) -> bool:
    """A phone number the spec scores 0 (its authors' "no confidence at all") or one with fewer than MIN_DIGITS
    digits is allowed, not required; every e-mail and IP address the spec expects is required."""
    if kind != "phone":
        return True
    return len(_digits(value)) >= MIN_DIGITS and resolution.get("score") not in ("0", 0)


def _digits(value: str) -> str:
    return "".join(c for c in value if c.isdigit())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a checkout of microsoft/Recognizers-Text")
    args = parser.parse_args()
    for split, data in rows(args.root).items():
        write(f"pii_recognizers_{split}.jsonl", data)


if __name__ == "__main__":
    main()
