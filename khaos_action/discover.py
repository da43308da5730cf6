"""`khaos-action discover`: find `@khaosagent` functions and framework agent objects by reading source, never by
importing it.

Importing a project to find its agents would run its top-level code (API clients, servers, side effects), so the
files are parsed with `ast`. A decorator counts when it is `khaosagent`, `sdk.khaosagent` or
`khaos_action.sdk.khaosagent` (or a name/alias imported from `khaos_action.sdk`), bare or called; literal
arguments (name, capabilities, description) are read with `ast.literal_eval`. A framework agent object is a
module-level assignment of a call to one of the frameworks' agent constructors (`agent = ToolCallingAgent(...)`,
`crew = Crew(...)`, `root_agent = Agent(...)` from google.adk) or to one's `from_*` classmethod
(`AgentWorkflow.from_tools_or_functions(...)`), told apart by where the name was imported from; an
object that is only a member of another found one (a crew's agents, a team's participants) is left out.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
             ".pytest_cache", ".ruff_cache", "site-packages", "dist", "build", ".khaos", ".eggs"}
_SDK_MODULES = {"khaos_action.sdk"}
_CAPABILITY_FLAGS = ("has_tools", "has_code_execution", "has_file_access", "has_network_access", "has_mcp", "has_rag",
                     "has_memory", "has_multi_turn")


# (module the constructor is imported from, or a prefix of it; its name) -> agent.type
FRAMEWORK_CONSTRUCTORS: dict[tuple[str, str], str] = {
    **{("smolagents", name): "smolagents" for name in ("ToolCallingAgent", "CodeAgent")},
    **{("llama_index.core.agent", name): "llama-index"
       for name in ("FunctionAgent", "ReActAgent", "CodeActAgent", "AgentWorkflow")},
    **{("autogen_agentchat", name): "autogen"
       for name in ("AssistantAgent", "RoundRobinGroupChat", "SelectorGroupChat", "Swarm", "MagenticOneGroupChat")},
    **{("crewai", name): "crewai" for name in ("Crew", "Agent")},
    **{("google.adk", name): "google-adk"
       for name in ("Agent", "LlmAgent", "SequentialAgent", "ParallelAgent", "LoopAgent", "Runner", "InMemoryRunner",
                    "App")},
    ("pydantic_ai", "Agent"): "pydantic-ai",
    ("agents", "Agent"): "openai-agents",
    ("langchain.agents", "create_agent"): "langgraph",
    ("langgraph.prebuilt", "create_react_agent"): "langgraph",
    ("crewai.project", "CrewBase"): "crewai",
}
_CLASS_DECORATORS = {"CrewBase"}  # of the names above, those that decorate a class rather than being called


@dataclass(frozen=True, slots=True)
class Discovered:
    entry: str
    """`relative/path.py:function`, relative to the scanned folder: what `agent.entry` accepts."""
    name: str
    metadata: dict[str, Any] = field(default_factory=dict)
    """Literal decorator arguments (`capabilities`, `description`), plus `line` and `is_async`."""


def discover(path: Path) -> list[Discovered]:
    """Every `@khaosagent` function in .py files under `path` (or in `path` itself), in path order."""
    path = Path(path)
    root = path if path.is_dir() else path.parent
    files = [path] if path.is_file() else sorted(_python_files(path))
    found: list[Discovered] = []
    for file in files:
        try:
            tree = ast.parse(file.read_bytes(), filename=str(file))
        except (SyntaxError, ValueError, OSError):
            continue  # not our business to report broken files; the python transport will when it imports one
        relative = file.relative_to(root).as_posix()
        found += _agents_in(tree, relative) + _objects_in(tree, relative)
    return found


def _python_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")
                         and not (Path(folder, d) / "pyvenv.cfg").exists())
        files += [Path(folder, n) for n in names if n.endswith(".py")]
    return files


def _agents_in(tree: ast.Module, relative: str) -> list[Discovered]:
    local_names, module_aliases = _sdk_imports(tree)
    found = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call else decorator
            if not _is_khaosagent(target, local_names, module_aliases):
                continue
            args = _literal_args(call)
            doc = (ast.get_docstring(node) or "").strip().splitlines()
            metadata: dict[str, Any] = {"line": node.lineno, "is_async": isinstance(node, ast.AsyncFunctionDef)}
            if args.get("capabilities") is not None:
                metadata["capabilities"] = args["capabilities"]
            description = args.get("description") or (doc[0] if doc else None)
            if description:
                metadata["description"] = description
            name = args.get("name") if isinstance(args.get("name"), str) else node.name
            found.append(Discovered(entry=f"{relative}:{node.name}", name=name, metadata=metadata))
            break
    return found


def _objects_in(tree: ast.Module, relative: str) -> list[Discovered]:
    """Module-level framework agent objects (`name = Constructor(...)`), members of another one left out."""
    constructors = _framework_imports(tree)
    calls: dict[str, tuple[ast.Call, str, int]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            kind = _framework_call(node.value, constructors)
            if kind:
                calls[node.targets[0].id] = (node.value, kind, node.lineno)
    members = {n.id for call, _, _ in calls.values() for arg in [*call.args, *(k.value for k in call.keywords)]
               for n in ast.walk(arg) if isinstance(n, ast.Name) and n.id in calls}
    found = [Discovered(entry=f"{relative}:{name}", name=name, metadata={"line": line, "type": kind})
             for name, (_, kind, line) in calls.items() if name not in members]
    return found + _decorated_classes(tree, relative, constructors)


def _decorated_classes(tree: ast.Module, relative: str, constructors: dict[str, str]) -> list[Discovered]:
    """Classes a framework's decorator makes agents of: CrewAI's `@CrewBase class LatestAi` (the project
    `crewai create crew` writes), whose `crew()` builds the crew."""
    return [Discovered(entry=f"{relative}:{node.name}", name=node.name,
                       metadata={"line": node.lineno, "type": constructors[_dotted(decorator) or ""]})
            for node in tree.body if isinstance(node, ast.ClassDef)
            for decorator in node.decorator_list if (_dotted(decorator) or "") in constructors
            and (_dotted(decorator) or "").rpartition(".")[2] in _CLASS_DECORATORS]


def _framework_imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> agent.type, for the frameworks' agent constructors this file imports (`module.Name` for a
    module imported whole); `.compile` stands for a LangGraph graph being compiled."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                kind = _constructor(node.module, alias.name)
                if kind:
                    found[alias.asname or alias.name] = kind
            if node.module.startswith("langgraph"):
                found[".compile"] = "langgraph"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found.update({f"{alias.asname or alias.name}.{name}": kind for (module, name), kind
                              in FRAMEWORK_CONSTRUCTORS.items() if alias.name == module})
    return found


def _constructor(module: str, name: str) -> str | None:
    return next((kind for (prefix, constructor), kind in FRAMEWORK_CONSTRUCTORS.items()
                 if name == constructor and (module == prefix or module.startswith(prefix + "."))), None)


def _framework_call(call: ast.Call, constructors: dict[str, str]) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "compile":
        return constructors.get(".compile")
    if isinstance(func, ast.Subscript):  # a generic: `Agent[AirlineContext](...)`
        func = func.value
    if isinstance(func, ast.Attribute) and func.attr.startswith("from_"):  # `AgentWorkflow.from_tools_or_functions`
        func = func.value
    dotted = _dotted(func)
    return constructors.get(dotted) if dotted else None


def _sdk_imports(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names bound to khaosagent and names bound to the sdk module, from this file's imports."""
    names, modules = {"khaosagent"}, {"sdk", "khaos_action.sdk"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in _SDK_MODULES:
            names |= {a.asname or a.name for a in node.names if a.name == "khaosagent"}
        elif isinstance(node, ast.ImportFrom) and node.module == "khaos_action":
            modules |= {a.asname or a.name for a in node.names if a.name == "sdk"}
        elif isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names if a.name in _SDK_MODULES and a.asname}
    return names, modules


