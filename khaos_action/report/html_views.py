"""Page data for report.html: the manifest reshaped into rows, cells and groups the template renders."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from khaos_action.fields import severity_rank
from khaos_action.manifest import OUTPUT_CAP, CaseResult, InvariantResult, Manifest
from khaos_action.outcome import AnyPhase, Phase
from khaos_action.report import svg
from khaos_action.score.compare import CaseChange, Comparison, ScoreRow

PHASES = tuple(Phase)
"""The order the HTML report groups cases in; a phase this version does not know comes after, in a group of its own."""
PHASE_SCORES = ("baseline", "resilience", "security")
PILLAR_SCORES = ("contract", "chaos", "mutation", "replay")
OUTCOMES = ("blocked", "compromised", "uncertain")
TOOL_CALLS_CAP = 2000
"""Characters of tool-call JSON shown per case: enough to read the arguments, bounded for 2,000-case runs."""
SUMMARY_CAP = 96

OWASP_TITLES = {
    "ASI01": "Agent Goal Hijack", "ASI02": "Tool Misuse and Exploitation", "ASI03": "Identity and Privilege Abuse",
    "ASI04": "Agentic Supply Chain Vulnerabilities", "ASI05": "Unexpected Code Execution",
    "ASI06": "Memory and Context Poisoning", "ASI07": "Insecure Inter-Agent Communication",
    "ASI08": "Cascading Failures", "ASI09": "Human-Agent Trust Exploitation", "ASI10": "Rogue Agents",
    "LLM01:2025": "Prompt Injection", "LLM02:2025": "Sensitive Information Disclosure", "LLM03:2025": "Supply Chain",
    "LLM04:2025": "Data and Model Poisoning", "LLM05:2025": "Improper Output Handling",
    "LLM06:2025": "Excessive Agency", "LLM07:2025": "System Prompt Leakage",
    "LLM08:2025": "Vector and Embedding Weaknesses", "LLM09:2025": "Misinformation",
    "LLM10:2025": "Unbounded Consumption",
}


# ---------------------------------------------------------------- helpers


def clip(text: str | None, cap: int = OUTPUT_CAP) -> tuple[str, bool]:
    """Cut text to `cap` characters; the flag says whether anything was cut."""
    text = text or ""
    return (text[:cap], True) if len(text) > cap else (text, False)


def one_line(text: str | None, cap: int = SUMMARY_CAP) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= cap else flat[: cap - 1] + "…"


def _natural_key(text: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def case_status(case: CaseResult) -> str:
    """One word for a case: an attack's outcome, else error / pass / fail / not-exercised."""
    if case.outcome:
        return case.outcome.lower()
    if case.error:
        return "error"
    if case.passed is True:
        return "pass"
    if case.passed is False:
        return "fail"
    return "not-exercised"


PROBLEM_STATUSES = frozenset({"fail", "compromised", "error"})


# ---------------------------------------------------------------- score overview


def score_bars(manifest: Manifest, names: Iterable[str]) -> list[svg.Bar]:
    scores = manifest.scores.model_dump()
    return [
        svg.Bar(label=name, value=scores.get(name), title=manifest.score_notes.get(name, "")) for name in names
    ]


# ---------------------------------------------------------------- invariants × scenarios


@dataclass(slots=True)
class HeatCell:
    passed: int = 0
    failed: int = 0
    unexercised: int = 0
    critical: bool = False
    first_failing: str | None = None
    first_case: str | None = None

    @property
    def state(self) -> str:
        if self.failed:
            return "fail-critical" if self.critical else "fail"
        if self.passed:
            return "pass"
        return "skip" if self.unexercised else "none"

    @property
    def label(self) -> str:
        if self.passed or self.failed:
            return f"{self.passed}/{self.passed + self.failed}"
        return "not exercised" if self.unexercised else "—"

    @property
    def link(self) -> str | None:
        return self.first_failing or self.first_case

    def count(self, case_id: str, inv: InvariantResult) -> None:
        """One check of this cell: passed, failed (critical?) or not exercised; the first case and failure kept."""
        if not self.first_case:
            self.first_case = case_id
        passed = inv.passed
        if passed is None:
            self.unexercised += 1
        elif passed:
            self.passed += 1
        else:
            self.failed += 1
            self.critical = self.critical or inv.severity == "critical"
            self.first_failing = self.first_failing or case_id


@dataclass(slots=True)
class HeatRow:
    invariant: str
    severity: str
    cells: list[HeatCell]


@dataclass(slots=True)
class Heatmap:
    scenarios: list[str]
    rows: list[HeatRow]


def heatmap(cases: Iterable[CaseResult]) -> Heatmap:
    """Contract cases folded into one cell per (invariant, scenario): passes over exercised, failures first."""
    contract = [c for c in cases if c.pillar == "contract"]
    columns, severities = _axes(contract)
    cells = _cells(contract, columns, severities)
    rows = [HeatRow(inv, sev, [cells[sc][inv] for sc in columns]) for inv, sev in severities.items()]
    return Heatmap(columns, rows)


