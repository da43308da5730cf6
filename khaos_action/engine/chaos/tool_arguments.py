"""The arguments a tool call is recorded with: bound to the tool's parameter names, a framework's run context and
`self` left out, values made JSON-friendly for the case's records and for a fault's `match`."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def bind_arguments(fn: Callable[..., Any], args: tuple, kwargs: dict) -> dict[str, Any]:
    """The call's arguments by parameter name (self/cls and framework run contexts dropped), values made
    JSON-friendly for records and `match`."""
    named = {k: v for k, v in _bound(fn, args, kwargs).items() if k not in ("self", "cls") and not _run_context(v)}
    return {str(k): plain(v) for k, v in named.items()}


def _bound(fn: Callable[..., Any], args: tuple, kwargs: dict) -> dict[str, Any]:
    """The call's arguments by parameter name, or as given when the function has no signature to bind them to."""
    try:
        signature = inspect.signature(fn)
        bound = signature.bind_partial(*args, **kwargs).arguments
    except (TypeError, ValueError):
        return {**({"args": list(args)} if args else {}), **kwargs}
    # `**kwargs` (a framework's pass-through wrapper) spread out: the tool's arguments by their names
    spread = [name for name, p in signature.parameters.items() if p.kind is p.VAR_KEYWORD and name in bound]
    for name in spread:
        bound = {**{k: v for k, v in bound.items() if k != name}, **bound[name]}
    return bound


# What frameworks pass a tool besides the model's arguments (pydantic-ai RunContext, OpenAI Agents
# RunContextWrapper/ToolContext, LangGraph ToolRuntime): not tool data, and their repr would only be noise.
# LangChain's callback managers and AutoGen's cancellation token likewise; LlamaIndex's workflow `Context` by module,
# since users name their own classes Context too.
_RUN_CONTEXTS = frozenset({"RunContext", "RunContextWrapper", "ToolContext", "ToolRuntime", "CallbackManagerForToolRun",
                           "AsyncCallbackManagerForToolRun", "CancellationToken"})
_WORKFLOW_MODULES = ("llama_index.", "workflows.")


def _run_context(value: Any) -> bool:
    return any(klass.__name__ in _RUN_CONTEXTS or (klass.__name__ == "Context"
                                                   and klass.__module__.startswith(_WORKFLOW_MODULES))
               for klass in type(value).__mro__)


def plain(value: Any, depth: int = 0) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if depth < 6 and isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if depth < 6 and isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    if hasattr(value, "model_dump"):
        try:
            return plain(value.model_dump(mode="json"), depth + 1)
        except Exception:  # noqa: BLE001 - a record must never break the tool call
            pass
    return repr(value)[:200]
