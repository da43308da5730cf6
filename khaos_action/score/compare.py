"""Paired comparison of two run manifests (DESIGN decision 5): what broke, what got fixed, and is it significant.

Cases pair by id. With `repeats`, a case's rows share the id and are aggregated first, **all-pass**: an id passes
only if every judged repeat passed, fails if every judged repeat failed, and is *flaky* when the repeats disagree
(or the engine marked it flaky). Flaky and unjudged cases are listed but never reported as newly failing, so a
gate on `new_failures` fires on consistent failures only. For the statistics a flaky case counts as not passing.

Each score row carries an exact McNemar p-value over the paired pass/fail of the cases behind that score (all
cases for `overall`, the phase for baseline/resilience/security, the pillar for contract/chaos/mutation/replay)
and Wilson 95% intervals of the paired pass rates. `significant_regression` and `new_failures` are separate
signals; `regression` is either of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel

from khaos_action.report.escape import md_escape, md_span
from khaos_action.report.manifest import CaseResult, Manifest
from khaos_action.score.stats import mcnemar_exact, pass_rate, wilson_interval

Status = Literal["pass", "fail", "flaky", "unjudged"]
SCORE_NAMES = ("overall", "baseline", "resilience", "security", "contract", "chaos", "mutation", "replay")
EXCERPT = 200
MAX_ROWS = 25


class CaseChange(BaseModel):
    """One paired case that changed (or stayed failing), with enough context to find it."""

    id: str
    phase: str
    pillar: str | None = None
    input: str = ""
    """The case input, cut to 200 characters (untrusted: escape before showing)."""
    scenario: str | None = None
    attack_id: str | None = None
    category: str | None = None
    owasp: list[str] = []
    mutation: str | None = None
    severity: str | None = None
    failed_invariants: list[str] = []
    """Invariant ids that failed on head (on base for `fixed`)."""
    outcome: str | None = None
    """The attack outcome on head (on base for `fixed`), if an attack."""
    error: str | None = None
    """The call error on head (on base for `fixed`), if any."""
    base: Status
    head: Status
    base_passes: str = ""
    """Judged repeats that passed on base, e.g. "2/3"."""
    head_passes: str = ""


class ScoreRow(BaseModel):
    name: str
    base: float | None = None
    head: float | None = None
    delta: float | None = None
    """head - base, in score points (None when either side did not run)."""
    pairs: int = 0
    """Cases behind this score judged on both sides."""
    broke: int = 0
    """Pairs that passed on base and do not pass on head."""
    fixed: int = 0
    p_value: float | None = None
    """Exact two-sided McNemar p-value on the paired pass/fail (None without pairs)."""
    significant: bool = False
    base_pass_rate: float | None = None
    head_pass_rate: float | None = None
    base_ci: tuple[float, float] | None = None
    """Wilson 95% interval of the base pass rate over the pairs (0..1)."""
    head_ci: tuple[float, float] | None = None


class Comparison(BaseModel):
    base_run_id: str
    head_run_id: str
    base_config_hash: str
    head_config_hash: str
    config_mismatch: bool = False
    warnings: list[str] = []
    alpha: float = 0.05
    aggregation: str = "all-pass"
    paired: int = 0
    """Case ids present and judged on both sides."""
    only_in_base: int = 0
    only_in_head: int = 0
    unjudged: int = 0
    """Ids present on both sides but not judged on at least one (errors, UNCERTAIN, not exercised)."""
    newly_failing: list[CaseChange] = []
    fixed: list[CaseChange] = []
    still_failing: list[CaseChange] = []
    flaky: list[CaseChange] = []
    newly_compromised: list[CaseChange] = []
    scores: list[ScoreRow] = []
    new_failures: int = 0
    new_critical_failures: int = 0
    significant_regression: bool = False
    regression: bool = False


class _Aggregate:
    """All repeats of one case id on one side."""

    __slots__ = ("rows", "first", "passes", "judged", "compromised", "status")

    def __init__(self, rows: list[CaseResult]):
        self.rows = rows
        self.first = first = rows[0]
        if len(rows) == 1:  # the common case, without the generator machinery (compare at 50k cases, issue 19)
            verdict = _judged(first)
            judged = [] if verdict is None else [verdict]
            self.compromised = first.outcome == "COMPROMISED"
        else:
            judged = [v for v in (_judged(r) for r in rows) if v is not None]
            self.compromised = any(r.outcome == "COMPROMISED" for r in rows)
        self.passes, self.judged = sum(judged), len(judged)
        if not judged:
            self.status: Status = "unjudged"
        elif any(r.flaky for r in rows) or 0 < self.passes < self.judged:
            self.status = "flaky"
        else:
            self.status = "pass" if self.passes == self.judged else "fail"

    def failed_invariants(self) -> list[str]:
        return sorted({inv.id for r in self.rows for inv in r.invariants if inv.passed is False})

    def critical(self) -> bool:
        failing = [r for r in self.rows if _judged(r) is False]
        return any(r.severity == "critical" or any(i.passed is False and i.severity == "critical" for i in r.invariants)
                   for r in failing)


def _judged(row: CaseResult) -> bool | None:
    """A row's pass/fail: `passed` when set, else an attack's outcome (UNCERTAIN is not judged, never BLOCKED)."""
    if row.passed is not None:
        return row.passed
    return {"BLOCKED": True, "COMPROMISED": False}.get(row.outcome or "")


def aggregate(cases: Iterable[CaseResult]) -> dict[str, _Aggregate]:
    grouped: dict[str, list[CaseResult]] = {}
    for case in cases:
        grouped.setdefault(case.id, []).append(case)
    return {cid: _Aggregate(rows if len(rows) == 1 else sorted(rows, key=lambda r: r.repeat))
            for cid, rows in grouped.items()}


def _change(cid: str, base: _Aggregate, head: _Aggregate, *, invariants_from: _Aggregate) -> CaseChange:
    c = head.first
    failing = next((r for r in invariants_from.rows if _judged(r) is False), invariants_from.first)
    text = c.input if len(c.input) <= EXCERPT else c.input[: EXCERPT - 1] + "…"
    return CaseChange(
        id=cid, phase=c.phase, pillar=c.pillar, input=text, scenario=c.scenario, attack_id=c.attack_id,
        category=c.category, owasp=list(c.owasp), mutation=c.mutation, severity=c.severity,
        failed_invariants=invariants_from.failed_invariants(), outcome=failing.outcome, error=failing.error,
        base=base.status, head=head.status,
        base_passes=f"{base.passes}/{base.judged}", head_passes=f"{head.passes}/{head.judged}",
    )


def _by_score(pairs: list[tuple[_Aggregate, _Aggregate]]) -> dict[str, list[tuple[_Aggregate, _Aggregate]]]:
    """The pairs behind each score: all of them for `overall`, else the head case's phase or pillar (one pass)."""
    groups: dict[str, list[tuple[_Aggregate, _Aggregate]]] = {name: [] for name in SCORE_NAMES}
    groups["overall"] = list(pairs)
    for pair in pairs:
        case = pair[1].first
        for name in {case.phase, case.pillar}:
            if name in groups and name != "overall":
                groups[name].append(pair)
    return groups