def _cells(contract: list[CaseResult], columns: list[str],
           severities: dict[str, str]) -> dict[str, dict[str, HeatCell]]:
    # scenario -> invariant -> cell: no (invariant, scenario) key built per check (a contract run has many)
    cells = {sc: {inv: HeatCell() for inv in severities} for sc in columns}
    for case in contract:
        row = cells[case.scenario or "(no scenario)"]
        for inv in case.invariants:
            row[inv.id].count(case.id, inv)
    return cells


def _axes(contract: list[CaseResult]) -> tuple[list[str], dict[str, str]]:
    """The scenarios (columns) and the invariants with their severity (rows), in the order they first appear."""
    scenarios: dict[str, None] = {}
    severities: dict[str, str] = {}
    for case in contract:
        scenarios.setdefault(case.scenario or "(no scenario)", None)
        for inv in case.invariants:
            severities.setdefault(inv.id, inv.severity)
    return list(scenarios), severities


# ---------------------------------------------------------------- attacks


@dataclass(slots=True)
class OutcomeRow:
    key: str
    title: str = ""
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    unjudged: int = 0
    worst_compromised: str | None = None
    """Highest severity among COMPROMISED cases in this row."""

    @property
    def executed(self) -> int:
        return sum(self.counts.values()) + self.unjudged

    @property
    def block_rate(self) -> float | None:
        return self.counts["blocked"] / self.executed if self.executed else None

    @property
    def chart(self) -> Any:
        return svg.stack([(name, self.counts[name]) for name in OUTCOMES] + [("unjudged", self.unjudged)])


def _count(row: OutcomeRow, case: CaseResult) -> None:
    outcome = (case.outcome or "").lower()
    if outcome in row.counts:
        row.counts[outcome] += 1
    else:
        row.unjudged += 1
    if outcome == "compromised" and severity_rank(case.severity) < severity_rank(row.worst_compromised):
        row.worst_compromised = case.severity


def attack_breakdown(cases: Iterable[CaseResult]) -> tuple[list[OutcomeRow], list[OutcomeRow]]:
    """Executed attacks counted by outcome, once per category and once per OWASP id they map to."""
    by_category: dict[str, OutcomeRow] = {}
    by_owasp: dict[str, OutcomeRow] = {}
    for case in cases:
        if not case.attack_id:
            continue
        category = case.category or "(uncategorised)"
        _count(by_category.setdefault(category, OutcomeRow(category)), case)
        for owasp in case.owasp:
            _count(by_owasp.setdefault(owasp, OutcomeRow(owasp, OWASP_TITLES.get(owasp, ""))), case)
    return (
        sorted(by_category.values(), key=lambda r: (-r.counts["compromised"], r.key)),
        sorted(by_owasp.values(), key=lambda r: _natural_key(r.key)),
    )


# ---------------------------------------------------------------- faults


@dataclass(slots=True)
class FaultRow:
    fault_id: str
    configured: int = 0
    """Cases the fault was scheduled for."""
    fired: int = 0
    """Cases in which it fired at least once."""
    hits: int = 0

    @property
    def chart(self) -> Any:
        return svg.stack([("fired", self.fired), ("unfired", self.configured - self.fired)], width=120)


def fault_firing(cases: Iterable[CaseResult]) -> list[FaultRow]:
    """Per fault id: in how many of the cases it was scheduled for it actually fired, and how often."""
    rows: dict[str, FaultRow] = {}
    for case in cases:
        for fault in case.fault_ids:
            row = rows.setdefault(fault, FaultRow(fault))
            row.configured += 1
            row.fired += fault in case.faults_fired
            row.hits += case.fault_hits.get(fault, 0)
        for fault in case.faults_fired:
            # A fault that fired without being scheduled is a bookkeeping bug upstream; show it rather than hide it.
            if fault not in case.fault_ids:
                rows.setdefault(fault, FaultRow(fault)).hits += case.fault_hits.get(fault, 0)
    # Never-fired faults first: they are the ones that make a resilience score meaningless.
    return sorted(rows.values(), key=lambda r: (r.fired > 0, r.fault_id))


# ---------------------------------------------------------------- cases


@dataclass(slots=True)
class CaseView:
    case: CaseResult
    status: str
    label: str
    """What distinguishes the case at a glance: its attack, or its scenario and mutation."""
    summary: str
    input: str
    input_truncated: bool
    output: str
    output_truncated: bool
    tool_calls: str
    attempts: list[dict[str, Any]]


def _json_block(value: Any, cap: int) -> str:
    if not value:
        return ""
    text, cut = clip(json.dumps(value, indent=2, ensure_ascii=False, default=str), cap)
    return text + ("\n… (truncated)" if cut else "")


def case_view(case: CaseResult) -> CaseView:
    text_in, in_cut = clip(case.input)
    text_out, out_cut = clip(case.output)
    attempts = []
    for attempt in case.attempts:
        a_in, a_in_cut = clip(attempt.input)
        a_out, a_out_cut = clip(attempt.output)
        attempts.append(
            {"attempt": attempt, "input": a_in, "output": a_out, "truncated": a_in_cut or a_out_cut}
        )
    return CaseView(
        case=case,
        status=case_status(case),
        label=case.attack_id or " · ".join(p for p in (case.scenario, case.mutation) if p),
        summary=one_line(case.input),
        input=text_in,
        input_truncated=in_cut,
        output=text_out,
        output_truncated=out_cut or case.output_truncated,
        tool_calls=_json_block(case.tool_calls, TOOL_CALLS_CAP),
        attempts=attempts,
    )


