"""The run manifest (docs/spec.md, "manifest.json"): the single source every report, `compare` and `merge` read.

Reading is lenient about unknown keys (a newer tool may have added fields); writing goes through these models.
Files are read back by khaos_action/manifest_read.py.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    InstanceOf,
    TypeAdapter,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)

from khaos_action.errors import ExitCode, KhaosError
from khaos_action.findings import Finding
from khaos_action.gates_and_weights import Gates, Weights
from khaos_action.outcome import Outcome, Phase, UnknownPhase

SCHEMA_VERSION = 2
"""2: the sections version 1 kept under `extra` (gates, weights, telemetry, …) are top-level fields. Version 1
manifests load into them (`Manifest._from_extra`) and are the current shape once loaded."""
OUTPUT_CAP = 4000
"""Characters of agent output kept per case in the manifest."""


class ManifestError(KhaosError):
    exit_code = ExitCode.CONFIG


# The one place a manifest's phases and outcomes become this version's types: a result this version builds carries
# them already; a manifest read back (another version's, a baseline artifact, the action's `manifest` input) is
# converted here. Left to right: the member when the word is one, else the word kept as written.
ManifestPhase = Annotated[Phase | Annotated[str, AfterValidator(UnknownPhase)], Field(union_mode="left_to_right")]
"""A `Phase`, else an `UnknownPhase` (shown in a group of its own, never refused)."""
ManifestOutcome = Annotated[Outcome | str, Field(union_mode="left_to_right")]
"""An `Outcome`, else the string a foreign manifest wrote (which no count or rate takes for one of the three)."""


class Model(BaseModel):
    model_config = ConfigDict(extra="ignore")

    def model_post_init(self, context: Any, /) -> None:
        # Each result kept its own set of the field names it was given, a large share of a CaseResult's memory.
        # Results of the same shape share one set; nothing reads it (no exclude_unset dumps).
        fields = self.__pydantic_fields_set__
        object.__setattr__(self, "__pydantic_fields_set__", _FIELD_SETS.setdefault(frozenset(fields), fields))


_FIELD_SETS: dict[frozenset[str], set[str]] = {}


class InvariantResult(Model):
    id: str
    severity: str = "medium"
    passed: bool | None = None
    """None when the invariant was not exercised (its `when` did not apply or the faults never fired)."""
    detail: str = ""
    type: str | None = None
    builtin: bool = False
    """A check khaos-action runs on every case (no planted secret): it gates, but no score counts it."""
    spec: InstanceOf[dict[str, Any]] | None = None
    """The invariant as configured (`Invariant.model_dump(exclude_defaults=True)`), so `replay export` can turn a
    failure into a regression check from the manifest alone."""


def _interned(value: Any, validate: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    """CaseResult.invariants, validated through the reader's `Interned` (manifest_read.py) when it passes one."""
    interned = info.context.get("interned") if isinstance(info.context, dict) else None
    if interned is None or type(value) is not list or not interned.worth_it():
        return validate(value)
    return interned.results_of(value, validate)


class Attempt(Model):
    """An earlier attempt of an attack (the adaptive retry keeps both)."""

    input: str
    output: str = ""
    outcome: ManifestOutcome | None = None
    mutation: str | None = None
    evidence_tags: list[str] = []


class EgressAttempt(Model):
    """An outbound HTTP request the agent made during an attack case to a host the attack named (an attacker URL,
    a webhook, an e-mail domain): answered locally by khaos-action, never sent; or, from a client no interception
    knows, the name lookup of such a host, refused (method "DNS", via "socket", the host alone) (docs/sandbox.md)."""

    host: str
    method: str = "GET"
    path: str = "/"
    """The path and query, as the agent sent them."""
    body: str = ""
    """The request body as text (its first 2,000 characters; secrets masked in what is written)."""
    via: str = ""
    """What caught it: httpx, httpx2, requests, aiohttp, urllib, socket (python agents), proxy (http/command
    agents)."""
    canary: bool = False
    """The case's canary (joined, in any encoding the judge knows) is in the URL or the body."""
    secret: bool = False
    """An `agent.secrets` value (in any encoding the judge knows) is in the URL or the body."""



