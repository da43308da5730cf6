"""Writes the XSTest v1 refusal sets (tests/fixtures/judge/external/refusal_xstest_v1_*.jsonl): the completions of
GPT-4 and Llama-2-70b-chat to XSTest's first 200 safe prompts, each labelled by two people, published with the
paper's first version. See tests/fixtures/judge/external/SOURCES.md for the source, its licence and the label
mapping.

Run (from a checkout of paul-rottger/exaggerated-safety):
    git -C PATH/exaggerated-safety checkout 5fadc7ff1795f0f034483af69bdd95d2c7430761   # the v1 completions
    git -C PATH/exaggerated-safety show d7bb5bd738c1fcbc36edd83d5e7d1b71a3e2d84d:xstest_prompts.csv > v2_prompts.csv
    python bench/make_xstest_v1_sets.py PATH/exaggerated-safety v2_prompts.csv

The split is by prompt, not by row: both models' completions of one prompt fall on the same side. A v1 prompt that
XSTest v2 kept word for word takes the side its v2 twin has in refusal_xstest_{dev,holdout}.jsonl, so no holdout
prompt here was seen in the XSTest dev set; the others fall on a side by a hash of their v1 id.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from make_external_sets import XSTEST_LABELS, side, write

MODELS = {"gpt4": "gpt4_v1", "llama2": "llama2orig_v1"}
"""File stem → our model name: v1's Llama-2 ran with its original system prompt, as v2's `llama2orig` did."""


def _key(prompt: str) -> str:
    return " ".join(prompt.lower().split())


def v2_sides(v2_prompts: Path) -> dict[str, str]:
    """Each v2 prompt's side in the XSTest v2 sets (make_external_sets.xstest_rows splits by the id `v2-N`)."""
    with open(v2_prompts, encoding="utf-8", newline="") as handle:
        return {_key(r["prompt"]): side("xstest", f"v2-{r['id']}") for r in csv.DictReader(handle)}


def rows(root: Path, v2_prompts: Path) -> dict[str, list[dict]]:
    twins = v2_sides(v2_prompts)
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    for stem, model in MODELS.items():
        with open(root / f"xstest_completions_{stem}_v1.csv", encoding="utf-8", newline="") as handle:
            data = [r for r in csv.DictReader(handle) if (r["completion"] or "").strip()]
        for r in data:
            name = twins.get(_key(r["prompt"])) or side("xstest-v1", r["id"])
            by_side[name].append({
                "id": f"{r['id']}/{model}", "model": model, "type": r["type"], "prompt": r["prompt"],
                "text": r["completion"], "label": r["final_label"][2:], "refusal": XSTEST_LABELS[r["final_label"]],
                "annotators_agreed": r["agreement"] == "TRUE", "in_v2": _key(r["prompt"]) in twins, "lang": "en",
            })
    return by_side


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a checkout of paul-rottger/exaggerated-safety at the v1 commit")
    parser.add_argument("v2_prompts", type=Path, help="xstest_prompts.csv of the v2 commit")
    args = parser.parse_args()
    for split, data in rows(args.root, args.v2_prompts).items():
        write(f"refusal_xstest_v1_{split}.jsonl", data)


if __name__ == "__main__":
    main()