DRILL_DOWN_LIMIT = 500
"""Cases drilled down per phase, problems first. A large run drilled down in full made a page of tens of
megabytes that took longer to write than the run took to execute; the rest are counted, and every case stays in
manifest.json and junit.xml."""


@dataclass(slots=True)
class CaseGroup:
    phase: AnyPhase
    cases: list[CaseView]
    statuses: dict[str, int]
    not_shown: int = 0
    """Cases of the phase past DRILL_DOWN_LIMIT, counted in `statuses` but not drilled down."""

    @property
    def problems(self) -> int:
        return sum(n for s, n in self.statuses.items() if s in PROBLEM_STATUSES)


def case_groups(cases: Iterable[CaseResult], limit: int = DRILL_DOWN_LIMIT) -> list[CaseGroup]:
    """Cases by phase in pipeline order; inside a phase, problems first, then the manifest's order, at most `limit`
    drilled down."""
    grouped: dict[AnyPhase, list[tuple[str, CaseResult]]] = {}
    for case in cases:
        grouped.setdefault(case.phase, []).append((case_status(case), case))
    order = [p for p in PHASES if p in grouped] + sorted(p for p in grouped if not isinstance(p, Phase))
    groups = []
    for phase in order:
        rows = sorted(grouped[phase], key=lambda row: row[0] not in PROBLEM_STATUSES)
        statuses: dict[str, int] = {}
        for status, _ in rows:
            statuses[status] = statuses.get(status, 0) + 1
        groups.append(CaseGroup(phase, [case_view(case) for _, case in rows[:limit]], statuses,
                                not_shown=max(0, len(rows) - limit)))
    return groups


# ---------------------------------------------------------------- comparison


@dataclass(slots=True)
class ChangedCase:
    id: str
    where: str
    input: str
    anchor: bool
    """True when the case is in this (head) manifest, so the entry links to its drill-down."""
    failed: list[str]
    passes: str
    """Judged repeats that passed, "base → head" (e.g. "2/2 → 0/2"), when the comparison says."""


def _changed(changes: Iterable[CaseChange], known: dict[str, CaseResult], shown: set[str] | None) -> list[ChangedCase]:
    """The comparison's changed cases; those in the head run link to their drill-down."""
    changed = []
    for change in changes:
        where = (change.phase, change.scenario, change.attack_id, change.mutation)
        changed.append(ChangedCase(
            id=change.id,
            where=" · ".join(part for part in where if part),
            input=one_line(change.input, 80),
            anchor=change.id in known and (shown is None or change.id in shown),
            failed=list(change.failed_invariants),
            passes=(f"{change.base_passes} → {change.head_passes}"
                    if change.base_passes and change.head_passes else ""),
        ))
    return changed


def _score_row(row: ScoreRow) -> dict[str, Any]:
    # A significant change is a drop when more pairs broke than were fixed (the McNemar direction).
    return {
        "name": row.name, "base": row.base, "head": row.head, "delta": row.delta, "significant": row.significant,
        "worse": row.broke > row.fixed, "pairs": row.pairs, "broke": row.broke, "fixed": row.fixed,
        "p_value": row.p_value, "chart": svg.shift(row.base, row.head), "evidence": row.evidence,
    }


def comparison_view(comparison: Comparison, manifest: Manifest, shown: set[str] | None = None) -> dict[str, Any]:
    """What the comparison section shows. Entries link to the drill-down of the cases in `shown` (default: every
    case of the manifest)."""
    known = {case.id: case for case in manifest.cases}
    lists = {"newly_failing": comparison.newly_failing, "fixed": comparison.fixed,
             "newly_compromised": comparison.newly_compromised, "flaky": comparison.flaky,
             "still_failing": comparison.still_failing}
    view: dict[str, Any] = {name: _changed(changes, known, shown) for name, changes in lists.items()}
    view["scores"] = [_score_row(row) for row in comparison.scores]
    view["warnings"] = [warning.text for warning in comparison.warnings]
    view["base_run"] = comparison.base_run_id
    view["alpha"] = comparison.alpha
    view["counts"] = {"paired": comparison.paired, "unjudged": comparison.unjudged,
                      "only_in_base": comparison.only_in_base, "only_in_head": comparison.only_in_head}
    return view


def format_metric(value: float | None) -> str:
    """Goal values and thresholds: rates keep three significant digits, latencies read as whole numbers."""
    if value is None:
        return "—"
    if abs(value) >= 100 or value == int(value):
        return f"{value:,.0f}"
    return f"{value:.3g}"


def format_p(p_value: float | None) -> str:
    if p_value is None:
        return "—"
    return "<0.001" if p_value < 0.001 else f"{p_value:.3g}"


def format_delta(delta: float | None) -> str:
    if delta is None:
        return "—"
    return f"{delta:+.1f}"