class Utility(Model):
    """Utility under attack: whether an indirect attack case still did the user's task (judge/utility.py)."""

    passed: bool | None = None
    """None: nothing to compare with (no `expect`, no baseline reply)."""
    via: str = "baseline"
    """`expect` (the carrier golden prompt's) or `baseline` (similarity to the prompt's no-fault reply)."""
    detail: str = ""
    score: float | None = None
    """The similarity to the baseline reply, when that decided."""


class Contamination(Model):
    """Another case's data in this case's reply, or this case's data in another's (judge/contamination.py)."""

    string: str
    """The foreign string: a token of a tool result, an injected payload or a canary (agent text: escape it)."""
    other_case: str
    """The other case's id (`id#repeat` for a repeat)."""
    direction: Literal["received", "leaked"]
    """received: the string belongs to `other_case` and is in this reply; leaked: it is this case's and is in the
    reply of `other_case`."""


class CaseResult(Model):
    id: str
    phase: ManifestPhase
    pillar: str | None = None
    input: str
    history: list[dict[str, Any]] = []
    """Conversation history sent with the input ({role, content}), e.g. for replay sessions."""
    scenario: str | None = None
    attack_id: str | None = None
    category: str | None = None
    objective: str | None = None
    channel: str | None = None
    severity: str | None = None
    owasp: list[str] = []
    mutation: str | None = None
    fault_ids: list[str] = []
    faults_fired: list[str] = []
    fault_hits: dict[str, int] = {}
    output: str = ""
    output_truncated: bool = False
    tool_calls: list[dict[str, Any]] = []
    outcome: ManifestOutcome | None = None
    confidence: float | None = None
    evidence_tags: list[str] = []
    passed: bool | None = None
    """True/False when judged; None when not exercised or not judgeable."""
    invariants: Annotated[list[InvariantResult], WrapValidator(_interned)] = []
    """Shared with other cases when the verdicts are the same (the judge's, and manifest_read's `Interned`)."""
    latency_ms: float = 0.0
    error: str | None = None
    repeat: int = 0
    flaky: bool = False
    attempts: list[Attempt] = []
    llm_calls: list[dict[str, Any]] = []
    notes: list[str] = []
    not_exercised: str | None = None
    """Why nothing was tested (the agent's model never answered, ...): such a case has no outcome and no pass/fail,
    and never counts in a rate or a score."""
    evidence: str | None = None
    """The span of the reply (or tool call) that made an attack COMPROMISED."""
    egress_attempts: list[EgressAttempt] = Field([], exclude_if=lambda value: not value)
    contaminated: list[Contamination] = Field([], exclude_if=lambda value: not value)
    """Cross-case contamination: another concurrent case's tool result or canary in this reply, or this case's in
    another's (both are marked; neither is a pass). Absent when none."""
    utility: Utility | None = Field(None, exclude_if=lambda value: value is None)
    """Indirect attacks: did the agent still do the user's task (the carrier prompt's)? Absent elsewhere."""
    """Attack cases: the agent's outbound requests to hosts the attack named, answered locally (never sent), with
    whether each carried the canary or a secret (exfiltration evidence)."""


class GitInfo(Model):
    sha: str | None = None
    ref: str | None = None


class AgentInfo(Model):
    name: str
    type: str
    capabilities: dict[str, bool] = {}
    capability_sources: dict[str, str] = {}


class Scores(Model):
    overall: float | None = None
    baseline: float | None = None
    resilience: float | None = None
    security: float | None = None
    contract: float | None = None
    mutation: float | None = None
    chaos: float | None = None
    replay: float | None = None


