"""Extension modules: the user's code that registers faults, invariants, transports or report formats
(docs/architecture.md "Add a ..."), imported before the config is loaded.

Named by the shells, never by the config: `khaos-action run --extension MODULE_OR_FILE.py`, the action's
`extensions` input, `EvaluateRequest.extensions`. khaos.yaml comes from the pull request, and an extension runs in
khaos-action's own process (the one that holds the GitHub token), so the config cannot name code to import there.
The python worker imports the same modules (`Extension.module` / `.root`, sent in its setup frame) before it builds
the agent's transport, so an in-process extension transport, and extension faults, work there too; the worker is
the sandboxed agent process, which runs the pull request's code anyway.

Bottom layer: imports only `errors`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from khaos_action.errors import UsageError


class ExtensionError(UsageError):
    """An extension module that cannot be found or fails to import (exit 2)."""


@dataclass(frozen=True, slots=True)
class Extension:
    module: str
    """Its name in `sys.modules`."""
    root: str | None = None
    """The folder it is imported from (a file's folder; the sys.path entry of a module), or None when the import
    system finds it anyway (an installed package)."""

    @classmethod
    def of(cls, name: str) -> Extension:
        """The extension that module `name` (imported) is: where the python worker finds it again."""
        module = sys.modules[name]
        file = getattr(module, "__file__", None)
        if not file:
            return cls(name)
        depth = name.count(".") + (1 if Path(file).name == "__init__.py" else 0)
        return cls(name, str(Path(file).resolve().parents[depth]))


def is_file(spec: str) -> bool:
    """`path/to/ext.py` (a file) rather than `package.module`."""
    return spec.strip().endswith(".py") or "/" in spec or "\\" in spec


def extension_path(spec: str, base_dir: Path) -> str:
    """`spec` with a relative file path made absolute against `base_dir` (the action's working directory)."""
    return str((base_dir / spec.strip()).resolve()) if is_file(spec) else spec.strip()


def load_extensions(specs: Iterable[str], *, base_dir: Path) -> tuple[Extension, ...]:
    """Import each `MODULE` or `path/to/file.py` (relative to `base_dir`) once, in order: its registrations run."""
    return tuple(dict.fromkeys(load_extension(spec, base_dir=base_dir) for spec in specs))


def load_extension(spec: str, *, base_dir: Path) -> Extension:
    spec = spec.strip()
    if is_file(spec):
        path = (base_dir / spec).resolve()
        if not path.is_file():
            raise ExtensionError(f"extension {spec!r}: {path} is not a file. Give the path of the extension's .py "
                                 "file (relative to the current directory) or an importable module name")
        extension = Extension(path.stem, str(path.parent))
        import_extension(extension, source=spec)
        if Path(getattr(sys.modules[path.stem], "__file__", "") or "").resolve() != path:
            raise ExtensionError(f"extension {spec!r}: another module named {path.stem!r} "
                                 f"({sys.modules[path.stem].__file__}) is imported instead of {path}; rename the file")
        return extension
    if not spec or not all(part.isidentifier() for part in spec.split(".")):
        raise ExtensionError(f"extension {spec!r} is neither a module name (`package.module`) nor a .py file")
    import_extension(Extension(spec), source=spec)
    return Extension.of(spec)


def import_extension(extension: Extension, *, source: str | None = None) -> None:
    """Import one extension (its folder appended to sys.path first: the modules already found keep winning)."""
    if extension.root is not None and extension.root not in sys.path:
        sys.path.append(extension.root)
    shown = source or extension.module
    try:
        importlib.import_module(extension.module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and f"{extension.module}.".startswith(f"{exc.name}."):
            raise ExtensionError(f"extension {shown!r} was not found: install it (it must be importable by "
                                 "khaos-action's Python) or give the path of its .py file") from None
        raise ExtensionError(f"extension {shown!r} failed to import: {exc}; install what it imports") from None
    except Exception as exc:  # noqa: BLE001 - any error in the user's module is theirs to fix, with its place
        raise ExtensionError(f"extension {shown!r} failed to import: {type(exc).__name__}: {exc}{_where(exc)}. "
                             "Fix the module, or leave it out") from None


_PACKAGE = str(Path(__file__).resolve().parent)


def _where(exc: BaseException) -> str:
    """` (at file.py:12)`: the innermost frame of the failed import outside this package (the user's line that
    imported a name `khaos_action.plugins` no longer has, not the plugin module's line that refused it)."""
    tb, where = exc.__traceback__, None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if where is None or not name.startswith(_PACKAGE):
            where = f" (at {name}:{tb.tb_lineno})"
        tb = tb.tb_next
    return where or ""
