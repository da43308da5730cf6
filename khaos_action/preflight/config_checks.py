"""Semantic checks of a validated khaos.yaml and its packs: what the schema alone cannot see, without calling the agent.

The schema (models.py) knows the shape of each entry; these checks look across entries: fault parameters (owned by
the fault registry), tool names the agent does not declare, `when` conditions that no scenario of the matrix can
make true, unknown mutation types. Each problem is a `ConfigIssue` positioned at its line, so `validate`, `run` and
`contract validate` report them exactly like schema errors (the config stage, pipeline/config.py, raises them
as one ConfigFileError).
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from khaos_action.config.agent_block import InProcessAgent
from khaos_action.config.errors import ConfigIssue, KeyPath
from khaos_action.config.models import KhaosConfig, Scenario
from khaos_action.errors import ConfigError
from khaos_action.outcome import Phase
from khaos_action.transports import TRANSPORTS

if TYPE_CHECKING:
    from khaos_action.config.loader import LoadedConfig
    from khaos_action.config.packs import LoadedPack

SCENARIO_FAULT_KEYS = (("tool_faults", "tool"), ("llm_faults", "llm"), ("http_faults", "http"),
                       ("context_attacks", "context"), ("mcp_faults", "mcp"))

# `when` value -> (can some scenario make it true?, what the matrix lacks, how to fix it)
_WHEN_REACHABLE = {
    "tool_faults_active": (lambda s: bool(s.tool_faults or s.mcp_faults), "no chaos_matrix scenario has tool_faults",
                           "Add a scenario with `tool_faults: [...]`, or change `when`"),
    "llm_faults_active": (lambda s: bool(s.llm_faults), "no chaos_matrix scenario has llm_faults",
                          "Add a scenario with `llm_faults: [...]`, or change `when`"),
    "any_chaos_active": (lambda s: s.has_chaos, "no chaos_matrix scenario injects any fault",
                         "Add a scenario with faults, or use `when: always`"),
    "no_chaos": (lambda s: not s.has_chaos, "every chaos_matrix scenario injects faults",
                 "Add a scenario without faults (e.g. `{name: no-chaos}`), or change `when`"),
}


def check_semantics(loaded: LoadedConfig, packs: Sequence[LoadedPack] = (), broken_tools: Collection[str] = (),
                    wrapped_tools: Sequence[str] | None = None) -> list[ConfigIssue]:
    """Every semantic error in the config and its packs (empty when there is none). `broken_tools`: `agent.tools`
    entries that did not import (reported on their own line); while there are any, fault tool names are not
    compared with the declared ones, so a typo there never makes the correct names look wrong. `wrapped_tools`: a
    framework agent's tools the engine wraps (read from the object by validate), which its tool faults must name."""
    config = loaded.config
    declared = None if broken_tools else declared_tools(config)
    targets = declared if wrapped_tools is None or broken_tools else list(wrapped_tools)
    issues: list[ConfigIssue] = []
    for path, target, spec in scenario_fault_entries(config.chaos_matrix):
        issues += _fault_issues(loaded.issue, loaded.positions, path, target, spec, targets)
    for pack in packs:
        for path, target, spec in pack_fault_entries(pack):
            issues += _fault_issues(pack.issue, pack.positions, path, target, spec, targets)
    issues += _when_issues(loaded)
    issues += _mutation_issues(loaded)
    issues += golden_prompt_issues(loaded, packs)
    if declared is not None:
        issues += expect_tool_issues(loaded.issue, ("golden_prompts",), config.golden_prompts, declared)
        for pack in packs:
            issues += expect_tool_issues(pack.issue, ("inputs",), pack.pack.inputs, declared)
    return issues


def expect_tool_issues(issue: Callable[..., ConfigIssue], where: KeyPath, prompts: Sequence[Any],
                       declared: Sequence[str]) -> list[ConfigIssue]:
    """`expect.tools_called` / `tools_not_called` naming a tool the agent does not declare: a `tools_not_called`
    typo would pass forever, a `tools_called` one fail forever."""
    issues = []
    for index, prompt in enumerate(prompts):
        expect = prompt.expect
        for key in ("tools_called", "tools_not_called"):
            for position, name in enumerate(getattr(expect, key, None) or ()):
                if not _declares(declared, name):
                    issues.append(issue(
                        (*where, index, "expect", key, position),
                        f"expect.{key} names `{name}`, which the agent does not declare "
                        f"(agent.tools: {', '.join(declared)})",
                        _did_you_mean(name, declared) or "Use one of the agent's tool names"))
    return issues


