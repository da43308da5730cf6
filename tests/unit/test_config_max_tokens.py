"""`judge.max_tokens` and `attacker.max_tokens`: small defaults, and a bad value is a config error with file, line
and key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from khaos_action.config.loader import load_config
from khaos_action.errors import ConfigError

BASE = ("version: 1\ngolden_prompts: [Which platform for the 8:15 to Bergen?]\npacks: [quickstart]\n"
        "agent: {entry: agent.py:handle}\n")


def test_judge_and_attacker_answers_are_bounded_by_default(tmp_path: Path) -> None:
    path = tmp_path / "khaos.yaml"
    path.write_text(BASE + "judge: {base_url: 'http://127.0.0.1:8080/v1', model: small}\n"
                           "attacker: {base_url: 'http://127.0.0.1:8080/v1', model: small, max_tokens: 300}\n")
    config = load_config(path).config
    assert config.judge.max_tokens == 256 and config.attacker.max_tokens == 300


@pytest.mark.parametrize("block, line, key", [
    ("judge:\n  base_url: http://127.0.0.1:8080/v1\n  model: small\n  max_tokens: 0\n", 8, "judge.max_tokens"),
    ("attacker:\n  base_url: http://127.0.0.1:8080/v1\n  model: small\n  max_tokens: lots\n", 8,
     "attacker.max_tokens"),
    ("attacker:\n  base_url: http://127.0.0.1:8080/v1\n  model: small\n  max_tokens: 1000000\n", 8,
     "attacker.max_tokens"),
])
def test_a_bad_max_tokens_names_the_file_line_and_key(tmp_path: Path, block: str, line: int, key: str) -> None:
    path = tmp_path / "khaos.yaml"
    path.write_text(BASE + block)
    with pytest.raises(ConfigError, match=rf"khaos\.yaml:{line}:\d+: {key}"):
        load_config(path)
