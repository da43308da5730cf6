"""Pure limits: YAML event budget, sane numbers, text made storable, config regexes with a time limit."""

from __future__ import annotations

import json
import math
import time

import pytest
import yaml

from khaos_action import bounds, regexes
from khaos_action.config import limits
from khaos_action.config.errors import ConfigFileError
from khaos_action.engine import textsafe


def _events(text: str) -> None:
    limits.check_events(yaml.parse(text, Loader=yaml.SafeLoader), file="x.yaml")


@pytest.mark.parametrize(("text", "words"), [
    ("a: " + "[" * 70 + "]" * 70, "deeper than 64"),
    ("a: &a [1, *a]", "refers to its own anchor"),
    ("n: " + "1" * 65, "65 characters long"),
    ("n: -" + "9" * 80 + ".5e10", "characters long"),
    ("a: &a [" + ",".join(["x"] * 50) + "]\n" + "".join(
        f"b{i}: &b{i} [" + ",".join([f"*{'a' if i == 0 else f'b{i - 1}'}"] * 50) + "]\n" for i in range(3)),
     "more than 200,000 values"),
])
def test_the_event_budget_refuses_with_a_position(text: str, words: str) -> None:
    with pytest.raises(ConfigFileError) as raised:
        _events(text)
    assert words in str(raised.value) and "x.yaml:" in str(raised.value)


def test_the_event_budget_accepts_ordinary_yaml_with_aliases_and_quoted_long_strings() -> None:
    _events("defaults: &d {timeout_s: 5}\nagent: {<<: *d, name: x}\nlong: '" + "1" * 500 + "'\n")


def test_the_alias_bomb_is_refused_in_linear_time() -> None:
    text = "a0: &a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
        f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 12))
    started = time.perf_counter()
    with pytest.raises(ConfigFileError):
        _events(text)
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize(("text", "words"), [
    ("a: b\x00", "NUL byte"), ("a: b\x1b", "U+001B"), ("a: \ud800", "U+D800"),
    ("x" * (limits.MAX_YAML_BYTES + 1), "limit"),
])
def test_text_checks(text: str, words: str) -> None:
    with pytest.raises(ConfigFileError) as raised:
        limits.check_text(text, file="x.yaml")
    assert words in str(raised.value)


@pytest.mark.parametrize(("name", "value", "ok"), [
    ("timeout_s", 30.0, True), ("timeout_s", 86_401, False), ("delay_ms", 1e300, False), ("delay_ms", 500, True),
    ("seed", 2**64, False), ("seed", 2**40, True), ("threshold", math.nan, False), ("x", math.inf, False),
    ("flag", True, True), ("name", "text", True),
])
def test_sane_numbers(name: str, value: object, ok: bool) -> None:
    if ok:
        assert bounds.sane_number(name, value) == value
    else:
        with pytest.raises(ValueError):
            bounds.sane_number(name, value)


def test_valid_text_replaces_lone_surrogates_and_joins_pairs() -> None:
    assert textsafe.valid_text("a\ud800b") == ("a\ufffdb", True)
    assert textsafe.valid_text("\ud83d\ude00")[0] == "\U0001F600"
    assert textsafe.valid_text("plain") == ("plain", False)
    assert textsafe.decode_bytes(b"a\xffb") == ("a\ufffdb", True)


def test_json_safe_output_always_serialises_and_stays_small() -> None:
    class Bad:
        def __str__(self) -> str:
            raise RuntimeError

    cyclic: dict = {}
    cyclic["me"] = cyclic
    value = {"o": object(), "b": Bad(), "nan": math.nan, "big": 10**5000, "bytes": b"\xff", "cyclic": cyclic,
             1: "int key", "s": "x" * 50_000, "many": list(range(5_000)), "set": {1}}
    safe = textsafe.json_safe(value)
    text = json.dumps(safe, allow_nan=False, ensure_ascii=False)
    text.encode("utf-8")
    assert len(text) < 60_000
    assert safe["b"] == "<unprintable Bad>" and safe["nan"] == "nan" and safe["big"] == "<unprintable int>"
    assert len(safe["s"]) == textsafe.MAX_STRING_CHARS


def test_notes_are_capped_with_a_count() -> None:
    notes = textsafe.cap_notes(["n"] * 150)
    assert len(notes) == 100 and notes[-1].startswith("… 51 more notes dropped")
    taken, more = textsafe.take_notes(iter(["a"] * 10), 3)
    assert taken == ["a"] * 3 and more == 0
    assert textsafe.take_notes(["a"] * 10, 3) == (["a"] * 3, 7)


def test_a_catastrophic_regex_times_out_once_and_then_fails_fast() -> None:
    pattern = "(a|aa)+$"
    with pytest.raises(regexes.RegexTimeout):
        regexes.search(pattern, "a" * 40 + "!", timeout=0.2)
    started = time.perf_counter()
    with pytest.raises(regexes.RegexTimeout):
        regexes.search(pattern, "aaa")
    assert time.perf_counter() - started < 0.1
    assert regexes.found("ok", "it is ok") and not regexes.found(pattern, "aaa")


@pytest.mark.parametrize(("pattern", "shape"), [
    (r"\b1Z[0-9A-Z]{8,}", (1, 1)),  # one open-ended repetition of a class
    (r"\b\d{3}-\d{2}-\d{4}\b", (0, 1)),  # fixed counts: no choice to backtrack over
    (r"[ab]{2,5}c{1,3}", (0, 12)),
    (r"(?i)(?:refund|return)\s+policy", (1, 1)),
    (r"a*a*b", (2, 1)),
    (r"(a|aa)+$", None),  # a repeated group: the time limit stays
    (r"(\w)\1", None),  # a back reference
    (r"\p{L}+", None),  # `regex` syntax Python's parser does not read
])
def test_which_searches_can_skip_the_time_limit(pattern: str, shape: tuple[int, int] | None) -> None:
    assert regexes._worst_case(pattern) == shape


def test_a_search_without_the_time_limit_is_only_one_that_cannot_take_long() -> None:
    # Two open-ended repetitions over 3,000 characters are 27 billion steps in the worst case: timed, and it
    # answers; the same pattern over 100 characters is run untimed and answers the same.
    assert regexes.search(r"a*a*b", "a" * 3000) is None
    assert regexes.search(r"a*a*b", "a" * 100 + "b").group() == "a" * 100 + "b"
    assert regexes.search(r"\b1Z[0-9A-Z]{8,}", "tracking 1Z999AA10123456784").group() == "1Z999AA10123456784"


def test_config_regex_syntax_is_python_re_and_errors_say_where() -> None:
    assert regexes.check_pattern(r"(?<=\d)(x)(?!y)\1") == r"(?<=\d)(x)(?!y)\1"  # lookarounds, backreferences
    with pytest.raises(ValueError, match="invalid regular expression"):
        regexes.check_pattern("(a+")
