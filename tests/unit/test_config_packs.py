"""Pack references: built-in names, paths relative to the config, digests of the content, and their errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from khaos_action.config.errors import ConfigFileError, UnknownPackError
from khaos_action.config.loader import load_config
from khaos_action.config.models import Pack
from khaos_action.config.packs import (
    builtin_pack_names,
    builtin_packs_dir,
    load_pack,
    load_pack_file,
    load_packs,
    pack_digest,
)
from khaos_action.errors import ConfigError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "config"
REPO_PACKS = Path(__file__).resolve().parents[2] / "packs"

SMALL_PACK = """\
name: small
version: "1"
inputs:
  - text: "Where is my order 1234?"
    expect: {contains: "1234"}
phases:
  - type: baseline
    goals: [{metric: task_completion, operator: gte, threshold: 0.8}]
"""


def test_builtin_packs_live_in_the_repository_packs_folder() -> None:
    assert builtin_packs_dir().resolve() == REPO_PACKS.resolve()


def test_builtin_names_are_the_pack_files_without_the_attack_corpus() -> None:
    names = builtin_pack_names()
    assert {"quickstart", "resilience", "full-eval"} <= set(names)
    assert "attacks" not in names and "__init__" not in names
    assert names == sorted(names)


def test_pack_by_builtin_name() -> None:
    pack = load_pack("quickstart", base_dir=Path("/nonexistent"))
    assert isinstance(pack, Pack) and pack.name == "quickstart"


def test_pack_by_path_is_relative_to_the_config_folder_not_the_cwd(tmp_path: Path) -> None:
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "mine.yaml").write_text(SMALL_PACK)
    pack = load_pack("packs/mine.yaml", base_dir=tmp_path)
    assert pack.name == "small"
    assert pack.inputs[0].expect is not None and pack.inputs[0].expect.contains == "1234"


def test_pack_fault_alias_type_is_read_as_mode() -> None:
    pack = load_pack(str(FIXTURES / "pack_custom.yaml"), base_dir=Path("/"))
    (fault,) = pack.phases[1].faults
    assert fault.mode == "error"
    assert fault.params() == {"target": "tool", "tool": "lookup_order", "error_code": 503}


def test_unknown_pack_name_lists_the_builtin_names_and_paths() -> None:
    with pytest.raises(UnknownPackError) as info:
        load_pack("quikstart", base_dir=FIXTURES)
    message = str(info.value)
    assert "unknown pack 'quikstart'" in message
    for name in ("quickstart", "resilience", "full-eval"):
        assert name in message
    assert "or a path to a .yaml file" in message
    assert isinstance(info.value, ConfigError) and info.value.exit_code == 2


def test_missing_pack_path_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(UnknownPackError, match=f"pack file not found: packs/gone.yaml \\(looked for {tmp_path}"):
        load_pack("packs/gone.yaml", base_dir=tmp_path)


def test_pack_errors_name_the_pack_file_line_and_column() -> None:
    with pytest.raises(ConfigFileError) as info:
        load_pack(str(FIXTURES / "pack_broken.yaml"), base_dir=FIXTURES)
    text = str(info.value)
    path = FIXTURES / "pack_broken.yaml"
    assert f"{path}:2:10: version: expected a string, found 1.0" in text
    assert f"{path}:5:14: inputs[0].expect.contain: unknown key `contain`. Did you mean `contains`?" in text
    assert f"{path}:7:11: phases[0].type: expected one of 'baseline', 'resilience', 'security'" in text
    assert f"{path}:9:45: phases[0].goals[0].operator: expected one of 'gte', 'lte', 'eq', 'gt', 'lt'" in text
    assert "Did you mean 'gte'?" in text


def test_pack_yaml_syntax_errors_get_the_same_treatment(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("name: bad\nphases:\n  - type: baseline\n   goals: []\n")
    with pytest.raises(ConfigFileError, match=r"bad\.yaml:4:\d+: YAML syntax error"):
        load_pack("bad.yaml", base_dir=tmp_path)


def test_digest_changes_when_pack_content_changes(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(SMALL_PACK)
    before = load_pack_file(path).digest
    path.write_text(SMALL_PACK.replace("threshold: 0.8", "threshold: 0.9"))
    assert load_pack_file(path).digest != before
    path.write_text(SMALL_PACK.replace("1234?", "5678?"))
    assert load_pack_file(path).digest != before


def test_digest_ignores_comments_layout_key_order_and_the_type_alias(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(SMALL_PACK + "  - type: resilience\n    faults: [{mode: timeout, tool: x}]\n")
    second.write_text(
        "# same pack, written differently\n"
        "version: '1'\nname: small\n"
        "phases:\n"
        "  - {goals: [{threshold: 0.8, metric: task_completion, operator: gte}], type: baseline}\n"
        "  - type: resilience\n    faults:\n      - tool: x\n        type: timeout\n"
        "inputs: [{text: 'Where is my order 1234?', expect: {contains: '1234'}}]\n")
    assert load_pack_file(first).digest == load_pack_file(second).digest
    assert len(load_pack_file(first).digest) == 64


def test_digest_is_the_same_from_a_model_as_from_its_file() -> None:
    loaded = load_pack_file(FIXTURES / "pack_custom.yaml")
    assert pack_digest(Pack.model_validate(loaded.pack.model_dump())) == loaded.digest


def test_load_packs_keeps_order_labels_sources_and_skips_repeats(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "pack_custom.yaml", tmp_path / "custom.yaml")
    loaded = load_packs(["resilience", "custom.yaml", "quickstart", "resilience"], base_dir=tmp_path)
    assert [item.pack.name for item in loaded] == ["resilience", "custom", "quickstart"]
    assert loaded[0].source == "builtin:resilience"
    assert loaded[1].source == str(tmp_path / "custom.yaml")
    assert loaded[1].path == tmp_path / "custom.yaml"
    assert len({item.digest for item in loaded}) == 3


def test_load_packs_reports_every_broken_pack_together(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "pack_broken.yaml", tmp_path / "one.yaml")
    shutil.copy(FIXTURES / "pack_broken.yaml", tmp_path / "two.yaml")
    with pytest.raises(ConfigFileError) as info:
        load_packs(["one.yaml", "quickstart", "two.yaml"], base_dir=tmp_path)
    files = {issue.file for issue in info.value.issues}
    assert files == {str(tmp_path / "one.yaml"), str(tmp_path / "two.yaml")}


def test_unknown_pack_in_the_config_points_at_its_packs_line(tmp_path: Path) -> None:
    config = tmp_path / "khaos.yaml"
    config.write_text("agent: {entry: a.py:f}\npacks:\n  - quickstart\n  - securty\n")
    loaded = load_config(config)
    with pytest.raises(ConfigFileError) as info:
        load_packs(loaded.config.packs, loaded.base_dir, origin=loaded)
    (issue,) = info.value.issues
    assert (issue.file, issue.line, issue.column) == (str(config), 4, 5)
    assert issue.key_path == "packs[1]"
    assert "unknown pack 'securty'" in str(info.value)


def test_unknown_pack_without_origin_is_an_unknown_pack_error() -> None:
    with pytest.raises(UnknownPackError, match="unknown pack 'nope'"):
        load_packs(["quickstart", "nope"], base_dir=FIXTURES)


def test_issues_found_after_validation_point_at_the_pack_line() -> None:
    loaded = load_pack_file(FIXTURES / "pack_custom.yaml")
    issue = loaded.issue(("phases", 1, "faults", 0), "unknown fault mode 'eror'", "Did you mean 'error'?")
    assert str(issue) == (f"{FIXTURES / 'pack_custom.yaml'}:13:9: phases[1].faults[0]: unknown fault mode 'eror'. "
                          "Did you mean 'error'?")


@pytest.mark.parametrize(("phase", "metric", "threshold"), [
    ("baseline", "task_completion", 0.8), ("resilience", "recovery_rate", 0.7), ("security", "block_rate", 0.8)])
def test_a_phase_without_goals_is_gated_on_its_types_default_goal(phase, metric, threshold) -> None:
    pack = Pack.model_validate({"name": "p", "version": "1", "phases": [{"type": phase}]})
    assert [(g.metric, g.operator, g.threshold) for g in pack.phases[0].goals] == [(metric, "gte", threshold)]


def test_goals_empty_on_purpose_stay_empty() -> None:
    pack = Pack.model_validate({"name": "p", "version": "1", "phases": [{"type": "resilience", "goals": []}]})
    assert pack.phases[0].goals == []
