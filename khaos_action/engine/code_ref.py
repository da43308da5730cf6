"""A code reference imported: `path/to/file.py:attr` or `package.module:attr` (the attribute may be dotted,
`app.agent.run`) to the object it names, with an AgentError that names the reference, says why it could not be
imported and how to fix it. The agent's entry, its tools and tool registry, its context factory, its reset and an
attack's state checks are all named so, and all loaded here: by the python and framework transports, the state
checks, the tool patcher and `validate`.

A file is imported under a unique module name with its own folder on sys.path, so sibling imports work; a file
inside a package as that package's module; a module with the config folder on sys.path. A file imported already
(the agent imported its tools) is the one module object both share.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from khaos_action.errors import AgentError


def split_entry(spec: str) -> tuple[str, str]:
    """`target:attr` -> (target, attr). Split at the last colon so Windows drive letters survive."""
    target, sep, attr = spec.strip().rpartition(":")
    if not sep or not target or not attr:
        raise AgentError(f"{spec!r} is not an entry: use `path/to/file.py:function` or `package.module:function`.")
    return target, attr


def load_callable(spec: str, base_dir: Path, *, what: str = "agent.entry") -> Callable[..., Any]:
    """Import `file.py:func` or `module:func` and return the callable; AgentError naming the entry if impossible."""
    obj = load_object(spec, base_dir, what=what)
    if not callable(obj):
        from khaos_action.engine.hints import object_hint

        hint = f" Hint: {object_hint(obj)}." if what == "agent.entry" else ""
        raise AgentError(f"{what} {spec!r}: {split_entry(spec)[1]} is a {type(obj).__name__}, not a function.{hint}")
    return obj


def load_object(spec: str, base_dir: Path, *, what: str = "agent.entry") -> Any:
    """`file.py:attr` / `module:attr` -> the object (a tool registry need not be callable)."""
    target, attr = split_entry(spec)
    module = import_target(target, base_dir, spec, what)
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            names = sorted(n for n in vars(module) if not n.startswith("_") and callable(getattr(module, n)))
            raise AgentError(f"{what} {spec!r}: {target} has no attribute {part!r}. "
                             f"Callables it defines: {', '.join(names[:20]) or 'none'}.") from None
    return obj


def import_target(target: str, base_dir: Path, spec: str, what: str) -> Any:
    """The module a reference's part before the colon names: a file (`tools.py`, `src/app/graph.py`) or a dotted
    module; AgentError naming `what` and `spec` if it cannot be imported."""
    is_file = target.endswith(".py") or "/" in target or "\\" in target
    return _import_file(target, base_dir, spec, what) if is_file else _import_module(target, base_dir, spec, what)


def _import_file(target: str, base_dir: Path, spec: str, what: str) -> Any:
    path = Path(target)
    path = (path if path.is_absolute() else Path(base_dir) / path).resolve()
    if not path.is_file():
        raise AgentError(f"{what} {spec!r}: file {path} does not exist. Entry paths are relative to the folder of "
                         "khaos.yaml.")
    loaded = find_loaded_module(path)
    if loaded is not None:  # imported already (e.g. the agent imported its tools): share the one module object
        return loaded
    dotted, root = _package_name(path)
    if dotted is not None and _package_is_free(dotted.split(".")[0], Path(root)):
        # A file inside a package (`src/react_agent/graph.py` doing `from react_agent.context import Context` or
        # `from .context import ...`) is imported as that package's module, with the package's parent on sys.path,
        # as `python -m` or an installed package would have it; the folder too, so sibling imports (`from tools
        # import x`) still work.
        return _import_dotted(dotted, (root, str(path.parent)), spec, what)
    _put_first(str(path.parent))  # sibling imports (`from tools import lookup`) resolve like `python file.py`
    name = f"_khaos_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:10]}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise AgentError(f"{what} {spec!r}: {path} cannot be imported as a Python module.")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses, pickling and typing look the module up while it executes
    try:
        module_spec.loader.exec_module(module)
    except BaseException as exc:
        sys.modules.pop(name, None)
        raise _import_failure(what, spec, exc) from exc
    return module


def _package_name(path: Path) -> tuple[str | None, str]:
    """`.../src/react_agent/graph.py` (react_agent has an __init__.py) -> ("react_agent.graph", ".../src")."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.name.isidentifier():
        parts.insert(0, folder.name)
        folder = folder.parent
    if len(parts) == 1 or not path.stem.isidentifier():
        return None, str(folder)
    return ".".join(parts), str(folder)


def _package_is_free(top: str, root: Path) -> bool:
    """Whether `top` can be imported from `root`: not already a different package (a user folder named `agents`
    must not be confused with the openai-agents SDK); if it is, the file is imported on its own instead."""
    existing = sys.modules.get(top)
    if existing is None:
        try:
            found = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            found = None
        if found is None:
            return True
        locations = list(found.submodule_search_locations or ())
    else:
        locations = list(getattr(existing, "__path__", None) or ())
    return (root / top).resolve() in [Path(p).resolve() for p in locations]


def _import_module(target: str, base_dir: Path, spec: str, what: str) -> Any:
    return _import_dotted(target, (str(Path(base_dir).resolve()),), spec, what)


def _import_dotted(dotted: str, folders: tuple[str, ...], spec: str, what: str) -> Any:
    """`dotted` imported with `folders` on sys.path (the last one first), the failure an AgentError."""
    for folder in folders:
        _put_first(folder)
    try:
        return importlib.import_module(dotted)
    except BaseException as exc:
        raise _import_failure(what, spec, exc) from exc


def _put_first(folder: str) -> None:
    if folder not in sys.path:
        sys.path.insert(0, folder)


def _import_failure(what: str, spec: str, exc: BaseException) -> AgentError:
    if isinstance(exc, ModuleNotFoundError):
        hint = (f"install the agent's dependencies (the `install` input / `pip install -r requirements.txt`) or fix "
                f"the module path; {exc.name!r} must be importable from the folder of khaos.yaml")
    elif isinstance(exc, SyntaxError):
        hint = f"fix the syntax error at {exc.filename}:{exc.lineno}"
    elif isinstance(exc, SystemExit):
        hint = "the module calls sys.exit() when imported; guard its script code with `if __name__ == \"__main__\":`"
    else:
        from khaos_action.engine.hints import import_hint

        hint = import_hint(exc) or ("importing the module runs its top-level code; make it importable without side "
                                    "effects")
    return AgentError(f"{what} {spec!r} could not be imported: {type(exc).__name__}: {exc}. Hint: {hint}.")


def find_loaded_module(path: Path) -> Any | None:
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if file and file.endswith(path.name):
            try:
                if Path(file).resolve() == path:
                    return module
            except OSError:
                continue
    return None