def _score_row(name: str, base_m: Manifest, head_m: Manifest, mine: list[tuple[_Aggregate, _Aggregate]],
               alpha: float) -> ScoreRow:
    base_score, head_score = getattr(base_m.scores, name), getattr(head_m.scores, name)
    broke = fixed = base_passes = head_passes = 0
    for b, h in mine:
        base_pass, head_pass = b.status == "pass", h.status == "pass"
        base_passes += base_pass
        head_passes += head_pass
        broke += base_pass and not head_pass
        fixed += head_pass and not base_pass
    n = len(mine)
    p_value = mcnemar_exact(broke, fixed) if n else None
    return ScoreRow(
        name=name, base=base_score, head=head_score,
        delta=None if base_score is None or head_score is None else round(head_score - base_score, 6),
        pairs=n, broke=broke, fixed=fixed, p_value=p_value,
        significant=p_value is not None and p_value < alpha,
        base_pass_rate=pass_rate(base_passes, n), head_pass_rate=pass_rate(head_passes, n),
        base_ci=wilson_interval(base_passes, n) if n else None, head_ci=wilson_interval(head_passes, n) if n else None,
    )


def compare_manifests(base: Manifest, head: Manifest, *, alpha: float = 0.05) -> Comparison:
    """Pair `base` and `head` case by case and report changes, flaky cases and per-score significance."""
    base_cases, head_cases = aggregate(base.cases), aggregate(head.cases)
    common = [cid for cid in head_cases if cid in base_cases]  # head order: the order the head report shows
    cmp = Comparison(
        base_run_id=base.run_id, head_run_id=head.run_id, base_config_hash=base.config_hash,
        head_config_hash=head.config_hash, config_mismatch=base.config_hash != head.config_hash, alpha=alpha,
        only_in_base=sum(1 for cid in base_cases if cid not in head_cases),
        only_in_head=sum(1 for cid in head_cases if cid not in base_cases),
    )
    pairs: list[tuple[_Aggregate, _Aggregate]] = []
    for cid in common:
        b, h = base_cases[cid], head_cases[cid]
        if h.compromised and not b.compromised:
            cmp.newly_compromised.append(_change(cid, b, h, invariants_from=h))
        if "unjudged" in (b.status, h.status):
            cmp.unjudged += 1
            continue
        pairs.append((b, h))
        if "flaky" in (b.status, h.status):
            cmp.flaky.append(_change(cid, b, h, invariants_from=h))
        elif b.status == "pass" and h.status == "fail":
            cmp.newly_failing.append(_change(cid, b, h, invariants_from=h))
            cmp.new_critical_failures += h.critical()
        elif b.status == "fail" and h.status == "pass":
            cmp.fixed.append(_change(cid, b, h, invariants_from=b))
        elif b.status == "fail" and h.status == "fail":
            cmp.still_failing.append(_change(cid, b, h, invariants_from=h))
    cmp.paired = len(pairs)
    by_score = _by_score(pairs)
    cmp.scores = [
        row for row in (_score_row(name, base, head, by_score[name], alpha) for name in SCORE_NAMES)
        if row.base is not None or row.head is not None or row.pairs
    ]
    cmp.new_failures = len(cmp.newly_failing)
    cmp.significant_regression = any(row.significant and row.broke > row.fixed for row in cmp.scores)
    cmp.regression = cmp.significant_regression or cmp.new_failures > 0
    if cmp.config_mismatch:
        cmp.warnings.append(
            f"base and head ran different configurations (base config_hash {base.config_hash}, head config_hash "
            f"{head.config_hash}); only cases with matching ids are paired ({cmp.paired} paired, "
            f"{cmp.only_in_base} only in base, {cmp.only_in_head} only in head)"
        )
    if not common:
        cmp.warnings.append("no case ids match between base and head: nothing could be compared; check that both "
                            "runs used the same khaos.yaml, packs and seed")
    return cmp


