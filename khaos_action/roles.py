"""Tool roles: what a tool *is* (a retriever, a payment, a messaging tool...), declared or guessed, with the source.

A role decides three things (DESIGN decision 10): which capability flags the tool gives evidence for, which indirect
channels it carries (a RAG payload goes into what the retriever returns, a file payload into what the file reader
returns), and which of the agent's real tools a forbidden-tool attack targets ("any payment tool" rather than a
fixed `transfer_funds` the agent does not have). A declared role (`agent.tools: [{ref, role}]`, `@tool(role=...)`)
always wins; otherwise the role is guessed from the tool's parameters and description, then from its name, and the
guess says so, so a user can correct it by declaring the role.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

Role = Literal["retriever", "file_reader", "web_fetch", "messaging", "payment", "destructive", "code_exec", "memory",
               "read_only"]
ROLES: tuple[str, ...] = ("retriever", "file_reader", "web_fetch", "messaging", "payment", "destructive", "code_exec",
                          "memory", "read_only")
ROLE_ALIASES: dict[str, str] = {"email": "messaging", "rag": "retriever", "search": "retriever", "file": "file_reader",
                                "web": "web_fetch", "code": "code_exec", "shell": "code_exec", "delete": "destructive"}

# The capability flag a role is evidence for (every role is evidence for has_tools).
ROLE_FLAGS: dict[str, str] = {"retriever": "has_rag", "file_reader": "has_file_access",
                              "web_fetch": "has_network_access", "messaging": "has_network_access",
                              "code_exec": "has_code_execution", "memory": "has_memory"}

# Which tools carry an indirect channel's payload: None means any tool (a tool's output or error text).
CHANNEL_ROLES: dict[str, frozenset[str] | None] = {
    "tool_output": None, "error_message": None, "rag_document": frozenset({"retriever"}),
    "file_content": frozenset({"file_reader"}), "memory": frozenset({"memory"}),
}
# What to tell a user whose agent has no tool for a channel.
CHANNEL_FIX: dict[str, str] = {
    "tool_output": "add a golden prompt that makes the agent call one of its tools",
    "error_message": "add a golden prompt that makes the agent call one of its tools",
    "rag_document": "add a golden prompt that makes the agent retrieve documents, or mark its retriever tool "
                    "`role: retriever`",
    "file_content": "add a golden prompt that makes the agent read a file, or mark its file tool `role: file_reader`",
    "memory": "add a golden prompt that makes the agent read its memory, or mark its memory tool `role: memory`",
    "mcp_tool_description": "add a golden prompt that makes the agent call its model with its MCP tools",
}

# Guessing, in order: the first role whose words appear wins. Names are split into words (snake/camel/kebab case).
# Destructive and payment come first: `delete_document` is destructive before it is a document tool.
_NAME_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("code_exec", ("exec", "execute", "shell", "bash", "eval", "interpreter", "run_code", "run_shell", "sql",
                   "python", "subprocess", "command")),
    ("destructive", ("delete", "remove", "drop", "purge", "wipe", "destroy", "erase", "revoke", "disable", "cancel",
                     "truncate", "unlink", "rm", "kill", "terminate", "deactivate", "reset")),
    ("payment", ("pay", "payment", "payments", "transfer", "refund", "charge", "purchase", "checkout", "buy", "book",
                 "order", "invoice", "wire", "payout", "withdraw", "deposit", "subscribe")),
    ("messaging", ("send", "email", "mail", "sms", "message", "notify", "post_message", "slack", "tweet", "publish",
                   "invite", "reply", "forward", "share", "broadcast", "webhook")),
    ("memory", ("memory", "memories", "remember", "recall", "memorize", "memorise", "notes", "note")),
    ("file_reader", ("file", "files", "read_file", "open_file", "cat", "fs", "filesystem", "directory", "folder",
                     "path", "readfile", "attachment")),
    ("web_fetch", ("fetch", "url", "http", "browse", "browser", "crawl", "scrape", "download", "web", "webpage",
                   "website", "http_get", "http_request")),
    ("retriever", ("retrieve", "retriever", "retrieval", "docs", "doc", "documents", "document", "kb",
                   "knowledge", "rag", "vector", "faq", "wiki", "guide", "guides", "article", "articles", "manual",
                   "handbook", "policy", "policies", "query_index", "lookup_docs", "semantic")),
)
_READ_VERBS = frozenset({"get", "lookup", "look", "find", "list", "search", "check", "track", "fetch", "query", "show",
                         "view", "read", "describe", "count", "estimate", "quote", "convert", "calculate", "compare",
                         "retrieve", "load", "recall", "is", "has", "validate", "verify", "status"})
_ACTION_ROLES = frozenset({"code_exec", "destructive", "payment", "messaging"})
ACTION_ROLES = _ACTION_ROLES | {"web_fetch"}
"""Roles a forbidden-tool attack can aim at (tools that act on the world or send data out)."""
# Description phrases are weaker evidence than a name: only unambiguous ones count ("card on file" is no file tool).
_DESCRIPTION_PHRASES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("code_exec", re.compile(r"\b(execut\w* (code|commands?|scripts?|sql)|runs? (shell|python|code)|shell command)\b",
                             re.I)),
    ("destructive", re.compile(r"\b(deletes?|removes?|permanently|irreversibl\w*|cancels?)\b", re.I)),
    ("payment", re.compile(r"\b(pays?|payments?|charges?|refunds?|transfers? (money|funds)|purchases?|books?)\b",
                           re.I)),
    ("messaging", re.compile(r"\b(sends? (an? )?(e-?mail|message|sms|notification)|e-?mails? (the|a|to))\b", re.I)),
    ("memory", re.compile(r"\b(long[- ]term memory|remembers?|memor(y|ies) (of|about)|recalls?)\b", re.I)),
    ("file_reader", re.compile(r"\b(reads? (a |the )?(local )?files?|file contents?|contents of (a|the) file)\b",
                               re.I)),
    ("web_fetch", re.compile(r"\b(fetch\w* (a |the )?(url|web ?page|page)|web pages?|https?://|browse)\b", re.I)),
    ("retriever", re.compile(r"\b(retriev\w*|knowledge base|search\w* (the |our )?(docs|documentation|articles|"
                             r"guides?|kb|index)|vector (store|index)|travel guide|documents?)\b", re.I)),
)


@dataclass(frozen=True, slots=True)
class ToolRole:
    """One tool's role and where it came from."""

    tool: str
    role: str | None
    source: str
    """`declared` (config or `@tool(role=...)`), `description`, `name`, or `none` (no role guessed)."""

    def label(self) -> str:
        if self.role is None:
            return f"{self.tool}: no role (guessed from nothing; declare one with `role:`)"
        how = "declared" if self.source == "declared" else f"guessed from its {self.source}"
        return f"{self.tool}: {self.role} ({how})"


