"""The agent's capability profile (Khaos ADR 4): which attack channels exist, and where each answer came from.

Every flag is decided by the strongest `Evidence` for it; the kinds, strongest first (SOURCE_KINDS):
config overrides (`agent.capabilities`) > agent metadata (`@khaosagent(capabilities=...)`) > declared tool roles
(`agent.tools: [{ref, role}]`, `@tool(role=...)`) > framework adapters (e.g. a LangGraph checkpointer is multi-turn
state) > the entry's signature (`handle(text, history=None)` is multi-turn) > tool definitions (parameters and
descriptions, then names) > defaults (everything false: an attack only runs through a channel we have evidence
for, and the skip is reported as not applicable, never as blocked).
A source is a string `kind` or `kind:detail` ("role:get_guide", "tool:send_email", "framework:langgraph
checkpointer"), so another inference (a framework adapter) plugs in by handing `infer_capabilities` more evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from khaos_action.config.models import AgentConfig
from khaos_action.errors import ConfigError
from khaos_action.roles import ROLE_FLAGS
from khaos_action.tool_info import ToolInfo

FLAGS: tuple[str, ...] = (
    "has_tools", "has_code_execution", "has_file_access", "has_network_access", "has_mcp", "has_rag", "has_memory",
    "has_multi_turn",
)

# Human wording for not-applicable reasons: "agent has no RAG (has_rag=false)".
FLAG_LABELS: dict[str, str] = {
    "has_tools": "tools", "has_code_execution": "code execution", "has_file_access": "file access",
    "has_network_access": "network access", "has_mcp": "MCP servers", "has_rag": "RAG",
    "has_memory": "persistent memory", "has_multi_turn": "multi-turn conversation state",
}

# Strong words count anywhere (tool name, parameter names, docstring). Weak words are too common in prose and
# parameter names ("Fetch the order", `customer_email`, `promo_code`) and count only in the tool's own name.
# Stems end with "*"; keys with "_" match inside the joined name.
_STRONG: dict[str, tuple[str, ...]] = {
    "has_network_access": ("http", "https", "url", "urls", "webhook", "smtp", "download*", "upload*", "curl",
                           "browse*", "website", "api_call", "internet", "web_search", "web_result", "web_page"),
    "has_file_access": ("file", "files", "filename", "filepath", "filesystem", "directory", "folder"),
    "has_rag": ("retriev*", "vector*", "embedding*", "kb", "knowledge", "rag", "docs", "documents", "corpus"),
    "has_memory": ("memory", "memories", "remember*", "memorize", "memorise"),
    "has_code_execution": ("exec", "execute*", "shell", "bash", "python", "run_code", "execute_code", "eval",
                           "subprocess", "interpreter", "sandbox"),
    "has_mcp": ("mcp",),
}
_WEAK: dict[str, tuple[str, ...]] = {
    "has_network_access": ("send", "post", "fetch", "email", "web", "request", "http_get"),
    "has_file_access": ("read", "write", "path", "open", "save", "fs"),
    "has_rag": ("doc", "index", "lookup_docs"),
    "has_memory": ("note", "notes", "recall", "store"),
    "has_code_execution": ("run", "command", "cmd", "code"),
}


class CapabilityProfile(BaseModel):
    """What the agent can do; drives which attacks apply."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    has_tools: bool = False
    has_code_execution: bool = False
    has_file_access: bool = False
    has_network_access: bool = False
    has_mcp: bool = False
    has_rag: bool = False
    has_memory: bool = False
    has_multi_turn: bool = False

    def as_dict(self) -> dict[str, bool]:
        return {flag: getattr(self, flag) for flag in FLAGS}


SOURCE_KINDS: tuple[str, ...] = ("config", "metadata", "role", "framework", "signature", "tool", "default")
"""Evidence kinds, strongest first."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """One piece of evidence about one capability flag, and where it came from (`kind` or `kind:detail`)."""

    flag: str
    value: bool
    source: str

    @property
    def rank(self) -> int:
        kind = self.source.split(":", 1)[0]
        return SOURCE_KINDS.index(kind) if kind in SOURCE_KINDS else SOURCE_KINDS.index("tool")


def profile_from_evidence(evidence: Iterable[Evidence]) -> tuple[CapabilityProfile, dict[str, str]]:
    """The strongest evidence per flag decides it (the first one given among equals); no evidence: false."""
    best: dict[str, Evidence] = {}
    for item in evidence:
        if item.flag not in FLAGS:
            raise ConfigError(f"unknown capability flag {item.flag!r} (from {item.source}); expected one of: "
                              f"{', '.join(FLAGS)}")
        current = best.get(item.flag)
        if current is None or item.rank < current.rank:
            best[item.flag] = item
    values = {flag: best[flag].value if flag in best else False for flag in FLAGS}
    sources = {flag: best[flag].source if flag in best else "default" for flag in FLAGS}
    return CapabilityProfile(**values), sources


def _words(text: str) -> list[str]:
    """Lower-case tokens, splitting snake_case, kebab-case and camelCase; also keeps the whole snake_case name."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def _hits(words: Iterable[str], keywords: tuple[str, ...]) -> bool:
    words = list(words)
    for key in keywords:
        if key.endswith("*"):
            if any(w.startswith(key[:-1]) for w in words):
                return True
        elif "_" in key:
            if key in "_".join(words):
                return True
        elif key in words:
            return True
    return False


