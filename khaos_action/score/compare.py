"""Paired comparison of two run manifests: what broke, what got fixed, and is it significant.

Cases pair by id. With `repeats`, a case's rows share the id and are aggregated first, **all-pass**: an id passes
only if every judged repeat passed, fails if every judged repeat failed, and is *flaky* when the repeats disagree
(or the engine marked it flaky). Flaky and unjudged cases are listed but never reported as newly failing, so a
gate on `new_failures` fires on consistent failures only. For the statistics a flaky case counts as not passing.

Each score row carries an exact McNemar p-value over the paired pass/fail of the cases behind that score (all
cases for `overall`, the phase for baseline/resilience/security, the pillar for contract/chaos/mutation/replay)
and Wilson 95% intervals of the paired pass rates. `significant_regression` and `new_failures` are separate
signals. `regression` is any of: a newly COMPROMISED attack, a newly failing critical check (the one definition of
critical in `khaos_action.findings`), a case that passed on base and fails on head, or a significant score drop.
A row is only called a significant drop (gain) when the paired test, the direction of the paired changes and the
sign of the score delta all agree; otherwise it says which of them disagree.

This module computes; `Comparison` is the typed result every reader takes (report/comparison.py renders it as
Markdown, report/html.py as the HTML section, github/ gates and comments on it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from types import SimpleNamespace
from typing import Any, Literal

from pydantic import BaseModel, Field, model_serializer, model_validator

from khaos_action.findings import case_is_critical, is_critical
from khaos_action.manifest import CaseResult, Manifest, ManifestOutcome, ManifestPhase
from khaos_action.manifest_read import CaseOutcome, InvariantOutcome, Outcomes
from khaos_action.outcome import ATTACK_PASSED, Outcome
from khaos_action.score.breakdown import BreakdownChange, breakdown_changes
from khaos_action.score.statistics import mcnemar_exact, pass_rate, wilson_interval

Status = Literal["pass", "fail", "flaky", "unjudged"]
SCORE_NAMES = ("overall", "baseline", "resilience", "security", "contract", "chaos", "mutation", "replay")
EXCERPT = 200


class CaseChange(BaseModel):
    """One paired case that changed (or stayed failing), with enough context to find it."""

    id: str
    phase: ManifestPhase
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
    outcome: ManifestOutcome | None = None
    """The attack outcome on head (on base for `fixed`), if an attack."""
    error: str | None = None
    """The call error on head (on base for `fixed`), if any."""
    base: Status
    head: Status
    critical: bool = False
    """Head shows a critical finding (critical invariant, planted secret, critical/high attack COMPROMISED) that
    base did not."""
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
    """p < alpha AND the paired changes and the score delta point the same way."""
    direction: Literal["drop", "gain", "none", "mixed"] = "none"
    """drop / gain: the paired changes and the score delta agree; mixed: they disagree (e.g. a score that fell
    through cases not judged on both sides); none: nothing changed."""
    base_pass_rate: float | None = None
    head_pass_rate: float | None = None
    base_ci: tuple[float, float] | None = None
    """Wilson 95% interval of the base pass rate over the pairs (0..1)."""
    head_ci: tuple[float, float] | None = None
    evidence: int = 0
    """Cases behind this score with new objective evidence on head: an attack newly COMPROMISED, a newly failing
    critical check (a planted secret leaked, a critical invariant). Each is an observed event, not a sample, so the
    row is a regression whatever its p-value (`row_label`)."""


def row_label(row: ScoreRow) -> str:
    """What a score row's change means, in words every view shows the same way. Significance is about pass rates
    over repeats; objective evidence (a canary joined, a secret leaked) is a regression by itself, never noise."""
    if row.evidence:
        return _evidence_label(row)
    if row.direction == "mixed":
        return _mixed_label(row)
    if row.p_value is None or row.broke == row.fixed == 0:
        return "unchanged" if row.pairs else ""
    if not row.significant:
        return "noise"
    return "significant drop" if row.direction == "drop" else "significant gain"


def _evidence_label(row: ScoreRow) -> str:
    also = "; significant drop" if row.significant and row.direction == "drop" else ""
    return f"regression: {row.evidence} newly compromised or critical{also}"


def _mixed_label(row: ScoreRow) -> str:
    delta = round(row.delta or 0.0, 1)  # as printed: a +0.0 did not rise
    moved = "fell" if delta < 0 else "rose" if delta > 0 else "did not move"
    if row.broke == row.fixed:
        return f"score {moved} through cases not judged on both sides ({row.broke} broke / {row.fixed} fixed)"
    return f"mixed: {row.broke} broke / {row.fixed} fixed but the score {moved}"


class ComparisonWarning(BaseModel):
    """Something a reader of the comparison must know before trusting it.

    In JSON a warning is its sentence, as it always was (`compare --format json` prints the same document): the
    kind is how our own views tell warnings apart. A sentence read back from JSON has no kind (None)."""

    kind: Literal["config_mismatch", "no_common_cases"] | None
    """config_mismatch: base and head ran different configurations (the Markdown shows it as its own banner, from
    the `config_hash`es); no_common_cases: no case id is on both sides."""
    text: str

    @model_validator(mode="before")
    @classmethod
    def _from_sentence(cls, data: Any) -> Any:
        return {"kind": None, "text": data} if isinstance(data, str) else data

    @model_serializer
    def _as_sentence(self) -> str:
        return self.text


class Comparison(BaseModel):
    base_run_id: str
    head_run_id: str
    base_config_hash: str
    head_config_hash: str
    config_mismatch: bool = False
    warnings: list[ComparisonWarning] = []
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
    """Cases with a new critical finding on head: a critical invariant or the planted-secret check newly failing
    (`newly_critical`), or a critical/high attack newly COMPROMISED."""
    newly_critical: list[CaseChange] = []
    significant_regression: bool = False
    regression: bool = False
    breakdown: list[BreakdownChange] = Field([], exclude_if=lambda value: not value)
    """Attack success and utility under attack per channel and per objective, when both runs recorded them."""


Row = dict[str, Any]
"""One case as compare reads it (manifest.CaseOutcome): `Outcomes` holds these; a Manifest's cases become these."""
_ROW_FIELDS = tuple(name for name in CaseOutcome.__annotations__ if name != "invariants")
_INVARIANT_FIELDS = tuple(InvariantOutcome.__annotations__)


