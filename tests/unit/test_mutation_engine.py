"""The mutation engine: ≥14 seeded, LLM-free types that change the prompt and keep its key content."""

from __future__ import annotations

import base64
import codecs
import json

import pytest

from khaos_action.errors import ConfigError
from khaos_action.mutation import MUTATORS, mutate, rng_for
from khaos_action.mutation.text import HOMOGLYPHS

PROMPTS = {
    # prompt -> the key content every content-keeping mutation must preserve
    "Where is my order 1234?": ["1234"],
    "Can you cancel order #5521 and refund my card?": ["5521"],
    "What is your return policy for electronics?": ["electronics"],
    "I need to change the shipping address for order 88213 to 12 Baker Street, London.": ["88213"],
    "Summarize invoice INV-2024-0042 in two sentences.": ["INV-2024-0042"],
    "If my package is late, can I get a refund? My email is jane.doe@example.com.": ["jane.doe@example.com"],
    "How do I reset my password?": ["password"],
}
REQUIRED = {
    "paraphrase", "typos", "casing", "whitespace_punctuation", "homoglyphs", "leetspeak", "base64_wrap",
    "rot13_wrap", "language_mix", "verbose_padding", "length_short", "length_long", "format_markdown",
    "format_json", "tone_shift", "injection_suffix", "roleplay_frame",
}
# Types whose output must still contain the key tokens as typed (ids and numbers are protected from noise).
TOKEN_KEEPING = REQUIRED - {"base64_wrap", "rot13_wrap", "leetspeak", "homoglyphs", "typos", "length_short"}
SEEDS = [0, 1, 42, 2024]


def test_registry_has_every_required_type():
    assert len(MUTATORS) >= 14
    assert REQUIRED <= set(MUTATORS)


@pytest.mark.parametrize("mutation_type", sorted(REQUIRED))
@pytest.mark.parametrize("seed", SEEDS)
def test_every_type_changes_every_realistic_prompt(mutation_type, seed):
    for prompt in PROMPTS:
        out = mutate(prompt, types=[mutation_type], per_prompt=1, seed=seed)
        assert len(out) == 1, (mutation_type, prompt)
        assert out[0].text != prompt
        assert out[0].type == mutation_type and out[0].index == 0


def _ids(text: str) -> list[str]:
    return [t for t in PROMPTS[text] if any(c.isdigit() for c in t) or "@" in t or t.isupper() or "-" in t]


@pytest.mark.parametrize("seed", SEEDS)
def test_ids_numbers_and_emails_survive_noise_mutations(seed):
    # Typos, lookalikes and leetspeak alter ordinary words only: an order number must reach the agent intact.
    for prompt in PROMPTS:
        for mutation_type in ("typos", "homoglyphs", "leetspeak", "casing", "whitespace_punctuation", "length_short"):
            text = mutate(prompt, types=[mutation_type], per_prompt=3, seed=seed)
            for variant in text:
                for key in _ids(prompt):
                    assert key in variant.text, (mutation_type, prompt, variant.text)


@pytest.mark.parametrize("seed", SEEDS)
def test_wrappers_and_frames_keep_the_key_content(seed):
    for prompt, keys in PROMPTS.items():
        for variant in mutate(prompt, types=sorted(TOKEN_KEEPING), per_prompt=len(TOKEN_KEEPING) * 2, seed=seed):
            for key in keys:
                assert key.lower() in variant.text.lower(), (variant.type, prompt, variant.text)


@pytest.mark.parametrize("seed", SEEDS)
def test_encodings_decode_back_to_the_prompt(seed):
    for prompt in PROMPTS:
        (b64,) = mutate(prompt, types=["base64_wrap"], per_prompt=1, seed=seed)
        encoded = max(b64.text.split(), key=len)
        assert base64.b64decode(encoded).decode() == prompt
        (rot,) = mutate(prompt, types=["rot13_wrap"], per_prompt=1, seed=seed)
        assert prompt in codecs.decode(rot.text, "rot13")
        (js,) = mutate(prompt, types=["format_json"], per_prompt=1, seed=seed)
        assert prompt in json.dumps(json.loads(js.text), ensure_ascii=False)


