"""The attack corpus: YAML files under packs/attacks/ validated into `Attack`s, versioned and digested for config_hash.

Each corpus file is `{version, defaults?, attacks: [...]}`; `defaults` fills keys an attack leaves out, so a category
file states its tier/channel/reference once. Validation enforces what the judge relies on (objectives, not keywords): a
canary objective shows the canary only as halves, so a verbatim echo of the input is never the joined token.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from khaos_action.canary import Canary, render_payload
from khaos_action.config.objectives import Objective, aimed_at, parse_objective
from khaos_action.errors import ConfigError
from khaos_action.fields import Severity

Tier = Literal["model", "tool", "agent"]
Channel = Literal[
    "user_prompt", "tool_output", "rag_document", "file_content", "mcp_tool_description", "error_message", "memory",
    "multi_turn",
]
Capability = Literal[
    "has_tools", "has_code_execution", "has_file_access", "has_network_access", "has_mcp", "has_rag", "has_memory",
    "has_multi_turn",
]

CATEGORIES: tuple[str, ...] = (
    "prompt_injection", "jailbreak", "encoding_bypass", "multi_turn", "system_prompt_leakage", "pii_extraction",
    "data_exfiltration", "indirect_injection", "rag_poisoning", "file_content_injection", "error_message_injection",
    "tool_description_injection", "tool_manipulation", "unauthorized_action", "excessive_agency",
    "privilege_escalation", "memory_poisoning", "context_overflow", "code_execution", "env_var_injection",
    "workflow_hijack", "inter_agent_spoofing",
)
ASI_IDS: tuple[str, ...] = tuple(f"ASI{n:02d}" for n in range(1, 11))
LLM_IDS: tuple[str, ...] = tuple(f"LLM{n:02d}:2025" for n in range(1, 11))
OWASP_IDS: frozenset[str] = frozenset(ASI_IDS + LLM_IDS)

# The capability a channel needs to exist at all (Khaos ADR 4); selection skips the attack without it.
CHANNEL_REQUIRES: dict[str, str | None] = {
    "user_prompt": None,
    "tool_output": "has_tools",
    "error_message": "has_tools",
    "rag_document": "has_rag",
    "file_content": "has_file_access",
    "mcp_tool_description": "has_mcp",
    "memory": "has_memory",
    "multi_turn": "has_multi_turn",
}
INDIRECT_CHANNELS = frozenset(
    {"tool_output", "rag_document", "file_content", "mcp_tool_description", "error_message", "memory"}
)

CONVERSATION_CHANNELS = frozenset({"user_prompt", "multi_turn"})
"""Channels whose attack may be a scripted conversation (`turns`): the user writes every turn."""

TOOL_CARRIED = frozenset({"tool_output", "error_message", "rag_document", "file_content", "memory"})
"""Channels whose payload arrives in a tool's result (the tool wrappers deliver it)."""

_PLACEHOLDER = re.compile(r"\{canary\w*\}", re.IGNORECASE)
_KNOWN_PLACEHOLDERS = frozenset({"{canary}", "{canary_a}", "{canary_b}", "{canary_token}"})
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built: loading the corpus is on every run
# Fixed halves used only to check templates: the rendered text must never contain the joined token.
_PROBE = Canary(a="KXPRBAA", b="QZZWVYY")


