"""`agent.tool_registry`: the name -> callable mapping an agent keeps its tools in, loaded from `module:attr`."""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from khaos_action.errors import ConfigError


def getattr_path(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def load_callable_or_object(spec: str, base_dir: Path) -> Any:
    """`module:attr` -> the object (a registry need not be callable)."""
    from khaos_action.engine.code_ref import import_target, split_entry

    target, attr = split_entry(spec)
    module = import_target(target, base_dir, spec, "agent.tool_registry")
    obj = getattr_path(module, attr)
    if obj is None:
        raise ConfigError(f"agent.tool_registry {spec!r}: {target} has no attribute {attr!r}.")
    return obj


def registry_mapping(obj: Any) -> MutableMapping[Any, Any]:
    """The name -> callable mapping inside a registry object (a dict, or an object holding one)."""
    if isinstance(obj, MutableMapping):
        return obj
    for attr in ("tools", "_tools", "registry", "_registry", "functions"):
        value = getattr(obj, attr, None)
        if isinstance(value, MutableMapping):
            return value
    raise ConfigError(
        f"agent.tool_registry points at a {type(obj).__name__}, which is not a dict of name -> "
        "callable and has no `tools` dict; point it at the dict itself."
    )
