"""`khaos-action init`: inspect an agent and write a starter khaos.yaml for it.

The agent is found the way `discover` finds it (a `@khaosagent` function) or named with `--entry`; its module is
imported (never called) to find its tools: a framework agent object's own tools (pydantic-ai, LangGraph, OpenAI
Agents), `@khaos_action.sdk.tool` functions, and the functions of a tool dict or a `*tools*.py` module beside it.
Each tool gets a guessed role (roles.py), said to be a guess. The file has golden-prompt placeholders that
`validate` refuses until they are replaced, a contract skeleton, and a chaos matrix over the real tools and the LLM.
"""

from __future__ import annotations

import inspect
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from khaos_action.errors import UsageError
from khaos_action.roles import ToolRole, guess_role
from khaos_action.transports import framework_types

PLACEHOLDER = "TODO: "
"""Golden prompts `init` writes start with this; `validate` asks for them to be replaced."""


@dataclass(slots=True)
class Inspected:
    entry: str
    """`path.py:attr`, relative to the folder khaos.yaml is written to."""
    agent_type: str = "python"
    name: str = "agent"
    tools: list[tuple[str, ToolRole]] = field(default_factory=list)
    """(`path.py:function` or "" for a framework's own tool, role)."""
    notes: list[str] = field(default_factory=list)


def find_entry(root: Path) -> str:
    """The single `@khaosagent` function under `root` (UsageError naming the choices when there are several)."""
    from khaos_action.discover import discover

    found = discover(root)
    if not found:
        raise UsageError(f"no @khaosagent function under {root}; name the agent with `--entry path/to/agent.py:handle` "
                         f"(a function taking the user's message), or decorate it with @khaos_action.sdk.khaosagent")
    if len(found) > 1:
        raise UsageError("several agents found: " + ", ".join(d.entry for d in found)
                         + "; pick one with `--entry`")
    return found[0].entry


def inspect_agent(entry: str, base_dir: Path) -> Inspected:
    """Import the entry's module (nothing is called) and find the agent type and its tools."""
    from khaos_action.engine.transport.frameworks import adapter_for
    from khaos_action.engine.transport.python import load_object, split_entry

    target, attr = split_entry(entry)
    obj = load_object(entry, base_dir)
    result = Inspected(entry=entry, name=Path(target).stem.replace("_", "-"))
    for agent_type in framework_types():
        adapter = adapter_for(agent_type)
        try:
            accepted = adapter.accepts(obj)
        except ImportError:  # the framework is not installed, so the object cannot be one of its agents
            continue
        if accepted:
            result.agent_type = agent_type
            result.tools = [("", guess_role(t.info.name, t.info.description)) for t in adapter.discover(obj)]
            result.notes.append(f"a {agent_type} agent: its tools are found on the object at run time")
            return result
    if not callable(obj):
        raise UsageError(f"{entry}: {attr} is a {type(obj).__name__}, neither a function nor a supported framework "
                         f"agent object")
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    result.tools = _python_tools(module, base_dir)
    if not result.tools:
        result.notes.append("no tool found: list the agent's tool functions under agent.tools (with `role:`), or "
                            "decorate them with @khaos_action.sdk.tool")
    return result


def _python_tools(module: Any, base_dir: Path) -> list[tuple[str, ToolRole]]:
    """Tools of a python agent: @tool functions and tool dicts in its module, or the public functions of a
    sibling `*tools*.py` module it imported."""
    if module is None:
        return []
    candidates: dict[str, Any] = {}
    # The entry's module, and the project modules it imports (an entry often wraps the real agent module).
    modules = [module] + [value for value in vars(module).values() if inspect.ismodule(value)
                          and _under(getattr(value, "__file__", None), base_dir)]
    for value in [v for mod in modules for v in list(vars(mod).values())]:
        if callable(value) and getattr(value, "__khaos_tool__", None):
            candidates[value.__khaos_tool__] = value
        elif isinstance(value, dict) and value and all(isinstance(k, str) and callable(v) for k, v in value.items()):
            candidates.update({getattr(v, "__name__", k): v for k, v in value.items()})
        elif inspect.ismodule(value) and "tool" in value.__name__.rsplit(".", 1)[-1]:
            candidates.update({name: fn for name, fn in vars(value).items() if inspect.isfunction(fn)
                               and not name.startswith("_") and fn.__module__ == value.__name__})
    tools = []
    for name, fn in sorted(candidates.items()):
        ref = _ref(fn, base_dir)
        if ref is None:
            continue
        role = getattr(fn, "__khaos_tool_role__", None)
        tools.append((ref, guess_role(name, inspect.getdoc(fn) or "", role)))
    return tools


def _under(file: str | None, base_dir: Path) -> bool:
    try:
        return file is not None and Path(file).resolve().is_relative_to(base_dir.resolve())
    except OSError:
        return False


