"""khaos.yaml loading: positions for every key, and errors that name file:line:col, the key, and a fix."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import pytest
from pydantic import Field

from khaos_action.config.errors import (
    ConfigFileError,
    ConfigNotFoundError,
    format_key_path,
)
from khaos_action.config.loader import LoadedConfig, load_config, parse_yaml
from khaos_action.config.schema_reading import describe_type
from khaos_action.errors import ConfigError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "config"


def _error(name: str) -> ConfigFileError:
    with pytest.raises(ConfigFileError) as info:
        load_config(FIXTURES / name)
    return info.value


def _write(tmp_path: Path, text: str, name: str = "khaos.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---- a valid file ----------------------------------------------------------------------------------------------

def test_valid_config_loads_with_its_folder_and_raw_data() -> None:
    loaded = load_config(FIXTURES / "valid.yaml")
    assert isinstance(loaded, LoadedConfig)
    assert loaded.config.agent.name == "support-bot"
    assert loaded.config.concurrency == 4
    assert loaded.config.chaos_matrix[1].tool_faults[0].params() == {"error_code": 503}
    assert loaded.base_dir == FIXTURES
    assert loaded.path == FIXTURES / "valid.yaml"
    assert loaded.raw["packs"] == ["quickstart"]


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ((), 1),
        (("agent",), 2),
        (("agent", "timeout_s"), 7),
        (("golden_prompts", 1), 13),
        (("contract", "invariants", 0), 17),
        (("contract", "invariants", 1, "id"), 20),
        (("contract", "invariants", 1, "severity"), 22),
        (("chaos_matrix", 1, "tool_faults", 0, "error_code"), 27),
        (("scoring", "weights", "replay"), 29),
    ],
)
def test_line_of_names_the_line_of_each_key(path: tuple, line: int) -> None:
    loaded = load_config(FIXTURES / "valid.yaml")
    assert loaded.line_of(*path) == line
    assert loaded.line_of(path) == line  # a tuple works as well as separate parts


def test_line_of_an_unknown_key_falls_back_to_the_nearest_parent() -> None:
    loaded = load_config(FIXTURES / "valid.yaml")
    assert loaded.line_of("contract", "invariants", 1, "no_such_field") == 20
    assert loaded.line_of("contract", "invariants", 9) == 16  # `invariants:` itself
    assert loaded.line_of("nothing", "here") == 1


def test_positions_have_1_based_columns_for_keys_and_values() -> None:
    loaded = load_config(FIXTURES / "valid.yaml")
    assert loaded.position_of("agent", "timeout_s") == (7, 3)
    assert loaded.value_positions[("agent", "timeout_s")] == (7, 14)
    assert loaded.position_of("packs", 0) == (10, 9)


def test_a_directory_means_its_khaos_yaml(tmp_path: Path) -> None:
    _write(tmp_path, "agent: {entry: a.py:f}\n")
    assert load_config(tmp_path).path == tmp_path / "khaos.yaml"


def test_merge_keys_take_the_anchor_positions_and_explicit_keys_win() -> None:
    document = parse_yaml("base: &b\n  name: x\n  entry: y\nagent:\n  <<: *b\n  entry: z\n", file="k.yaml")
    assert document.data["agent"] == {"name": "x", "entry": "z"}
    assert document.positions[("agent", "name")] == (2, 3)
    assert document.positions[("agent", "entry")] == (6, 3)


# ---- every kind of error ---------------------------------------------------------------------------------------

def test_missing_file_says_where_it_looked_and_how_to_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigNotFoundError) as info:
        load_config(tmp_path / "khaos.yaml")
    message = str(info.value)
    assert str(tmp_path / "khaos.yaml") in message
    assert "khaos-action validate -c PATH" in message
    assert isinstance(info.value, ConfigError) and info.value.exit_code == 2


def test_missing_file_points_at_a_yml_sibling(tmp_path: Path) -> None:
    _write(tmp_path, "agent: {entry: a.py:f}\n", name="khaos.yml")
    with pytest.raises(ConfigNotFoundError, match=r"khaos\.yml"):
        load_config(tmp_path / "khaos.yaml")


def test_yaml_syntax_error_names_line_column_in_plain_words() -> None:
    error = _error("syntax_error.yaml")
    assert "syntax_error.yaml:4:16: YAML syntax error" in str(error)
    assert "quote a value" in str(error)
    assert (error.issues[0].line, error.issues[0].column) == (4, 16)


def test_tab_indentation_is_named_as_such() -> None:
    error = _error("tabs.yaml")
    assert "tabs.yaml:3:1:" in str(error)
    assert "tab" in str(error) and "spaces" in str(error)


def test_unknown_key_suggests_the_closest_field_of_that_model_at_its_line() -> None:
    error = _error("unknown_key.yaml")
    text = str(error)
    assert "unknown_key.yaml:4:3: agent.timout_s: unknown key `timout_s`. Did you mean `timeout_s`?" in text
    assert "unknown_key.yaml:5:1: concurency: unknown key `concurency`. Did you mean `concurrency`?" in text
    assert [issue.line for issue in error.issues] == [4, 5]


def test_unknown_key_without_a_close_match_lists_the_allowed_keys(tmp_path: Path) -> None:
    path = _write(tmp_path, "agent:\n  entry: a.py:f\nscoring:\n  zzz: 1\n")
    with pytest.raises(ConfigFileError, match=r"khaos\.yaml:4:3: scoring\.zzz: unknown key `zzz`\. "
                                              r"Allowed keys here: weights"):
        load_config(path)


def test_wrong_type_says_expected_and_found() -> None:
    error = _error("wrong_type.yaml")
    assert str(error).startswith(
        f"{FIXTURES / 'wrong_type.yaml'}:4:14: agent.timeout_s: expected a number, found 'fast' (a string)")


@pytest.mark.parametrize(("annotation", "words"), [
    (Annotated[int, Field(ge=1)], "an integer"),
    (Optional[Annotated[list[str], Field(min_length=1)]], "a list of strings"),  # noqa: UP045 - the typing form
    (list[Annotated[float, Field(gt=0)]], "a list of numbers"),
])
def test_a_constrained_type_is_described_by_what_it_constrains(annotation: object, words: str) -> None:
    assert describe_type(annotation) == words


def test_bad_literal_lists_the_allowed_values_and_the_closest() -> None:
    text = str(_error("bad_literal.yaml"))
    assert "bad_literal.yaml:3:9: agent.type: expected one of 'python', 'http', 'command'" in text
    assert "found 'pyton'" in text and "Did you mean 'python'?" in text


def test_duplicate_keys_are_rejected_with_both_lines() -> None:
    error = _error("duplicate_key.yaml")
    assert "duplicate_key.yaml:6:1: seed: key `seed` is given twice" in str(error)
    assert "(lines 2 and 6)" in str(error)


def test_duplicate_keys_in_nested_and_flow_mappings(tmp_path: Path) -> None:
    path = _write(tmp_path, "agent: {entry: a.py:f, entry: b.py:g}\n")
    with pytest.raises(ConfigFileError, match=r"khaos\.yaml:1:24: agent\.entry: key `entry` is given twice in the "
                                              r"same mapping \(line 1, columns 9 and 24\)"):
        load_config(path)


def test_weights_not_summing_to_one_show_the_sum_at_the_weights_line() -> None:
    error = _error("weights.yaml")
    assert "weights.yaml:5:3: scoring.weights: scoring weights must sum to 1.0, they sum to 1.3" in str(error)
    assert "mutation 0.5 + chaos 0.35 + contract 0.35 + replay 0.1" in str(error)


def test_invariant_missing_its_type_field_points_at_the_invariant() -> None:
    error = _error("invariant_missing_field.yaml")
    (issue,) = error.issues
    assert (issue.line, issue.column) == (9, 7)
    assert issue.key_path == "contract.invariants[1]"
    assert "invariant type 'contains' needs `value`" in issue.message
    assert "'says-refund'" in issue.message


def test_missing_required_key_points_at_its_parent_and_describes_the_field(tmp_path: Path) -> None:
    path = _write(tmp_path, "agent:\n  entry: a.py:f\njudge:\n  model: gpt\n")
    error = pytest.raises(ConfigFileError, load_config, path).value
    (issue,) = error.issues
    assert (issue.line, issue.key_path) == (3, "judge.base_url")
    assert "missing required key `base_url`" in issue.message
    assert "OpenAI-compatible" in (issue.hint or "")


def test_agent_type_without_its_field_is_reported_at_the_agent(tmp_path: Path) -> None:
    path = _write(tmp_path, "version: 1\nagent:\n  type: http\n")
    with pytest.raises(ConfigFileError, match=r"khaos\.yaml:2:1: agent\.url: missing required key `url`\. Add `url:` "
                                              r"\(http: the URL inputs are POSTed to\)"):
        load_config(path)


def test_keys_of_another_agent_type_name_the_type_at_their_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, "agent:\n  entry: a.py:f\n  url: http://127.0.0.1:9/chat\n  instances: 2\n"
                            "  timout_s: 5\ngolden_prompts: [hi]\n")
    error = pytest.raises(ConfigFileError, load_config, path).value
    assert [(i.line, i.column, i.key_path, i.message, i.hint) for i in error.issues] == [
        (3, 3, "agent.url", "agent.url applies to type http; this agent is type python: remove it, or set "
                            "`type: http`", None),
        (4, 3, "agent.instances", "agent.instances applies to types http, command, mcp; this agent is type python: "
                                  "remove it, or set one of those types", None),
        (5, 3, "agent.timout_s", "unknown key `timout_s`", "Did you mean `timeout_s`?")]


@pytest.mark.parametrize(("url", "message"), [
    ("http://127.0.0.1:{port}/chat", "'http://127.0.0.1:{port}/chat' has a port that is not a number: '{port}' (the "
                                     "placeholder for a started server's port is {{port}}, with two braces)"),
    ("127.0.0.1:8000/chat", "'127.0.0.1:8000/chat' is not an http(s) URL; write it like http://127.0.0.1:8000/chat"),
])
def test_an_http_agent_url_that_cannot_be_requested_is_an_error_at_its_line(tmp_path: Path, url: str,
                                                                           message: str) -> None:
    # Once a crash at the first request (exit 4, "a bug in khaos-action").
    path = _write(tmp_path, f"agent:\n  type: http\n  url: '{url}'\ngolden_prompts: [hi]\n")
    (issue,) = pytest.raises(ConfigFileError, load_config, path).value.issues
    assert (issue.line, issue.key_path, issue.message) == (3, "agent.url", message)


def test_an_http_agent_url_with_the_port_placeholder_loads(tmp_path: Path) -> None:
    path = _write(tmp_path, "agent:\n  type: http\n  start: python a.py {{port}}\n  url: http://127.0.0.1:{{port}}/chat\n"
                            "  ready_url: https://localhost/health\ngolden_prompts: [hi]\n")
    assert load_config(path).config.agent.url == "http://127.0.0.1:{{port}}/chat"


def test_union_fields_give_one_error_naming_every_accepted_shape(tmp_path: Path) -> None:
    path = _write(tmp_path, "agent: {entry: a.py:f}\nmutation:\n  types: 5\n")
    error = pytest.raises(ConfigFileError, load_config, path).value
    (issue,) = error.issues
    assert (issue.line, issue.column) == (3, 10)
    assert issue.message == "expected 'all' or a list of strings, found 5 (a number)"


def test_numbers_where_text_is_expected_suggest_quoting(tmp_path: Path) -> None:
    path = _write(tmp_path, "agent: {entry: a.py:f}\njudge: {base_url: http://x, model: 1.5}\n")
    with pytest.raises(ConfigFileError, match=r'Quote it so YAML keeps it as text: `model: "1\.5"`'):
        load_config(path)


def test_a_key_without_value_where_a_mapping_is_expected(tmp_path: Path) -> None:
    path = _write(tmp_path, "agent:\nentry: a.py:f\n")
    text = str(pytest.raises(ConfigFileError, load_config, path).value)
    assert "khaos.yaml:1:7: agent: expected a mapping, found nothing (null). `agent:` has no value" in text
    assert "khaos.yaml:2:1: entry: unknown key `entry`" in text


def test_several_errors_are_all_listed_in_line_order() -> None:
    error = _error("many_errors.yaml")
    lines = [issue.line for issue in error.issues]
    assert lines == sorted(lines) and len(lines) >= 12
    text = str(error)
    assert text.startswith(f"{FIXTURES / 'many_errors.yaml'}: {len(lines)} problems:")
    for expected in ("version: expected 1, found 2", "agent.timeout_s: expected a number > 0",
                     "gates.max_uncertain_rate: expected a number <= 1",
                     "gates.fail_on_critical: expected true or false", "mutation.per_prompt: expected a number <= 200"):
        assert expected in text


def test_more_than_twenty_errors_are_capped(tmp_path: Path) -> None:
    body = "".join(f"unknown_{index}: 1\n" for index in range(25))
    error = pytest.raises(ConfigFileError, load_config, _write(tmp_path, "agent: {entry: a.py:f}\n" + body)).value
    assert len(error.issues) == 25
    text = str(error)
    assert text.count("unknown key") == 20
    assert "... and 5 more" in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "khaos.yaml: is empty"),
        ("# only a comment\n", "khaos.yaml: is empty"),
        ("- agent\n- seed\n", "khaos.yaml:1:1: the top level must be a mapping of keys, found a list of 2 items"),
        ("hello\n", "khaos.yaml:1:1: the top level must be a mapping of keys, found 'hello'"),
        ("agent: *nowhere\n", "khaos.yaml:1:8: YAML syntax error: an alias (*name) refers to an anchor"),
        ("agent: !!python/object:os.system x\n", "Custom YAML tags"),
        ('agent:\n  name: "open\n', "khaos.yaml:3:1: YAML syntax error: the file ends inside an unfinished value"),
        ("agent:\n  entry: a\n name: b\n", "khaos.yaml:3:2: YAML syntax error: this line is indented differently"),
    ],
)
def test_file_level_problems_have_clear_messages(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigFileError) as info:
        load_config(_write(tmp_path, text))
    assert expected in str(info.value)
    assert "Traceback" not in str(info.value)


def test_non_utf8_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "khaos.yaml"
    path.write_bytes(b"agent:\n  name: \xff\xfe\n")
    with pytest.raises(ConfigFileError, match="is not UTF-8"):
        load_config(path)


@pytest.mark.parametrize(
    ("path", "text"),
    [((), "(top level)"), (("agent", "timeout_s"), "agent.timeout_s"),
     (("contract", "invariants", 2, "id"), "contract.invariants[2].id"), (("packs", 0), "packs[0]")],
)
def test_key_paths_read_like_yaml(path: tuple, text: str) -> None:
    assert format_key_path(path) == text


def test_issues_found_after_validation_point_at_the_config_line() -> None:
    loaded = load_config(FIXTURES / "valid.yaml")
    issue = loaded.issue(("chaos_matrix", 1, "tool_faults", 0), "tool `lookup_order` is not declared")
    assert (issue.line, issue.column, issue.key_path) == (27, 9, "chaos_matrix[1].tool_faults[0]")
    error = ConfigFileError([issue])
    assert str(error) == f"{FIXTURES / 'valid.yaml'}:27:9: chaos_matrix[1].tool_faults[0]: tool `lookup_order` " \
                         "is not declared"


# ---- libyaml ---------------------------------------------------------------------------------------------------

ANCHORS = """version: 1
defaults: &d {timeout_s: 5, name: "bot"}
agent:
  <<: *d
  type: python
  entry: "a.py:f"
