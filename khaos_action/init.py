"""`khaos-action init`: inspect an agent and write a starter khaos.yaml for it.

The agent is found the way `discover` finds it (a `@khaosagent` function) or named with `--entry`; its module is
imported (never called), in a sandboxed worker (engine/agent_check.py, engine/agent_inspect.py), to find its
tools: a framework agent object's own tools (every framework type), `@khaos_action.sdk.tool`
functions, and the functions of a tool dict or a `*tools*.py` module beside it.
Each tool gets a guessed role (roles.py), said to be a guess. The file has golden-prompt placeholders that
`validate` refuses until they are replaced, a contract skeleton, and a chaos matrix over the real tools and the LLM.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from khaos_action.errors import UsageError
from khaos_action.roles import ToolRole, guess_role

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
    unwrapped: list[str] = field(default_factory=list)
    """Framework tools the engine cannot wrap (built-in, hosted, MCP tools): listed, never given faults."""
    notes: list[str] = field(default_factory=list)


def find_entry(root: Path) -> str:
    """The single `@khaosagent` function under `root` (UsageError naming the choices when there are several)."""
    from khaos_action.discover import discover

    found = discover(root)
    if not found:
        raise UsageError(f"no agent found under {root} (neither a @khaosagent function nor a module-level framework "
                         f"agent object such as `agent = ToolCallingAgent(...)`); name the agent with `--entry "
                         f"path/to/agent.py:agent` (a framework agent object, or a function taking the user's "
                         f"message), or decorate a function with @khaos_action.sdk.khaosagent")
    if len(found) > 1:
        raise UsageError("several agents found: " + ", ".join(d.entry for d in found)
                         + "; pick one with `--entry`")
    return found[0].entry


def inspect_agent(entry: str, base_dir: Path, *, environ: Mapping[str, str]) -> Inspected:
    """Find the agent type and its tools. The entry's module is imported (nothing is called) in a sandboxed worker,
    never here: importing runs its top-level code, and this process may hold the runner's token (docs/sandbox.md).
    `environ`: the command's environment, what the worker's clean one is made from."""
    from khaos_action.engine.agent_check import inspect_entry
    from khaos_action.engine.code_ref import split_entry

    target, attr = split_entry(entry)
    found = inspect_entry(entry, base_dir, environ=environ)
    result = Inspected(entry=entry, name=Path(target).stem.replace("_", "-"))
    if found.agent_type is None:
        raise UsageError(f"{entry}: {attr} is a {found.type_name}, neither a function nor a supported framework "
                         f"agent object")
    result.agent_type = found.agent_type
    result.tools = [(ref, guess_role(name, description, role)) for ref, name, description, role in found.tools]
    result.unwrapped = list(found.unwrapped)
    if found.agent_type != "python":
        result.notes.append(f"a {found.agent_type} agent: its tools are found on the object at run time")
    elif not result.tools:
        result.notes.append("no tool found: list the agent's tool functions under agent.tools (with `role:`), or "
                            "decorate them with @khaos_action.sdk.tool")
    return result


def _relative_entry(entry: str, origin: Path, base_dir: Path) -> str:
    target, sep, attr = entry.rpartition(":")
    if not sep or not target.endswith(".py"):
        return entry  # `package.module:function` resolves the same from anywhere
    path = Path(target) if Path(target).is_absolute() else origin / target
    # Relative even when the agent lives beside khaos.yaml's folder (`../agent/bot.py`): an absolute path names this
    # machine's checkout and breaks on the CI runner's.
    return f"{Path(os.path.relpath(path.resolve(), base_dir.resolve())).as_posix()}:{attr}"


def render_config(found: Inspected) -> str:
    """The starter khaos.yaml (YAML written by hand so it keeps its comments)."""
    q = json.dumps  # a JSON string is a valid YAML double-quoted scalar
    tool_names = [role.tool for _, role in found.tools if role.tool not in found.unwrapped]  # what faults can reach
    lines = [
        "# Written by `khaos-action init`. Next: replace the TODO golden prompts, check the tool roles, then run",
        "#   khaos-action validate && khaos-action run",
        "version: 1",
        "agent:",
        f"  name: {q(found.name)}",
        f"  type: {found.agent_type}",
        f"  entry: {q(found.entry)}",
    ]
    if found.tools:
        lines += _tool_lines(found, q)
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


def _tool_lines(found: Inspected, q: Callable[[str], str]) -> list[str]:
    """`agent.tools` with each tool's role: code to wrap as `{ref, role}`, a framework object's own tools by name
    (`{name, role}`: they are found on it at run time); a guessed role says so, for the user to check."""
    lines = ["  # What each tool is decides where attacks are planted and which tools they aim at. Roles:",
             "  # retriever file_reader web_fetch messaging payment destructive code_exec memory read_only"]
    if found.agent_type != "python":
        lines.append("  # Found on the agent object and wrapped there: listed only to give each its role.")
    entries = []
    for ref, role in found.tools:
        key = f"ref: {q(ref)}" if ref else f"name: {q(role.tool)}"
        guess = "" if role.source == "declared" else f"  # guessed from its {role.source}"
        if role.tool in found.unwrapped:
            guess += "; runs out of the engine's reach (no faults, no payloads)"
        if role.role is not None:
            entries.append(f"    - {{{key}, role: {role.role}}}{guess}")
        elif ref:
            entries.append(f"    - {q(ref)}  # no role guessed: add {{ref: ..., role: ...}} if one fits")
        else:
            entries.append(f"    # - {{{key}, role: ...}}  # no role guessed: uncomment with one if it fits")
    # a list of comments only would read as `tools: null`
    listed = any(not entry.lstrip().startswith("#") for entry in entries)
    return [*lines, "  tools:" if listed else "  tools: []", *entries]


def init_config(target: Path, *, entry: str | None, search: Path, environ: Mapping[str, str],
                force: bool = False) -> tuple[Path, Inspected]:
    """Inspect the agent and write `target` (refusing to overwrite it without `force`)."""
    from khaos_action.atomic import write_atomic

    if target.exists() and not force:
        raise UsageError(f"{target} already exists; pass --force to overwrite it, or -o to write elsewhere")
    base_dir = target.resolve().parent
    # A discovered entry is relative to the searched folder, a given one to the working directory; khaos.yaml wants
    # it relative to its own folder.
    entry = _relative_entry(entry, Path.cwd(), base_dir) if entry else _relative_entry(find_entry(search), search,
                                                                                       base_dir)
    base_dir.mkdir(parents=True, exist_ok=True)  # the agent is inspected from khaos.yaml's folder, as `run` will
    found = inspect_agent(entry, base_dir, environ=environ)
    write_atomic(target, render_config(found))  # whole or not at all: an interrupted init leaves no half file
    return target, found
