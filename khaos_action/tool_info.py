"""What can be learnt about one tool without calling it: its name, description, parameters and declared role.

Bottom layer: the engine's framework adapters and the python worker produce ToolInfo, attacks read it (capability
evidence, roles, forbidden-tool targets).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from khaos_action.errors import ConfigError
from khaos_action.roles import ToolRole, guess_role, normalise_role


def tool_name(ref: str) -> str:
    """The name an `agent.tools` ref reports: `tools.py:lookup_order` -> `lookup_order`, `pkg.mod:Api.get` -> `get`."""
    return ref.rsplit(":", 1)[-1].rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """What we can learn about one tool without calling it."""

    name: str
    description: str = ""
    parameters: tuple[str, ...] = ()
    role: str | None = None
    """The declared role (config `role:` or `@tool(role=...)`), None when undeclared."""

    def role_info(self) -> ToolRole:
        """Its role, declared or guessed, with the source."""
        return guess_role(self.name, self.description, self.role, self.parameters)


def tool_info_from_callable(fn: Any) -> ToolInfo:
    """A ToolInfo from a plain function, or a framework tool object exposing `name` / `description` (LangChain,
    pydantic-ai and MCP tool objects all do); parameters come from the signature or an `args` schema."""
    name = getattr(fn, "name", None)
    if not isinstance(name, str):
        name = getattr(fn, "__name__", None) or type(fn).__name__
    description = getattr(fn, "description", None)
    if not isinstance(description, str):
        description = inspect.getdoc(fn) or ""
    return ToolInfo(name=name, description=description, parameters=tuple(_parameters(fn)),
                    role=_declared_role(fn, name))


def _parameters(fn: Any) -> list[str]:
    """A tool's parameter names: its `args` schema's keys, else its signature's (no self or cls)."""
    args = getattr(fn, "args", None)
    if isinstance(args, dict):
        return [str(k) for k in args]
    target: Callable[..., Any] | None = getattr(fn, "func", None) or (fn if callable(fn) else None)
    if target is None:
        return []
    try:
        return [p for p in inspect.signature(target).parameters if p not in ("self", "cls")]
    except (TypeError, ValueError):  # builtins and some C callables have no signature
        return []


def _declared_role(fn: Any, name: str) -> str | None:
    role = getattr(fn, "__khaos_tool_role__", None)
    if role is None:
        return None
    try:
        return normalise_role(role)
    except ValueError as exc:
        raise ConfigError(f"@tool(role=...) on {name}: {exc}") from None
