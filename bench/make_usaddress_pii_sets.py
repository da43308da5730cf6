"""Writes the PII sets drawn from usaddress's hand-labelled training addresses (tests/fixtures/judge/external/
pii_usaddress_*.jsonl): US addresses as people write them (restaurants' and offices' addresses, post office boxes,
rural routes, suites and floors, a recipient's name before some), each in two fixed carrier sentences. See
tests/fixtures/judge/external/SOURCES.md for the source, its licence and the label mapping.

Run (from a checkout of datamade/usaddress at commit aa7699b53a0843fc443f9e87285b88cbd9eaf50a):
    python bench/make_usaddress_pii_sets.py PATH/usaddress

The split is by address: identical address strings are one group, and each group falls on one side by a hash of
its text. Both carriers of an address are on its side.
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from pathlib import Path

from make_external_sets import side, write

FILES = ("training/labeled.xml", "training/us50_messiest_manual_label.xml")
CARRIERS = ("Please send it to {address}.", "The office is at {address}")
"""Chosen before any detector ran on the rows: the addresses are bare strings, and a reply quotes one after a verb
of sending or placing; one carrier ends on a period, the other on the address itself."""
NOT_PLACE = {"Recipient", "NotAddress"}
"""Tags of words that are not part of the postal address (a person or company it is addressed to, noise): the
required span runs from the first other tag to the last."""


def rows(root: Path) -> dict[str, list[dict]]:
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    seen: set[str] = set()
    for name in FILES:
        for index, element in enumerate(ET.parse(root / name).getroot()):
            address, span, tags = _address(element)
            if address in seen or not _required(tags):
                continue
            seen.add(address)
            for number, carrier in enumerate(CARRIERS):
                offset = carrier.index("{address}")
                by_side[side("usaddress", address)].append({
                    "id": f"usaddress:{Path(name).stem}:{index}:{number}", "group": address,
                    "text": carrier.format(address=address), "labelled": ["address"], "kinds": ["address"],
                    "spans": [{"type": "AddressString", "kind": "address", "allowed": None,
                               "start": offset + span[0], "end": offset + span[1]}]})
    return by_side


def _address(element: ET.Element) -> tuple[str, tuple[int, int], list[str]]:
    """The address string as written (tags' texts and the text between them) and the span of its postal part."""
    text = element.text or ""
    start = end = None
    tags = []
    for part in element:
        if part.tag not in NOT_PLACE:
            start = len(text) if start is None else start
            end = len(text) + len(part.text or "")
            tags.append(part.tag)
        text += (part.text or "") + (part.tail or "")
    return text, (start or 0, end or len(text)), tags


def _required(tags: list[str]) -> bool:
    """A house number on a named street: the form the detector claims. A landmark, a bare town, a post office box,
    an intersection or a highway without a house number is left out (neither required nor clean text)."""
    return "AddressNumber" in tags and "StreetName" in tags and "IntersectionSeparator" not in tags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a checkout of datamade/usaddress")
    args = parser.parse_args()
    for split, data in rows(args.root).items():
        write(f"pii_usaddress_{split}.jsonl", data)


if __name__ == "__main__":
    main()
