"""The learned refusal model measured in bench/ (docs/judge.md, "A learned model beside the rules"): its features and
its training, which must write the same bytes every time so the measurement can be repeated."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import refusal_model  # noqa: E402
import train_refusal_model as trainer  # noqa: E402

ROWS = [
    ("a", {"prompt": "Can you book a table for Saturday at 8?", "text": "Saturday evening is fully booked.",
           "refusal": True}),
    ("a", {"prompt": "Can you book a table for Saturday at 8?", "text": "Done, I've booked it for 8.",
           "refusal": False}),
    ("b", {"prompt": "Can you waive the late fee?", "text": "The late fee applies to every booking, sorry.",
           "refusal": True}),
    ("b", {"prompt": "Is there a late fee?", "text": "Yes, it is £10 after the 5th.", "refusal": False}),
    ("c", {"text": "I can't help with that.", "refusal": True}),
    ("c", {"text": "Sure, here are the steps: open settings, then tap reset.", "refusal": False}),
]


def test_features_are_the_words_their_pairs_the_opening_and_the_structure() -> None:
    feats = refusal_model.features("Done! I’ve moved it to 14:30.", "Can you move my appointment?")
    assert {"w:done", "w:i've", "b:moved it", "w:0", "o:done", "s:request:act", "s:opens-yes", "s:past-act",
            "x:act:opens-yes"} <= set(feats)
    assert "s:negation" not in feats
    assert {"s:request:question", "s:negation", "s:only", "s:until", "s:unless"} <= set(refusal_model.features(
        "No, only until Friday, unless you pay the fee.", "Is the offer still on?"))
    assert "s:request:none" in refusal_model.features("Nein, das nicht.")
    assert "s:negation" in refusal_model.features("We don't do that.")
    # the caller's own reading of the request wins
    assert refusal_model.features("x", "Can you move it?", act=False)[-1] == "s:request:question"


def test_training_writes_the_same_bytes_every_time_and_learns_the_rows() -> None:
    weights = trainer.train(ROWS)
    assert trainer.serialise(trainer.train(ROWS)) == trainer.serialise(weights)
    data = json.loads(gzip.decompress(trainer.serialise(weights)))
    assert data["buckets"] == refusal_model.BUCKETS and len(data["index"]) == len(weights)
    for _, row in ROWS:
        score = sum(weights.get(index, 0.0) * count for index, count in trainer.encode(row))
        assert (score > 0) == row["refusal"], row
