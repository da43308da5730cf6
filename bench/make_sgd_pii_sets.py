"""Writes the PII sets drawn from the Schema-Guided Dialogue dataset (tests/fixtures/judge/external/pii_sgd_*.jsonl):
an assistant's turns, written by crowd workers, with the spans of their slot values labelled. See
tests/fixtures/judge/external/SOURCES.md for the source, its licence and the label mapping.

Run (from a checkout of google-research-datasets/dstc8-schema-guided-dialogue):
    python bench/make_sgd_pii_sets.py PATH/dstc8-schema-guided-dialogue

The split is by service, not by turn: each service (a schema: `Restaurants_1`, `Banks_2`, ...) falls on one side by
a hash of its name, and a dialogue is kept only when all its services are on the same side, so the holdout's
services, and the crowd workers' wordings collected for them, are unseen in dev. Re-running gives the same files.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from make_external_sets import side, write

# Slot types → the kinds find_pii reports. A phone number is one wherever it stands; a slot whose type is a street
# address is the `address` kind when it holds a house number (the form the detector claims: "Main Street" alone
# is not an address to it). Slots that may hold an address or a name that is one ("45 Park Lane" is a hotel; a
# ride's destination may be a street address) are allowed: a match there is no false positive and no hit.
PHONE_SLOTS = {"phone_number"}
ADDRESS_SLOTS = {"address", "street_address", "venue_address", "address_of_location"}
MAY_BE_ADDRESS = {"destination", "pickup_location", "hotel_name", "place_name", "attraction_name", "event_location",
                  "venue", "property_name", "restaurant_name", "theater_name", "location", "event_name",
                  "to_location", "from_location", "origin", "where_to", "stylist_name", "dentist_name",
                  "doctor_name", "therapist_name"} | ADDRESS_SLOTS
PER_KIND = 150
"""Turns per side that carry a phone number, and as many that carry an address."""
CLEAN = 500
"""Turns per side with no required kind and at least one digit (prices, times, dates, ratings, balances): the
false-positive denominator."""
SEED = 20251127
NOT_READ = {"dev/dialogues_015.json", "dev/dialogues_017.json", "dev/dialogues_018.json", "test/dialogues_012.json",
            "test/dialogues_016.json", "test/dialogues_019.json", "test/dialogues_022.json", "test/dialogues_023.json",
            "test/dialogues_026.json", "test/dialogues_027.json", "test/dialogues_028.json", "test/dialogues_029.json",
            "test/dialogues_031.json"}
"""The dataset's dev and test dialogues are read, but for these files, which the copy the sets were drawn from
lacked (files of 4 MiB and more); leaving them out keeps the sample the same from a full checkout."""


def turns(root: Path):
    for path in sorted(root.glob("dev/dialogues_*.json")) + sorted(root.glob("test/dialogues_*.json")):
        if f"{path.parent.name}/{path.name}" in NOT_READ:
            continue
        for dialogue in json.loads(path.read_text(encoding="utf-8")):
            sides = {side("sgd", s) for s in dialogue["services"]}
            if len(sides) != 1:
                continue
            (name,) = sides
            for index, turn in enumerate(dialogue["turns"]):
                if turn["speaker"] == "SYSTEM":
                    yield name, dialogue, index, turn


def row(dialogue: dict, index: int, turn: dict) -> dict:
    text = turn["utterance"]
    spans = [_span(text, s) for frame in turn["frames"] for s in frame["slots"]]
    spans.sort(key=lambda s: (s["start"], s["end"]))
    return {"id": f"{dialogue['dialogue_id']}#{index}", "services": dialogue["services"], "text": text,
            "kinds": sorted({s["kind"] for s in spans if s["kind"]}), "spans": spans}


def _span(text: str, slot: dict) -> dict:
    value = text[slot["start"]:slot["exclusive_end"]]
    kind = None
    if slot["slot"] in PHONE_SLOTS:
        kind = "phone"
    elif slot["slot"] in ADDRESS_SLOTS and re.search(r"\d", value):
        kind = "address"
    allowed = "address" if slot["slot"] in MAY_BE_ADDRESS and kind is None else None
    return {"type": slot["slot"], "kind": kind, "allowed": allowed, "start": slot["start"],
            "end": slot["exclusive_end"]}


def sgd_rows(root: Path) -> dict[str, list[dict]]:
    pools: dict[str, dict[str, list[dict]]] = {name: {"phone": [], "address": [], "clean": []}
                                               for name in ("dev", "holdout")}
    seen: set[str] = set()
    for name, dialogue, index, turn in turns(root):
        if turn["utterance"] in seen:
            continue
        seen.add(turn["utterance"])
        r = row(dialogue, index, turn)
        if r["kinds"]:
            pools[name]["phone" if "phone" in r["kinds"] else "address"].append(r)
        elif re.search(r"\d", r["text"]):
            pools[name]["clean"].append(r)
    rng = random.Random(SEED)
    out = {}
    for name, pool in pools.items():
        chosen = rng.sample(pool["phone"], min(PER_KIND, len(pool["phone"]))) \
            + rng.sample(pool["address"], min(PER_KIND, len(pool["address"]))) \
            + rng.sample(pool["clean"], min(CLEAN, len(pool["clean"])))
        out[name] = sorted(chosen, key=lambda r: r["id"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a checkout of google-research-datasets/dstc8-schema-guided-dialogue")
    args = parser.parse_args()
    for split, rows in sgd_rows(args.root).items():
        write(f"pii_sgd_{split}.jsonl", rows)


if __name__ == "__main__":
    main()
