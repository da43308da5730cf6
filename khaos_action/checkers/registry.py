"""The invariant registry: `CHECKERS` (type -> entry class), `@register_checker`, the `Invariant` base every entry
extends, and `check_invariant`, which applies an entry under the rules every type shares.

An entry is one pydantic model class: its fields are the invariant's parameters (validated where `khaos.yaml`,
a replay session or a manifest's `spec` is read, errors pointing at the key), its class variables its metadata,
its docstring its docs, its `check` the checker. `Invariant.model_validate(data)` (and `Invariant(**data)`)
returns an instance of the entry that `data["type"]` names, so config's `contract.invariants` is the union of the
registered entries without a list of them anywhere else. Any module registers an entry by importing this one;
importing `khaos_action.checkers` registers the built-ins.

Shared rules, applied once by `check_invariant` rather than in every entry:
- `exercised=False` -> passed None, detail "not exercised" (nothing passes untested).
- `negate` flips every type's verdict; the detail still says what was found, marked "(negated)".
- Errors are not content: when the call failed (error or timeout) an entry is "not evaluated" (passed None, shown
  with the error) unless its `on_failed_call` says it judges that failure (`completes` judges both, `latency` a
  timeout): a crash neither passes "must not contain X", "latency <= N" or "tool X not called", nor fails a content
  check.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, create_model, model_validator

from khaos_action.fields import Severity, Strict
from khaos_action.regexes import RegexTimeout
from khaos_action.registry import Registry

if TYPE_CHECKING:  # read, never built, here: not imported when the registry loads
    from khaos_action.agent_reply import AgentReply
    from khaos_action.manifest import InvariantResult
    from khaos_action.outcome import Phase

When = Literal["always", "tool_faults_active", "llm_faults_active", "any_chaos_active", "no_chaos"]
Verdict = tuple[bool, str]
"""(passed, detail) as an entry's `check` returns it, before `negate`."""


class NotExercised(Exception):
    """Raised by a check that has nothing to compare against (e.g. no baseline reply): passed None, not a failure."""


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What a check may read besides the reply: the run's reference data for this case."""

    baseline_text: str | None = None
    """The no-chaos reply to the same prompt (behavior_unchanged with `baseline: auto`)."""
    system_prompt: str | None = None
    """agent.system_prompt (sharpens leak probes)."""
    prompt: str | None = None
    """The case input (lets refusal_check see a deflection); None for encoded (mutated) prompts."""


class Invariant(Strict):
    """One behavioral rule (Flakestorm schema): the fields every type shares; each registered type adds its own."""

    id: str
    type: str
    """The checker entry (`CHECKERS`) that judges this rule."""
    severity: Severity = "medium"
    when: When = "always"
    negate: bool = False
    description: str | None = None

    on_failed_call: ClassVar[Literal["not_evaluated", "timeout", "judged"]] = "not_evaluated"
    """Whether the check reads the output: when the call failed it is not evaluated (`not_evaluated`), judges a
    timeout only (`timeout`: latency) or judges any failure (`judged`: completes)."""
    requires: ClassVar[tuple[str, ...]] = ()
    """Fields that must be given ("a|b": one of them); the error says `invariant type 'x' needs ...`."""
    needs_named_tools: ClassVar[bool] = False
    """The tools it names must exist (a replay session naming an unknown tool in it is a problem)."""

    def __new__(cls, *args: Any, **data: Any) -> Any:
        # `Invariant(type="contains", ...)` builds the registered entry, as `Invariant.model_validate` does.
        entry = CHECKERS.get(data.get("type")) if cls is Invariant else None  # type: ignore[arg-type]
        return super().__new__(entry or cls)

    @classmethod
    def variant_for(cls, data: Any) -> type[BaseModel]:
        """The model that validates `data` (config/errors.py reads its fields to word an error)."""
        return variant_for(data) if cls is Invariant else cls

    @model_validator(mode="wrap")
    @classmethod
    def _as_its_type(cls, data: Any, handler: Callable[[Any], Any]) -> Any:
        if cls is not Invariant or not isinstance(data, dict):
            return handler(data)
        entry = variant_for(data)
        return entry.model_validate(data)  # its errors keep their key paths (contract.invariants[2].value)

    @model_validator(mode="after")
    def _required_fields(self) -> Invariant:
        for need in self.requires:
            if not any(getattr(self, alt) not in (None, []) for alt in need.split("|")):
                shown = " or ".join(f"`{alt}`" for alt in need.split("|"))
                raise ValueError(f"invariant type {self.type!r} needs {shown}")
        return self

    # ---- what an entry overrides -------------------------------------------------------------------------------

    def check(self, reply: AgentReply, ctx: CheckContext) -> Verdict:
        """(passed, detail) for one reply; raise NotExercised when there is nothing to compare against."""
        raise NotImplementedError

    def own_prompts(self) -> list[str]:
        """Prompts sent instead of the golden prompts (system_prompt_leak_probe's `probes`); empty: the golden ones."""
        return []

    def needs_baseline_reply(self) -> bool:
        """Whether the contract must run each prompt without chaos, for this invariant to compare with."""
        return False

    def skip_reason(self, *, has_faults: bool, phase: Phase) -> str | None:
        """Why this case does not judge the invariant at all (passed None), or None to judge it."""
        return None

    def tools_named(self) -> dict[str, str]:
        """Key -> tool name for every tool this invariant names (config warns about undeclared ones)."""
        return {}

    @classmethod
    def for_replay(cls, spec: dict[str, Any], reference: Callable[[], str | None]) -> tuple[dict[str, Any] | None,
                                                                                          str]:
        """The spec (a manifest's `InvariantResult.spec`, without `when`) a replay session checks, or (None, why not).
        `reference()` is the no-chaos reply to the same input found in the manifest."""
        return spec, ""