class Verdict(Model):
    passed: bool
    reasons: list[str] = []
    """The findings' texts, for readers of older manifests."""
    findings: list[Finding] = []
    exit_code: int = 0
    partial: str | None = Field(None, exclude_if=lambda value: value is None)
    """What of the run this verdict was decided without (`merge` of some of its shards): every headline says it."""


class Counts(Model):
    invocations: int = 0
    cases: int = 0
    errors: int = 0
    attacks_executed: int = 0
    attacks_skipped: int = 0
    blocked: int = 0
    compromised: int = 0
    uncertain: int = 0
    faults_configured: int = 0
    faults_fired: int = 0
    not_exercised: int = 0
    """Cases that ran but tested nothing (the agent's model never answered, ...): no outcome, no pass/fail."""
    not_run: int = 0
    """Planned cases that never started (a budget was exhausted); listed in `Manifest.not_run`."""


class GoalResult(Model):
    phase: ManifestPhase
    metric: str
    operator: str
    threshold: float
    value: float | None = None
    met: bool | None = None


class SkippedAttack(Model):
    attack_id: str
    category: str
    channel: str
    owasp: list[str] = []
    reason: str
    objective: str | None = Field(None, exclude_if=lambda value: value is None)


class BreakdownRow(Model):
    """One channel's or one objective's attacks: what ran, what came of it, and the user's task under attack."""

    executed: int = 0
    blocked: int = 0
    compromised: int = 0
    uncertain: int = 0
    not_exercised: int = 0
    """Selected and applicable, but nothing reached the agent (no carrier reaches the channel, payload not
    delivered, the model never answered)."""
    not_applicable: int = 0
    """Selected, but the agent has no such channel or tool."""
    utility_judged: int = 0
    utility_kept: int = 0
    """Indirect attack cases whose reply still did the user's task (of `utility_judged`)."""


class AttackBreakdown(Model):
    """The security phase per channel and per objective (score/breakdown.py)."""

    by_channel: dict[str, BreakdownRow] = {}
    by_objective: dict[str, BreakdownRow] = {}


class NotApplicableFault(Model):
    """A configured fault that cannot apply to this agent (tool faults on an agent without tools): its cases were
    not run, and nothing counts them as passes."""

    id: str
    target: str
    mode: str
    cases: int = 0
    """Cases planned with it and set aside."""
    reason: str


class Reach(Model):
    """What one golden prompt reached in the baseline (attacks/surface.py)."""

    tools: list[str] = []
    llm: bool = False


class RecordedGates(Gates):
    """The gates as the run recorded them; lenient, as every manifest section is, about keys a newer tool wrote."""

    model_config = ConfigDict(extra="ignore")


class RecordedWeights(Weights):
    model_config = ConfigDict(extra="ignore")


class ModelUsage(Model):
    """One provider and model's share of the run's LLM calls."""

    provider: str = "?"
    model: str = "?"
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    estimated_calls: int = 0
    cost_usd: float | None = 0.0
    """None when the model has no price (and its calls used tokens): unpriced, never counted as free."""


class CassetteStats(Model):
    """What the LLM cassette did (khaos_action/llm/cassette.py `Cassette.stats`)."""

    mode: str = ""
    path: str = ""
    hits: int = 0
    misses: int = 0
    recorded: int = 0
    missed: list[str] = []
    """The requests replay mode did not find (described), first ones only."""


class BudgetSpent(Model):
    llm_calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    wall_s: float = 0.0


class BudgetState(Model):
    """The run's budget (khaos.yaml `budget`) and what it spent."""

    limits: dict[str, int | float] = {}
    """The limits that were set (`max_llm_calls`, `max_tokens`, `max_cost_usd`, `max_wall_s`); unset ones absent."""
    spent: BudgetSpent = BudgetSpent()
    exhausted: str | None = None
    """Which limit stopped the run, if one did."""