def _is_khaosagent(node: ast.expr, names: set[str], modules: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute) and node.attr == "khaosagent":
        return _dotted(node.value) in modules
    return False


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def _literal_args(call: ast.Call | None) -> dict[str, Any]:
    if call is None:
        return {}
    args: dict[str, Any] = {}
    pairs = [("name", a) for a in call.args[:1]] + [(k.arg, k.value) for k in call.keywords if k.arg]
    for key, value in pairs:
        try:
            args[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError):
            continue  # computed at run time: nothing we can read without importing
    return args


def capability_overrides(capabilities: Any) -> dict[str, bool]:
    """Decorator capabilities (`["tools", "rag"]`, `{"has_tools": True}`) -> the config's `has_*` flags."""
    if isinstance(capabilities, dict):
        items = capabilities.items()
    elif isinstance(capabilities, (list, tuple, set, frozenset)):
        items = ((c, True) for c in capabilities)
    elif isinstance(capabilities, str):
        items = [(capabilities, True)]
    else:
        return {}
    flags: dict[str, bool] = {}
    for key, value in items:
        flag = str(key).strip().lower().replace("-", "_")
        flag = flag if flag.startswith("has_") else f"has_{flag}"
        if flag in _CAPABILITY_FLAGS and isinstance(value, bool):
            flags[flag] = value
    return flags


def format_discovered(found: list[Discovered]) -> str:
    """A ready-to-paste `agent:` block for the first agent; the others follow as commented alternatives."""
    if not found:
        return ("No @khaosagent functions or framework agent objects found. Decorate your agent's entry function:\n\n"
                "    from khaos_action.sdk import khaosagent\n\n"
                "    @khaosagent(name=\"support-bot\")\n"
                "    def handle(text: str) -> str: ...\n")
    blocks = []
    for index, item in enumerate(found):
        agent: dict[str, Any] = {"name": item.name, "type": item.metadata.get("type", "python"), "entry": item.entry}
        flags = capability_overrides(item.metadata.get("capabilities"))
        if flags:
            agent["capabilities"] = flags
        text = yaml.safe_dump({"agent": agent}, sort_keys=False, allow_unicode=True).rstrip()
        about = f"# {item.entry}" + (f" — {item.metadata['description']}" if item.metadata.get("description") else "")
        if index:
            text = "\n".join(f"# {line}" for line in text.splitlines())
        blocks.append(f"{about}\n{text}")
    head = f"# {len(found)} agent{'s' if len(found) != 1 else ''} found; paste into khaos.yaml"
    if len(found) > 1:
        head += " (the others are commented out)"
    return head + "\n" + "\n\n".join(blocks) + "\n"
