"""Where a fault enters each kind of tool: one registry entry per kind, each small.

A tool is a plain function, a method on an instance (`inv.lookup`), or a framework's tool object. Functions are
wrapped by replacing every reference to them (engine/chaos/tools.py); a method is wrapped on its instance (and in
every bound copy of it the gc finds); a framework's tool object is wrapped *in place*: the attribute the framework
calls to run the user's code (smolagents `forward`, LangChain `func`/`_run`, LlamaIndex `_fn`/`_async_fn`, AutoGen
`run_json`, CrewAI `_run`, Google ADK `func`) gets our wrapper on that instance, so the framework still holds its
own object, of its own class, and only the call goes through the case's fault plan.

A kind is recognised by the names of the classes in the object's MRO, so checking an object never imports a
framework. `KINDS` is the registry; `kind_of(obj)` the one lookup; `cannot_wrap(obj)` says why an object is none
of them and what would work (validate prints it).
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from khaos_action.tool_info import ToolInfo, tool_info_from_callable

Arguments = Callable[[tuple, dict], dict[str, Any]]
"""What the model passed the tool, from what the framework passes the wrapped attribute."""


@dataclass(frozen=True, slots=True)
class ToolKind:
    name: str
    """A short name (reports, tests)."""
    label: str
    """What it is, for messages: "a smolagents Tool"."""
    bases: tuple[str, ...] = ()
    """`module.QualName` of the framework classes an object of this kind derives from (matched along its MRO)."""
    paths: tuple[tuple[str, ...], ...] = ()
    """One tuple per way the framework runs the tool (sync, async): the attributes tried in order; the first one
    holding code that is not among `defaults` is wrapped on the instance."""
    defaults: frozenset[str] = frozenset()
    """`QualName.method` of the framework's own attributes that only delegate to another path (LangChain's
    `BaseTool._arun` runs `_run` in a thread): wrapping them too would apply a fault twice."""
    arguments: Arguments | None = None
    """The tool's arguments from the call of the wrapped attribute; None: bound by its signature."""
    describe: Callable[[Any], ToolInfo] | None = field(default=None, repr=False)
    """Name, description and parameters of a tool object (None: read as a plain callable)."""

    def matches(self, obj: Any) -> bool:
        return bool(self.bases) and any(f"{klass.__module__}.{klass.__qualname__}" in self.bases
                                        for klass in type(obj).__mro__)

    def tool_name(self, obj: Any) -> str | None:
        """The name the model calls this tool by (None for plain callables: the ref's name is used)."""
        if self.describe is None:
            return None
        return self.describe(obj).name

    def slots(self, obj: Any) -> list[str]:
        """The attributes of `obj` to wrap: per call path, the first that holds the user's code."""
        chosen: list[str] = []
        for path in self.paths:
            for attr in path:
                value = getattr(obj, attr, None)
                if callable(value) and _qualname(value) not in self.defaults:
                    chosen.append(attr)
                    break
        return chosen


def _qualname(value: Any) -> str:
    fn = getattr(value, "__func__", value)
    return getattr(fn, "__qualname__", "")


# ---- describing framework tool objects ---------------------------------------------------------------------------


def _info(name: Any, description: Any, schema: Mapping[str, Any] | None, code: Any = None) -> ToolInfo:
    from khaos_action.engine.transport.frameworks.base import tool_info

    return tool_info(str(name), description if isinstance(description, str) else "", schema, code)


def _safely(read: Callable[[], Any]) -> Any:
    try:
        return read()
    except Exception:  # noqa: BLE001 - a tool without a schema still has a name and a description
        return None


def _smolagents(tool: Any) -> ToolInfo:
    inputs = getattr(tool, "inputs", None)
    return _info(tool.name, getattr(tool, "description", ""),
                 {"properties": inputs} if isinstance(inputs, Mapping) else None, getattr(tool, "forward", None))


def _langchain(tool: Any) -> ToolInfo:
    schema = _safely(tool.get_input_jsonschema)
    if schema is None and isinstance(getattr(tool, "args", None), Mapping):
        schema = {"properties": tool.args}
    code = getattr(tool, "func", None) or getattr(tool, "coroutine", None) or getattr(tool, "_run", None)
    return _info(tool.name, getattr(tool, "description", ""), schema, code)


def _llama_index(tool: Any) -> ToolInfo:
    meta = tool.metadata
    return _info(meta.name, meta.description, _safely(meta.get_parameters_dict), getattr(tool, "_real_fn", None))


def _autogen(tool: Any) -> ToolInfo:
    schema = _safely(lambda: tool.schema.get("parameters"))
    return _info(tool.name, tool.description, schema, getattr(tool, "_func", None))