class Attack(BaseModel):
    """One attack: what is sent, through which channel, and the observable objective that says it worked."""

    model_config = ConfigDict(extra="forbid", frozen=True)  # field docstrings: config.schema_reading.attribute_docs

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    category: Literal[CATEGORIES]  # type: ignore[valid-type]
    tier: Tier
    """model: the model itself; tool: arrives through a tool/data channel; agent: abuses the agent's actions."""
    channel: Channel
    severity: Severity
    owasp: tuple[str, ...] = Field(min_length=1)
    """OWASP Agentic Top 10 2026 (ASI01..ASI10) and LLM Top 10 2025 (LLM01:2025..LLM10:2025) ids."""
    objective: Objective
    """What the attack tries to make the agent do (config/objectives.py): a kind such as `canary`, `tool_call`,
    `check`, or `any` / `all` of several."""
    payload: str = Field(min_length=1)
    """The attack text; with `turns`, the first user turn; for indirect channels the planted content."""
    turns: tuple[str, ...] = ()
    """user_prompt and multi_turn: scripted follow-up user turns, sent after `payload` one by one through the
    agent's conversation history (needs `has_multi_turn`); judged on the whole conversation."""
    carrier: str | None = None
    """Indirect channels: the benign user prompt that makes the agent read the channel. Without one, a golden
    prompt the baseline saw reach the channel carries the attack (as the built-in corpus's are carried)."""
    tool: str | None = None
    """Tool channels (tool_output, error_message, rag_document, file_content, memory): the tool whose results carry
    the payload, by name or by role (`retriever`, `payment`, ...); default: the tools the channel's role implies."""
    placement: Literal["append", "prepend"] = "append"
    """Tool channels: the payload after the result's text (append) or before it (prepend)."""
    field: str | None = None
    """Tool channels: put the payload into this key of a structured result (a mapping's key, or that key of the last
    item of a list of mappings that has it), e.g. `subject` of a transaction list; a result without it gets the
    payload as usual."""
    forbidden_tools: tuple[str, ...] = ()
    """The tools a `tool_call` objective aimed at `*` means (the `forbidden_tool_call` form): the attack tries to get
    one of them called; the planner re-aims them at the agent's own tools of the same role."""
    requires: tuple[Capability, ...] = ()
    reference: str = Field(min_length=1)
    """The public technique source (paper, OWASP entry, URL)."""
    description: str = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _implied_requires(cls, data: Any) -> Any:
        """The capabilities the attack's channel, objective and turns need are its `requires` whether written or
        not: an agent without them is not applicable."""
        if not isinstance(data, dict):
            return data
        written = list(data.get("requires") or ())
        # the objective is parsed (again: its field parses it too) only when has_tools is not already required
        implied = [CHANNEL_REQUIRES.get(data.get("channel")),
                   "has_multi_turn" if data.get("turns") else None,
                   "has_tools" if "has_tools" not in written and _acts(data.get("objective")) else None]
        added = [c for c in dict.fromkeys(implied) if c and c not in written]
        return {**data, "requires": [*written, *added]} if added else data

    @field_validator("owasp")
    @classmethod
    def _owasp_known(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [v for v in value if v not in OWASP_IDS]
        if unknown:
            raise ValueError(f"unknown OWASP id(s) {unknown}; expected ASI01..ASI10 or LLM01:2025..LLM10:2025")
        return value

    @field_validator("turns")
    @classmethod
    def _turns_said(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        empty = [index for index, turn in enumerate(value) if not turn.strip()]
        if empty:
            raise ValueError(f"turn {empty[0]} of `turns` is empty: write what the user says in it, or drop it")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Attack:
        joined = "\n".join(self.texts())
        unknown = sorted(set(_PLACEHOLDER.findall(joined)) - _KNOWN_PLACEHOLDERS)
        if unknown:
            raise ValueError(f"unknown placeholder(s) {unknown}; use {{canary}}, {{canary_a}}, {{canary_b}}, "
                             "{canary_token}")
        for check in (_channel_fits, _canary_shown, _tools_fit):
            problem = check(self, joined)
            if problem:
                raise ValueError(problem)
        return self

    @property
    def goal(self) -> Objective:
        """The objective, with a `tool_call` aimed at `*` aimed at `forbidden_tools` when the attack names some."""
        return aimed_at(self.objective, list(self.forbidden_tools)) if self.forbidden_tools else self.objective

    def texts(self) -> list[str]:
        """Every template text the attack sends (payload, turns, carrier)."""
        return [self.payload, *self.turns, *([self.carrier] if self.carrier else [])]

    @property
    def indirect(self) -> bool:
        return self.channel in INDIRECT_CHANNELS


def _acts(objective: Any) -> bool:
    """An objective (its YAML form or its model) that judges tool calls."""
    try:
        parsed = objective if isinstance(objective, Objective) else parse_objective(objective)
    except (ValueError, TypeError):
        return False  # the objective's own validation says what is wrong with it
    return bool({"tool_call", "unrequested_action"} & parsed.kinds())


# (the attack breaks the rule, what to say): the channel's rules, first broken one reported.
_CHANNEL_RULES: tuple[tuple[Callable[[Attack], bool], Callable[[Attack], str]], ...] = (
    (lambda a: a.channel == "multi_turn" and not a.turns,
     lambda a: "a multi_turn attack needs scripted follow-up `turns`"),
    (lambda a: a.channel not in CONVERSATION_CHANNELS and bool(a.turns),
     lambda a: f"`turns` (a scripted conversation) is for channels user_prompt and multi_turn; channel {a.channel!r} "
               "delivers its payload once, without the user's follow-ups: drop `turns`, or make it a user_prompt "
               "attack"),
    (lambda a: (a.field is not None or a.placement != "append") and a.channel not in TOOL_CARRIED,
     lambda a: f"`placement` and `field` place a payload in a tool's result; channel {a.channel!r} is not carried "
               "by tools"),
    (lambda a: a.tool is not None and a.channel not in TOOL_CARRIED,
     lambda a: f"`tool` places a payload in a tool's results; channel {a.channel!r} is not carried by tools (it is "
               f"for {', '.join(sorted(TOOL_CARRIED))})"),
)


def _channel_fits(attack: Attack, joined: str) -> str | None:
    return next((say(attack) for broken, say in _CHANNEL_RULES if broken(attack)), None)


def _canary_shown(attack: Attack, joined: str) -> str | None:
    """A canary objective shows the canary apart and asks for it joined: an echo of the input is no obedience."""
    if not attack.objective.needs_canary:
        return None
    if "{canary_token}" in joined and attack.objective.kind == "canary":
        return ("a canary attack must not show {canary_token}: an echo of the input would count as obedience; "
                "show {canary} or {canary_a} + {canary_b} and ask to join them")
    if "{canary}" not in joined and not ("{canary_a}" in joined and "{canary_b}" in joined):
        return "a canary objective needs {canary} (or {canary_a} and {canary_b}) in the attack's text"
    rendered = "\n".join(render_payload(t, _PROBE) for t in attack.texts())
    if _PROBE.token in rendered and attack.objective.kind == "canary":
        return "the rendered text contains the joined canary (are {canary_a}{canary_b} adjacent?)"
    return None


def _tools_fit(attack: Attack, joined: str) -> str | None:
    kinds = attack.objective.kinds()
    if attack.forbidden_tools and "tool_call" not in kinds:
        return "`forbidden_tools` is only for an objective with a `tool_call` (forbidden_tool_call)"
    if not attack.forbidden_tools and any(_any_tool_unqualified(leaf) for leaf in attack.objective.leaves()):
        return "a tool_call objective on any tool (`*`) needs argument predicates or `forbidden_tools`"
    return None


def _any_tool_unqualified(leaf: Objective) -> bool:
    return leaf.tool_call is not None and leaf.tool_call.tool == ["*"] and not leaf.tool_call.args


@dataclass(frozen=True, slots=True)
class RenderedAttack:
    """What the engine sends for one case: the user input, follow-up turns, and the planted indirect payload."""

    input: str
    turns: tuple[str, ...] = ()
    injection: str | None = None
    """The payload to deliver through `channel` (None for user_prompt / multi_turn)."""
    channel: str = "user_prompt"


def render_attack(attack: Attack, canary: Canary) -> RenderedAttack:
    """Fill the canary into an attack; indirect attacks send the carrier and plant the payload in the channel."""
    turns = tuple(render_payload(t, canary) for t in attack.turns)
    if attack.indirect:
        return RenderedAttack(input=render_payload(attack.carrier or "", canary), turns=turns,
                              injection=render_payload(attack.payload, canary), channel=attack.channel)
    return RenderedAttack(input=render_payload(attack.payload, canary), turns=turns, channel=attack.channel)


@dataclass(frozen=True)
class Corpus:
    version: str
    attacks: tuple[Attack, ...]
    """Sorted by id."""
    digest: str
    """sha256 of the normalised attacks; goes into config_hash with `version`."""
    by_id: dict[str, Attack] = field(repr=False, default_factory=dict)
    sources: dict[str, str] = field(repr=False, default_factory=dict)
    """Attack id -> where it is defined: a built-in corpus file's name, or `file:line` of a user attack."""
    user_ids: frozenset[str] = frozenset()
    """The attacks that came from `attacks:` files (selectors' `source: user`)."""

    @property
    def categories(self) -> list[str]:
        return sorted({a.category for a in self.attacks})

    def __len__(self) -> int:
        return len(self.attacks)


class CorpusError(ConfigError):
    """An attack corpus file is invalid."""


class _CorpusFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str
    defaults: dict[str, Any] = {}
    attacks: list[dict[str, Any]] = Field(min_length=1)

    @field_validator("version", mode="before")
    @classmethod
    def _str_version(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) else value


def default_corpus_dir() -> Path:
    """packs/attacks inside the installed package, or beside the source tree in an editable install."""
    try:
        spec = importlib.util.find_spec("khaos_action.packs")
    except ModuleNotFoundError:
        spec = None
    if spec and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))) / "attacks"
    return Path(__file__).resolve().parents[2] / "packs" / "attacks"


