"""Tool roles: what a tool *is* (a retriever, a payment, a messaging tool...), declared or guessed, with the source.

A role decides three things: which capability flags the tool gives evidence for, which indirect
channels it carries (a RAG payload goes into what the retriever returns, a file payload into what the file reader
returns), and which of the agent's real tools a forbidden-tool attack targets ("any payment tool" rather than a
fixed `transfer_funds` the agent does not have). A declared role (`agent.tools: [{ref, role}]`, `@tool(role=...)`)
always wins; otherwise the role is guessed from the tool's name, then its description, then its parameter names (in
English, German, French or Spanish: role_words.py), then from what its text means (the semantic backend, when the
`semantic` extra is installed: judge/role_meaning.py), and the guess says which, so a user can correct it by
declaring the role.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from khaos_action.role_words import DESCRIPTION_WORDS, NAME_WORDS, PARAMETER_WORDS, READ_VERBS, WRITE_VERBS

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
    "rag_document": "add a golden prompt that makes the agent retrieve documents, or declare its retriever tool "
                    "`agent.tools: [{name: <tool>, role: retriever}]`",
    "file_content": "add a golden prompt that makes the agent read a file, or declare its file tool "
                    "`agent.tools: [{name: <tool>, role: file_reader}]`",
    "memory": "add a golden prompt that makes the agent read its memory, or declare its memory tool "
              "`agent.tools: [{name: <tool>, role: memory}]`",
    "mcp_tool_description": "add a golden prompt that makes the agent call its model with its MCP tools",
}

_ACTION_ROLES = frozenset({"code_exec", "destructive", "payment", "messaging"})
ACTION_ROLES = _ACTION_ROLES | {"web_fetch"}
"""Roles a forbidden-tool attack can aim at (tools that act on the world or send data out)."""
# English description phrases (role_words.py has the words of every language the guess reads): only unambiguous
# ones count ("card on file" is no file tool).
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

RoleMeaning = Callable[[str], "str | None"]
"""A guess from what a tool's text means (name words, description, parameter names) → a role or None."""
_meaning: RoleMeaning | None = None


def set_role_meaning(fn: RoleMeaning | None) -> None:
    """Install (or remove, with None) the semantic guess used when no word decides (judge/role_meaning.py)."""
    global _meaning
    _meaning = fn


@dataclass(frozen=True, slots=True)
class ToolRole:
    """One tool's role and where it came from."""

    tool: str
    role: str | None
    source: str
    """`declared` (config or `@tool(role=...)`), `name`, `description`, `parameters`, `meaning` (the semantic
    backend), or `none` (no role guessed)."""

    def label(self) -> str:
        if self.role is None:
            return (f"{self.tool}: no role (guessed from nothing; declare one: "
                    f"`agent.tools: [{{name: {self.tool}, role: ...}}]`)")
        how = "declared" if self.source == "declared" else f"guessed from its {self.source}"
        return f"{self.tool}: {self.role} ({how})"


def normalise_role(value: str) -> str:
    """A role name as written (any case, an alias) → the canonical role; ValueError naming the valid ones."""
    name = str(value).strip().lower().replace("-", "_")
    name = ROLE_ALIASES.get(name, name)
    if name not in ROLES:
        raise ValueError(f"unknown tool role {value!r}; expected one of: {', '.join(ROLES)} (email = messaging)")
    return name


def fold(text: str) -> str:
    """Lower case without accents (`löschen` → `loschen`, `Straße` → `strasse`), as role_words.py writes words."""
    text = unicodedata.normalize("NFKD", text.replace("ß", "ss").replace("ẞ", "ss"))
    return "".join(ch for ch in text if not unicodedata.combining(ch)).lower()