def _crewai(tool: Any) -> ToolInfo:
    schema = _safely(tool.args_schema.model_json_schema) if getattr(tool, "args_schema", None) else None
    return _info(tool.name, getattr(tool, "description", ""), schema, getattr(tool, "func", None) or tool._run)


def _adk(tool: Any) -> ToolInfo:
    declaration = _safely(tool._get_declaration)
    parameters = getattr(declaration, "parameters", None)
    properties = getattr(parameters, "properties", None)
    schema = {"properties": {k: {"description": getattr(v, "description", None) or ""}
                             for k, v in properties.items()}} if isinstance(properties, Mapping) else None
    return _info(tool.name, getattr(tool, "description", ""), schema, getattr(tool, "func", None))


def _json_args(args: tuple, kwargs: dict) -> dict[str, Any]:
    """AutoGen's `run_json(args, cancellation_token, call_id)`: the model's arguments are the mapping."""
    value = kwargs.get("args", args[0] if args else {})
    return dict(value) if isinstance(value, Mapping) else {"value": value}


# ---- the registry ----------------------------------------------------------------------------------------------

FUNCTION = ToolKind("function", "a function")
"""Plain functions (and partials, builtins): every reference to them is replaced (engine/chaos/tools.py)."""
METHOD = ToolKind("method", "a method on an instance (`module:obj.method`)")
"""Bound methods: wrapped on their instance and in every bound copy of them the gc finds."""

KINDS: tuple[ToolKind, ...] = (
    ToolKind("smolagents", "a smolagents Tool (`@tool` or a Tool subclass)", ("smolagents.tools.Tool",),
             (("forward",),), frozenset({"Tool.forward"}), describe=_smolagents),
    ToolKind("langchain", "a LangChain tool (`@tool`, StructuredTool, BaseTool)",
             ("langchain_core.tools.base.BaseTool",),
             (("func", "_run"), ("coroutine", "_arun")),
             frozenset({"BaseTool._arun", "StructuredTool._run", "StructuredTool._arun", "Tool._run", "Tool._arun"}),
             describe=_langchain),
    ToolKind("llama-index", "a LlamaIndex FunctionTool", ("llama_index.core.tools.function_tool.FunctionTool",),
             (("_fn",), ("_async_fn",)), describe=_llama_index),
    ToolKind("autogen", "an AutoGen tool (FunctionTool, BaseTool)", ("autogen_core.tools._base.BaseTool",),
             (("run_json",),), arguments=_json_args, describe=_autogen),
    ToolKind("crewai", "a CrewAI tool (`@tool`, BaseTool)", ("crewai.tools.base_tool.BaseTool",), (("_run",),),
             describe=_crewai),
    ToolKind("google-adk", "a Google ADK FunctionTool", ("google.adk.tools.function_tool.FunctionTool",),
             (("func",),), describe=_adk),
)


def kind_of(obj: Any) -> ToolKind | None:
    """The kind of tool `obj` is, None when the engine cannot wrap it (`cannot_wrap` says why)."""
    if isinstance(obj, types.MethodType) and not isinstance(obj.__self__, types.ModuleType):
        return METHOD
    if inspect.isroutine(obj) or isinstance(obj, functools.partial):
        return FUNCTION
    return next((kind for kind in KINDS if kind.matches(obj)), None)


def cannot_wrap(obj: Any) -> str | None:
    """Why `obj` cannot be wrapped for tool faults, and what can; None when it can."""
    kind = kind_of(obj)
    if kind is not None:
        return None if kind.describe is None or kind.slots(obj) else (
            f"is {kind.label} with no code of its own to wrap ({' or '.join(a for p in kind.paths for a in p)})")
    module = type(obj).__module__
    where = "" if module.startswith("_khaos_") else f" (from {module})"  # a file the engine imported: its own name
    return (f"is a {type(obj).__qualname__} object{where}, which the engine cannot wrap for tool faults. It wraps "
            f"{describe_kinds()}: point the entry at the function or method the agent calls (e.g. "
            f"`tools.py:search` or `tools.py:client.search`)")


def describe_kinds() -> str:
    """Every kind, for messages: "functions, methods on an instance (...), a smolagents Tool (...), ..."."""
    return ", ".join(["functions", "methods on an instance (`module:obj.method`)", *(kind.label for kind in KINDS)])


def describe_tool(obj: Any) -> ToolInfo:
    """What the capability profile and the attacks may read of a tool (never calling it)."""
    kind = kind_of(obj)
    if kind is not None and kind.describe is not None:
        return kind.describe(obj)
    return tool_info_from_callable(obj)