GOLDEN_PROMPTS_HINT = (
    "Add a few everyday requests your agent should handle (ideally ones that make it use each of its tools), e.g.\n"
    "      golden_prompts:\n"
    "        - \"What's the weather in Lisbon tomorrow?\"\n"
    "        - {text: \"Find me a flight to Rome on May 3\", expect: {contains_any: [\"flight\", \"Rome\"]}}\n"
    "    Without `expect`, a reply passes when it is a non-empty answer that is no refusal.")


def golden_prompt_issues(loaded: LoadedConfig, packs: Sequence[LoadedPack] = ()) -> list[ConfigIssue]:
    """A pack without inputs of its own (every built-in pack) runs the config's golden prompts: none is an error."""
    placeholders = [loaded.issue(("golden_prompts", index), f"golden prompt {index + 1} is still a placeholder "
                                 f"written by `khaos-action init`", "Replace it with a request your agent handles "
                                 "every day (one that makes it use the tool it names)")
                    for index, prompt in enumerate(loaded.config.golden_prompts) if prompt.text.startswith("TODO:")]
    if loaded.config.golden_prompts:
        return placeholders
    needing = [p.pack.name for p in packs if not p.pack.inputs
               and any(phase.type in (Phase.BASELINE, Phase.RESILIENCE) for phase in p.pack.phases)]
    if not needing:
        return []
    where: KeyPath = ("packs",) if "packs" in (loaded.raw or {}) else ("agent",)
    shown = ", ".join(f"`{name}`" for name in needing)
    return [loaded.issue(where, f"pack{'s' if len(needing) > 1 else ''} {shown} run{'' if len(needing) > 1 else 's'} "
                                f"your agent's own golden prompts (baseline, faults, attack carriers), but "
                                f"`golden_prompts` is empty", GOLDEN_PROMPTS_HINT)]


def semantic_warnings(loaded: LoadedConfig) -> list[ConfigIssue]:
    """Problems that may be intended and so do not stop a run: `tool_called`/`tool_not_called` invariants about
    tools the agent does not declare (an agent may report tool calls of its own in its reply)."""
    config = loaded.config
    declared = declared_tools(config)
    if declared is None or config.contract is None:
        return []
    warnings = []
    for index, inv in enumerate(config.contract.invariants):
        for key, tool in inv.tools_named().items():  # each invariant type says which tools it names
            if _declares(declared, tool):
                continue
            warnings.append(loaded.issue(
                ("contract", "invariants", index, key),
                f"invariant `{inv.id}` ({inv.type}) names tool `{tool}`, which the agent does not declare "
                f"(agent.tools: {', '.join(declared)})",
                _did_you_mean(tool, declared) or "Check the name, or add the tool to agent.tools"))
    return warnings


def check_contract(config: KhaosConfig) -> None:
    """A contract runs its invariants over a chaos matrix and, unless they bring their own probes, the golden
    prompts: either missing would score nothing, never 100%."""
    contract = config.contract
    if contract is None:
        if config.chaos_matrix:
            raise ConfigError("chaos_matrix is set but there is no `contract` whose invariants it would check; "
                              "add `contract: {invariants: [...]}`")
        return
    if not config.chaos_matrix:
        raise ConfigError("the contract has no chaos_matrix to run over (an empty matrix would score nothing, "
                          "not 100%); add at least `chaos_matrix: [{name: no-chaos}]`")
    needs_prompts = [i.id for i in contract.invariants if not i.own_prompts()]
    if needs_prompts and not config.golden_prompts:
        raise ConfigError(f"invariants {', '.join(needs_prompts)} run on golden_prompts, but golden_prompts is "
                          f"empty; add `golden_prompts: [\"...\"]`")


def declared_tools(config: KhaosConfig) -> list[str] | None:
    """Tool names a python agent declares, or None when they cannot be known without importing the agent
    (no `agent.tools`, a `tool_registry`, or an agent in another process / framework)."""
    agent = config.agent
    if (not isinstance(agent, InProcessAgent) or TRANSPORTS[agent.type].adapter is not None or not agent.tools
            or agent.tool_registry):
        return None
    return agent.tool_names()


def scenario_fault_entries(matrix: Sequence[Scenario]) -> Iterable[tuple[KeyPath, str, Any]]:
    """(key path, target, fault spec) of every fault in the chaos matrix."""
    for index, scenario in enumerate(matrix):
        for key, target in SCENARIO_FAULT_KEYS:
            for position, spec in enumerate(getattr(scenario, key)):
                yield ("chaos_matrix", index, key, position), target, spec


