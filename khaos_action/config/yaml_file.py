"""A YAML file read and parsed, remembering where every key is (for error messages and annotations).

PyYAML composes the node tree; we walk it once to record each key's line/column and to reject duplicate keys
(PyYAML silently keeps the last one), then let the same loader construct the plain data that pydantic validates
(config/loader.py). The tree is composed by libyaml when PyYAML has it (an order of magnitude faster on a large
config: docs/performance.md); a file libyaml rejects is parsed again by the pure-Python parser, whose error messages
the explanations are written against.

No pydantic and no models here: a run reads its khaos.yaml once, with this module, and starts the python worker's
zygote from the parsed `agent:` block (engine/transport/early.py) before it imports the models that validate it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from khaos_action.config import limits
from khaos_action.config.errors import (
    ConfigFileError,
    ConfigIssue,
    ConfigNotFoundError,
    KeyPath,
    Position,
    show_value,
    yaml_error_issue,
)

DEFAULT_CONFIG = "khaos.yaml"


@dataclass(frozen=True)
class YamlDocument:
    """Parsed YAML plus where each key path starts (1-based line, column)."""

    data: Any
    positions: dict[KeyPath, Position]
    """Key path -> position of the key (list items: of the item)."""
    value_positions: dict[KeyPath, Position]
    """Key path -> position of the value (where a wrong value should be pointed at)."""

    def locate(self, path: KeyPath, value: bool = False) -> Position | None:
        """Position of `path`, else of its nearest known parent."""
        table = self.value_positions if value else self.positions
        path = tuple(path)
        while True:
            if path in table:
                return table[path]
            if path in self.positions:
                return self.positions[path]
            if not path:
                return None
            path = path[:-1]


@dataclass(frozen=True)
class ConfigSource:
    """A khaos.yaml as read from disk, parsed but not validated: what the run reads once."""

    path: Path
    document: YamlDocument

    @property
    def base_dir(self) -> Path:
        """The config file's folder: relative paths in the config (agent entry, packs, replay) start here."""
        return self.path.resolve().parent


def read_config(path: str | Path = DEFAULT_CONFIG) -> ConfigSource:
    """Find, read and parse a khaos.yaml (a folder: its khaos.yaml); a missing file, bad YAML or a duplicate key
    is raised as a ConfigError naming file:line:col. Validation is config/loader.py's."""
    found = _config_path(Path(path))
    return ConfigSource(path=found, document=read_yaml(found, what="config"))


def _config_path(path: Path) -> Path:
    if path.is_dir():
        path = path / DEFAULT_CONFIG
    if path.is_file():
        return path
    looked = "" if path.is_absolute() else f" (looked for {path.resolve()})"
    message = f"config file not found: {path}{looked}."
    sibling = path.with_suffix(".yml" if path.suffix == ".yaml" else ".yaml")
    if sibling.is_file():
        message += f" There is a {sibling}: pass it with `-c {sibling}`."
    else:
        message += (f" Create {path.name} (a minimal one needs `agent: {{type: python, entry: path.py:func}}`),"
                    " or point at an existing config with `khaos-action validate -c PATH`.")
    raise ConfigNotFoundError(message)


def read_yaml(path: Path, *, what: str = "file") -> YamlDocument:
    """Read and parse one YAML file whose top level must be a mapping."""
    try:
        with path.open("rb") as handle:
            data = handle.read(limits.MAX_YAML_BYTES + 1)  # never more than the limit into memory
        limits.check_bytes(data, file=str(path))
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise ConfigNotFoundError(f"{what} file not found: {path} (looked for {path.resolve()})") from None
    except UnicodeDecodeError as exc:
        raise ConfigFileError([ConfigIssue(str(path), None, None, (),
                                           f"is not UTF-8 text ({exc.reason} at byte {exc.start})",
                                           "Save the file as UTF-8")]) from None
    except OSError as exc:
        raise ConfigFileError([ConfigIssue(str(path), None, None, (), f"cannot be read: {exc.strerror}")]) from None
    return parse_yaml(text, file=str(path))


def parse_yaml(text: str, *, file: str) -> YamlDocument:
    """Parse YAML text into data and key positions; syntax errors, duplicate keys and a non-mapping top level
    are raised as ConfigFileError."""
    limits.check_text(text, file=file)
    if _FastPositionLoader is not None:
        try:
            return _parse_fast(text, file)
        except yaml.YAMLError:
            pass  # libyaml words its errors differently: the pure-Python parser finds the problem and explains it
    try:
        return _parse_with(_PositionLoader(text, file=file), file)
    except yaml.YAMLError as exc:
        raise ConfigFileError([yaml_error_issue(exc, file=file)]) from None


