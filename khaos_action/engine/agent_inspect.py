"""`init`'s look into the agent's code, done on the worker's side of engine/agent_check.py (a sandboxed one-shot
worker, never our process: importing the entry runs its module's top-level code).

The entry is imported, never called. The answer is plain data: the framework whose agent object it is (and that
object's own tools), or the tools of a python agent (`@khaos_action.sdk.tool` functions, tool dicts, the public
functions of a `*tools*.py` module it imported), each as its `file.py:function` reference, name, docstring and
declared role. Roles are guessed from them in the engine (init.py), so nothing the agent's process says is trusted
beyond being text.
"""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path
from typing import Any

from khaos_action.engine.hints import import_hint
from khaos_action.errors import AgentError
from khaos_action.transports import framework_types


def inspect_entry(entry: str, base_dir: Path) -> dict[str, Any]:
    """What `init` needs to know of `entry`: {"agent_type": a framework's type, "python", or None with "type_name"
    when the object is neither callable nor a framework's agent; "tools": [{ref, name, description, role}]}."""
    from khaos_action.engine.code_ref import load_object
    from khaos_action.engine.transport.frameworks import adapter_for

    obj = load_object(entry, base_dir)
    for agent_type in framework_types():
        adapter = adapter_for(agent_type)
        if adapter.module not in sys.modules:  # the agent's code never imported it: not one of its agents
            continue
        resolve = getattr(adapter, "resolve", None)
        try:  # what a framework's resolve raises is the agent's own failure (a @CrewBase crew() without its API key)
            candidate = resolve(obj) if resolve is not None else obj
        except Exception as exc:
            hint = import_hint(exc)
            raise AgentError(f"{entry}: building the {agent_type} agent from it raised {type(exc).__name__}: "
                             f"{exc}" + (f". Hint: {hint}" if hint else "")) from exc
        try:
            accepted = adapter.accepts(candidate)
        except ImportError:  # the framework is not installed, so the object cannot be one of its agents
            continue
        if accepted:
            return {"agent_type": agent_type, "tools": [
                {"ref": "", "name": t.info.name, "description": t.info.description, "role": None,
                 "wrapped": t.target is not None} for t in adapter.discover(candidate)]}
    if not callable(obj):
        return {"agent_type": None, "type_name": type(obj).__name__, "tools": []}
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    return {"agent_type": "python", "tools": _python_tools(module, base_dir)}


def _python_tools(module: Any, base_dir: Path) -> list[dict[str, Any]]:
    """Tools of a python agent: @tool functions and tool dicts in its module, or the public functions of a
    sibling `*tools*.py` module it imported."""
    if module is None:
        return []
    candidates: dict[str, Any] = {}
    project = _project(module, base_dir)
    for mod in _project_modules(module, project):
        for value in list(vars(mod).values()):
            candidates.update(_tools_in(value))
    tools = (_tool_entry(name, fn, project, base_dir) for name, fn in sorted(candidates.items()))
    return [tool for tool in tools if tool is not None]


def _project(module: Any, base_dir: Path) -> Path:
    """The folder whose modules are the user's: khaos.yaml's, or the entry's own when khaos.yaml is kept elsewhere
    (`ci/khaos.yaml` naming `../agent.py:handle`)."""
    file = getattr(module, "__file__", None)
    return base_dir if file is None or _under(file, base_dir) else Path(file).resolve().parent


def _project_modules(module: Any, base_dir: Path) -> list[Any]:
    """The entry's module, and the project modules it imports (an entry often wraps the real agent module)."""
    return [module] + [value for value in vars(module).values() if inspect.ismodule(value)
                       and _under(getattr(value, "__file__", None), base_dir)]


def _is_tool_dict(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and all(isinstance(k, str) and callable(v)
                                                           for k, v in value.items())


def _tools_in(value: Any) -> dict[str, Any]:
    """The tools one module-level value stands for, by name: an @tool function, a dict of tools, or the public
    functions of a `*tool*` module."""
    if callable(value) and getattr(value, "__khaos_tool__", None):
        return {value.__khaos_tool__: value}
    if _is_tool_dict(value):
        return {getattr(v, "__name__", k): v for k, v in value.items()}
    if inspect.ismodule(value) and "tool" in value.__name__.rsplit(".", 1)[-1]:
        return _public_functions(value)
    return {}


def _public_functions(module: Any) -> dict[str, Any]:
    """The public functions a module defines itself (not those it imported)."""
    return {name: fn for name, fn in vars(module).items() if inspect.isfunction(fn)
            and not name.startswith("_") and fn.__module__ == module.__name__}


def _tool_entry(name: str, fn: Any, project: Path, base_dir: Path) -> dict[str, Any] | None:
    """A tool as init lists it, or None when its function is not defined under `project`."""
    ref = _ref(fn, project, base_dir)
    if ref is None:
        return None
    role = getattr(fn, "__khaos_tool_role__", None)
    return {"ref": ref, "name": name, "description": inspect.getdoc(fn) or "",
            "role": role if isinstance(role, str) else None}


def _under(file: str | None, base_dir: Path) -> bool:
    try:
        return file is not None and Path(file).resolve().is_relative_to(base_dir.resolve())
    except OSError:
        return False


def _ref(fn: Any, project: Path, base_dir: Path) -> str | None:
    """`relative/file.py:function` (relative to khaos.yaml's folder) for a function defined under `project`."""
    fn = inspect.unwrap(fn)
    try:
        path = Path(inspect.getfile(fn)).resolve()
        if not path.is_relative_to(project.resolve()):
            return None
        relative = Path(os.path.relpath(path, base_dir.resolve()))
    except (TypeError, ValueError, OSError):
        return None
    return f"{relative.as_posix()}:{fn.__name__}"