def _rows(cases: Iterable[Row | CaseResult]) -> Iterator[Row]:
    for case in cases:
        if isinstance(case, dict):
            yield case
        else:
            row = {name: getattr(case, name) for name in _ROW_FIELDS}
            row["invariants"] = [{name: getattr(inv, name) for name in _INVARIANT_FIELDS} for inv in case.invariants]
            yield row


def _as_case(row: Row, **update: Any) -> SimpleNamespace:
    """A row as khaos_action.findings reads a case (attributes), for the one definition of critical."""
    invariants = [SimpleNamespace(**inv) for inv in update.pop("invariants", row["invariants"])]
    return SimpleNamespace(**{**row, **update, "invariants": invariants})


class _Aggregate:
    """All repeats of one case id on one side."""

    __slots__ = ("rows", "first", "passes", "judged", "compromised", "status")

    def __init__(self, rows: list[Row]):
        self.rows = rows
        self.first = rows[0]
        self.status: Status
        self.passes, self.judged, self.compromised, self.status = _one(rows[0]) if len(rows) == 1 else _repeats(rows)

    def failed_invariants(self) -> list[str]:
        return sorted({inv["id"] for r in self.rows for inv in r["invariants"] if inv["passed"] is False})

    def critical(self) -> bool:
        return any(case_is_critical(_as_case(r)) for r in self.rows)

    def critical_checks(self) -> set[str]:
        """Invariant ids failing with a critical finding on any repeat (secret check included)."""
        found: set[str] = set()
        for r in self.rows:
            for i in r["invariants"]:
                if i["passed"] is False and case_is_critical(_as_case(r, invariants=[i], outcome=None)):
                    found.add(i["id"])
        return found