def pack_fault_entries(pack: LoadedPack) -> Iterable[tuple[KeyPath, str, Any]]:
    """(key path in the pack file, target, fault spec) of every phase fault, targeted as the scheduler does (by the
    fault registry)."""
    from khaos_action.faults.registry import fault_target

    for index, phase in enumerate(pack.pack.phases):
        for position, spec in enumerate(phase.faults):
            yield ("phases", index, "faults", position), fault_target(spec), spec


# ---- faults ------------------------------------------------------------------------------------------------------

def _fault_issues(issue: Callable[..., ConfigIssue], positions: Mapping[KeyPath, Any], path: KeyPath, target: str,
                  spec: Any, declared: list[str] | None) -> list[ConfigIssue]:
    """The registry's verdict on one fault entry, and whether the agent declares its tool."""
    issues = []
    problem = _registry_issue(issue, positions, path, target, spec)
    if problem is not None:
        issues.append(problem)
    tool = spec.model_dump().get("tool") if target == "tool" else None
    if declared is not None and isinstance(tool, str) and not _declares(declared, tool):
        issues.append(issue(
            path + ("tool",),
            f"tool fault targets `{tool}`, which the agent does not declare (agent.tools: {', '.join(declared)})",
            _did_you_mean(tool, declared)
            or f"Add the tool to agent.tools (e.g. `tools.py:{tool}`), or use `tool: \"*\"` for every tool. A "
               f"framework's built-in, hosted or MCP tool runs out of the engine's reach: no fault can target it"))
    return issues


def _registry_issue(issue: Callable[..., ConfigIssue], positions: Mapping[KeyPath, Any], path: KeyPath, target: str,
                    spec: Any) -> ConfigIssue | None:
    """The fault registry's objection to one entry, pointed at the offending key when it names one."""
    from khaos_action.config.fault_entries import case_fault
    from khaos_action.faults.registry import FaultConfigError, fault_names

    try:
        case_fault(spec, target)  # validated here, once: the cases carry this validated entry
    except FaultConfigError as exc:
        message = str(exc).rstrip(".")
        if exc.kind == "unknown_mode":
            # The registry lists every valid mode; the closest one is what a typo meant.
            key = "type" if path + ("type",) in positions and path + ("mode",) not in positions else "mode"
            return issue(path + (key,), message, _did_you_mean(str(spec.mode), fault_names(target)))
        # "unknown parameter `delay`" / "`delay_ms`: Input should be ...": point at that key when it is written.
        key = exc.key
        return issue(path + (key,) if key and path + (key,) in positions else path, message)
    return None


def _declares(declared: Sequence[str], pattern: str) -> bool:
    return pattern == "*" or any(fnmatch.fnmatchcase(name, pattern) for name in declared)


# ---- invariants and mutation -------------------------------------------------------------------------------------

def _when_issues(loaded: LoadedConfig) -> list[ConfigIssue]:
    config = loaded.config
    if config.contract is None or not config.chaos_matrix:
        return []  # no matrix at all is reported by the contract planner ("an empty matrix scores nothing")
    issues = []
    for index, inv in enumerate(config.contract.invariants):
        rule = _WHEN_REACHABLE.get(inv.when)
        if rule is None:
            continue
        reachable, lacking, hint = rule
        if not any(reachable(scenario) for scenario in config.chaos_matrix):
            issues.append(loaded.issue(
                ("contract", "invariants", index, "when"),
                f"invariant `{inv.id}` has `when: {inv.when}`, but {lacking}, so it could never be checked", hint))
    return issues


def _mutation_issues(loaded: LoadedConfig) -> list[ConfigIssue]:
    mutation = loaded.config.mutation
    if mutation is None:
        return []
    from khaos_action.mutation import MUTATORS, resolve_types  # its regexes: only for a config that mutates

    try:
        resolve_types(mutation.types)
    except ConfigError as exc:
        types = [mutation.types] if isinstance(mutation.types, str) else list(mutation.types)
        unknown = [index for index, name in enumerate(types) if name not in MUTATORS]
        path: KeyPath = ("mutation", "types", unknown[0]) if unknown else ("mutation", "types")
        hint = _did_you_mean(types[unknown[0]], list(MUTATORS)) if unknown else None
        return [loaded.issue(path, str(exc).rstrip("."), hint)]
    return []


# ---- helpers -----------------------------------------------------------------------------------------------------

def _did_you_mean(found: str, choices: Sequence[str]) -> str | None:
    close = difflib.get_close_matches(found, list(choices), n=1, cutoff=0.6)
    return f"Did you mean `{close[0]}`?" if close else None


__all__ = ["check_semantics", "declared_tools", "pack_fault_entries", "scenario_fault_entries",
           "semantic_warnings"]
