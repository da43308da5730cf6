"""A khaos.yaml validated into its models, remembering where every key is (for error messages and annotations).

Reading and parsing (positions, duplicate keys, the size and depth limits) is config/yaml_file.py's; here the
parsed data is validated against the models, every pydantic error positioned like a YAML one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from khaos_action.config.errors import (
    ConfigFileError,
    ConfigIssue,
    KeyPath,
    Position,
    format_key_path,
    validation_issues,
)
from khaos_action.config.models import KhaosConfig
from khaos_action.config.yaml_file import (
    DEFAULT_CONFIG,
    ConfigSource,
    YamlDocument,
    parse_yaml,
    read_config,
    read_yaml,
)
from khaos_action.gates_and_weights import Gates, Weights

ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class LoadedConfig:
    """A validated `khaos.yaml` and what later stages need to point back into it."""

    config: KhaosConfig
    path: Path
    base_dir: Path
    """The config file's folder: relative paths in the config (agent entry, packs, replay) start here."""
    raw: dict[str, Any]
    positions: dict[KeyPath, Position]
    value_positions: dict[KeyPath, Position] = field(default_factory=dict)

    def position_of(self, *path: Any) -> Position | None:
        """(line, column) of a key path such as ("contract", "invariants", 2, "id"), else its nearest parent."""
        if len(path) == 1 and isinstance(path[0], tuple):
            path = path[0]
        return YamlDocument(self.raw, self.positions, self.value_positions).locate(tuple(path))

    def line_of(self, *path: Any) -> int | None:
        """The line for `::error file=khaos.yaml,line=N` annotations about `path`."""
        position = self.position_of(*path)
        return position[0] if position else None

    def issue(self, path: KeyPath, message: str, hint: str | None = None) -> ConfigIssue:
        """A problem found after validation (semantic checks, fault parameters) positioned like schema errors;
        raise `ConfigFileError([...issues])` with it."""
        line, column = self.position_of(tuple(path)) or (None, None)
        return ConfigIssue(str(self.path), line, column, tuple(path), message, hint)


def load_config(path: str | Path = DEFAULT_CONFIG) -> LoadedConfig:
    """Read, parse and validate a khaos.yaml; every problem is raised as a ConfigError naming file:line:col."""
    return validate_config(read_config(path))


def load_gates(path: str | Path) -> tuple[Gates, Weights]:
    """A khaos.yaml's gates and score weights, validated as `load_config` validates the whole file (`merge --config`:
    they replace the ones the shards recorded; merging needs nothing else of it)."""
    config = load_config(path).config
    return config.gates, config.scoring.weights


def validate_config(source: ConfigSource) -> LoadedConfig:
    """A khaos.yaml already read (config/yaml_file.py `read_config`), validated against the models."""
    document = source.document
    config = validate(KhaosConfig, document, file=str(source.path))
    return LoadedConfig(
        config=config, path=source.path, base_dir=source.base_dir, raw=document.data,
        positions=document.positions, value_positions=document.value_positions,
    )


def validate(model: type[ModelT], document: YamlDocument, *, file: str) -> ModelT:
    """Validate parsed YAML against `model`; every pydantic error becomes a positioned ConfigIssue."""
    try:
        return model.model_validate(document.data)
    except ValidationError as exc:
        issues = validation_issues(exc, model=model, raw=document.data, locate=document.locate, file=file)
        raise ConfigFileError(issues) from None


__all__ = [
    "DEFAULT_CONFIG", "ConfigSource", "LoadedConfig", "YamlDocument", "format_key_path", "load_config", "parse_yaml",
    "read_config", "read_yaml", "validate_config",
    "validate",
]