def _one(row: Row) -> tuple[int, int, bool, Status]:
    """(passes, judged, compromised, status) of a case run once: the common case, in straight lines (compare at
    scale)."""
    verdict = _judged(row)
    compromised = row["outcome"] == Outcome.COMPROMISED
    if verdict is None:
        return 0, 0, compromised, "unjudged"
    return int(verdict), 1, compromised, "flaky" if row["flaky"] else "pass" if verdict else "fail"


def _repeats(rows: list[Row]) -> tuple[int, int, bool, Status]:
    """The same for a case's repeats: all-pass, flaky when they disagree (or the engine marked one flaky)."""
    judged = [v for v in (_judged(r) for r in rows) if v is not None]
    passes, count = sum(judged), len(judged)
    compromised = any(r["outcome"] == Outcome.COMPROMISED for r in rows)
    return passes, count, compromised, _repeats_status(rows, passes, count)


def _repeats_status(rows: list[Row], passes: int, judged: int) -> Status:
    if not judged:
        return "unjudged"
    if any(r["flaky"] for r in rows) or 0 < passes < judged:
        return "flaky"
    return "pass" if passes == judged else "fail"


def _judged(row: Row) -> bool | None:
    """A row's pass/fail: `passed` when set, else an attack's outcome (UNCERTAIN is not judged, never BLOCKED)."""
    if row["passed"] is not None:
        return row["passed"]
    return ATTACK_PASSED.get(row["outcome"])


def aggregate(cases: Iterable[Row | CaseResult]) -> dict[str, _Aggregate]:
    grouped: dict[str, list[Row]] = {}
    for row in _rows(cases):
        rows = grouped.get(row["id"])
        if rows is None:
            grouped[row["id"]] = [row]
        else:
            rows.append(row)
    return {cid: _Aggregate(rows if len(rows) == 1 else sorted(rows, key=lambda r: r["repeat"]))
            for cid, rows in grouped.items()}


def _change(cid: str, base: _Aggregate, head: _Aggregate, *, invariants_from: _Aggregate) -> CaseChange:
    c = head.first
    failing = next((r for r in invariants_from.rows if _judged(r) is False), invariants_from.first)
    text = c["input"] if len(c["input"]) <= EXCERPT else c["input"][: EXCERPT - 1] + "…"
    return CaseChange(
        id=cid, phase=c["phase"], pillar=c["pillar"], input=text, scenario=c["scenario"], attack_id=c["attack_id"],
        category=c["category"], owasp=list(c["owasp"]), mutation=c["mutation"], severity=c["severity"],
        failed_invariants=invariants_from.failed_invariants(), outcome=failing["outcome"], error=failing["error"],
        base=base.status, head=head.status,
        base_passes=f"{base.passes}/{base.judged}", head_passes=f"{head.passes}/{head.judged}",
    )


def _by_score(pairs: list[tuple[_Aggregate, _Aggregate]]) -> dict[str, list[tuple[_Aggregate, _Aggregate]]]:
    """The pairs behind each score: all of them for `overall`, else the head case's phase or pillar (one pass)."""
    groups: dict[str, list[tuple[_Aggregate, _Aggregate]]] = {name: [] for name in SCORE_NAMES}
    groups["overall"] = list(pairs)
    for pair in pairs:
        case = pair[1].first
        for name in {case["phase"], case["pillar"]}:
            if name in groups and name != "overall":
                groups[name].append(pair)
    return groups


