"""Config problems as messages a user can act on: file:line:col, key path, expected vs found, and a hint.

The loader finds the problems (YAML syntax, duplicate keys, pydantic validation); this module only turns each one
into a `ConfigIssue` and raises them together as one `ConfigFileError`.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import yaml

from khaos_action.config.schema_reading import (
    KeyPath,
    annotation_at,
    describe_type,
    field_doc,
    field_names,
    has_part,
    literal_choices,
)
from khaos_action.errors import ConfigError

if TYPE_CHECKING:  # pydantic is imported by the models; reading a YAML file (config/yaml_file.py) needs no model
    from pydantic import BaseModel, ValidationError

MAX_ISSUES = 20
"""More than this many problems are summarised: the first ones are usually the cause of the rest."""

Position = tuple[int, int]
Locate = Callable[[KeyPath, bool], "Position | None"]
"""(key path, want the value's position rather than the key's) -> (line, column), nearest known parent."""


@dataclass(frozen=True)
class ConfigIssue:
    """One problem in one file; `line`/`column` are 1-based (None when the whole file is meant)."""

    file: str
    line: int | None
    column: int | None
    path: KeyPath
    message: str
    hint: str | None = None

    @property
    def key_path(self) -> str:
        return format_key_path(self.path)

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}:{self.column or 1}"
        text = f"{where}: {self.key_path}: {self.message}" if self.path else f"{where}: {self.message}"
        if not self.hint:
            return text
        return f"{text}. {self.hint}" + ("" if self.hint.endswith((".", "?", "!")) else ".")


class ConfigFileError(ConfigError):
    """A config or pack file has one or more problems; `issues` keeps them for annotations."""

    def __init__(self, issues: list[ConfigIssue]) -> None:
        self.issues = list(issues)
        super().__init__(_summarise(self.issues))


class ConfigNotFoundError(ConfigError):
    """The config file given (or the default khaos.yaml) does not exist."""


class UnknownPackError(ConfigError):
    """A pack reference is neither a built-in pack name nor an existing file."""


def _summarise(issues: list[ConfigIssue]) -> str:
    if len(issues) == 1:
        return str(issues[0])
    files = sorted({issue.file for issue in issues})
    shown = issues[:MAX_ISSUES]
    lines = [f"{', '.join(files)}: {len(issues)} problems:"] + [f"  {issue}" for issue in shown]
    if len(issues) > len(shown):
        lines.append(f"  ... and {len(issues) - len(shown)} more (fix the ones above first)")
    return "\n".join(lines)


def format_key_path(path: KeyPath) -> str:
    """("contract", "invariants", 2, "id") -> "contract.invariants[2].id"."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def show_value(value: Any, limit: int = 60) -> str:
    """A found value in YAML words, short enough for one line."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (int, float)):
        return f"{value!r} (a number)"
    if isinstance(value, str):
        text = value if len(value) <= limit else value[: limit - 3] + "..."
        return f"{text!r} (a string)"
    if isinstance(value, dict):
        keys = ", ".join(str(key) for key in list(value)[:5])
        return f"a mapping ({keys})" if keys else "an empty mapping"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return f"{value.isoformat()} (YAML read it as a date)"
    return repr(value)[:limit]


# ---- YAML syntax ---------------------------------------------------------------------------------------------

_YAML_PLAIN_WORDS = {
    "found character '\\t' that cannot start any token":
        ("a tab character: YAML does not allow tabs for indentation or after a colon",
         "Replace the tab with spaces"),
    "mapping values are not allowed here":
        ("a `key: value` appears where it is not allowed",
         "Check this line's indentation, or quote a value that itself contains ': '"),
    "could not find expected ':'":
        ("a key is missing its ':' (or a quote opened earlier is never closed)", None),
    "found unexpected end of stream":
        ("the file ends inside an unfinished value", "Close the quote or bracket that was opened"),
    "found undefined alias":
        ("an alias (*name) refers to an anchor (&name) that is not defined above it", None),
    "expected <block end>":
        ("this line is indented differently from the keys around it",
         "Align it with its sibling keys, or indent it under the key it belongs to"),
    "found unhashable key":
        ("a key is a list or a mapping", "Keys must be plain text"),
}


def _plain_words(problem: str) -> tuple[str, str | None]:
    """A parser's problem in plain words (_YAML_PLAIN_WORDS) and its hint."""
    for known, (words, known_hint) in _YAML_PLAIN_WORDS.items():
        if problem.startswith(known):
            return f"YAML syntax error: {words}", known_hint
    if "could not determine a constructor for the tag" in problem:
        return f"YAML syntax error: {problem}", "Custom YAML tags (`!something`) are not allowed; write plain values"
    if problem.startswith(("expected ',' or ']'", "expected ',' or '}'")):
        return f"YAML syntax error: {problem}", "Close the bracket, or separate the items with commas"
    return f"YAML syntax error: {problem}", None


