"""Nothing below the shells reads the process environment or builds an HTTP client: the shells
build a `Services` (khaos_action/services.py) and pass it down. An AST walk over the package finds every
`os.environ` / `os.getenv` / `os.putenv` and every `httpx.Client(...)` / `httpx.AsyncClient(...)`; each module
allowed one says why."""

from __future__ import annotations

import ast
from pathlib import Path

import khaos_action

ROOT = Path(khaos_action.__file__).parent

ALLOWED = {
    "cli.py": "a shell: words errors as workflow commands when GITHUB_ACTIONS is set",
    "commands.py": "a shell: builds the run's Services from os.environ",
    "services.py": "the HTTP client factories the shells hand down",
    "engine/sandbox.py": "hide_runner_secrets, the shells' first step: re-execs the process without the runner's "
                         "secrets in its exec-time environment (it runs before any Services exists)",
    "demo/agent.py": "the bundled demo agent: user code, run in the agent's worker process",
}


def reads_of_the_world(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"
                and node.attr in ("environ", "getenv", "putenv", "unsetenv")):
            found.append((node.lineno, f"os.{node.attr}"))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "httpx"
                and node.func.attr in ("Client", "AsyncClient")):
            found.append((node.lineno, f"httpx.{node.func.attr}(...)"))
    return found


def test_only_the_shells_read_the_environment_or_build_http_clients() -> None:
    offenders = [f"khaos_action/{path.relative_to(ROOT).as_posix()}:{line}: {what}"
                 for path in sorted(ROOT.rglob("*.py"))
                 if path.relative_to(ROOT).as_posix() not in ALLOWED
                 for line, what in reads_of_the_world(path.read_text(encoding="utf-8"))]
    assert not offenders, ("below the shells, take the environment and HTTP clients from the run's Services "
                           "(khaos_action/services.py):\n" + "\n".join(offenders))


def test_the_walk_finds_each_kind_of_read() -> None:
    source = ("import os, httpx\nos.environ.get('A')\nos.getenv('B')\nhttpx.AsyncClient(timeout=1)\n"
              "httpx.Client()\nos.path.join('a')\n")
    assert sorted(reads_of_the_world(source)) == [
        (2, "os.environ"), (3, "os.getenv"), (4, "httpx.AsyncClient(...)"), (5, "httpx.Client(...)")]


def test_every_allowed_module_still_exists_and_still_needs_it() -> None:
    for name in ALLOWED:
        assert reads_of_the_world((ROOT / name).read_text(encoding="utf-8")), f"{name} no longer needs its exception"