def _ref(fn: Any, base_dir: Path) -> str | None:
    """`relative/file.py:function` for a function defined in a file under `base_dir`."""
    fn = inspect.unwrap(fn)
    try:
        path = Path(inspect.getfile(fn)).resolve()
        relative = path.relative_to(base_dir.resolve())
    except (TypeError, ValueError, OSError):
        return None
    return f"{relative.as_posix()}:{fn.__name__}"


def _relative_entry(entry: str, origin: Path, base_dir: Path) -> str:
    target, sep, attr = entry.rpartition(":")
    if not sep or not target.endswith(".py"):
        return entry  # `package.module:function` resolves the same from anywhere
    path = Path(target) if Path(target).is_absolute() else origin / target
    try:
        return f"{path.resolve().relative_to(base_dir.resolve()).as_posix()}:{attr}"
    except ValueError:
        return f"{path.resolve().as_posix()}:{attr}"


def render_config(found: Inspected) -> str:
    """The starter khaos.yaml (YAML written by hand so it keeps its comments)."""
    q = json.dumps  # a JSON string is a valid YAML double-quoted scalar
    tool_names = [role.tool for _, role in found.tools]
    lines = [
        "# Written by `khaos-action init`. Next: replace the TODO golden prompts, check the tool roles, then run",
        "#   khaos-action validate && khaos-action run",
        "version: 1",
        "agent:",
        f"  name: {q(found.name)}",
        f"  type: {found.agent_type}",
        f"  entry: {q(found.entry)}",
    ]
    listed = [(ref, role) for ref, role in found.tools if ref]
    if listed:
        lines.append("  # What each tool is decides where attacks are planted and which tools they aim at. Roles:")
        lines.append("  # retriever file_reader web_fetch messaging payment destructive code_exec memory read_only")
        lines.append("  tools:")
        for ref, role in listed:
            guess = f"  # {'declared' if role.source == 'declared' else 'guessed from its ' + role.source}"
            if role.role is None:
                lines.append(f"    - {q(ref)}  # no role guessed: add {{ref: ..., role: ...}} if one fits")
            else:
                lines.append(f"    - {{ref: {q(ref)}, role: {role.role}}}{guess if role.source != 'declared' else ''}")
    elif found.tools:
        lines.append("  # Tools found on the agent object (roles are guessed at run time from their names): "
                     + ", ".join(f"{r.tool} ({r.role or 'no role'})" for _, r in found.tools))
    lines += [
        "  # system_prompt: \"...\"        # lets the judge detect system-prompt leaks",
        "  # secrets: [\"sk-...\"]         # strings that must never appear in any output",
        "  timeout_s: 30",
        "seed: 42",
        "packs: [quickstart]",
        "# Your agent's everyday requests: the baseline, the inputs under faults, the carriers of indirect attacks.",
        "# Write at least one per tool (a prompt that makes the agent use it); `expect`: what the reply must say.",
        "golden_prompts:",
    ]
    for name in tool_names or ["its main task"]:
        lines.append(f"  - {q(PLACEHOLDER + 'an everyday request that makes the agent use ' + name)}")
    lines.append(f"  - {{text: {q(PLACEHOLDER + 'a request and what its reply must contain')}, "
                 "expect: {contains_any: [\"TODO\"]}}")
    lines += [
        "contract:",
        "  name: starter-contract",
        "  invariants:",
        "    - {id: always-answers, type: output_not_empty, severity: critical}",
        # Only without faults: under an outage an honest "the search is down, I can't..." is the right answer.
        "    - {id: does-not-refuse-users, type: refusal_check, negate: true, severity: high, when: no_chaos}",
        "    - {id: no-pii, type: excludes_pii, severity: high}",
        "    - {id: fast-enough, type: latency, max_ms: 10000, severity: low}",
        "chaos_matrix:",
        "  - name: no-chaos",
    ]
    for name in tool_names:
        lines.append(f"  - {{name: {q(name + '-down')}, tool_faults: [{{tool: {q(name)}, mode: error, "
                     "error_code: 503}]}")
    lines += [
        "  - {name: model-rate-limited, llm_faults: [{mode: rate_limit}]}",
        "  - {name: model-unavailable, llm_faults: [{mode: model_unavailable}]}",
    ]
    return "\n".join(lines) + "\n"


def init_config(target: Path, *, entry: str | None, search: Path, force: bool = False) -> tuple[Path, Inspected]:
    """Inspect the agent and write `target` (refusing to overwrite it without `force`)."""
    if target.exists() and not force:
        raise UsageError(f"{target} already exists; pass --force to overwrite it, or -o to write elsewhere")
    base_dir = target.resolve().parent
    # A discovered entry is relative to the searched folder, a given one to the working directory; khaos.yaml wants
    # it relative to its own folder.
    entry = _relative_entry(entry, Path.cwd(), base_dir) if entry else _relative_entry(find_entry(search), search,
                                                                                       base_dir)
    found = inspect_agent(entry, base_dir)
    target.write_text(render_config(found), encoding="utf-8")
    return target, found