def _parse_fast(text: str, file: str) -> YamlDocument:
    """libyaml's composer never calls `get_event` in Python, so the limits run first over libyaml's event stream
    (flat, linear), then libyaml composes the tree the same Python code records and constructs."""
    limits.check_events(yaml.parse(text, Loader=yaml.CSafeLoader), file=file)
    return _parse_with(_FastPositionLoader(text, file=file), file)


def _parse_with(loader: _Positions, file: str) -> YamlDocument:
    try:
        node = loader.get_single_node()
        if node is None:
            raise ConfigFileError([ConfigIssue(
                file, None, None, (), "is empty",
                "Write at least `version: 1` and an `agent:` section (see the README)"
                if file.endswith(DEFAULT_CONFIG) else "Write the document's keys into it")])
        loader.record(node, ())
        if loader.duplicates:
            raise ConfigFileError(loader.duplicates)
        data = loader.construct_document(node)
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        line, column = loader.positions[()]
        raise ConfigFileError([ConfigIssue(
            file, line, column, (), f"the top level must be a mapping of keys, found {show_value(data)}",
            "Start the file with `key: value` lines, not a list or a bare value")])
    return YamlDocument(data, loader.positions, loader.value_positions)


def _mark(mark: yaml.Mark) -> Position:
    return (mark.line + 1, mark.column + 1)


class _Positions:
    """Loader mixin: records where each key path starts and which keys repeat in a mapping."""

    def __init__(self, text: str, *, file: str) -> None:
        super().__init__(text)  # the loader class it is mixed into
        self.file = file
        self.positions: dict[KeyPath, Position] = {}
        self.value_positions: dict[KeyPath, Position] = {}
        self.duplicates: list[ConfigIssue] = []
        self._active: set[int] = set()
        self._budget = limits.EventBudget(file)

    def get_event(self) -> yaml.Event:
        # (The pure-Python parser; libyaml's events are checked in `_parse_fast`.)
        # Every event the composer consumes is checked first: depth, alias expansion and number length are bounded
        # before PyYAML's recursive composer or our recorder could go deep or wide.
        event = super().get_event()
        self._budget.feed(event)
        return event

    def record(self, node: yaml.Node, path: KeyPath) -> None:
        self.positions.setdefault(path, _mark(node.start_mark))
        self.value_positions.setdefault(path, _mark(node.start_mark))
        # Recursive aliases (`&a [*a]`) are legal YAML; walk each node once per branch.
        if id(node) in self._active:
            return
        self._active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                for index, item in enumerate(node.value):
                    self.record(item, path + (index,))
            elif isinstance(node, yaml.MappingNode):
                self._record_mapping(node, path)
        finally:
            self._active.discard(id(node))

    def _record_mapping(self, node: yaml.MappingNode, path: KeyPath) -> None:
        seen: dict[Any, Position] = {}
        merged: list[yaml.Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                merged.append(value_node)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                continue  # a complex key: the constructor reports it
            key = self.construct_object(key_node)
            where = _mark(key_node.start_mark)
            if key in seen:
                first = seen[key]
                both = (f"lines {first[0]} and {where[0]}" if first[0] != where[0]
                        else f"line {where[0]}, columns {first[1]} and {where[1]}")
                self.duplicates.append(ConfigIssue(
                    self.file, where[0], where[1], path + (key,),
                    f"key `{key}` is given twice in the same mapping ({both})",
                    "YAML would silently keep only the last one; remove or rename one of them"))
                continue
            seen[key] = where
            self.positions[path + (key,)] = where
            self.value_positions[path + (key,)] = _mark(value_node.start_mark)
            self.record(value_node, path + (key,))
        # `<<: *defaults`: merged keys point at the anchor's lines; explicit keys win (they were recorded first,
        # and `setdefault` in `record` never overwrites), as does an earlier merge source over a later one.
        for source in merged:
            for mapping in source.value if isinstance(source, yaml.SequenceNode) else [source]:
                if isinstance(mapping, yaml.MappingNode):
                    for key_node, value_node in mapping.value:
                        if isinstance(key_node, yaml.ScalarNode):
                            key = self.construct_object(key_node)
                            if key not in seen:
                                self.positions.setdefault(path + (key,), _mark(key_node.start_mark))
                                self.record(value_node, path + (key,))


class _PositionLoader(_Positions, yaml.SafeLoader):
    """Pure-Python parsing (PyYAML without libyaml), and the explanation of any file libyaml rejects."""


try:
    class _FastPositionLoader(_Positions, yaml.CSafeLoader):
        """libyaml composes the tree; positions, duplicates and construction are the same Python code."""
except AttributeError:  # PyYAML built without libyaml
    _FastPositionLoader = None  # type: ignore[assignment,misc]