def _evidence_by_score(cmp: Comparison, head_cases: dict[str, _Aggregate]) -> dict[str, set[str]]:
    """Score name -> ids of the cases behind it with new objective evidence (newly COMPROMISED or newly critical),
    whether or not they were judged on both sides (an attack UNCERTAIN on base and COMPROMISED on head counts)."""
    ids = {c.id for c in cmp.newly_compromised} | {c.id for c in cmp.newly_critical}
    found: dict[str, set[str]] = {"overall": set(ids)} if ids else {}
    for cid in ids:
        case = head_cases[cid].first
        for name in {case["phase"], case["pillar"]}:
            if name in SCORE_NAMES and name != "overall":
                found.setdefault(name, set()).add(cid)
    return found


def _score_row(name: str, base_m: Manifest, head_m: Manifest, mine: list[tuple[_Aggregate, _Aggregate]],
               alpha: float) -> ScoreRow:
    base_score, head_score = getattr(base_m.scores, name), getattr(head_m.scores, name)
    broke, fixed, base_passes, head_passes = _tally(mine)
    n = len(mine)
    p_value = mcnemar_exact(broke, fixed) if n else None
    delta = None if base_score is None or head_score is None else round(head_score - base_score, 6)
    direction = _direction(broke, fixed, delta)
    return ScoreRow(
        name=name, base=base_score, head=head_score, delta=delta,
        pairs=n, broke=broke, fixed=fixed, p_value=p_value, direction=direction,
        significant=p_value is not None and p_value < alpha and direction in ("drop", "gain"),
        base_pass_rate=pass_rate(base_passes, n), head_pass_rate=pass_rate(head_passes, n),
        base_ci=wilson_interval(base_passes, n) if n else None, head_ci=wilson_interval(head_passes, n) if n else None,
    )


def _tally(mine: list[tuple[_Aggregate, _Aggregate]]) -> tuple[int, int, int, int]:
    """(broke, fixed, base passes, head passes) over the pairs behind one score."""
    broke = fixed = base_passes = head_passes = 0
    for b, h in mine:
        base_pass, head_pass = b.status == "pass", h.status == "pass"
        base_passes += base_pass
        head_passes += head_pass
        broke += base_pass and not head_pass
        fixed += head_pass and not base_pass
    return broke, fixed, base_passes, head_passes


_MOVED = {-1: "drop", 0: "none", 1: "gain"}


def _direction(broke: int, fixed: int, delta: float | None) -> str:
    """Which way the paired changes point (`_MOVED`), when the score delta agrees (a change under 0.05 points is
    none) or there is no delta; "mixed" when they disagree: the test is on the paired pass/fail, and a delta the
    pairs do not explain (or explain the other way) is not reported as a significant gain or drop."""
    pairs = (fixed > broke) - (broke > fixed)
    if delta is None:
        return _MOVED[pairs]
    score = 0 if abs(delta) < 0.05 else (1 if delta > 0 else -1)
    return _MOVED[pairs] if pairs == score else "mixed"


def compare_manifests(base: Manifest | Outcomes, head: Manifest | Outcomes, *, alpha: float = 0.05) -> Comparison:
    """Pair `base` and `head` case by case and report changes, flaky cases and per-score significance."""
    base_cases, head_cases = aggregate(base.cases), aggregate(head.cases)
    common = [cid for cid in head_cases if cid in base_cases]  # head order: the order the head report shows
    cmp = Comparison(
        base_run_id=base.run_id, head_run_id=head.run_id, base_config_hash=base.config_hash,
        head_config_hash=head.config_hash, config_mismatch=base.config_hash != head.config_hash, alpha=alpha,
        only_in_base=sum(1 for cid in base_cases if cid not in head_cases),
        only_in_head=sum(1 for cid in head_cases if cid not in base_cases),
    )
    cmp.breakdown = breakdown_changes(base.attack_breakdown, head.attack_breakdown)
    pairs: list[tuple[_Aggregate, _Aggregate]] = []
    for cid in common:
        b, h = base_cases[cid], head_cases[cid]
        _new_evidence(cmp, cid, b, h)
        if "unjudged" in (b.status, h.status):
            cmp.unjudged += 1
            continue
        pairs.append((b, h))
        _transition(cmp, cid, b, h)
    cmp.paired = len(pairs)
    _score_rows(cmp, base, head, pairs, head_cases)
    _verdicts(cmp)
    cmp.warnings = _warnings(cmp, bool(common))
    return cmp


