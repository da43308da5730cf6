"""No stage reaches the whole config: the config stage (pipeline/config.py) is the one module of the run's stages
that holds the validated khaos.yaml (`KhaosConfig`, `LoadedConfig`) and makes each later stage's settings from it.
An AST walk over the stages' packages finds every name, import or attribute that would reach it, and every call that
loads a whole config."""

from __future__ import annotations

import ast
from pathlib import Path

import khaos_action

ROOT = Path(khaos_action.__file__).parent

STAGES = ("pipeline", "plan", "engine", "session.py", "attacks", "judge", "score", "report", "evaluate.py")
"""The run's stages, from starting the agent to the reports (docs/design.md)."""
CONFIG_STAGE = "pipeline/config.py"
WHOLE_CONFIG = {"KhaosConfig", "LoadedConfig", "load_config", "validate_config"}


def reaches_the_config(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        name = (node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute)
                else node.name if isinstance(node, ast.alias) else None)
        if name in WHOLE_CONFIG:
            found.append((getattr(node, "lineno", 0), name))
    return found


def _stage_modules() -> list[Path]:
    paths = []
    for stage in STAGES:
        where = ROOT / stage
        paths += sorted(where.rglob("*.py")) if where.is_dir() else [where]
    return [p for p in paths if p.relative_to(ROOT).as_posix() != CONFIG_STAGE]


def test_no_stage_but_the_config_stage_reaches_the_whole_config() -> None:
    offenders = [f"khaos_action/{path.relative_to(ROOT).as_posix()}:{line}: {name}"
                 for path in _stage_modules() for line, name in reaches_the_config(path.read_text(encoding="utf-8"))]
    assert not offenders, "a stage reads its settings, never the config:\n" + "\n".join(offenders)


def test_the_walk_finds_an_import_an_annotation_and_a_load() -> None:
    source = ("from khaos_action.config.models import KhaosConfig\n"
              "def f(loaded: 'x', c: KhaosConfig) -> None:\n    loader.load_config(p)\n")
    assert [name for _, name in reaches_the_config(source)] == ["KhaosConfig", "KhaosConfig", "load_config"]
    assert reaches_the_config((ROOT / CONFIG_STAGE).read_text(encoding="utf-8"))  # it does hold it