CHECKERS: Registry[type[Invariant]] = Registry("invariant type")
"""Invariant type -> its entry class. The built-ins register when `khaos_action.checkers` is imported (its
`__init__` imports them; this module imports none)."""


def register_checker(type_name: str) -> Callable[[type[Invariant]], type[Invariant]]:
    """Class decorator: register an Invariant subclass as the entry for `type: <type_name>`."""

    def entry(cls: type[Invariant]) -> type[Invariant]:
        if not (isinstance(cls, type) and issubclass(cls, Invariant)) or cls is Invariant:
            raise TypeError(f"@register_checker({type_name!r}) decorates Invariant subclasses, not {cls!r}")
        return cls

    return CHECKERS.decorator(type_name, entry)


def variant_for(data: Any) -> type[BaseModel]:
    """The model that validates one invariant mapping: its registered entry, or, for an unknown or missing `type`,
    a model whose `type` lists the registered ones (config/errors.py words that as "expected one of ...")."""
    kind = data.get("type") if isinstance(data, dict) else None
    entry = CHECKERS.get(kind) if isinstance(kind, str) else None  # a list or mapping is no type name
    return entry if entry is not None else _unknown_type(tuple(CHECKERS))


@functools.cache
def _unknown_type(types: tuple[str, ...]) -> type[BaseModel]:
    return create_model("Invariant", __config__=ConfigDict(extra="ignore"),
                        type=(Literal[types], ...))  # type: ignore[valid-type]


def check_invariant(
    inv: Invariant,
    reply: AgentReply,
    *,
    baseline_text: str | None = None,
    exercised: bool = True,
    system_prompt: str | None = None,
    prompt: str | None = None,
) -> InvariantResult:
    """Judge one reply against one invariant. `system_prompt` (agent.system_prompt) sharpens leak probes; `prompt`
    (the case input) lets refusal_check see a deflection (a reply about something else) with the semantic backend."""
    from khaos_action.manifest import InvariantResult  # here, not at import: loading a config needs no results

    passed, detail = invariant_verdict(inv, reply, baseline_text=baseline_text, exercised=exercised,
                                       system_prompt=system_prompt, prompt=prompt)
    return InvariantResult(id=inv.id, severity=inv.severity, passed=passed, detail=detail, type=inv.type)


def invariant_verdict(
    inv: Invariant,
    reply: AgentReply,
    *,
    baseline_text: str | None = None,
    exercised: bool = True,
    system_prompt: str | None = None,
    prompt: str | None = None,
) -> tuple[bool | None, str]:
    """`check_invariant`'s (passed, detail), without the result model (the judge shares one model among the cases
    that got the same verdict)."""
    if not exercised:
        return None, "not exercised"
    judged = inv.on_failed_call
    if (reply.timed_out and judged == "not_evaluated") or (
            reply.error and not reply.timed_out and judged != "judged"):
        why = "timed out" if reply.timed_out else f"agent error: {short(reply.error or '', 120)}"
        return None, f"not evaluated: the call failed ({why})"
    try:
        passed, detail = inv.check(reply, CheckContext(baseline_text, system_prompt, prompt))
    except NotExercised as exc:
        return None, f"not exercised: {exc}"
    except RegexTimeout as exc:
        # An error on this check (it fails, whatever `negate` says), never a hang of the run.
        return False, f"check error: {exc}"
    if inv.negate:
        return not passed, f"(negated) {detail}"
    return passed, detail


def short(text: str, limit: int = 60) -> str:
    """One line of at most `limit` characters, for details."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
