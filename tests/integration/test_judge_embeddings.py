"""The optional semantic similarity backend (khaos_action/judge/embeddings.py): the real bundled MiniLM model scores
paraphrases high and unrelated texts low, caches per text, and through a whole run (khaos_action.evaluate.evaluate,
the real engine and tool faults) turns a `behavior_unchanged` invariant from fail (lexical) to pass (semantic) on
an agent that paraphrases its answer when its tool fails, while a wrong answer still fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from khaos_action.detect.similarity import lexical_similarity, similarity
from khaos_action.errors import ConfigError
from khaos_action.judge import embeddings
from khaos_action.pipeline.config import load_run
from khaos_action.run_api import EvaluateRequest
from tests.builders import evaluate_project, write_project

pytestmark = pytest.mark.slow  # the bundled embedding model: left out of the quick command

try:
    embeddings.model_files()
    MISSING = ""
except embeddings.SemanticBackendUnavailable as exc:
    MISSING = str(exc)
needs_extra = pytest.mark.skipif(bool(MISSING), reason=f"semantic extra not installed: {MISSING}")

PARCEL = "Your parcel shipped yesterday"
DISPATCHED = "The order was dispatched on Monday"
WEATHER = "The weather in Paris is sunny today"


@pytest.fixture(scope="module")
def backend() -> embeddings.SemanticSimilarity:
    return embeddings.semantic_backend()


@needs_extra
def test_the_bundled_model_reproduces_the_published_minilm_similarities():
    # sentence-transformers' quickstart values for all-MiniLM-L6-v2: 0.6660, 0.1046, 0.1411 (int8 stays within 0.005).
    texts = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    vectors = embeddings.load_encoder().embed(texts)
    scores = vectors @ vectors.T
    assert scores[0, 1] == pytest.approx(0.6660, abs=0.005)
    assert scores[0, 2] == pytest.approx(0.1046, abs=0.005)
    assert scores[1, 2] == pytest.approx(0.1411, abs=0.005)
    assert [round(float(v @ v), 4) for v in vectors] == [1.0, 1.0, 1.0]


@needs_extra
@pytest.mark.parametrize(("a", "b"), [
    (PARCEL, DISPATCHED),
    ("Your refund of $20 has been issued.", "We have sent back your $20 payment."),
    ("I cannot help with that request.", "Sorry, I am unable to assist with this."),
])
def test_paraphrases_score_higher_semantically_than_lexically(backend, a, b):
    meaning, words = backend(a, b), lexical_similarity(a, b)
    assert meaning >= 0.55 and meaning > words + 0.3, (meaning, words)


@needs_extra
@pytest.mark.parametrize(("a", "b"), [
    (PARCEL, WEATHER),
    ("Hello", "Quantum chromodynamics describes the strong force"),
    ("Your refund of $20 has been issued.", "Your order #1234 is out for delivery."),
])
def test_unrelated_texts_score_low(backend, a, b):
    assert backend(a, b) < 0.3
    assert backend(PARCEL, DISPATCHED) > backend(a, b) + 0.25


@needs_extra
def test_scores_are_symmetric_bounded_and_handle_empty_and_identical_texts(backend):
    assert backend(PARCEL, DISPATCHED) == backend(DISPATCHED, PARCEL)
    assert backend(PARCEL, PARCEL) == 1.0 and backend("", "") == 1.0 and backend(" ", PARCEL) == 0.0
    assert 0.0 <= backend("yes", "no") <= 1.0


@needs_extra
def test_long_texts_are_embedded_whole_so_a_change_at_the_end_still_counts(backend):
    head = "Your order 1234 left our warehouse and is on its way to you. " * 60  # ~840 tokens: four windows
    same = backend(head + "It will arrive on Friday.", head + "It will arrive on Friday.")
    changed = backend(head + "It will arrive on Friday.", head + " ".join(["I refuse to discuss orders."] * 60))
    assert same == 1.0 and changed < 0.95  # cut at 256 tokens like sentence-transformers, both would score 1.0


@needs_extra
def test_embeddings_are_cached_per_text_for_the_run():
    calls: list[str] = []
    encoder = embeddings.load_encoder()

    def counting(texts):
        calls.extend(texts)
        return encoder.embed(texts)

    backend = embeddings.SemanticSimilarity(counting, cache_size=2)
    for reply in (DISPATCHED, WEATHER, DISPATCHED):
        backend(PARCEL, reply)
    assert calls == [PARCEL, DISPATCHED, WEATHER, DISPATCHED]  # the baseline PARCEL once; DISPATCHED again: evicted


@needs_extra
def test_the_backend_is_set_for_the_block_and_lexical_again_after_even_on_error():
    assert similarity(PARCEL, DISPATCHED) == lexical_similarity(PARCEL, DISPATCHED)
    with pytest.raises(RuntimeError), embeddings.similarity_backend("semantic"):
        assert similarity(PARCEL, DISPATCHED) > 0.55
        raise RuntimeError("judge crashed")
    assert similarity(PARCEL, DISPATCHED) == lexical_similarity(PARCEL, DISPATCHED)


AGENT = '''
def lookup_refund(order: str) -> str:
    return "Your refund of $20 has been issued."


def handle(message: str) -> str:
    try:
        return lookup_refund(message)
    except TimeoutError:
        return "The weather in Paris is sunny today."
    except Exception:
        return "We have sent back your $20 payment."  # the fallback says the same thing in other words
'''


def refunds_project(folder: Path, backend: str) -> Path:
    config = {
        "version": 1, "seed": 3, "concurrency": 1,
        "agent": {"name": "refunds", "type": "python", "entry": "agent.py:handle",
                  "tools": ["agent.py:lookup_refund"], "timeout_s": 10},
        "golden_prompts": ["Where is my refund for order 5678?"],
        "similarity": {"backend": backend},
        "contract": {"name": "refunds", "invariants": [
            {"id": "same-answer", "type": "behavior_unchanged", "baseline": "auto", "similarity_threshold": 0.6,
             "severity": "medium", "when": "tool_faults_active"}]},
        "chaos_matrix": [{"name": "no-chaos"},
                         {"name": "refunds-down", "tool_faults": [{"tool": "lookup_refund", "mode": "error"}]},
                         {"name": "refunds-slow", "tool_faults": [{"tool": "lookup_refund", "mode": "timeout"}]}],
    }
    return write_project(folder, config, {"agent.py": AGENT})


def verdicts(tmp_path: Path, backend: str) -> dict[str, tuple[bool | None, str]]:
    config = refunds_project(tmp_path, backend)
    manifest = evaluate_project(config, tmp_path / f"run-{backend}", formats=()).manifest
    return {c.scenario: (c.invariants[0].passed, c.output) for c in manifest.cases
            if c.scenario != "no-chaos" and c.invariants}


@needs_extra
def test_behavior_unchanged_flips_from_fail_to_pass_with_the_semantic_backend(tmp_path: Path):
    lexical = verdicts(tmp_path, "lexical")
    meaning = verdicts(tmp_path, "semantic")
    assert lexical["refunds-down"] == (False, "We have sent back your $20 payment.")
    assert meaning["refunds-down"] == (True, "We have sent back your $20 payment.")
    # A wrong answer is still a change of behaviour for both: semantic is not a rubber stamp.
    assert lexical["refunds-slow"][0] is False and meaning["refunds-slow"][0] is False
    assert similarity(PARCEL, DISPATCHED) == lexical_similarity(PARCEL, DISPATCHED)  # lexical again after the run


def test_without_the_extra_the_error_names_the_install_command():
    with pytest.raises(ConfigError, match=r"khaos_no_such_package not installed\): run `pip install "
                                          r"'khaos-action\[semantic\]'`, or set `similarity: \{backend: lexical\}`"):
        embeddings.model_files(required=("numpy", "khaos_no_such_package"))
    embeddings.check_backend("lexical")  # never needs the extra


def test_a_semantic_config_fails_before_the_run_when_the_extra_is_absent(tmp_path: Path):
    config = refunds_project(tmp_path, "semantic")
    request = EvaluateRequest(config_path=config, out_dir=tmp_path / "run", formats=())
    if MISSING:
        with pytest.raises(embeddings.SemanticBackendUnavailable, match="khaos-action\\[semantic\\]"):
            load_run(request)
    else:
        assert load_run(request).similarity_backend == "semantic"


def test_an_unknown_backend_is_a_config_error(tmp_path: Path):
    config = refunds_project(tmp_path, "neural")
    with pytest.raises(ConfigError, match="similarity.backend"):
        load_run(EvaluateRequest(config_path=config, out_dir=tmp_path / "run", formats=()))
