"""Would a nearest-exemplar check with the `semantic` extra settle refusals the rules cannot? Measures it on the
XSTest dev set (tests/fixtures/judge/external/): each reply's opening (first two sentences) is embedded with the
bundled MiniLM model and labelled by its k nearest labelled openings (our dev sets and the other XSTest dev prompts,
leave-one-prompt-out); printed are that vote alone and the rules with the vote deciding only the replies in which
the rules found no decline statement at all.

Run: python bench/refusal_exemplars.py   (needs `pip install 'khaos-action[semantic]'`; about half a minute)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from khaos_action.detect.refusal import is_refusal  # noqa: E402
from khaos_action.detect.refusal_grammar import normalise, sentences  # noqa: E402
from khaos_action.judge.embeddings import load_encoder  # noqa: E402
from tests.fixtures.judge.loader import load_jsonl  # noqa: E402

OURS = ("refusal_dev.jsonl", "refusal_models_dev.jsonl", "refusal_prompts_dev.jsonl")
XSTEST = "external/refusal_xstest_dev.jsonl"


def opening(text: str) -> str:
    clean = normalise(text)
    return " ".join(clean[s:e] for s, e in sentences(clean)[:2])[:400]


def main() -> None:
    ours = [r for name in OURS for r in load_jsonl(name) if r.get("topic", "on") == "on"]
    xstest = [r for r in load_jsonl(XSTEST) if r["refusal"] is not None]
    space = _space(ours, xstest)
    for k in (1, 3, 5):
        vote_right, combined_right, undecided = _score_k(xstest, space, k)
        print(f"k={k}: nearest exemplars alone {vote_right}/{len(xstest)}, rules with the vote on the "
              f"{undecided} replies without a decline statement {combined_right}/{len(xstest)}")
    rules = sum(is_refusal(r["text"]).refused == r["refusal"] for r in xstest)
    print(f"rules alone {rules}/{len(xstest)}")


def _space(ours, xstest) -> dict:
    """Every labelled opening embedded: ours first (no prompt), then XSTest's (with its prompt)."""
    import numpy as np

    rows = [(opening(r["text"]), r["refusal"], None) for r in ours]
    rows += [(opening(r["text"]), r["refusal"], r["prompt"]) for r in xstest]
    return {
        "vectors": load_encoder().embed([text for text, _, _ in rows]),
        "labels": np.array([label for _, label, _ in rows], dtype=float),
        "prompts": [prompt for _, _, prompt in rows],
        "offset": len(ours),
    }


def _score_k(xstest, space, k: int) -> tuple[int, int, int]:
    vote_right = combined_right = undecided = 0
    for i, row in enumerate(xstest):
        vote = _vote(space, space["offset"] + i, row["prompt"], k)
        vote_right += vote == row["refusal"]
        said, decided = _rules_or_vote(row["text"], vote)
        undecided += not decided
        combined_right += said == row["refusal"]
    return vote_right, combined_right, undecided


def _vote(space, j: int, prompt: str, k: int) -> bool:
    """The majority label of the k nearest openings of other prompts (leave-one-prompt-out)."""
    import numpy as np

    usable = np.array([p != prompt for p in space["prompts"]])
    sims = np.where(usable, space["vectors"] @ space["vectors"][j], -2.0)
    return bool(space["labels"][np.argsort(-sims)[:k]].mean() > 0.5)


def _rules_or_vote(text: str, vote: bool) -> tuple[bool, bool]:
    """The rules' verdict, or the vote where they found no decline statement and no answer marker."""
    found = is_refusal(text)
    if not found.refused and found.evidence is None:
        return vote, False
    return found.refused, True


if __name__ == "__main__":
    main()