def test_homoglyphs_are_lookalikes_that_map_back_to_the_prompt():
    back = {v: k for k, v in HOMOGLYPHS.items()}
    for prompt in PROMPTS:
        (variant,) = mutate(prompt, types=["homoglyphs"], per_prompt=1, seed=7)
        assert any(ord(c) > 127 for c in variant.text)
        assert "".join(back.get(c, c) for c in variant.text) == prompt


def test_typos_are_small_edits():
    for prompt in PROMPTS:
        for variant in mutate(prompt, types=["typos"], per_prompt=5, seed=3):
            assert abs(len(variant.text) - len(prompt)) <= 3
            changed_words = sum(a != b for a, b in zip(prompt.split(), variant.text.split()))
            assert 1 <= changed_words <= 3


def test_length_extremes():
    for prompt in PROMPTS:
        (short,) = mutate(prompt, types=["length_short"], per_prompt=1, seed=1)
        (long,) = mutate(prompt, types=["length_long"], per_prompt=1, seed=1)
        assert len(short.text) < len(prompt)
        assert len(long.text) >= 3000 and prompt in long.text


def test_injection_suffix_keeps_the_question_first():
    for prompt in PROMPTS:
        (variant,) = mutate(prompt, types=["injection_suffix"], per_prompt=1, seed=5)
        assert variant.text.startswith(prompt)
        assert (
            "ignore" in variant.text.lower() or "disregard" in variant.text.lower() or "system" in variant.text.lower()
        )


def test_same_arguments_give_the_same_list():
    prompt = "Where is my order 1234?"
    first = mutate(prompt, types="all", per_prompt=14, seed=42)
    for other in PROMPTS:  # mutating other prompts in between must not shift anything
        mutate(other, types="all", per_prompt=14, seed=42)
    assert mutate(prompt, types="all", per_prompt=14, seed=42) == first
    assert mutate(prompt, types="all", per_prompt=14, seed=43) != first


def test_per_prompt_beyond_the_types_cycles_with_fresh_streams():
    types = ["typos", "casing", "paraphrase"]
    out = mutate("Can you cancel order #5521 and refund my card?", types=types, per_prompt=9, seed=11)
    assert [m.type for m in out] == types * 3
    assert [m.index for m in out] == list(range(9))
    assert len({m.text for m in out}) == 9  # repeats of a type are different variants, not copies


def test_all_cycles_through_the_registry_in_order():
    out = mutate("Where is my order 1234?", types="all", per_prompt=len(MUTATORS) + 3, seed=1)
    assert [m.type for m in out[: len(MUTATORS)]] == list(MUTATORS)
    assert len({m.text for m in out}) == len(out)


def test_unchanged_variants_are_dropped_without_shifting_indexes():
    # Casing cannot change "1234": that slot is left out, the others keep their index.
    out = mutate("1234", types=["casing", "format_json"], per_prompt=4, seed=0)
    assert [(m.type, m.index) for m in out] == [("format_json", 1), ("format_json", 3)]


def test_unknown_type_is_a_config_error_listing_the_valid_ones():
    with pytest.raises(ConfigError) as err:
        mutate("hi", types=["typos", "emoji_storm"], per_prompt=2, seed=0)
    message = str(err.value)
    assert "'emoji_storm'" in message and "Expected one of" in message
    for name in MUTATORS:
        assert name in message


def test_empty_types_and_zero_per_prompt_are_config_errors():
    with pytest.raises(ConfigError, match="empty"):
        mutate("hi", types=[], per_prompt=2, seed=0)
    with pytest.raises(ConfigError, match="per_prompt"):
        mutate("hi", types="all", per_prompt=0, seed=0)


def test_rng_streams_depend_on_every_part_of_the_key():
    draws = {
        tuple(rng_for(*key).random() for _ in range(3))
        for key in [
            (1, "p", "typos", 0),
            (2, "p", "typos", 0),
            (1, "q", "typos", 0),
            (1, "p", "casing", 0),
            (1, "p", "typos", 1),
        ]
    }
    assert len(draws) == 5