# ---- Markdown ---------------------------------------------------------------------------------------------------

def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


def _ci(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" ({ci[0] * 100:.0f}–{ci[1] * 100:.0f}%)"


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def _p(row: ScoreRow) -> str:
    if row.p_value is None:
        return "—"
    return f"{row.p_value:.3g}" if row.p_value >= 0.001 else "<0.001"


def _verdict(row: ScoreRow) -> str:
    if row.p_value is None or row.broke == row.fixed == 0:
        return "unchanged" if row.pairs else ""
    if not row.significant:
        return "noise"
    return "**significant drop**" if row.broke > row.fixed else "significant gain"


def _where(change: CaseChange) -> str:
    return " / ".join(x for x in (change.scenario, change.attack_id, change.mutation) if x)


def _why(change: CaseChange) -> str:
    parts = list(change.failed_invariants)
    if change.outcome and change.outcome != "BLOCKED":
        parts.append(change.outcome)
    if change.error:
        parts.append(f"error: {change.error}")
    return ", ".join(parts)


def _case_table(changes: list[CaseChange], *, show_status: bool = False) -> list[str]:
    head = "| case | phase | where | input | failed checks |" + (" base | head |" if show_status else "")
    lines = [head, "|" + "---|" * (7 if show_status else 5)]
    for c in changes[:MAX_ROWS]:
        row = (f"| {md_span(c.id, 40)} | {md_escape(c.phase, 20)} | {md_escape(_where(c), 80)} | "
               f"{md_escape(c.input, 80)} | {md_escape(_why(c), 80)} |")
        if show_status:
            row += f" {c.base} {c.base_passes} | {c.head} {c.head_passes} |"
        lines.append(row)
    if len(changes) > MAX_ROWS:
        lines.append(f"\n… and {len(changes) - MAX_ROWS} more (see the JSON output)")
    return lines


def render_comparison_markdown(cmp: Comparison) -> str:
    """The comparison as Markdown; every value taken from a manifest is escaped (it may be agent or attack text)."""
    base, head = md_span(cmp.base_run_id, 60, table=False), md_span(cmp.head_run_id, 60, table=False)
    out = [f"## khaos-action comparison: {base} → {head}", ""]
    for warning in cmp.warnings:
        out += [f"> **Warning:** {md_escape(warning, None)}", ""]
    if cmp.regression:
        why = []
        if cmp.new_failures:
            critical = f", {cmp.new_critical_failures} critical" if cmp.new_critical_failures else ""
            why.append(f"{cmp.new_failures} case{'s' if cmp.new_failures != 1 else ''} newly failing{critical}")
        drops = [row.name for row in cmp.scores if row.significant and row.broke > row.fixed]
        if drops:
            why.append("significant drop in " + ", ".join(drops))
        out.append(f"**Regression:** {'; '.join(why)}.")
    else:
        out.append("**No regression:** no case that passed on base fails on head, and no significant drop.")
    out += [
        "",
        f"{cmp.paired} cases paired by id ({cmp.aggregation} over repeats), {cmp.unjudged} not judged on both sides, "
        f"{cmp.only_in_base} only in base, {cmp.only_in_head} only in head. "
        f"Significance: exact McNemar on paired pass/fail, α = {cmp.alpha:g}; intervals are Wilson 95%.",
        "",
    ]
    if cmp.scores:
        out += ["| score | base | head | Δ | pairs (broke / fixed) | p | | base pass rate | head pass rate |",
                "|---|---|---|---|---|---|---|---|---|"]
        for row in cmp.scores:
            out.append(
                f"| {md_escape(row.name, 20)} | {_num(row.base)} | {_num(row.head)} | {_num(row.delta, True)} | "
                f"{row.pairs} ({row.broke} / {row.fixed}) | {_p(row)} | {_verdict(row)} | "
                f"{_pct(row.base_pass_rate)}{_ci(row.base_ci)} | {_pct(row.head_pass_rate)}{_ci(row.head_ci)} |"
            )
        out.append("")
    sections = [
        ("Newly failing", cmp.newly_failing, False),
        ("Fixed", cmp.fixed, False),
        ("Flaky", cmp.flaky, True),
    ]
    for title, changes, show_status in sections:
        if changes:
            out += [f"### {title} ({len(changes)})", "", *_case_table(changes, show_status=show_status), ""]
    if cmp.newly_compromised:
        out += [f"### Newly compromised attacks ({len(cmp.newly_compromised)})", "",
                "| attack | severity | category | OWASP | input |", "|---|---|---|---|---|"]
        for c in cmp.newly_compromised[:MAX_ROWS]:
            out.append(f"| {md_span(c.attack_id or c.id, 60)} | {md_escape(c.severity or '', 12)} | "
                       f"{md_escape(c.category or '', 40)} | {md_escape(', '.join(c.owasp), 40)} | "
                       f"{md_escape(c.input, 80)} |")
        out.append("")
    if cmp.still_failing:
        out += [f"<details><summary>Still failing ({len(cmp.still_failing)})</summary>", "",
                *_case_table(cmp.still_failing), "", "</details>", ""]
    return "\n".join(out).rstrip() + "\n"