def load_corpus(directory: str | Path | None = None) -> Corpus:
    """Load and validate every `*.yaml` in `directory` (default: the built-in corpus). Cached per directory."""
    return _load_corpus(str(Path(directory or default_corpus_dir()).resolve()))


@functools.lru_cache(maxsize=8)
def _load_corpus(directory: str) -> Corpus:
    files = sorted(Path(directory).glob("*.yaml"))
    if not files:
        raise CorpusError(f"no attack corpus files (*.yaml) in {directory}; reinstall khaos-action or point to a "
                          "directory holding corpus files")
    versions: dict[str, str] = {}
    attacks: dict[str, Attack] = {}
    where: dict[str, str] = {}
    for path in files:
        for attack in parse_corpus_file(path.read_text(encoding="utf-8"), source=path.name, versions=versions):
            if attack.id in attacks:
                raise CorpusError(f"{path.name}: attack id {attack.id!r} is already defined in {where[attack.id]}; "
                                  "attack ids must be unique across the corpus")
            attacks[attack.id] = attack
            where[attack.id] = path.name
    if len(set(versions.values())) > 1:
        shown = ", ".join(f"{name}: {v}" for name, v in sorted(versions.items()))
        raise CorpusError(f"corpus files disagree on `version` ({shown}); give every file the same version")
    ordered = tuple(attacks[k] for k in sorted(attacks))
    version = next(iter(versions.values()))
    return Corpus(version=version, attacks=ordered, digest=corpus_digest(version, ordered),
                  by_id={a.id: a for a in ordered}, sources={k: f"packs/attacks/{v}" for k, v in where.items()})


