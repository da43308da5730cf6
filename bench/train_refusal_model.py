"""Train the learned refusal model (bench/refusal_model.py) on the dev halves of the labelled refusal
sets, and write its weights to bench/.external/refusal_model.json.gz.

Only dev halves: DEV_SETS below, never a holdout. The XSTest replication's dev half is built locally into
bench/.external/ (bench/make_xstest_ext_sets.py; its source states no licence) and its digest is checked, so the
weights are the same wherever they are trained. Beside them, as answers, SGD_ROWS system turns of the Schema-Guided
Dialogue dataset's dev dialogues, each with the user turn before it as its request: service agents booking, finding
and asking back, which nobody labelled (a few of them decline; they are taken as answers all the same). Without
them the model reads a service agent's question back ("When would you like to leave?") as a refusal: the labelled
sets' refusals redirect and ask back, their answers rarely do. The SGD test dialogues are left for the check
(bench/refusal_model_eval.py). Training is pure Python (Adagrad on the logistic loss with an L2
penalty, rows in an order drawn from a fixed seed), so the same checkout writes the same file bit for bit.

Run (from a checkout of google-research-datasets/dstc8-schema-guided-dialogue):
     python bench/train_refusal_model.py PATH/dstc8-schema-guided-dialogue            write the weights
     python bench/train_refusal_model.py PATH/dstc8-schema-guided-dialogue --check    train and compare with the
                                                 weights written before (exit 1 if they differ)
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import math
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import refusal_model  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "judge"
DEV_SETS = ("refusal_dev.jsonl", "refusal_models_dev.jsonl", "refusal_prompts_dev.jsonl",
            "refusal_handoffs_dev.jsonl", "refusal_policy_dev.jsonl", "refusal_kinds_dev.jsonl",
            "refusal_conditions_dev.jsonl", "refusal_unperformed_dev.jsonl", "refusal_it_pt_dev.jsonl",
            "external/refusal_xstest_dev.jsonl", "external/refusal_xstest_v1_dev.jsonl",
            "external/refusal_chatgpt_dev.jsonl", "external/refusal_rbr_dev.jsonl", "external/refusal_jbb_dev.jsonl")
"""Every dev half of the refusal sets in tests/fixtures/judge (ours and external); the obeyed attacks of
JailbreakBench's dev half are answers."""
LOCAL_DEV = {"refusal_xstest_ext_dev.jsonl": "704be3ad81f80ec8f8f4ed437504991d862f63519b99368d4aa6515d1ca03a2d"}
"""Dev halves built into bench/.external/, with the SHA-256 tests/fixtures/judge/external/SOURCES.md records."""
SGD_ROWS = 3000
SGD_DIGEST = "9fb90a41f906161dde3d68767f866a56297c2c4a795ee9465a03c12c28dbe5ce"
"""SHA-256 of the SGD rows drawn (their requests and texts, one JSON line each): the same checkout's dev dialogues."""
SEED = 38
EPOCHS = 12
RATE = 0.2
L2 = 1e-5
SOURCE_CAP = 400
"""A source of more rows than this weighs as this many, so the large external sets do not drown the agents' own."""
DIGITS = 4


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def dev_rows() -> list[tuple[str, dict]]:
    """(source, row) for every on-topic labelled row of every dev half."""
    sources = {name: FIXTURES / name for name in DEV_SETS}
    for name, digest in LOCAL_DEV.items():
        path = ROOT / "bench" / ".external" / name
        if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            sys.exit(f"{path}: missing or not the recorded build; run bench/make_xstest_ext_sets.py first")
        sources[name] = path
    return [(name, row) for name, path in sources.items() for row in _jsonl(path)
            if row.get("refusal") is not None and row.get("topic", "on") == "on"]


def sgd_pairs(sgd: Path, split: str) -> list[tuple[str, str]]:
    """(user turn, the system turn after it), each pair once, in file order."""
    pairs: dict[tuple[str, str], None] = {}
    for path in sorted((sgd / split).glob("dialogues_*.json")):
        if not path.stat().st_size:  # files a partial checkout holds empty
            continue
        for dialogue in json.loads(path.read_text(encoding="utf-8")):
            user = None
            for turn in dialogue["turns"]:
                if turn["speaker"] == "USER":
                    user = turn["utterance"]
                elif user:
                    pairs.setdefault((user, turn["utterance"]), None)
    return list(pairs)


def sgd_rows(sgd: Path) -> list[tuple[str, dict]]:
    pairs = sgd_pairs(sgd, "dev")
    random.Random(SEED).shuffle(pairs)
    rows = [("sgd_dev", {"prompt": user, "text": text, "refusal": False}) for user, text in pairs[:SGD_ROWS]]
    digest = hashlib.sha256("".join(json.dumps([r["prompt"], r["text"]]) + "\n" for _, r in rows).encode()).hexdigest()
    if SGD_DIGEST and digest != SGD_DIGEST:
        sys.exit(f"{sgd}: its dev dialogues give other rows than the ones the weights were trained on ({digest})")
    return rows


def encode(row: dict) -> list[tuple[int, int]]:
    counts = Counter(refusal_model.buckets(refusal_model.features(row["text"], row.get("prompt"))))
    return sorted(counts.items())


def train(rows: list[tuple[str, dict]], encoded: list[list[tuple[int, int]]] | None = None) -> dict[int, float]:
    """Weights by bucket, rounded to DIGITS places, zeros left out."""
    encoded = encoded if encoded is not None else [encode(row) for _, row in rows]
    size = Counter(source for source, _ in rows)
    row_weight = [min(1.0, SOURCE_CAP / size[source]) for source, _ in rows]
    labels = [1.0 if row["refusal"] else 0.0 for _, row in rows]
    weights: dict[int, float] = {}
    squares: dict[int, float] = {}
    order = list(range(len(rows)))
    rng = random.Random(SEED)
    for _ in range(EPOCHS):
        rng.shuffle(order)
        for i in order:
            feats = encoded[i]
            z = sum(weights.get(index, 0.0) * count for index, count in feats)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g = (p - labels[i]) * row_weight[i]
            for index, count in feats:
                w = weights.get(index, 0.0)
                grad = g * count + L2 * w
                squares[index] = squares.get(index, 0.0) + grad * grad
                weights[index] = w - RATE * grad / math.sqrt(squares[index] + 1e-8)
    rounded = {index: round(w, DIGITS) for index, w in weights.items()}
    return {index: w for index, w in sorted(rounded.items()) if w}


def serialise(weights: dict[int, float]) -> bytes:
    body = json.dumps({"buckets": refusal_model.BUCKETS, "index": list(weights), "weight": list(weights.values())},
                      separators=(",", ":")).encode()
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=9) as handle:
        handle.write(body)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sgd", type=Path, help="a checkout of google-research-datasets/dstc8-schema-guided-dialogue")
    parser.add_argument("--check", action="store_true", help="compare with the weights written before, write nothing")
    args = parser.parse_args()
    rows = dev_rows() + sgd_rows(args.sgd)
    data = serialise(train(rows))
    print(f"{len(rows)} dev rows from {len({s for s, _ in rows})} sources; weights file {len(data)} bytes")
    if args.check:
        same = refusal_model.WEIGHTS.exists() and refusal_model.WEIGHTS.read_bytes() == data
        print(f"{refusal_model.WEIGHTS} reproduced bit for bit" if same else f"{refusal_model.WEIGHTS} differs")
        sys.exit(0 if same else 1)
    refusal_model.WEIGHTS.write_bytes(data)


if __name__ == "__main__":
    main()
