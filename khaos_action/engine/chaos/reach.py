"""Whether configured tool faults can reach a tool: checked before the run (declared tools) and after it (tools
that calls actually went through). Never skip a tool fault silently."""

from __future__ import annotations

import fnmatch
from typing import Any

from khaos_action.errors import ConfigError


class ToolsUnreachable(ConfigError):
    """Tool faults are configured but no configured tool can be reached."""


HOW_TO_EXPOSE = ("add the tool callables to `agent.tools` (e.g. `agents/tools.py:lookup_order`), decorate them "
                 "with `@khaos_action.sdk.tool`, or point `agent.tool_registry` at the dict that maps tool names "
                 "to callables")



def _tool_fault_names(fault_specs: list[Any]) -> list[str]:
    """The tool names (globs) of the tool faults among `fault_specs` (ToolFault models or case fault dicts)."""
    names = []
    for spec in fault_specs:
        data = spec.model_dump() if hasattr(spec, "model_dump") else dict(spec)
        target = data.get("target")
        if target == "tool" or (target is None and "tool" in data):
            names.append(str(data.get("tool") or "*"))
    return names


def check_tool_faults_reachable(tool_names: list[str], fault_specs: list[Any]) -> None:
    """ConfigError when tool faults are configured but name no tool the engine can wrap (never skip silently)."""
    wanted = _tool_fault_names(fault_specs)
    if not wanted:
        return
    if not tool_names:
        raise ToolsUnreachable(f"Tool faults are configured ({', '.join(sorted(set(wanted)))}) but the agent exposes "
                               f"no tool the engine can wrap; {HOW_TO_EXPOSE}.")
    missing = sorted({w for w in wanted if w != "*" and not any(fnmatch.fnmatchcase(t, w) for t in tool_names)})
    if missing:
        raise ToolsUnreachable(f"Tool faults target {', '.join(missing)}, which the agent does not declare (declared: "
                               f"{', '.join(tool_names)}); {HOW_TO_EXPOSE}.")


def unreached_tools(reached: set[str], tool_names: list[str], fault_specs: list[Any]) -> list[str]:
    """Declared tools that faults target but that no call ever went through during the run."""
    wanted = _tool_fault_names(fault_specs)
    targeted = {t for t in tool_names for w in wanted if w == "*" or fnmatch.fnmatchcase(t, w)}
    return sorted(targeted - reached)


def never_reached_message(names: list[str], fault_specs: list[Any] = (), results: list[Any] = ()) -> str:
    """Why the targeted tools never went through a wrapper, from what the cases that carried their faults did:
    the agent failed before calling anything, answered without a tool, or called a copy the engine cannot patch."""
    lead = (f"Tool faults target {', '.join(names)}, but no call reached {'it' if len(names) == 1 else 'them'} "
            f"through the engine's wrapper during the run")
    ids = _fault_ids_targeting(names, fault_specs)
    cases = [r for r in results if ids & set(_fault_ids(r))]
    called = {str(c.get("name")) for r in results for c in _tool_calls(r) if isinstance(c, dict)}
    why = next(filter(None, (explain(names, cases, called) for explain in _WHY_UNREACHED)), None)
    return f"{lead}: {why or _MAYBE_A_COPY}"


def _fault_ids_targeting(names: list[str], fault_specs: list[Any]) -> set[str]:
    """The ids of the tool faults whose `tool` glob matches one of `names`."""
    ids = set()
    for spec in map(_plain, fault_specs):
        glob = str(spec.get("tool") or "*")
        if spec.get("target") == "tool" and any(fnmatch.fnmatchcase(name, glob) for name in names):
            ids.add(str(spec.get("id")))
    return ids


def _failed_first(names: list[str], cases: list[Any], called: set[str]) -> str | None:
    if not cases or not all(getattr(r, "error", None) and not getattr(r, "tool_calls", None) for r in cases):
        return None
    first = str(cases[0].error)[:300]
    return (f"the agent failed before calling any tool in all {len(cases)} case(s) with these faults "
            f"(first error: {first}). Fix that error (a missing `agent.context`, a model that cannot be "
            f"reached) and the faults will have a call to fire on.")


def _answered_without_tools(names: list[str], cases: list[Any], called: set[str]) -> str | None:
    if not cases or any(getattr(r, "tool_calls", None) for r in cases):
        return None
    return (f"the agent answered without calling any tool in the {len(cases)} case(s) with these "
            f"faults; give the scenario an input that needs {names[0]}.")


def _called_a_copy(names: list[str], cases: list[Any], called: set[str]) -> str | None:
    if not set(names) & called:
        return None
    return (f"the agent called {', '.join(sorted(set(names) & called))}, but through a copy the "
            f"engine cannot patch (e.g. inside a tuple or functools.partial). To make the tool reachable, "
            f"{HOW_TO_EXPOSE}.")


_WHY_UNREACHED = (_failed_first, _answered_without_tools, _called_a_copy)
"""What the cases carrying the faults say about why no call reached the tools, tried in order."""
_MAYBE_A_COPY = ("the agent may hold a copy the engine cannot patch (e.g. inside a tuple or functools.partial), "
                 f"or took another path. To make the tool reachable, {HOW_TO_EXPOSE}.")


def _plain(spec: Any) -> dict[str, Any]:
    return spec.model_dump() if hasattr(spec, "model_dump") else dict(spec)


def http_faults_never_fired(fault_specs: list[Any], results: list[Any], traffic: Any) -> list[str]:
    """One warning per http/llm fault that was scheduled, ran, and never fired, saying which HTTP clients were
    intercepted and which calls the cases made, so a wrong host/path can be told from an unsupported client."""
    specs = {str(spec.get("id")): spec for spec in map(_plain, fault_specs) if spec.get("target") in ("http", "llm")}
    warnings = []
    for fault_id, spec in specs.items():
        ran = [r for r in results if fault_id in _fault_ids(r)]
        if ran and not any(_fault_hits(r).get(fault_id) for r in ran):
            warnings.append(_never_fired(fault_id, spec, len(ran), traffic))
    return warnings


def _fault_ids(result: Any) -> Any:
    return getattr(result, "fault_ids", ()) or ()


def _fault_hits(result: Any) -> Any:
    return getattr(result, "fault_hits", {}) or {}


def _tool_calls(result: Any) -> Any:
    return getattr(result, "tool_calls", ()) or ()


def _never_fired(fault_id: str, spec: dict[str, Any], cases: int, traffic: Any) -> str:
    where = ", ".join(f"{k} {spec[k]}" for k in ("host", "path") if spec.get(k)) or "any host"
    clients = ", ".join(traffic.clients) if traffic is not None and traffic.clients else "none"
    seen = traffic.seen.most_common(5) if traffic is not None else []
    calls = "; ".join(f"{method} {host}{path} via {client} ×{n}" for (client, method, host, path), n in seen)
    # What tells the cause comes first (reports cut long warnings): the calls seen, then how to read them.
    return (f"{spec.get('target')} fault {fault_id} ({spec.get('mode')}, {where}) never fired in its {cases} "
            f"case(s). Calls seen: {calls or 'none'}. Intercepted clients: {clients}. Another host/path: fix the "
            f"fault's host/path; no call: the agent used an unintercepted client (urllib, gRPC, a subprocess) or "
            f"never made it.")
