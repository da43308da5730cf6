"""Which HTTP libraries the python agents' zygote imports before it forks workers.

Every worker patches the HTTP libraries its agent uses (engine.chaos.intercept). Imported once in the zygote, a
library costs its import once per run instead of once per worker; but an agent that uses none of them would pay
for them on every run's critical path for nothing (docs/performance.md). So the
zygote imports them unless the agent's entry file provably imports only the standard library. Correctness does not
depend on the guess: a library the agent imports later is patched the moment it is imported.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

URLLIB = ("urllib.request", "khaos_action.engine.chaos.intercept_urllib",
          "khaos_action.engine.chaos.intercept_httpclient")
"""The standard library's HTTP clients (urllib.request imports http.client) and their interceptions: preloaded for an
entry file that imports urllib or http."""
HTTP_LIBRARIES = ("httpx", "httpx2", "requests.adapters", "aiohttp", "khaos_action.engine.chaos.intercept_httpx",
                  "khaos_action.engine.chaos.intercept_requests", "khaos_action.engine.chaos.intercept_aiohttp",
                  *URLLIB)


def http_preload(entry: str | None, base_dir: Path) -> list[str]:
    """HTTP_LIBRARIES, or none when `entry` (`file.py:func` or `package.module:func`) names a file whose imports are
    all standard-library modules (only the standard library's HTTP clients, URLLIB, when one of them is urllib or
    http)."""
    target = (entry or "").rpartition(":")[0]
    path = _entry_file(target, base_dir) if target else None
    try:
        tree = ast.parse(path.read_bytes()) if path is not None else None
    except (OSError, SyntaxError, ValueError):
        tree = None
    if tree is None:
        return list(HTTP_LIBRARIES)
    uses_urllib = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module:  # a sibling module of a package: it may import anything
                return list(HTTP_LIBRARIES)
            names = [node.module]
        else:
            continue
        tops = {name.split(".")[0] for name in names}
        if any(top not in sys.stdlib_module_names for top in tops):
            return list(HTTP_LIBRARIES)
        uses_urllib = uses_urllib or bool(tops & {"urllib", "http"})
    return list(URLLIB) if uses_urllib else []


def _entry_file(target: str, base_dir: Path) -> Path | None:
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target)
        return path if path.is_absolute() else Path(base_dir) / path
    module = Path(base_dir, *target.split("."))
    for candidate in (module.with_suffix(".py"), module / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None  # an installed module: its imports are not looked at