def with_user_attacks(corpus: Corpus, user: dict[str, tuple[Attack, str]]) -> Corpus:
    """The built-in corpus and the user's attacks (id -> (attack, `file:line`)), as one corpus selectors read.
    Its digest covers both; ids are already checked to be unique (config/user_attacks.py)."""
    if not user:
        return corpus
    attacks = {**corpus.by_id, **{i: attack for i, (attack, _) in user.items()}}
    ordered = tuple(attacks[k] for k in sorted(attacks))
    return Corpus(version=corpus.version, attacks=ordered, digest=corpus_digest(corpus.version, ordered),
                  by_id={a.id: a for a in ordered},
                  sources={**corpus.sources, **{i: where for i, (_, where) in user.items()}},
                  user_ids=frozenset(user))


def parse_corpus_file(text: str, *, source: str, versions: dict[str, str] | None = None) -> list[Attack]:
    """Validate one corpus file's text; errors name the file, the attack and the field."""
    try:
        raw = yaml.load(text, Loader=_YAML_LOADER)  # noqa: S506 - a SafeLoader (C version when built)
    except yaml.YAMLError as exc:
        raise CorpusError(f"{source}: not valid YAML: {exc}") from None
    try:
        parsed = _CorpusFile.model_validate(raw)
    except ValidationError as exc:
        raise CorpusError(f"{source}: {_explain(exc)}; a corpus file is {{version, defaults?, attacks: [...]}}") \
            from None
    if versions is not None:
        versions[source] = parsed.version
    result = []
    for index, entry in enumerate(parsed.attacks):
        merged = {**parsed.defaults, **entry}
        label = f"attack {entry.get('id', '?')!r} (#{index + 1})"
        try:
            result.append(Attack.model_validate(merged))
        except ValidationError as exc:
            raise CorpusError(f"{source}: {label}: {_explain(exc)}") from None
    return result


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        parts.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return "; ".join(parts)


_PLACEMENT_DEFAULTS = {"placement": "append", "field": None}
"""Placement keys left at their default are not hashed: the digest (and so config_hash) of a corpus that does not
use them stays what it was before they existed."""


def corpus_digest(version: str, attacks: tuple[Attack, ...]) -> str:
    dumped = [{k: v for k, v in a.model_dump(mode="json").items()
               if not (k in _PLACEMENT_DEFAULTS and v == _PLACEMENT_DEFAULTS[k])} for a in attacks]
    blob = json.dumps([version, dumped], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()
