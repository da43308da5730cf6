"""What find_pii reports on texts nobody labelled for PII, to compare two detectors: a new match there must be real
personal data, a match gone must have been a false one (docs/judge.md, "Texts nobody labelled for PII").

The texts: every refusal set's replies (tests/fixtures/judge/, ours and external) and the Schema-Guided Dialogue
dataset's dev and test turns, system and user, that hold a digit and have no phone or address slot.

Run (from a checkout of google-research-datasets/dstc8-schema-guided-dialogue):
    python bench/pii_unlabelled.py PATH/dstc8-schema-guided-dialogue before.json      # with one detector
    python bench/pii_unlabelled.py PATH/dstc8-schema-guided-dialogue after.json       # with the other
    python bench/pii_unlabelled.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from khaos_action.detect.pii import find_pii  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "judge"
PHONE_OR_ADDRESS = {"phone_number", "address", "street_address", "venue_address", "address_of_location"}


def texts(sgd: Path) -> list[str]:
    found = []
    for path in sorted([*FIXTURES.glob("*.jsonl"), *(FIXTURES / "external").glob("*.jsonl")]):
        if "refusal" in path.name:
            found += [row["text"] for row in map(json.loads, path.open(encoding="utf-8")) if row.get("text")]
    for path in sorted([*(sgd / "dev").glob("dialogues_*.json"), *(sgd / "test").glob("dialogues_*.json")]):
        if path.stat().st_size:
            found += [turn["utterance"] for dialogue in json.loads(path.read_text(encoding="utf-8"))
                      for turn in dialogue["turns"] if _unlabelled(turn)]
    return list(dict.fromkeys(found))


def _unlabelled(turn: dict) -> bool:
    slots = {slot["slot"] for frame in turn["frames"] for slot in frame["slots"]}
    slots |= {action["slot"] for frame in turn["frames"] for action in frame.get("actions", []) if action.get("values")}
    return bool(re.search(r"\d", turn["utterance"])) and not slots & PHONE_OR_ADDRESS


def dump(sgd: Path, out: Path) -> None:
    read = texts(sgd)
    matches = {}
    for text in read:
        found = find_pii(text)
        if found:
            matches[text] = [[m.kind, text[m.start:m.end]] for m in found]
    out.write_text(json.dumps({"texts": len(read), "matches": matches}, ensure_ascii=False, indent=0), "utf-8")
    print(f"{len(read)} texts, {sum(map(len, matches.values()))} matches in {len(matches)} texts")


def compare(before: Path, after: Path) -> None:
    old = json.loads(before.read_text("utf-8"))["matches"]
    new = json.loads(after.read_text("utf-8"))["matches"]
    changed = [text for text in sorted(set(old) | set(new)) if old.get(text) != new.get(text)]
    for text in changed:
        print(f"before {old.get(text)}\nafter  {new.get(text)}\n    {text[:300]!r}\n")
    print(f"{len(changed)} texts changed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs=2, type=Path, help="SGD checkout and output file, or two outputs to compare")
    parser.add_argument("--compare", action="store_true", help="compare two outputs instead of writing one")
    args = parser.parse_args()
    if args.compare:
        compare(*args.paths)
    else:
        dump(*args.paths)


if __name__ == "__main__":
    main()
