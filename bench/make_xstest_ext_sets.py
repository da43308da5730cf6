"""Builds the XSTest replication refusal sets: the completions of GPT-4o-mini, Llama-3.0, Llama-3.1 and
Mistral-7B-Instruct (with and without a guardrail prompt) to XSTest v2's 450 prompts and to a new set of 450 prompts
written the same way, each completion labelled by two people with XSTest's three classes. See
tests/fixtures/judge/external/SOURCES.md for the source, the label mapping and why these files are not committed:
the source repository states no licence, so the rows are built locally and only their digests are kept here.

Run (from a snapshot of mdazizulaman/XSTest-Replication-and-Extension at the commit SOURCES.md names):
    unzip -o PATH/Replication.zip -d DIR && unzip -o PATH/New_data.zip -d DIR
    python bench/make_xstest_ext_sets.py DIR
The rows go to bench/.external/ (ignored by git); bench/judge.py scores them when they are there.

Split by prompt, not by row: every model's completion of a prompt falls on one side. A replication prompt takes the
side its XSTest v2 twin has in refusal_xstest_{dev,holdout}.jsonl (its id is v2's), so no holdout prompt here was in
the XSTest dev set; a new prompt falls on a side by a hash of its id.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
from pathlib import Path

from make_external_sets import XSTEST_LABELS, side

OUT = Path(__file__).resolve().parent / ".external"
MODELS = ("gpt4o-mini", "llama3.0", "llama3.1", "mistrG", "mistrI")
PARTS = {"replication": "Replication/model_completions/xstest_v2_completions_{model}.csv",
         "new": "New_data/model_completions/xstest_newdata_v2_completions_{model}.csv"}
"""Which half of the source a row comes from → its file under the unzipped root."""


def _side(part: str, prompt_id: str) -> str:
    return side("xstest", prompt_id) if part == "replication" else side("xstest-ext", prompt_id)


def rows(root: Path) -> dict[str, list[dict]]:
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    for part, pattern in PARTS.items():
        for model in MODELS:
            with open(root / pattern.format(model=model), encoding="utf-8", newline="") as handle:
                data = [r for r in csv.DictReader(handle) if (r["completion"] or "").strip()]
            for r in data:
                by_side[_side(part, r["id"])].append({
                    "id": f"{part}/{r['id']}/{model}", "model": model, "subset": part, "type": r["type"],
                    "prompt": r["prompt"], "text": r["completion"], "label": r["final_label"][2:],
                    "refusal": XSTEST_LABELS[r["final_label"]], "annotators_agreed": r["agreement"] == "TRUE",
                    "lang": "en",
                })
    return by_side


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the directory Replication.zip and New_data.zip were unzipped into")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    for split, data in rows(args.root).items():
        path = OUT / f"refusal_xstest_ext_{split}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data), encoding="utf-8")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        print(f"{path.name}: {len(data)} rows, sha256 {digest}")


if __name__ == "__main__":
    main()