def _new_evidence(cmp: Comparison, cid: str, b: _Aggregate, h: _Aggregate) -> None:
    """A case newly COMPROMISED, or with checks newly failing critically, whether or not judged on both sides."""
    if h.compromised and not b.compromised:
        cmp.newly_compromised.append(_change(cid, b, h, invariants_from=h))
    new_critical = h.critical_checks()
    if new_critical:  # base is only asked when head has any (most cases have none)
        new_critical -= b.critical_checks()
    if new_critical:
        change = _change(cid, b, h, invariants_from=h)
        change.critical = True
        change.failed_invariants = sorted(new_critical)
        cmp.newly_critical.append(change)


_TRANSITIONS: dict[tuple[Status, Status], tuple[str, str]] = {
    ("pass", "fail"): ("newly_failing", "head"),
    ("fail", "pass"): ("fixed", "base"),
    ("fail", "fail"): ("still_failing", "head"),
}
"""(base status, head status) of a pair judged on both sides, neither flaky -> the Comparison list it goes to and
the side whose failing invariants, outcome and error it shows. pass -> pass is in no list; a flaky side puts the
pair in `flaky` whatever the other is."""


def _transition(cmp: Comparison, cid: str, b: _Aggregate, h: _Aggregate) -> None:
    if "flaky" in (b.status, h.status):
        cmp.flaky.append(_change(cid, b, h, invariants_from=h))
        return
    listed = _TRANSITIONS.get((b.status, h.status))
    if listed is None:
        return
    name, side = listed
    change = _change(cid, b, h, invariants_from=b if side == "base" else h)
    if name == "newly_failing":
        change.critical = h.critical() and not b.critical()
    getattr(cmp, name).append(change)


def _score_rows(cmp: Comparison, base: Manifest | Outcomes, head: Manifest | Outcomes,
                pairs: list[tuple[_Aggregate, _Aggregate]], head_cases: dict[str, _Aggregate]) -> None:
    """A row per score that ran on either side or has pairs behind it, with its count of new evidence."""
    by_score = _by_score(pairs)
    evidence = _evidence_by_score(cmp, head_cases)
    cmp.scores = [
        row for row in (_score_row(name, base, head, by_score[name], cmp.alpha) for name in SCORE_NAMES)
        if row.base is not None or row.head is not None or row.pairs
    ]
    for row in cmp.scores:
        row.evidence = len(evidence.get(row.name, ()))


def _verdicts(cmp: Comparison) -> None:
    cmp.new_failures = len(cmp.newly_failing)
    cmp.new_critical_failures = len({c.id for c in cmp.newly_critical}
                                    | {c.id for c in cmp.newly_compromised if is_critical("attack", c.severity)})
    cmp.significant_regression = any(row.significant and row.direction == "drop" for row in cmp.scores)
    cmp.regression = (cmp.significant_regression or cmp.new_failures > 0 or bool(cmp.newly_compromised)
                      or cmp.new_critical_failures > 0)


def _warnings(cmp: Comparison, any_common: bool) -> list[ComparisonWarning]:
    warnings = []
    if cmp.config_mismatch:
        warnings.append(ComparisonWarning(kind="config_mismatch", text=(
            f"base and head ran different configurations (base config_hash {cmp.base_config_hash}, head config_hash "
            f"{cmp.head_config_hash}); only cases with matching ids are paired ({cmp.paired} paired, "
            f"{cmp.only_in_base} only in base, {cmp.only_in_head} only in head)")))
    if not any_common:
        warnings.append(ComparisonWarning(kind="no_common_cases", text=(
            "no case ids match between base and head: nothing could be compared; check that both runs used the same "
            "khaos.yaml, packs and seed")))
    return warnings
