"""docs/spec.md names everything a user can type or read: every CLI command and option, every khaos.yaml key (of
every agent type, invariant type and fault), the pack, attack-file and replay schemas, the manifest's fields and
the action's inputs and outputs. A key added to the code without a word in the spec fails here, naming it."""

from __future__ import annotations

import argparse
import re
import typing
from pathlib import Path

import yaml
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[2]
SPEC = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")


def _code_words(text: str) -> set[str]:
    """Every name written inside a code span of `text` (`a`, `{a, b}`, `--flag`, `a.b`)."""
    words: set[str] = set()
    for _, span in re.findall(r"(`+)(.+?)\1", text, re.DOTALL):
        words.update(re.findall(r"--?[A-Za-z][\w-]*|[A-Za-z_][\w-]*", span))
    return words


SPEC_WORDS = _code_words(SPEC)


def _section(title: str) -> str:
    start = SPEC.index(f"\n## {title}\n")
    end = SPEC.find("\n## ", start + 1)
    return SPEC[start:end if end != -1 else None]


def _missing(names: set[str], words: set[str] = SPEC_WORDS) -> list[str]:
    return sorted(name for name in names if name not in words)


def _models(annotation: typing.Any) -> list[type[BaseModel]]:
    found = []
    for arg in typing.get_args(annotation):
        found += _models(arg)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found.append(annotation)
    return found


def _keys(model: type[BaseModel], seen: set[type] | None = None) -> set[str]:
    """The field names of `model` and of every model its fields hold."""
    seen = set() if seen is None else seen
    if model in seen:
        return set()
    seen.add(model)
    keys = set(model.model_fields)
    for field in model.model_fields.values():
        for inner in _models(field.annotation):
            keys |= _keys(inner, seen)
    return keys


def test_every_cli_command_and_option_is_in_the_spec() -> None:
    from khaos_action.cli import build_parser

    cli = _code_words(_section("CLI"))
    missing = []

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if name not in cli:
                        missing.append(f"{path} {name}")
                    walk(sub, f"{path} {name}")
            elif action.option_strings and action.dest != "help":
                missing.extend(f"{path} {flag}" for flag in action.option_strings if flag not in cli)

    walk(build_parser(), "khaos-action")
    assert missing == [], "add these to docs/spec.md's CLI section"


def test_every_khaos_yaml_key_is_in_the_spec() -> None:
    from khaos_action.config.agent_block import model_of
    from khaos_action.config.models import KhaosConfig
    from khaos_action.transports import TRANSPORTS

    keys = _keys(KhaosConfig)
    for entry in TRANSPORTS.values():
        keys |= _keys(model_of(entry))
    assert _missing(keys) == [], "add these khaos.yaml keys to docs/spec.md"
    assert _missing(set(TRANSPORTS)) == [], "add these agent types to docs/spec.md"


def test_every_invariant_type_and_fault_with_its_keys_is_in_the_spec() -> None:
    import khaos_action.faults  # noqa: F401 - registers the built-in faults
    from khaos_action.checkers import CHECKERS
    from khaos_action.faults.registry import FAULTS

    names = set(CHECKERS) | {key.split(":", 1)[1] for key in FAULTS}
    keys = set().union(*(_keys(cls) for cls in CHECKERS.values()))
    keys |= set().union(*(_keys(cls.Params) for cls in FAULTS.values() if getattr(cls, "Params", None)))
    assert _missing(names | keys) == [], "add these invariant types, faults or their keys to docs/spec.md"


def test_the_pack_attack_and_replay_schemas_are_in_the_spec() -> None:
    from khaos_action.config.corpus import CATEGORIES, Attack
    from khaos_action.config.models import Pack
    from khaos_action.config.objectives import ALIASES, KINDS
    from khaos_action.metrics import METRICS
    from khaos_action.mutation.registry import MUTATORS
    from khaos_action.replay.sessions import Session

    keys = _keys(Pack) | _keys(Attack) | _keys(Session)
    names = set(CATEGORIES) | set(KINDS) | set(ALIASES) | set(METRICS) | set(MUTATORS)
    built_in = {path.stem for path in (ROOT / "packs").glob("*.yaml")}
    assert _missing(keys | names | built_in) == [], "add these to docs/spec.md"


def test_the_manifest_fields_are_in_the_spec() -> None:
    from khaos_action.manifest import CaseResult, Counts, Manifest, Scores, Verdict

    fields = set(Manifest.model_fields) | set(CaseResult.model_fields) | set(Counts.model_fields)
    fields |= set(Scores.model_fields) | set(Verdict.model_fields)
    assert _missing(fields, _code_words(_section("manifest.json"))) == []


def test_the_action_inputs_and_outputs_are_in_the_spec() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    words = _code_words(_section("GitHub Action"))
    assert _missing(set(action["inputs"]) | set(action["outputs"]), words) == []


def test_the_exit_codes_are_in_the_spec() -> None:
    from khaos_action.errors import ExitCode

    table = _section("Exit codes")
    assert [code for code in ExitCode if f"\n| {int(code)} |" not in table] == []
