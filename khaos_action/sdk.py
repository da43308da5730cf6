"""The tiny SDK agents import: `@khaosagent` marks an agent entry, `@tool` marks a tool the engine may fault.

Importing this module must stay free: it imports nothing from khaos_action (and nothing heavy), so an agent can
depend on it in production. Outside a run `_TOOL_HOOK` is None and a `@tool` function costs one global lookup.
During a run the chaos machinery installs a hook with `set_tool_hook(hook)`; the hook is called as
`hook(name, fn, args, kwargs)` and decides whether the real function runs. For an async tool the hook may return
an awaitable (e.g. `fn(*args, **kwargs)` itself); the wrapper awaits it.
"""

from __future__ import annotations

import functools
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing constructs cost import time; annotations are strings here anyway
    from collections.abc import Callable
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])
    ToolHook = Callable[[str, Callable[..., Any], tuple, dict], Any]

_TOOL_HOOK: ToolHook | None = None

__all__ = ["get_tool_hook", "khaosagent", "set_tool_hook", "tool"]


def khaosagent(name: Any = None, *, capabilities: Any = None, description: str | None = None) -> Any:
    """Mark an agent entry for `khaos-action discover`; works bare (`@khaosagent`) or with arguments.

    The function is returned unchanged, with `__khaos_agent__ = {"name", "capabilities", "description"}`.
    """

    def mark(fn: F, agent_name: str | None = None) -> F:
        doc = (getattr(fn, "__doc__", None) or "").strip().splitlines()
        fn.__khaos_agent__ = {  # type: ignore[attr-defined]
            "name": agent_name or getattr(fn, "__name__", "agent"),
            "capabilities": capabilities,
            "description": description if description is not None else (doc[0] if doc else None),
        }
        return fn

    if callable(name):  # bare @khaosagent
        return mark(name)
    return lambda fn: mark(fn, name)


def tool(fn: Any = None, *, name: str | None = None, role: str | None = None) -> Any:
    """Mark a tool function; during a run the engine's hook sees every call (fault injection, call recording).

    `role` says what the tool is (retriever, file_reader, web_fetch, messaging, payment, destructive, code_exec,
    memory, read_only): it decides where khaos-action plants RAG/file/memory payloads and which tools
    forbidden-tool attacks aim at. It is checked when khaos-action reads the tool, not here (this module stays free).
    """

    def wrap(func: Callable[..., Any]) -> Callable[..., Any]:
        tool_name = name or getattr(func, "__name__", "tool")
        if _is_coroutine_function(func):

            @functools.wraps(func)
            async def async_tool(*args: Any, **kwargs: Any) -> Any:
                hook = _TOOL_HOOK
                if hook is None:
                    return await func(*args, **kwargs)
                result = hook(tool_name, func, args, kwargs)
                if hasattr(result, "__await__"):
                    result = await result
                return result

            wrapper: Callable[..., Any] = async_tool
        else:

            @functools.wraps(func)
            def sync_tool(*args: Any, **kwargs: Any) -> Any:
                hook = _TOOL_HOOK
                if hook is None:
                    return func(*args, **kwargs)
                return hook(tool_name, func, args, kwargs)

            wrapper = sync_tool
        wrapper.__khaos_tool__ = tool_name  # type: ignore[attr-defined]
        wrapper.__khaos_tool_role__ = role  # type: ignore[attr-defined]
        return wrapper

    if fn is not None:
        if isinstance(fn, str):  # @tool("name") reads naturally too
            name = fn
            return wrap
        return wrap(fn)
    return wrap


def set_tool_hook(hook: ToolHook | None) -> ToolHook | None:
    """Install (or with None, remove) the hook every `@tool` call goes through; returns the previous hook."""
    global _TOOL_HOOK
    previous, _TOOL_HOOK = _TOOL_HOOK, hook
    return previous


def get_tool_hook() -> ToolHook | None:
    return _TOOL_HOOK


def _is_coroutine_function(func: Any) -> bool:
    # inspect is costly to import; only reach for it when the agent imported it already.
    inspect = sys.modules.get("inspect")
    if inspect is not None:
        return bool(inspect.iscoroutinefunction(func))
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    return bool(code is not None and code.co_flags & 0x80)  # CO_COROUTINE
