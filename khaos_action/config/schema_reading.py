"""Reading the config schema: the model, field or Literal at a key path, a field's docstring, and a type in the
words a YAML author uses. config/errors.py asks these questions to explain a problem; they know nothing of problems.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

if TYPE_CHECKING:  # pydantic is imported by the models; reading a YAML file (config/yaml_file.py) needs no model
    from pydantic import BaseModel

KeyPath = tuple[Any, ...]

def has_part(container: Any, part: Any) -> bool:
    if isinstance(container, dict):
        return part in container
    return isinstance(container, list) and isinstance(part, int) and 0 <= part < len(container)


# ---- which model, field or Literal sits at a key path --------------------------------------

def _unannotated(tp: Any) -> Any:
    """`Annotated[X, ...]` as `X`: the metadata (validators, bounds) is no part of what a YAML author writes."""
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _union_args(tp: Any) -> tuple[Any, ...] | None:
    tp = _unannotated(tp)
    if typing.get_origin(tp) in (Union, types.UnionType):
        return typing.get_args(tp)
    return None


def _is_model(tp: Any) -> bool:
    from pydantic import BaseModel

    return isinstance(tp, type) and issubclass(tp, BaseModel)


def annotation_at(tp: Any, path: KeyPath, raw: Any = None) -> Any:
    """The type annotation at `path` below model `tp`, or None when the schema does not say. With the data (`raw`),
    a model that picks its variant from the data (an invariant's `type` names its registered entry, whose fields
    are its own: `variant_for`) is read as that variant."""
    current = raw
    for part in path:
        tp = _step(_variant(tp, current), part)
        current = current[part] if has_part(current, part) else None
        if tp is None:
            return None
    return _variant(tp, current)


def _variant(tp: Any, data: Any) -> Any:
    if typing.get_origin(tp) is Annotated:  # SerializeAsAny[Model] and the like: the model is what validates
        inner = typing.get_args(tp)[0]
        tp = inner if _is_model(inner) else tp
    pick = getattr(tp, "variant_for", None) if _is_model(tp) else None
    return pick(data) if pick is not None and isinstance(data, dict) else tp


def _step(tp: Any, part: Any) -> Any:
    tp = _unannotated(tp)
    members = _union_args(tp)
    if members is not None:
        for member in members:
            found = _step(member, part)
            if found is not None:
                return found
        return None
    if _is_model(tp):
        field = tp.model_fields.get(part)
        return field.annotation if field is not None else None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (list, tuple, set, frozenset) and isinstance(part, int) and args:
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def field_names(tp: Any) -> list[str]:
    """The keys a model accepts (the model found at a key path, through Optional)."""
    for member in _union_args(tp) or (tp,):
        if _is_model(member):
            return list(member.model_fields)
    return []


def field_doc(model: type[BaseModel], path: KeyPath, raw: Any = None) -> str | None:
    parent = annotation_at(model, path[:-1], raw)
    for member in _union_args(parent) or (parent,):
        if _is_model(member) and path[-1] in member.model_fields:
            description = member.model_fields[path[-1]].description or attribute_docs(member).get(path[-1])
            return description.rstrip(".") if description else None
    return None


@functools.cache
def attribute_docs(model: type) -> dict[str, str]:
    """The docstrings under a model's fields (`name: type = ...` then a string), its bases' included, read from
    the source when an error needs one. pydantic's `use_attribute_docstrings` parses the source of every class as
    it is defined, a large part of importing config.models, which every run pays (docs/performance.md)."""
    import ast
    import inspect
    import textwrap

    docs: dict[str, str] = {}
    for klass in reversed(model.__mro__):
        if klass is object or klass.__module__.startswith("pydantic"):
            continue
        try:
            body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0].body
        except (OSError, TypeError, SyntaxError, IndexError, AttributeError):
            continue
        for stmt, after in zip(body, body[1:]):
            if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                    and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                    and isinstance(after.value.value, str)):
                docs[stmt.target.id] = inspect.cleandoc(after.value.value)
    return docs


def literal_choices(tp: Any) -> list[Any]:
    choices: list[Any] = []
    for member in _union_args(tp) or (tp,):
        if typing.get_origin(member) is Literal:
            choices.extend(typing.get_args(member))
    return choices


_PLURAL = {str: "strings", int: "integers", float: "numbers", bool: "booleans"}
_SINGULAR = {str: "a string", int: "an integer", float: "a number", bool: "true or false", type(None): "null"}


def describe_type(tp: Any) -> str:
    """A type annotation in the words a YAML author uses."""
    tp = _unannotated(tp)
    members = _union_args(tp)
    if members is not None:
        return " or ".join(dict.fromkeys(describe_type(member) for member in members if member is not type(None)))
    if tp in _SINGULAR:
        return _SINGULAR[tp]
    if tp is Any:
        return "any value"
    if typing.get_origin(tp) is Literal:
        values = typing.get_args(tp)
        return repr(values[0]) if len(values) == 1 else "one of " + ", ".join(repr(value) for value in values)
    if _is_model(tp):
        return "a mapping"
    return _describe_generic(tp)


def _describe_generic(tp: Any) -> str:
    """A collection type (a list of what, a mapping), else the type's own name."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (list, tuple, set, frozenset):
        return _describe_list(args[0] if args else Any)
    if origin is dict:
        return "a mapping"
    return getattr(tp, "__name__", str(tp))


def _describe_list(item: Any) -> str:
    item = _unannotated(item)
    if item in _PLURAL:
        return f"a list of {_PLURAL[item]}"
    return "a list of mappings" if _is_model(item) else "a list"