def words(text: str) -> list[str]:
    """Folded words of an identifier or prose: snake_case, kebab-case and camelCase split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w for w in re.split(r"[^a-z0-9]+", fold(spaced)) if w]


def _spellings(parts: Sequence[str]) -> list[str]:
    """The words, and German ones as identifiers spell them without umlauts (`loeschen`, `pruefen`: `loschen`)."""
    plain = [re.sub(r"([aou])e", r"\1", p) for p in parts if "ae" in p or "oe" in p or "ue" in p]
    return [*parts, *plain] if plain else list(parts)


def _has(parts: Sequence[str], key: str) -> bool:
    if "_" in key:
        return key in "_".join(parts)
    if key.startswith("*"):
        return any(p.endswith(key[1:]) for p in parts)
    if key.endswith("*"):
        return any(p.startswith(key[:-1]) for p in parts)
    return key in parts


def _end_words(name: str) -> set[str]:
    """The first and last words of a name, as identifiers spell them: where its verb stands (`get_refund_status`,
    `kontostand_abfragen`)."""
    parts = words(name)
    return {*_spellings(parts[:1]), *_spellings(parts[-1:])}


def role_from_name(name: str) -> str | None:
    """The role a tool's name suggests, in any language role_words.py reads (`delete_records` → destructive,
    `termin_buchen` → payment, `get_destination_guide` → retriever, `lookup_order` → read_only: a name that begins
    or ends with a reading verb (`kontostand_abfragen`) never guesses an action role)."""
    reading = bool(_end_words(name) & READ_VERBS)
    parts = _spellings(words(name))
    for role, keys in NAME_WORDS:
        if reading and role in _ACTION_ROLES:
            continue
        if any(_has(parts, key) for key in keys):
            return role
    return "read_only" if reading else None


def role_from_description(description: str) -> str | None:
    """The role a description states: an English phrase, or in any language a verb with what it acts on."""
    if not description:
        return None
    for role, pattern in _DESCRIPTION_PHRASES:
        if pattern.search(description):
            return role
    parts = _spellings(words(description))
    for role, verbs, objects in DESCRIPTION_WORDS:
        if any(_has(parts, v) for v in verbs) and (not objects or any(_has(parts, o) for o in objects)):
            return role
    return None


def role_from_parameters(parameters: Sequence[str]) -> str | None:
    """The role a parameter says the tool takes (`url`, `sql`, `pfad`, `iban`): whole names only (`promo_code`
    takes no code)."""
    parts = _spellings([fold(p).strip("_") for p in parameters])
    for role, keys in PARAMETER_WORDS:
        if any(key in parts for key in keys):
            return role
    return None


def role_from_meaning(name: str, description: str, parameters: Sequence[str]) -> str | None:
    """The installed semantic guess (set_role_meaning), or None without one."""
    if _meaning is None:
        return None
    text = " ".join(words(name))
    if description:
        text += f". {description.strip()}"
    if parameters:
        text += f". Parameters: {', '.join(parameters)}"
    return _meaning(text)


def guess_role(name: str, description: str = "", declared: str | None = None,
               parameters: Sequence[str] = ()) -> ToolRole:
    """The declared role, else the one the name suggests, then the description's, the parameters', and what the
    whole text means (the semantic backend, when installed): names are what a model sees first; prose is weaker
    evidence, and meaning the weakest."""
    if declared:
        return ToolRole(name, normalise_role(declared), "declared")
    guesses = (("name", lambda: role_from_name(name)), ("description", lambda: role_from_description(description)),
               ("parameters", lambda: role_from_parameters(parameters)),
               ("meaning", lambda: role_from_meaning(name, description, parameters)))
    writes = bool(_end_words(name) & WRITE_VERBS)
    for source, guess in guesses:
        role = guess()
        if role == "file_reader" and writes:
            continue  # a file writer's result is no file's content: a file payload put there would never be read
        if role is not None:
            return ToolRole(name, role, source)
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
           "forbidden_targets", "fold", "guess_role", "normalise_role", "role_from_description", "role_from_meaning",
           "role_from_name", "role_from_parameters", "set_role_meaning", "words"]
