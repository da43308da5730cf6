"""What `run` would trip on in the agent's code, found by `validate` without calling the agent: the entry and every
`agent.tools` callable are imported (module top-level code runs, the agent does not) and their signatures checked.

A tool reference that does not resolve is reported at its own line, with the real functions of its module as the
suggestion, and its name is kept out of every other check: a typo in `agent.tools` must not make the fault checks
blame the correct `tool:` names of the chaos matrix (and suggest copying the typo).
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from khaos_action.config.agent_block import InProcessAgent
from khaos_action.config.agents import PythonAgent
from khaos_action.config.errors import ConfigIssue, KeyPath
from khaos_action.engine.chaos.tool_kinds import cannot_wrap
from khaos_action.errors import KhaosError
from khaos_action.tool_info import tool_name

if TYPE_CHECKING:
    from khaos_action.config.models import AgentConfig


@dataclass(frozen=True, slots=True)
class CodeToCheck:
    """What the agent-code checks read of the config: the agent block, the folder its refs are relative to, and how
    an issue at a key path is made: located (file, line) by the config stage, which holds khaos.yaml's lines; in the
    worker, which does not, the plain (key path, message, fix) it sends back to be located."""

    agent: AgentConfig
    base_dir: Path
    issue: Callable[[KeyPath, str, str | None], Any]


@dataclass(slots=True)
class AgentCode:
    issues: list[ConfigIssue] = field(default_factory=list)
    broken_tools: set[str] = field(default_factory=set)
    """Names of `agent.tools` entries that did not resolve."""
    wrapped_tools: list[str] | None = None
    """A framework agent's tools the engine wraps (what a tool fault can reach: not its built-in, hosted or MCP
    tools); None when not known (not a framework agent, or its tools could not be read)."""


def check_agent_code(code: CodeToCheck) -> AgentCode:
    """Import the python entry and tools of `code.agent` (framework entries too) and check what can be checked."""
    from khaos_action.engine.code_ref import load_object

    agent, issue = code.agent, code.issue
    found = AgentCode()
    if not isinstance(agent, InProcessAgent):  # the entry's in_process: its code is imported
        return found
    base = code.base_dir
    if agent.entry:
        try:
            entry = load_object(agent.entry, base, what="agent.entry")
        except KhaosError as exc:
            found.issues.append(issue(("agent", "entry"), str(exc).rstrip("."), None))
        else:
            if isinstance(agent, PythonAgent):  # a plain callable: not a framework's agent object, nor whatever
                # an extension type's entry is
                problem = _entry_signature_problem(entry)
                if problem:
                    found.issues.append(issue(("agent", "entry"), f"agent.entry {agent.entry!r} {problem}",
                                              _entry_fix(entry)))
    for index, ref in enumerate(agent.tool_refs()):
        try:
            tool = load_object(ref, base, what="agent.tools")
        except KhaosError as exc:
            found.broken_tools.add(tool_name(ref))
            found.issues.append(issue(("agent", "tools", _position(agent, ref, index)), _first_line(exc),
                                      _did_you_mean(ref, base)))
            continue
        problem = cannot_wrap(tool)  # engine/chaos/tool_kinds.py: functions, methods, framework tool objects
        if problem:
            found.broken_tools.add(tool_name(ref))
            found.issues.append(issue(("agent", "tools", _position(agent, ref, index)),
                                      f"agent.tools {ref!r} {problem}", None))
    return found


def _position(agent: Any, ref: str, index: int) -> int:
    """The index of `ref` in `agent.tools` as written (entries that name a tool are not refs to import)."""
    written = [getattr(t, "ref", t) for t in getattr(agent, "tools", ())]
    return written.index(ref) if ref in written else index


def _entry_signature_problem(fn: Callable[..., Any]) -> str | None:
    if not callable(fn):
        return f"is a {type(fn).__name__}, not a function"
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None  # builtins and C callables: nothing to check
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in params) or positional:
        return _too_many_required(positional)
    return "takes no positional argument, but it is called with the user's message"


def _too_many_required(positional: list[inspect.Parameter]) -> str | None:
    """An entry is called with the message and at most the history: more required arguments cannot be given."""
    required = [p for p in positional if p.default is p.empty]
    if len(required) > 2:
        return f"requires {len(required)} arguments ({', '.join(p.name for p in required)}); it gets the message " \
               f"and at most the history"
    return None


def _entry_fix(entry: Any) -> str:
    if callable(entry):
        return "The entry is called as `entry(message)` or `entry(message, history)`"
    from khaos_action.engine.hints import object_hint

    hint = object_hint(entry)
    return hint[0].upper() + hint[1:]


def _first_line(exc: Exception) -> str:
    return str(exc).split(". Callables it defines")[0].rstrip(".")


def _did_you_mean(ref: str, base: Any) -> str | None:
    """The closest function the referenced module really defines (never a name from the config itself)."""
    from khaos_action.engine.code_ref import load_object, split_entry

    target, attr = split_entry(ref)
    try:
        module = load_object(f"{target}:__name__", base, what="agent.tools")  # imports the module, if it exists
    except KhaosError:
        return None
    import sys

    mod = sys.modules.get(module) if isinstance(module, str) else None
    names = [n for n, v in vars(mod).items() if callable(v) and not n.startswith("_")] if mod else []
    close = difflib.get_close_matches(attr, names, n=1, cutoff=0.6)
    return f"Did you mean `{target}:{close[0]}`?" if close else None