def flags_from_tool(tool: ToolInfo) -> set[str]:
    """The capability flags one tool gives evidence for (always has_tools): its declared role alone when it has
    one; otherwise its guessed role and the words of its name, parameters and description."""
    found = {"has_tools"}
    role = tool.role_info()
    if role.role in ROLE_FLAGS:
        found.add(ROLE_FLAGS[role.role])
    if role.source == "declared":
        return found
    name_words = _words(tool.name)
    # "charges the card on file" says nothing about files.
    description = re.sub(r"\bon file\b", "", tool.description, flags=re.IGNORECASE)
    all_words = name_words + [w for p in tool.parameters for w in _words(p)] + _words(description)
    for flag, keys in _STRONG.items():
        if _hits(all_words, keys):
            found.add(flag)
    for flag, keys in _WEAK.items():
        if _hits(name_words, keys):
            found.add(flag)
    return found


def signature_evidence(metadata: dict[str, Any] | None) -> list[Evidence]:
    """An entry that takes the conversation history (`handle(text, history=None)`) keeps multi-turn state: the
    transport passes every earlier turn to it (engine/agent_tools.py `with_signature` reads the signature)."""
    if not isinstance(metadata, dict) or not metadata.get("entry_history"):
        return []
    return [Evidence("has_multi_turn", True, f"signature:{metadata.get('entry_signature')}")]


def _metadata_flags(metadata: dict[str, Any] | None) -> dict[str, bool]:
    """Accepts the `@khaosagent` record `{"capabilities": ...}` or the capabilities themselves: a flag dict or a
    list of flag names (with or without `has_`)."""
    if not metadata:
        return {}
    caps: Any = metadata
    if isinstance(metadata, dict) and "capabilities" in metadata:
        caps = metadata["capabilities"]  # the sdk's {"name", "capabilities", "description"} record
    if not caps:  # @khaosagent without capabilities=: no evidence either way
        return {}
    if isinstance(caps, (list, tuple, set)):
        caps = {name: True for name in caps}
    if not isinstance(caps, dict):
        raise ConfigError(f"@khaosagent capabilities must be a dict of flags or a list of flag names, got "
                          f"{type(caps).__name__}")
    return dict(_declared_flag(key, value) for key, value in caps.items())


def _declared_flag(key: Any, value: Any) -> tuple[str, bool]:
    """One declared capability as (flag, value): its name with or without `has_`, its value true or false."""
    flag = key if str(key).startswith("has_") else f"has_{key}"
    if flag not in FLAGS:
        raise ConfigError(f"unknown capability {key!r} in @khaosagent(capabilities=...). "
                          f"Expected one of: {', '.join(FLAGS)}")
    if not isinstance(value, bool):
        raise ConfigError(f"capability {key!r} in @khaosagent(capabilities=...) must be true or false")
    return flag, value


def infer_capabilities(
    *, agent: AgentConfig, tools: list[ToolInfo], metadata: dict[str, Any] | None = None,
    evidence: Iterable[Evidence] = (),
) -> tuple[CapabilityProfile, dict[str, str]]:
    """The profile and, per flag, its source: "config" | "metadata" | "role:<tool>" | "framework:<detail>" |
    "tool:<name>" | "default". `evidence`: more of it, e.g. from a framework adapter."""
    found: list[Evidence] = [*evidence]
    for tool in tools:  # the first tool that shows a flag is named as its source
        kind = "role" if tool.role else "tool"
        found += [Evidence(flag, True, f"{kind}:{tool.name}") for flag in sorted(flags_from_tool(tool))]
    found += signature_evidence(metadata)
    found += [Evidence(flag, value, "metadata") for flag, value in _metadata_flags(metadata).items()]
    found += [Evidence(flag, value, "config") for flag, value in agent.capabilities.model_dump().items()
              if value is not None]
    return profile_from_evidence(found)


def describe_source(source: str) -> str:
    """A source as a person reads it: "role:get_guide" → "declared role of tool get_guide"."""
    kind, _, detail = source.partition(":")
    return {"config": "agent.capabilities in khaos.yaml", "metadata": "@khaosagent(capabilities=...)",
            "default": "no evidence (default)", "role": f"declared role of tool {detail}",
            "framework": f"framework: {detail}", "signature": f"signature of {detail}",
            "tool": f"tool {detail} (its name, parameters or description)",
            }.get(kind, source)


def missing_capabilities(profile: CapabilityProfile, requires: Iterable[str]) -> list[str]:
    return [flag for flag in requires if not getattr(profile, flag)]


def not_applicable_reason(missing: list[str]) -> str:
    """E.g. "agent has no RAG (has_rag=false)"; several flags are joined with "; "."""
    return "; ".join(f"agent has no {FLAG_LABELS[flag]} ({flag}=false)" for flag in missing)