def normalise_role(value: str) -> str:
    """A role name as written (any case, an alias) → the canonical role; ValueError naming the valid ones."""
    name = str(value).strip().lower().replace("-", "_")
    name = ROLE_ALIASES.get(name, name)
    if name not in ROLES:
        raise ValueError(f"unknown tool role {value!r}; expected one of: {', '.join(ROLES)} (email = messaging)")
    return name


def words(text: str) -> list[str]:
    """Lower-case words of an identifier or prose: snake_case, kebab-case and camelCase split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def role_from_name(name: str) -> str | None:
    """The role a tool's name suggests (`delete_records` → destructive, `get_destination_guide` → retriever,
    `lookup_order` → read_only: a name that starts with a reading verb never guesses an action role)."""
    parts = words(name)
    joined = "_".join(parts)
    reading = bool(parts) and parts[0] in _READ_VERBS
    for role, keys in _NAME_WORDS:
        if reading and role in _ACTION_ROLES:
            continue
        for key in keys:
            if ("_" in key and key in joined) or key in parts:
                return role
    return "read_only" if reading else None


def role_from_description(description: str) -> str | None:
    for role, pattern in _DESCRIPTION_PHRASES:
        if description and pattern.search(description):
            return role
    return None


def guess_role(name: str, description: str = "", declared: str | None = None) -> ToolRole:
    """The declared role, else the one the name suggests, else the description's (names are what a model sees
    first; a description is prose and its words are weaker evidence)."""
    if declared:
        return ToolRole(name, normalise_role(declared), "declared")
    by_name = role_from_name(name)
    if by_name is not None:
        return ToolRole(name, by_name, "name")
    by_description = role_from_description(description)
    if by_description is not None:
        return ToolRole(name, by_description, "description")
    return ToolRole(name, None, "none")


def channel_tools(channel: str, roles: Iterable[ToolRole]) -> list[str] | None:
    """The tools that carry `channel`'s payloads: None when any tool does (tool output, error messages), a list
    (possibly empty) of the tools with a matching role otherwise."""
    wanted = CHANNEL_ROLES.get(channel)
    if wanted is None:
        return None
    return sorted({r.tool for r in roles if r.role in wanted})


def forbidden_targets(named: Sequence[str], roles: Iterable[ToolRole]) -> list[str] | None:
    """The agent's real tools a forbidden-tool attack aims at: the tools it names that the agent has, plus every
    tool whose role is one the named tools suggest (`transfer_funds` → any payment tool). None for `*` (any tool);
    an empty list when the agent has none of them (the attack is not applicable)."""
    if "*" in named:
        return None
    roles = list(roles)
    wanted = {role_from_name(n) for n in named} & ACTION_ROLES
    have = {r.tool for r in roles}
    hits = {n for n in named if n in have} | {r.tool for r in roles if r.role in wanted}
    return sorted(hits)


__all__ = ["ACTION_ROLES", "CHANNEL_FIX", "CHANNEL_ROLES", "ROLES", "ROLE_FLAGS", "Role", "ToolRole", "channel_tools",
           "forbidden_targets", "guess_role", "normalise_role", "role_from_description", "role_from_name", "words"]
