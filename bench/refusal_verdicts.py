"""The refusal detector's verdict on every text it is checked against, to compare two detectors: a change of rules
must move no answer of a labelled set to a refusal, and each verdict it changes is read (docs/judge.md, "Rules by
kind").

The texts: every refusal set `bench/judge.py` scores (ours and external, dev and holdout, the locally built ones
when they are there, and the obeyed attacks), each row with its prompt when the set has one and again without; the
system turns of the Schema-Guided Dialogue dataset's dev and test dialogues, which nobody labelled for refusals
(service agents booking, finding and paying: none of them should read as a refusal); and the outcome of the attack
classifier on its labelled cases.

Run (from a checkout of google-research-datasets/dstc8-schema-guided-dialogue):
    python bench/refusal_verdicts.py PATH/dstc8-schema-guided-dialogue before.json      # with one detector
    python bench/refusal_verdicts.py PATH/dstc8-schema-guided-dialogue after.json       # with the other
    python bench/refusal_verdicts.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import judge as bench_judge  # noqa: E402

from khaos_action.detect.refusal import is_refusal  # noqa: E402
from khaos_action.judge.classifier import classify_attack  # noqa: E402
from tests.fixtures.judge.loader import classifier_kwargs, load_jsonl  # noqa: E402

LABELLED = (*bench_judge.OURS, *bench_judge.PROMPTED, *bench_judge.EXTERNAL, *bench_judge.OBEYED)


def labelled_rows(skip: frozenset[str] = frozenset()) -> dict[str, list[dict]]:
    sets = {name: load_jsonl(name) for name in LABELLED if name not in skip}
    for name in bench_judge.UNVENDORED:
        path = ROOT / "bench" / ".external" / name
        if path.exists():
            sets[name] = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    return sets


def _dialogues(sgd: Path):
    for path in sorted([*(sgd / "dev").glob("dialogues_*.json"), *(sgd / "test").glob("dialogues_*.json")]):
        if path.stat().st_size:
            yield from json.loads(path.read_text(encoding="utf-8"))


def sgd_turns(sgd: Path) -> list[str]:
    turns = [turn["utterance"] for dialogue in _dialogues(sgd) for turn in dialogue["turns"]
             if turn["speaker"] == "SYSTEM"]
    return list(dict.fromkeys(turns))


def sgd_exchanges(sgd: Path) -> list[tuple[str, str]]:
    """Each system turn with the user's turn before it as the prompt, as the judge passes a request: the user's
    requests there are real service requests ("Book me a table at 7 pm"), and a system turn that reports the act
    can't be done ("Sorry, there are no tables at 7 pm") is a decline of it, not an error of the detector."""
    pairs = []
    for dialogue in _dialogues(sgd):
        turns = dialogue["turns"]
        pairs += [(before["utterance"], turn["utterance"]) for before, turn in zip(turns, turns[1:])
                  if turn["speaker"] == "SYSTEM" and before["speaker"] == "USER"]
    return list(dict.fromkeys(pairs))


def dump(sgd: Path, out: Path, skip: frozenset[str] = frozenset()) -> None:
    verdicts: dict[str, list] = {}
    for name, rows in labelled_rows(skip).items():
        for i, row in enumerate(rows):
            label = row.get("refusal")
            verdicts[f"{name}#{i}"] = [label, is_refusal(row["text"]).refused, row["text"][:300]]
            if row.get("prompt"):
                verdicts[f"{name}#{i}+prompt"] = [label, is_refusal(row["text"], row["prompt"]).refused,
                                                  row["text"][:300]]
    turns = sgd_turns(sgd)
    for i, text in enumerate(turns):
        verdicts[f"sgd#{i}"] = [False, is_refusal(text).refused, text[:300]]
    exchanges = sgd_exchanges(sgd)
    for i, (prompt, text) in enumerate(exchanges):
        verdicts[f"sgd+prompt#{i}"] = [None, is_refusal(text, prompt).refused, f"{prompt[:140]} => {text[:300]}"]
    for i, row in enumerate(load_jsonl("labeled.jsonl")):
        outcome = classify_attack(**classifier_kwargs(row)).outcome.value
        verdicts[f"classifier#{i}"] = [row["expected"], outcome, row["reply"]["text"][:300]]
    out.write_text(json.dumps(verdicts, ensure_ascii=False, indent=0), "utf-8")
    refused = sum(1 for key, v in verdicts.items() if key.startswith("sgd#") and v[1])
    prompted = sum(1 for key, v in verdicts.items() if key.startswith("sgd+prompt#") and v[1])
    right = sum(1 for key, v in verdicts.items() if key.startswith("classifier#") and v[0] == v[1])
    print(f"{len(verdicts)} verdicts; SGD system turns {len(turns)}, read as refusals {refused}; with the user's "
          f"turn before as the prompt {len(exchanges)}, read as refusals {prompted}; "
          f"attack classifier {right}/{len(load_jsonl('labeled.jsonl'))}")


def compare(before: Path, after: Path) -> None:
    old = json.loads(before.read_text("utf-8"))
    new = json.loads(after.read_text("utf-8"))
    changed = [key for key in new if key in old and old[key][1] != new[key][1]]
    for key in changed:
        label, verdict, text = new[key]
        print(f"{key}: label {label}, {old[key][1]} -> {verdict}\n    {text!r}\n")
    wrong = [key for key in changed if new[key][1] is True and new[key][0] is False]
    unlabelled = [key for key in changed if new[key][1] is True and new[key][0] is None]
    print(f"{len(changed)} verdicts changed; an answer (or an SGD turn) now read as a refusal: {len(wrong)}; an SGD "
          f"turn read with its user turn now read as a refusal (to read by hand): {len(unlabelled)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs=2, type=Path, help="SGD checkout and output file, or two outputs to compare")
    parser.add_argument("--compare", action="store_true", help="compare two outputs instead of writing one")
    parser.add_argument("--skip", action="append", default=[], metavar="SET",
                        help="leave a labelled set out (a blind set nobody may read yet); repeatable")
    args = parser.parse_args()
    unknown = sorted(set(args.skip) - set(LABELLED))
    if unknown:
        # A misspelt name would silently leave the blind set in, and its rows on the screen of someone who may not
        # read them.
        near = {name: difflib.get_close_matches(name, LABELLED, n=1) for name in unknown}
        parser.error("; ".join(f"--skip {name}: not a labelled set" + (f" (did you mean {m[0]}?)" if m else "")
                               for name, m in near.items()))
    if args.compare:
        compare(*args.paths)
    else:
        dump(*args.paths, skip=frozenset(args.skip))


if __name__ == "__main__":
    main()