def yaml_error_issue(exc: yaml.YAMLError, *, file: str) -> ConfigIssue:
    """A YAML syntax error in plain words at the parser's position."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = str(getattr(exc, "problem", None) or exc)
    message, hint = _plain_words(problem)
    context = getattr(exc, "context", None)
    context_mark = getattr(exc, "context_mark", None)
    if context and context_mark is not None and mark is not None and context_mark.line != mark.line:
        message += f" ({context} that starts at line {context_mark.line + 1})"
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
    return ConfigIssue(file, line, column, (), message, hint)


# ---- pydantic validation -------------------------------------------------------------------------------------

_TYPE_ERRORS = {
    "string_type": "a string", "int_type": "an integer", "int_parsing": "an integer",
    "int_from_float": "a whole number", "float_type": "a number", "float_parsing": "a number",
    "bool_type": "true or false", "bool_parsing": "true or false", "list_type": "a list",
    "dict_type": "a mapping", "model_type": "a mapping", "model_attributes_type": "a mapping",
    "literal_error": "", "none_required": "null", "tuple_type": "a list", "set_type": "a list",
}
_BOUNDS = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}
_CTX_KEYS = {"greater_than": "gt", "greater_than_equal": "ge", "less_than": "lt", "less_than_equal": "le"}


def validation_issues(
    exc: ValidationError, *, model: type[BaseModel], raw: Any, locate: Locate, file: str
) -> list[ConfigIssue]:
    """Every pydantic error of `exc` as a positioned issue; union branches at one key become one issue."""
    issues: list[ConfigIssue] = []
    unions: dict[KeyPath, list[dict[str, Any]]] = {}
    for error in exc.errors(include_url=False):
        path, union_at = _data_path(tuple(error["loc"]), raw, error["type"])
        if union_at is not None and error["type"] in _TYPE_ERRORS:
            unions.setdefault(union_at, []).append(error)
            continue
        issues.append(_issue(error, path, model=model, raw=raw, locate=locate, file=file))
    for path, errors in unions.items():
        issues.append(_union_issue(errors, path, model=model, raw=raw, locate=locate, file=file))
    issues.sort(key=lambda issue: (issue.line or 0, issue.column or 0))
    return issues


def _data_path(loc: KeyPath, raw: Any, kind: str) -> tuple[KeyPath, KeyPath | None]:
    """Drop pydantic's union-branch tags (e.g. "list[str]") from `loc` by walking the data itself.

    Returns the path into the YAML data and, when a tag was dropped, the path of the union it belongs to."""
    path: list[Any] = []
    union_at: KeyPath | None = None
    current = raw
    for index, part in enumerate(loc):
        if has_part(current, part):
            current = current[part]
        elif not (index == len(loc) - 1 and kind == "missing"):  # a missing key is absent by definition
            if union_at is None:
                union_at = tuple(path)
            continue
        path.append(part)
    return tuple(path), union_at




def _issue(error: dict[str, Any], path: KeyPath, *, model: type[BaseModel], raw: Any, locate: Locate,
           file: str) -> ConfigIssue:
    failed = _Failed(error, path, model, raw, locate, file, annotation_at(model, path, raw))
    return _ISSUES.get(failed.kind, _other_issue)(failed)


@dataclass(frozen=True)
class _Failed:
    """One pydantic error at its key path, with what its issue is written from."""

    error: dict[str, Any]
    path: KeyPath
    model: type[BaseModel]
    raw: Any
    locate: Locate
    file: str
    annotation: Any

    @property
    def kind(self) -> str:
        return self.error["type"]

    @property
    def found(self) -> Any:
        return self.error.get("input")

    @property
    def ctx(self) -> dict[str, Any]:
        return self.error.get("ctx") or {}

    def at(self, message: str, hint: str | None, *, value: bool = True) -> ConfigIssue:
        """The issue at the key's value (`value`) or at the key itself."""
        return _at(self.file, self.locate(self.path, value), self.path, message, hint)


def _unknown_key(failed: _Failed) -> ConfigIssue:
    key, hint = failed.path[-1], None
    allowed = field_names(annotation_at(failed.model, failed.path[:-1], failed.raw))
    from difflib import get_close_matches  # an error's hint: not imported to read a valid file

    close = get_close_matches(str(key), allowed, n=1, cutoff=0.6)
    if close:
        hint = f"Did you mean `{close[0]}`?"
    elif allowed:
        hint = f"Allowed keys here: {', '.join(allowed)}"
    return failed.at(f"unknown key `{key}`", hint, value=False)


def _missing_key(failed: _Failed) -> ConfigIssue:
    path = failed.path
    key = path[-1]
    described = field_doc(failed.model, path, failed.raw)
    hint = f"Add `{key}:`" + (f" ({described[:1].lower()}{described[1:]})" if described else "")
    return _at(failed.file, failed.locate(path[:-1], False), path, f"missing required key `{key}`", hint)


