"""Tool wrappers for python agents: every configured tool callable (and every tool-registry entry and
`@khaos_action.sdk.tool` function) is answered through the case's fault plan for the duration of a run.

Replacing `tools.lookup_order` does not reach an agent that did `from tools import lookup_order`, nor a framework
that stored the function in a Tool object. So the patcher replaces *every reference* to the original function
object it can rewrite — module globals of every loaded module copy, dicts, lists and closure cells found through
`gc.get_referrers` (framework toolsets such as pydantic-ai `Tool.function` or LangChain `StructuredTool.func`),
class attributes via setattr — and restores each one on exit. References it cannot rewrite (tuples, partials)
stay unpatched; `reached` then shows the tool was never called through a wrapper.

Methods on an instance and framework tool objects are wrapped where they live instead (engine/chaos/tool_kinds.py:
one registry entry per kind says which attribute the framework calls), so the framework keeps its own object.

Enter the patcher after the agent module is imported (the python transport's `start`), so the copies the agent
imported exist and are found.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import inspect
import sys
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from khaos_action.engine.chaos.plan import ToolDecision, decide_tool, finish_tool
from khaos_action.engine.chaos.reach import (  # noqa: F401 - re-exported: the engine imports them from here
    HOW_TO_EXPOSE,
    ToolsUnreachable,
    check_tool_faults_reachable,
    never_reached_message,
    unreached_tools,
)
from khaos_action.engine.chaos.tool_arguments import bind_arguments, plain
from khaos_action.engine.chaos.tool_kinds import FUNCTION, METHOD, Arguments, ToolKind, cannot_wrap, kind_of
from khaos_action.engine.chaos.tool_registry import getattr_path, load_callable_or_object, registry_mapping
from khaos_action.engine.context import CaseContext, case_now
from khaos_action.errors import ConfigError
from khaos_action.faults.effects import NO_RESULT, ToolInvocation
from khaos_action.messages import ToolCall


class ToolPatcher:
    """Context manager that wraps the run's tools and restores everything on exit.

    `tool_names`: every tool the wrappers can see (sdk tools are added when first called);
    `reached`: tools actually called through a wrapper during the run."""

    def __init__(self, tool_specs: list[str], registry_spec: str | None = None, base_dir: Path = Path("."),
                 *, deep: bool = True, callables: Sequence[tuple[str, Callable[..., Any]]] = ()) -> None:
        self.tool_specs = list(tool_specs)
        self.callables = list(callables)  # (name, function) pairs a framework adapter discovered on the agent
        self.registry_spec = registry_spec
        self.base_dir = Path(base_dir)
        self.deep = deep
        self.tool_names: list[str] = []
        self.reached: set[str] = set()
        self._undo: list[Callable[[], None]] = []
        self._wrappers: dict[int, Callable[..., Any]] = {}
        self._previous_hook: Any = None

    # ---- entering and leaving -------------------------------------------------------------------------------------
    def __enter__(self) -> ToolPatcher:
        try:
            targets: list[tuple[str, Any]] = []
            if self.registry_spec:
                targets += self._wrap_registry(self.registry_spec)
            for spec in self.tool_specs:
                targets += [(name, fn) for name, fn in self._resolve(spec)]
            targets += self.callables
            for name, _fn in targets:
                if name not in self.tool_names:
                    self.tool_names.append(name)
            self._wrap_all(targets)
            self._install_sdk_hook()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        while self._undo:
            self._undo.pop()()
        self._wrappers.clear()

    # ---- resolving ------------------------------------------------------------------------------------------------
    def _resolve(self, spec: str) -> list[tuple[str, Any]]:
        """Every loaded copy of `spec`'s function (a file imported under two module names is two copies)."""
        from khaos_action.engine.code_ref import load_callable, split_entry

        target, attr = split_entry(spec)
        found = [load_callable(spec, self.base_dir, what="agent.tools")]
        if target.endswith(".py") or "/" in target or "\\" in target:
            path = (Path(target) if Path(target).is_absolute() else self.base_dir / target).resolve()
            for module in _modules_from(path):
                obj = getattr_path(module, attr)
                if obj is not None and all(obj is not other for other in found):
                    found.append(obj)
        name = attr.rsplit(".", 1)[-1]
        problem = cannot_wrap(found[0])
        if problem:
            raise ConfigError(f"agent.tools {spec!r} {problem}.")
        return [(getattr(fn, "__khaos_tool__", None) or _kind_name(fn) or name, fn) for fn in found]

    def _wrap_registry(self, spec: str) -> list[tuple[str, Any]]:
        registry = registry_mapping(load_callable_or_object(spec, self.base_dir))
        out = []
        for key, fn in list(registry.items()):
            if callable(fn) and not hasattr(fn, "__khaos_tool__"):
                out.append((str(key), fn))
                registry[key] = self._wrapper(str(key), fn)
                self._undo.append(functools.partial(_restore_item, registry, key, fn, registry[key]))
        return out

    # ---- wrapping, by kind -----------------------------------------------------------------------------------------
    def _wrap_all(self, targets: list[tuple[str, Any]]) -> None:
        """Each target wrapped as its kind says: framework tool objects in place first (a function they hold must
        not be wrapped a second time by reference), methods on their instance, then references to functions."""
        by_kind = _by_kind(targets)
        for name, obj, kind in by_kind["object"]:
            for attr in kind.slots(obj):
                self._set_on(obj, attr, self._wrapper(name, getattr(obj, attr), kind.arguments))
        plain = [(name, obj) for name, obj, _ in by_kind["function"]]
        for name, bound, _ in by_kind["method"]:
            plain += self._wrap_method(name, bound)
        self._replace_references(plain)

    def _wrap_method(self, name: str, bound: types.MethodType) -> list[tuple[str, Any]]:
        """A method wrapped on its instance (`inv.lookup` read at call time), and every bound copy of it the agent
        holds (`tools=[inv.lookup]` stored it once), which the reference replacement then swaps."""
        owner, func = bound.__self__, bound.__func__
        attr = getattr(func, "__name__", "")
        wrapper = self._wrapper(name, bound)
        if isinstance(owner, type):  # a classmethod: the class attribute, kept callable from instances too
            original = owner.__dict__.get(attr)
            if original is not None:
                setattr(owner, attr, staticmethod(wrapper))
                self._undo.append(functools.partial(setattr, owner, attr, original))
        elif attr:
            self._set_on(owner, attr, wrapper)
        gc.unfreeze()  # frozen objects (khaos_action.gc_freeze) are invisible to gc.get_referrers
        copies = [ref for ref in gc.get_referrers(owner) if isinstance(ref, types.MethodType)
                  and ref.__func__ is func and ref.__self__ is owner and ref is not bound]
        self._wrappers.update({id(copy): wrapper for copy in copies})
        return [(name, bound), *((name, copy) for copy in copies)]

    def _set_on(self, obj: Any, attr: str, wrapper: Callable[..., Any]) -> None:
        """`obj.attr = wrapper` on the instance itself (its class, and the framework's code, unchanged), undone on
        exit. object.__setattr__: pydantic models (LangChain, CrewAI tools) and frozen objects accept it too."""
        try:
            own = object.__getattribute__(obj, "__dict__")
        except AttributeError:
            own = {}
        had, before = attr in own, own.get(attr)
        try:
            object.__setattr__(obj, attr, wrapper)
        except (AttributeError, TypeError) as exc:
            raise ConfigError(f"tool {type(obj).__qualname__}.{attr} cannot be wrapped for tool faults: "
                              f"{exc}") from None
        self._undo.append(functools.partial(_restore_attr, obj, attr, had, before, wrapper))

    # ---- replacing references ------------------------------------------------------------------------------------
    def _replace_references(self, targets: list[tuple[str, Any]]) -> None:
        originals = {id(fn): (name, fn) for name, fn in targets}
        if not originals:
            return
        for name, fn in originals.values():
            self._wrapper(name, fn)
        ours = self._ours(originals)
        for container in self._referrers(tuple(fn for _, fn in originals.values())):
            if id(container) not in ours and not isinstance(container, types.FrameType):
                self._replace_in(container, originals)

    def _ours(self, originals: dict[int, tuple[str, Any]]) -> set[int]:
        """The containers of this patcher's own that hold the functions: never rewritten."""
        ours = {id(w.__dict__) for w in self._wrappers.values()} | {id(originals), id(self.__dict__),
                                                                    id(self._wrappers)}
        return ours | {id(cell) for w in self._wrappers.values() for cell in (w.__closure__ or ())}

    def _referrers(self, fns: tuple[Any, ...]) -> list[Any]:
        """What may hold the functions: everything that refers to them (deep), or the modules' namespaces."""
        gc.unfreeze()  # frozen objects (khaos_action.gc_freeze) are invisible to gc.get_referrers
        if self.deep:
            return gc.get_referrers(*fns)
        return [vars(m) for m in list(sys.modules.values()) if hasattr(m, "__dict__")]

    def _replace_in(self, container: Any, originals: dict[int, tuple[str, Any]]) -> None:
        if isinstance(container, dict):
            self._replace_in_dict(container, originals)
        elif isinstance(container, list):
            self._replace_in_list(container, originals)
        elif isinstance(container, types.CellType):
            self._replace_in_cell(container, originals)
        else:
            self._replace_in_slots(container, originals)

    def _replace_in_list(self, container: list[Any], originals: dict[int, tuple[str, Any]]) -> None:
        for index, value in enumerate(container):
            if id(value) in originals and value is originals[id(value)][1]:
                container[index] = self._wrappers[id(value)]
                self._undo.append(functools.partial(_restore_item, container, index, value, container[index]))

    def _replace_in_cell(self, container: types.CellType, originals: dict[int, tuple[str, Any]]) -> None:
        value = container.cell_contents
        if id(value) in originals:
            container.cell_contents = self._wrappers[id(value)]
            self._undo.append(functools.partial(_restore_cell, container, value, container.cell_contents))

    def _replace_in_slots(self, obj: Any, originals: dict[int, tuple[str, Any]]) -> None:
        """Objects that hold the function in a slot, or in attributes stored inline (CPython 3.11+ keeps instance
        attributes outside a dict until one is asked for, so the gc reports the object itself: pydantic-ai's
        Tool and FunctionSchema). Rewritten with object.__setattr__, which frozen dataclasses also accept."""
        try:
            attrs = object.__getattribute__(obj, "__dict__")
        except Exception:  # noqa: BLE001 - no instance dict (or an exotic object): slots only
            attrs = None
        names = _slot_names(type(obj)) + (list(attrs) if isinstance(attrs, dict) else [])
        for name in names:
            try:
                value = object.__getattribute__(obj, name)
            except AttributeError:
                continue
            if id(value) in originals and value is originals[id(value)][1]:
                try:
                    object.__setattr__(obj, name, self._wrappers[id(value)])
                except (AttributeError, TypeError):
                    continue  # read-only (bound methods, partials): stays unpatched, `reached` will show it
                self._undo.append(functools.partial(_restore_slot, obj, name, value, self._wrappers[id(value)]))

    def _replace_in_dict(self, container: dict[Any, Any], originals: dict[int, tuple[str, Any]]) -> None:
        owner = _owning_class(container)
        for key, value in list(container.items()):
            if id(value) not in originals or value is not originals[id(value)][1]:
                continue
            wrapper = self._wrappers[id(value)]
            if owner is not None:  # a class namespace: go through setattr so the type's method cache is updated
                setattr(owner, key, wrapper)
                self._undo.append(functools.partial(setattr, owner, key, value))
            else:
                container[key] = wrapper
                self._undo.append(functools.partial(_restore_item, container, key, value, wrapper))

    # ---- the wrapper ---------------------------------------------------------------------------------------------
    def _wrapper(self, name: str, fn: Callable[..., Any], arguments: Arguments | None = None) -> Callable[..., Any]:
        existing = self._wrappers.get(id(fn))
        if existing is not None:
            return existing
        run = self.run_async if inspect.iscoroutinefunction(fn) else self.run_sync

        if inspect.iscoroutinefunction(fn):
            async def wrapper(*args: Any, **kwargs: Any) -> Any:
                return await run(name, fn, args, kwargs, arguments)
        else:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                return run(name, fn, args, kwargs, arguments)

        functools.update_wrapper(wrapper, fn)
        wrapper.__khaos_tool_wrapper__ = True  # type: ignore[attr-defined]
        self._wrappers[id(fn)] = wrapper
        return wrapper

    def _begin(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict,
               arguments: Arguments | None = None) -> tuple[CaseContext, ToolDecision, ToolCall] | None:
        self.reached.add(name)
        ctx = case_now()
        if ctx is None:
            return None
        named = bind_arguments(fn, args, kwargs) if arguments is None else {
            str(k): plain(v) for k, v in arguments(args, kwargs).items()}
        call = ToolInvocation(name, named)
        decision = decide_tool(ctx, call, self.tool_names)
        record = ToolCall(name=name, args=call.args, fault=decision.fault_id)
        ctx.tool_calls.append(record)
        return ctx, decision, record

    def run_sync(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict,
                 arguments: Arguments | None = None) -> Any:
        begun = self._begin(name, fn, args, kwargs, arguments)
        if begun is None:
            return fn(*args, **kwargs)
        ctx, decision, record = begun
        effect = decision.effect
        try:
            if effect.delay_s:
                time.sleep(effect.delay_s)
            if effect.error is not None:
                record.error_source = "fault"
                raise effect.error
            result = effect.result if effect.result is not NO_RESULT else fn(*args, **kwargs)
            record.result = result = finish_tool(ctx, decision, result)
        except BaseException as exc:
            tool_failed(ctx, record, exc)
            if decision.fault is not None and effect.error is None:
                record.fault = None  # the real tool raised before the fault's transform could answer
            raise
        return result

    async def run_async(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict,
                        arguments: Arguments | None = None) -> Any:
        begun = self._begin(name, fn, args, kwargs, arguments)
        if begun is None:
            return await fn(*args, **kwargs)
        ctx, decision, record = begun
        effect = decision.effect
        try:
            if effect.delay_s:
                await asyncio.sleep(effect.delay_s)
            if effect.error is not None:
                record.error_source = "fault"
                raise effect.error
            result = effect.result if effect.result is not NO_RESULT else await fn(*args, **kwargs)
            record.result = result = finish_tool(ctx, decision, result)
        except BaseException as exc:
            tool_failed(ctx, record, exc)
            if decision.fault is not None and effect.error is None:
                record.fault = None  # the real tool raised before the fault's transform could answer
            raise
        return result

    # ---- @khaos_action.sdk.tool ------------------------------------------------------------------------------------
    def _install_sdk_hook(self) -> None:
        from khaos_action import sdk

        self._previous_hook = sdk.set_tool_hook(self._sdk_hook)
        self._undo.append(lambda: sdk.set_tool_hook(self._previous_hook))

    def _sdk_hook(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        if name not in self.tool_names:
            self.tool_names.append(name)
        if inspect.iscoroutinefunction(fn):
            return self.run_async(name, fn, args, kwargs)  # the sdk wrapper awaits it
        return self.run_sync(name, fn, args, kwargs)


# ---- helpers ---------------------------------------------------------------------------------------------------------


def tool_failed(ctx: CaseContext, record: ToolCall, exc: BaseException) -> None:
    """Record a raising tool call. Frameworks hand a tool's exception to the model as text (the OpenAI Agents SDK,
    LangGraph's ToolNode, pydantic-ai error hooks), so the run may look fine: an error the tool raised by itself
    (no fault of ours) in a case without faults fails the case, naming the tool (the engine decides, see
    CaseContext.tool_errors); under chaos it is a note, since an injected HTTP or LLM fault may be what broke it."""
    record.error = f"{type(exc).__name__}: {exc}"[:500]
    if record.error_source == "fault" or not isinstance(exc, Exception):
        return  # the planned fault, or a cancellation / timeout of the whole case
    record.error_source = "tool"
    message = f"tool {record.name!r} raised {record.error}"
    if ctx.faults:
        fired = sorted(k for k, n in ctx.hits.items() if n and not str(k).startswith(("injection:", "replay:")))
        cause = f"after {', '.join(fired)} fired in this case" if fired else "with no fault fired yet"
        ctx.notes.append(f"{message}: not a tool fault of ours, the tool itself raised, {cause}")
        return
    ctx.tool_errors.append(f"{message}: the tool itself broke on a call without any injected fault")


def _by_kind(targets: list[tuple[str, Any]]) -> dict[str, list[tuple[str, Any, ToolKind]]]:
    """The targets grouped by how they are wrapped (framework objects, methods, functions), each once."""
    by_kind: dict[str, list[tuple[str, Any, ToolKind]]] = {"object": [], "method": [], "function": []}
    seen: set[int] = set()
    for name, obj in targets:
        # `@sdk.tool` functions already go through the hook; wrapping them again would apply faults twice.
        if id(obj) in seen or hasattr(obj, "__khaos_tool__"):
            continue
        seen.add(id(obj))
        kind = kind_of(obj)
        if kind is None:
            raise ConfigError(f"tool {name!r} {cannot_wrap(obj)}.")
        group = "function" if kind is FUNCTION else "method" if kind is METHOD else "object"
        by_kind[group].append((name, obj, kind))
    return by_kind


def _kind_name(obj: Any) -> str | None:
    kind = kind_of(obj)
    return kind.tool_name(obj) if kind is not None else None


def _restore_attr(obj: Any, attr: str, had: bool, before: Any, wrapper: Any) -> None:
    try:
        if object.__getattribute__(obj, attr) is not wrapper:
            return
        if had:
            object.__setattr__(obj, attr, before)
        else:
            object.__delattr__(obj, attr)
    except (AttributeError, TypeError):
        pass


def _modules_from(path: Path) -> list[Any]:
    out = []
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if file and file.endswith(path.name):
            try:
                if Path(file).resolve() == path:
                    out.append(module)
            except OSError:
                continue
    return out


def _owning_class(namespace: dict[Any, Any]) -> type | None:
    """The class whose namespace this dict is (a type holds its dict; the gc sees that reference)."""
    if "__module__" not in namespace:
        return None
    for referrer in gc.get_referrers(namespace):
        if (
            isinstance(referrer, type)
            and len(referrer.__dict__) == len(namespace)
            and all(referrer.__dict__.get(k) is v for k, v in namespace.items())
        ):
            return referrer
    return None


def _restore_item(container: Any, key: Any, original: Any, wrapper: Any) -> None:
    try:
        if container[key] is wrapper:
            container[key] = original
    except (KeyError, IndexError):
        pass


def _slot_names(cls: type) -> list[str]:
    names: list[str] = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else [n for n in slots if n not in ("__dict__", "__weakref__")]
    return names


def _restore_slot(obj: Any, name: str, original: Any, wrapper: Any) -> None:
    if getattr(obj, name, None) is wrapper:
        object.__setattr__(obj, name, original)


def _restore_cell(cell: types.CellType, original: Any, wrapper: Any) -> None:
    if cell.cell_contents is wrapper:
        cell.cell_contents = original