class Telemetry(Model):
    """The run's LLM usage (khaos_action/llm/telemetry.py `summarise_calls`)."""

    calls: int = 0
    by_source: dict[str, int] = {}
    """Calls by who answered: live, cassette, fault, error, cassette_miss."""
    by_purpose: dict[str, int] = {}
    """Calls by whose they were: agent, attacker, ..."""
    input_tokens: int = 0
    output_tokens: int = 0
    estimated_calls: int = 0
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    cost_usd: float = 0.0
    """Spent on live calls."""
    cost_usd_replayed: float = 0.0
    """What the calls replayed from the cassette would have cost."""
    unpriced_models: list[str] = []
    models: list[ModelUsage] = []
    cassette: CassetteStats | None = None
    budget: BudgetState | None = None
    shard_budgets: list[BudgetState | None] | None = Field(None, exclude_if=lambda value: value is None)
    """A merged run's budget of each shard (budgets are per shard); absent from a run's own manifest."""


_FORMERLY_EXTRA = ("gates", "weights", "config_lines", "similarity_backend", "attack_surface", "telemetry",
                   "merged_from")


class Manifest(Model):
    schema_version: int = SCHEMA_VERSION
    run_id: str
    tool_version: str
    seed: int
    config_hash: str
    config_path: str | None = None
    started_at: str
    finished_at: str | None = None
    git: GitInfo = GitInfo()
    agent: AgentInfo
    packs: list[str] = []
    shard: str | None = None
    scores: Scores = Scores()
    score_notes: dict[str, str] = {}
    """One line per score saying what it measures and what it was computed from."""
    verdict: Verdict
    counts: Counts = Counts()
    metrics: dict[str, dict[str, Any]] = {}
    """Per phase/pillar metric values (task_completion, error_rate, latency_p50, block_rate, ...)."""
    goals: list[GoalResult] = []
    skipped: list[SkippedAttack] = []
    faults_not_applicable: list[NotApplicableFault] = Field([], exclude_if=lambda value: not value)
    """Faults set aside before the run because they cannot apply to the agent (e.g. tool faults, no tools)."""
    not_run: list[str] = []
    """Ids (`id` or `id#repeat`) of planned cases that never started because a budget was exhausted."""
    stats: dict[str, Any] = {}
    """Pass rates with 95% Wilson intervals per phase/pillar, and the security breakdown (overall, per category,
    per OWASP id, per severity)."""
    coverage: dict[str, Any] = {}
    """Attack coverage per category and OWASP id: selected / executed / not applicable."""
    flaky: list[str] = []
    """Ids of cases whose repeats disagreed."""
    warnings: list[str] = []
    alerts: list[str] = []
    """What every view says first: the agent's model did not answer (error and endpoint)."""
    gates: RecordedGates = RecordedGates()
    """The gates the verdict was decided by (khaos.yaml `gates`), so `merge` decides again without the config."""
    weights: RecordedWeights = RecordedWeights()
    """The score weights (khaos.yaml `scoring.weights`), for the same reason."""
    config_lines: dict[str, int] = {}
    """Lines of khaos.yaml that annotations and SARIF results point at: `agent`, `packs`, `contract`,
    `invariant:<id>`, `scenario:<name>`."""
    similarity_backend: str | None = None
    """The similarity backend the judge used (`lexical` or `semantic`)."""
    attack_surface: dict[str, Reach] | None = None
    """Golden prompt -> the tools it reached and whether it called the model (when indirect attacks ran)."""
    telemetry: Telemetry | None = None
    """The run's LLM usage (khaos_action.llm.telemetry `summarise_calls`: calls, tokens, cost, models, cassette,
    budget; merged runs add `shard_budgets`)."""
    merged_from: list[str] = []
    """Run ids of the shards a merged manifest was made from."""
    attack_breakdown: AttackBreakdown | None = Field(None, exclude_if=lambda value: value is None)
    """Attacks per channel and per objective, with utility under attack (absent when no attack was selected)."""
    tool_roles: dict[str, str] = Field({}, exclude_if=lambda value: not value)
    """Tool name -> its role (declared, else guessed: roles.py), as the run knew them; absent when none was known."""
    cases: list[CaseResult] = []

    @model_validator(mode="before")
    @classmethod
    def _from_extra(cls, data: Any) -> Any:
        # Manifests written before these fields existed kept them in an `extra` mapping; a base-branch run is often
        # such a manifest, and `compare` and `merge` must still read it.
        if isinstance(data, dict) and (isinstance(data.get("extra"), dict) or data.get("schema_version") == 1):
            extra = data.get("extra") if isinstance(data.get("extra"), dict) else {}
            data = {**{k: v for k, v in extra.items() if k in _FORMERLY_EXTRA}, **data,
                    "schema_version": SCHEMA_VERSION}  # what is written from it is the current shape
            data.pop("extra", None)
        return data

    def write(self, path: Path, *, kept: str = "") -> None:
        # Atomic (khaos_action/atomic.py): a kill or a full disk leaves the previous file or none, never half of one.
        from khaos_action.atomic import atomic_file

        with atomic_file(path, kept=kept) as out:
            self.write_to(out)

    def write_to(self, out: BinaryIO) -> None:
        # Compact: indentation makes a large manifest half as big again (`jq .` pretty-prints it). Streamed:
        # everything but the cases, then the cases a thousand at a time, so the document never sits in memory whole.
        for chunk in self.json_chunks(cases_json(self.cases)):
            out.write(chunk)

    def json_chunks(self, cases: Iterable[bytes | memoryview]) -> Iterator[bytes | memoryview]:
        """The document, given its cases as `cases_json` writes them (`merge` has them written by another process
        while this one scores them), ending with its digest (`check_digest`)."""
        digest = hashlib.sha256()
        head = type(self).__pydantic_serializer__.to_json(self, exclude={"cases"})[:-1] + b',"cases":['
        digest.update(head)
        yield head
        for chunk in cases:
            digest.update(chunk)
            yield chunk
        digest.update(b"]")
        yield b"]" + DIGEST_KEY + digest.hexdigest().encode() + b'"}'


