"""Golden prompts as plain strings or `{text, expect}`; a built-in pack without golden prompts is a config error
that says what to add."""

from __future__ import annotations

from pathlib import Path

import pytest

from khaos_action.config.errors import ConfigFileError
from khaos_action.config.loader import load_config
from khaos_action.config.models import Expect
from khaos_action.config.packs import load_packs
from khaos_action.pipeline.config import load_run, plan_settings
from khaos_action.plan.scheduler import PackSource, SeededScheduler
from khaos_action.run_api import EvaluateRequest


def write(tmp_path: Path, body: str) -> Path:
    (tmp_path / "agent.py").write_text("def handle(text):\n    return 'ok'\n", encoding="utf-8")
    path = tmp_path / "khaos.yaml"
    path.write_text("agent: {entry: agent.py:handle}\n" + body, encoding="utf-8")
    return path


def test_plain_and_expecting_prompts_mix_and_a_plain_one_hashes_like_before(tmp_path: Path) -> None:
    mixed = load_config(write(tmp_path, 'golden_prompts:\n  - "Hi"\n  - {text: "Rome?", expect: {contains: Rome}}\n'))
    assert mixed.config.prompt_texts() == ["Hi", "Rome?"]
    assert mixed.config.golden_prompts[1].expect.contains == "Rome"
    plain = load_config(write(tmp_path, 'golden_prompts: ["Hi"]\n')).config
    assert plain.model_dump(mode="json", exclude_defaults=True)["golden_prompts"] == ["Hi"]


def test_builtin_packs_run_the_golden_prompts_with_their_expectations(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, 'packs: [resilience]\ngolden_prompts:\n  - "Hi"\n'
                                         '  - {text: "Rome?", expect: {contains: Rome}}\n'))
    packs = [PackSource(p.pack, p.digest) for p in load_packs(["resilience"], tmp_path)]
    cases = SeededScheduler(plan_settings(loaded.config, packs)).plan().cases
    baseline = {c.input: c.expect for c in cases if c.phase == "baseline"}
    assert baseline == {"Hi": None, "Rome?": Expect(contains="Rome")}
    resilience = [c for c in cases if c.phase == "resilience"]
    assert len(resilience) == 2 * 9 and all(c.expect is None for c in resilience)
    assert all(f.params.get("tool") in (None, "*") for c in resilience for f in c.faults)


def test_a_builtin_pack_without_golden_prompts_says_what_to_add(tmp_path: Path) -> None:
    path = write(tmp_path, "packs: [quickstart]\n")
    with pytest.raises(ConfigFileError) as caught:
        load_run(EvaluateRequest(config_path=path, out_dir=tmp_path))
    text = str(caught.value)
    assert "khaos.yaml:2" in text and "`quickstart`" in text and "`golden_prompts` is empty" in text
    assert "golden_prompts:" in text and "expect:" in text