golden_prompts:
  - "one"
  - >-
    folded
    text
  - |
    literal
  - {nested: [1, 2, {deep: "x"}]}
"""


@pytest.mark.parametrize("name", ["valid.yaml", "weights.yaml", "pack_custom.yaml", "duplicate_key.yaml",
                                  "unknown_key.yaml", "anchors"])
def test_libyaml_gives_the_data_positions_and_duplicates_of_the_pure_python_parser(name: str) -> None:
    from khaos_action.config import yaml_file as loader

    if loader._FastPositionLoader is None:
        pytest.skip("PyYAML without libyaml")
    text = ANCHORS if name == "anchors" else (FIXTURES / name).read_text(encoding="utf-8")
    fast = loader._FastPositionLoader(text, file=name)
    pure = loader._PositionLoader(text, file=name)
    for side in (fast, pure):
        node = side.get_single_node()
        side.record(node, ())
        side.data = side.construct_document(node)
    assert fast.data == pure.data
    assert fast.positions == pure.positions and fast.value_positions == pure.value_positions
    assert [str(i) for i in fast.duplicates] == [str(i) for i in pure.duplicates]


@pytest.mark.parametrize("name", ["syntax_error.yaml", "tabs.yaml"])
def test_a_file_libyaml_rejects_is_explained_in_the_pure_python_parsers_words(name: str, monkeypatch) -> None:
    from khaos_action.config import yaml_file as loader

    text = (FIXTURES / name).read_text(encoding="utf-8")
    with pytest.raises(ConfigFileError) as fast:
        parse_yaml(text, file=name)
    monkeypatch.setattr(loader, "_FastPositionLoader", None)
    with pytest.raises(ConfigFileError) as pure:
        parse_yaml(text, file=name)
    assert str(fast.value) == str(pure.value) and "YAML syntax error" in str(fast.value)


def test_a_missing_key_is_explained_with_its_field_docstring(tmp_path: Path) -> None:
    # The docstrings are read from the source only when an error needs one (not at import, which every run pays for).
    path = _write(tmp_path, 'version: 1\nagent: {type: python, entry: "a.py:f"}\ngolden_prompts: [x]\nreplay: {}\n')
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert "replay.sessions: missing required key `sessions`" in str(info.value)
    assert "Add `sessions:` (path of the sessions JSONL file (relative to the config file))" in str(info.value)


@pytest.mark.parametrize("kind", ["[output_not_empty]", "{name: output_not_empty}"])
def test_an_invariant_type_that_is_a_list_or_a_mapping_is_a_config_error_at_its_line(tmp_path: Path, kind) -> None:
    path = _write(tmp_path, "agent: {entry: a.py:f}\ngolden_prompts: [hi]\nchaos_matrix: [{name: calm}]\n"
                            f"contract:\n  invariants:\n    - {{id: answers, type: {kind}}}\n")
    with pytest.raises(ConfigFileError) as err:
        load_config(path)
    assert "khaos.yaml:6:" in str(err.value) and "contract.invariants[0].type: expected one of" in str(err.value)