def _invalid_value(failed: _Failed) -> ConfigIssue:
    message = str(failed.error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return failed.at(message + _named(failed.raw, failed.path), None, value=False)


def _not_a_choice(failed: _Failed) -> ConfigIssue:
    # A registry-checked value (agent.type) names its choices in the error, a Literal in its annotation.
    choices = literal_choices(failed.annotation) or list(failed.ctx.get("choices", ()))
    expected = describe_type(Literal[tuple(choices)]) if choices else failed.ctx.get("expected", "")
    from difflib import get_close_matches

    close = get_close_matches(str(failed.found), [str(c) for c in choices], n=1, cutoff=0.5)
    hint = f"Did you mean {close[0]!r}?" if close else None
    return failed.at(f"expected {expected}, found {show_value(failed.found)}", hint)


def _wrong_type(failed: _Failed) -> ConfigIssue:
    annotation = failed.annotation
    expected = describe_type(annotation) if annotation is not None else _TYPE_ERRORS[failed.kind]
    return _type_issue(failed.file, failed.locate(failed.path, True), failed.path, expected, failed.found)


def _out_of_bounds(failed: _Failed) -> ConfigIssue:
    bound = failed.ctx.get(_CTX_KEYS[failed.kind])
    return failed.at(f"expected a number {_BOUNDS[failed.kind]} {bound:g}, found {show_value(failed.found)}", None)


def _wrong_length(failed: _Failed) -> ConfigIssue:
    short = failed.kind == "too_short"
    limit = failed.ctx.get("min_length") if short else failed.ctx.get("max_length")
    word = "at least" if short else "at most"
    return failed.at(f"expected {word} {limit} item{'s' if limit != 1 else ''}, found "
                     f"{failed.ctx.get('actual_length')}", None)


def _other_issue(failed: _Failed) -> ConfigIssue:
    return failed.at(f"{failed.error['msg']}, found {show_value(failed.found)}", None)


_ISSUES: dict[str, Callable[[_Failed], ConfigIssue]] = {
    **dict.fromkeys(_BOUNDS, _out_of_bounds), **dict.fromkeys(_TYPE_ERRORS, _wrong_type),
    "extra_forbidden": _unknown_key, "missing": _missing_key, "value_error": _invalid_value,
    "assertion_error": _invalid_value, "literal_error": _not_a_choice, "too_short": _wrong_length,
    "too_long": _wrong_length,
}
"""How each kind of pydantic error is told (any other: its own message and the value found)."""


def _union_issue(errors: list[dict[str, Any]], path: KeyPath, *, model: type[BaseModel], raw: Any,
                 locate: Locate, file: str) -> ConfigIssue:
    annotation = annotation_at(model, path, raw)
    if annotation is not None:
        expected = describe_type(annotation)
    else:
        expected = " or ".join(dict.fromkeys(_TYPE_ERRORS[e["type"]] or "an allowed value" for e in errors))
    return _type_issue(file, locate(path, True), path, expected, _value_at(raw, path))


def _type_issue(file: str, position: Position | None, path: KeyPath, expected: str, found: Any) -> ConfigIssue:
    key = path[-1] if path and isinstance(path[-1], str) else "key"
    hint = next((hint for rule in _TYPE_HINTS if (hint := rule(key, expected, found)) is not None), None)
    return _at(file, position, path, f"expected {expected}, found {show_value(found)}", hint)


def _no_value(key: Any, expected: str, found: Any) -> str | None:
    return f"`{key}:` has no value; indent its keys under it" if found is None and "mapping" in expected else None


def _quote_text(key: Any, expected: str, found: Any) -> str | None:
    if not (expected.startswith("a string") and isinstance(found, (int, float, bool, datetime.date))):
        return None
    shown = found.isoformat() if isinstance(found, datetime.date) else str(found).lower()
    return f"Quote it so YAML keeps it as text: `{key}: \"{shown}\"`"


def _as_list(key: Any, expected: str, found: Any) -> str | None:
    if expected.startswith("a list") and isinstance(found, (str, int, float)):
        return f"Write it as a list: `{key}: [{json.dumps(found)}]`"
    return None


def _plain_number(key: Any, expected: str, found: Any) -> str | None:
    if expected in ("a number", "an integer") and isinstance(found, str):
        return "Write a plain number without units or quotes"
    return None


def _true_or_false(key: Any, expected: str, found: Any) -> str | None:
    return "Use true or false" if expected == "true or false" else None


_TYPE_HINTS: tuple[Callable[[Any, str, Any], str | None], ...] = (
    _no_value, _quote_text, _as_list, _plain_number, _true_or_false)
"""The hint for a value of the wrong type: the first rule that has one."""


def _at(file: str, position: Position | None, path: KeyPath, message: str, hint: str | None) -> ConfigIssue:
    line, column = position if position is not None else (None, None)
    return ConfigIssue(file, line, column, path, message, hint)


def _named(raw: Any, path: KeyPath) -> str:
    """Name a list item by its id/name so `invariants[3]` can be found without counting."""
    value = _value_at(raw, path)
    if path and isinstance(path[-1], int) and isinstance(value, dict):
        for key in ("id", "name"):
            if isinstance(value.get(key), str):
                return f" ({key} {value[key]!r})"
    return ""


def _value_at(raw: Any, path: KeyPath) -> Any:
    for part in path:
        try:
            raw = raw[part]
        except (KeyError, IndexError, TypeError):
            return None
    return raw
