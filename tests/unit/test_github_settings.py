"""ActionSettings.from_environ: inputs as the runner passes them, and actionable errors for bad values."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from khaos_action.errors import ConfigError
from khaos_action.github.settings import INPUTS, ActionSettings

ACTION_YML = Path(__file__).resolve().parents[2] / "action.yml"


def runner_env(**inputs: str) -> dict[str, str]:
    """INPUT_* exactly as the runner builds them: action.yml defaults merged with `with:` values."""
    spec = yaml.safe_load(ACTION_YML.read_text())
    env = {f"INPUT_{name.upper()}": str(item.get("default", "")) for name, item in spec["inputs"].items()}
    env["INPUT_GITHUB-TOKEN"] = "ghs_x"
    for name, value in inputs.items():
        env[f"INPUT_{name.upper()}"] = value
    return env


def test_defaults_from_action_yml_give_the_documented_settings() -> None:
    s = ActionSettings.from_environ(runner_env())
    assert s.config == "khaos.yaml" and s.comment == "always" and s.baseline == "artifact"
    assert s.fail_on == ["critical", "regression", "threshold"]
    assert s.baseline_artifact == "khaos-baseline" and s.working_directory == "."
    assert s.packs == [] and s.seed is None and s.shard is None and s.min_score is None and s.install is None
    assert s.token == "ghs_x"


def test_every_action_input_maps_to_a_settings_field() -> None:
    spec = yaml.safe_load(ACTION_YML.read_text())
    assert set(spec["inputs"]) == set(INPUTS)
    assert set(INPUTS.values()) <= set(ActionSettings.model_fields)


def test_hyphenated_inputs_are_read_with_hyphens_kept() -> None:
    s = ActionSettings.from_environ(runner_env(**{"fail-on": "critical, threshold", "min-score": "75",
                                                  "baseline-artifact": "kb", "working-directory": "svc",
                                                  "shard": "2/4", "packs": "quickstart\nsecurity", "seed": "7"}))
    assert s.fail_on == ["critical", "threshold"] and s.min_score == 75.0 and s.baseline_artifact == "kb"
    assert s.working_directory == "svc" and s.shard == (2, 4) and s.packs == ["quickstart", "security"]
    assert s.seed == 7


def test_underscore_inputs_work_for_other_ci_systems() -> None:
    s = ActionSettings.from_environ({"INPUT_FAIL_ON": "never", "GITHUB_TOKEN": "tok"})
    assert s.fail_on == ["never"] and s.token == "tok"


@pytest.mark.parametrize("name,value,expected", [
    ("comment", "sometimes", "input `comment`"),
    ("fail-on", "critical,bogus", "input `fail-on`"),
    ("fail-on", "never,critical", "cannot be combined"),
    ("fail-on", " , ", "at least one"),
    ("shard", "5/4", "between 1 and 4"),
    ("shard", "two", "I/N"),
    ("min-score", "120", "input `min-score`"),
    ("seed", "abc", "input `seed`"),
    ("concurrency", "0", "input `concurrency`"),
    ("baseline", "s3", "input `baseline`"),
])
def test_bad_inputs_are_config_errors_naming_the_input(name: str, value: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        ActionSettings.from_environ(runner_env(**{name: value}))
    assert expected in str(info.value)
    assert info.value.exit_code == 2


def test_baseline_path_mode_needs_a_path() -> None:
    with pytest.raises(ConfigError, match="baseline-path"):
        ActionSettings.from_environ(runner_env(baseline="path"))


def test_missing_or_empty_token_is_none_not_an_error() -> None:
    env = runner_env()
    env["INPUT_GITHUB-TOKEN"] = "  "
    assert ActionSettings.from_environ(env).token is None
    del env["INPUT_GITHUB-TOKEN"]
    assert ActionSettings.from_environ(env).github_token is None


def test_token_never_appears_in_repr_or_errors() -> None:
    env = runner_env(comment="bad")
    env["INPUT_GITHUB-TOKEN"] = "ghs_SECRET"
    with pytest.raises(ConfigError) as info:
        ActionSettings.from_environ(env)
    assert "ghs_SECRET" not in str(info.value)
    env["INPUT_COMMENT"] = "always"
    assert "ghs_SECRET" not in repr(ActionSettings.from_environ(env))


def test_run_url_uses_the_server_url_for_enterprise() -> None:
    s = ActionSettings.from_environ({"GITHUB_SERVER_URL": "https://ghe.corp/", "GITHUB_REPOSITORY": "o/r",
                                     "GITHUB_RUN_ID": "9", "GITHUB_API_URL": "https://ghe.corp/api/v3/"})
    assert s.run_url == "https://ghe.corp/o/r/actions/runs/9"
    assert s.GITHUB_API_URL == "https://ghe.corp/api/v3"


def test_github_max_wait_defaults_to_five_minutes_and_is_bounded() -> None:
    assert ActionSettings.from_environ(runner_env()).github_max_wait == 300.0
    assert ActionSettings.from_environ(runner_env(**{"github-max-wait": "45"})).github_max_wait == 45.0
    with pytest.raises(ConfigError, match="input `github-max-wait`"):
        ActionSettings.from_environ(runner_env(**{"github-max-wait": "-1"}))