DIGEST_KEY = b',"digest":"sha256:'
"""A manifest's last key: the sha256 of every byte before it (the run, its config_hash and seed, and every case).
`merge` refuses a manifest whose digest is missing or does not match: a shard edited, truncated or mixed with
another run's bytes never counts."""
_DIGEST = re.compile(rb',"digest":"sha256:([0-9a-f]{64})"\}\s*\Z')


def check_digest(raw: bytes, *, source: str) -> None:
    """Raise ManifestError naming `source` unless `raw` ends with the digest of the bytes before it."""
    found = _DIGEST.search(raw, max(0, len(raw) - 100))
    if found is None:
        raise ManifestError(
            f"{source}: no digest at its end: every manifest khaos-action writes ends with "
            f'`"digest":"sha256:…"`, so this one was written by hand, edited, cut short or written by an older '
            "khaos-action; use the manifest the run wrote (re-run that shard)")
    if hashlib.sha256(memoryview(raw)[:found.start()]).hexdigest() != found[1].decode():
        raise ManifestError(
            f"{source}: its digest does not match its content: it was changed after the run wrote it; use the "
            "manifest the run wrote (re-run that shard)")


def cases_json(cases: Sequence[CaseResult]) -> Iterator[bytes | memoryview]:
    """The manifest's `cases` array without its brackets, a thousand cases a chunk (views: no copy
    of the whole array)."""
    for start in range(0, len(cases), 1000):
        if start:
            yield b","
        yield memoryview(_CASES.dump_json(cases[start:start + 1000]))[1:-1]


_CASES = TypeAdapter(list[CaseResult])
