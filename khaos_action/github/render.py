"""The comment and job-summary Markdown: a view of the manifest, the base comparison and the gate decision.

Pure. Returns sections in priority order so the comment can drop the least important ones to fit.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import jinja2

from khaos_action.fields import severity_rank
from khaos_action.findings import ordered
from khaos_action.github.gates import GateDecision
from khaos_action.github.workflow import Annotation
from khaos_action.manifest import CaseResult, Manifest
from khaos_action.outcome import Outcome
from khaos_action.report.escape import md_code, md_escape, md_span
from khaos_action.report.markdown import SCORE_ORDER
from khaos_action.score.compare import Comparison, ScoreRow, row_label

SECTIONS = ("verdict", "scores", "changes", "compromised", "breakdown", "faults", "owasp", "flaky", "llm")
"""Priority order: the comment drops from the end when it is too long; `footer` is always kept."""
MAX_ROWS = 25


@lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("khaos_action.report", "templates"), autoescape=False,
        undefined=jinja2.StrictUndefined, trim_blocks=False,
    )
    env.globals.update(esc=md_escape, code=md_code, span=md_span)
    return env.get_template("comment.md.j2")


def render_sections(
    manifest: Manifest,
    *,
    comparison: Comparison | None,
    decision: GateDecision,
    baseline_source: str,
    fail_on: list[str],
    instance: str = "khaos.yaml",
    run_url: str | None = None,
    head_sha: str | None = None,
    base: Manifest | None = None,
) -> tuple[list[str], str]:
    """(sections in priority order, footer); empty sections are left out."""
    context = build_context(manifest, comparison=comparison, decision=decision, baseline_source=baseline_source,
                            fail_on=fail_on, instance=instance, run_url=run_url, head_sha=head_sha, base=base)
    template = _template()

    def block(name: str) -> str:
        return "".join(template.blocks[name](template.new_context(context))).strip()

    sections = [text for text in (block(name) for name in SECTIONS) if text]
    return sections, block("footer")


def build_context(manifest: Manifest, *, comparison: Comparison | None, decision: GateDecision, baseline_source: str,
                  fail_on: list[str], instance: str, run_url: str | None, head_sha: str | None,
                  base: Manifest | None = None) -> dict[str, Any]:
    from khaos_action.report.breakdown import breakdown_tables
    from khaos_action.report.headline import headline_markdown

    owasp = owasp_rows(manifest)
    return {
        "alerts": list(manifest.alerts),
        "headline": headline_markdown(manifest, passed=decision.passed, reason=_reason(decision)),
        "passed": decision.passed, "agent": manifest.agent.name, "instance": instance,
        "fail_on": list(fail_on), "shard": manifest.shard,
        "failing": decision.failing, "ignored": decision.ignored,
        "has_baseline": comparison is not None, "baseline_source": baseline_source,
        "score_rows": score_rows(manifest, comparison),
        **_case_changes(manifest, comparison),
        **_compromised(manifest, base, has_baseline=comparison is not None),
        "unfired": unfired_faults(manifest.cases)[:MAX_ROWS],
        "owasp": owasp, "owasp_covered": sum(1 for r in owasp if r.executed),
        "breakdown": breakdown_tables(manifest, base),
        **_listed("flaky", _flaky_ids(manifest, comparison)),
        "llm": llm_view(manifest),
        "run_url": run_url, "seed": manifest.seed, "config_hash": manifest.config_hash,
        "tool_version": manifest.tool_version, "head_sha": head_sha,
    }


def _reason(decision: GateDecision) -> str:
    """The first failing gate's reason (and how many more), for the headline."""
    first = ordered(decision.failing)
    if not first:
        return ""
    return first[0].text + (f" (+{len(first) - 1} more)" if len(first) > 1 else "")


def _listed(name: str, items: list[Any]) -> dict[str, Any]:
    """`name`: the first MAX_ROWS items, `name_total`: how many there are."""
    return {name: items[:MAX_ROWS], f"{name}_total": len(items)}


def _case_changes(manifest: Manifest, comparison: Comparison | None) -> dict[str, Any]:
    """With a base run, what newly fails and what was fixed; without one, every failing case (attacks apart)."""
    by_id = {case.id: case for case in manifest.cases}
    if comparison is None:
        newly: list[SimpleNamespace] = []
        fixed: list[SimpleNamespace] = []
        failing = [_case_view(c.id, by_id) for c in manifest.cases
                   if c.passed is False and c.outcome != Outcome.COMPROMISED]
    else:
        newly = [_case_view(c.id, by_id) for c in comparison.newly_failing]
        fixed = [_case_view(c.id, by_id) for c in comparison.fixed]
        failing = []
    return {**_listed("newly_failing", newly), **_listed("fixed", fixed), **_listed("failing_cases", failing)}


def _compromised(manifest: Manifest, base: Manifest | None, *, has_baseline: bool) -> dict[str, Any]:
    """Every COMPROMISED attack on head is shown; "new" = not compromised on the base run (or not run there)."""
    compromised = _dedupe_attacks([c for c in manifest.cases if c.outcome == Outcome.COMPROMISED])
    base_compromised = {c.id for c in base.cases if c.outcome == Outcome.COMPROMISED} if base is not None else set()
    new = [has_baseline and c.id not in base_compromised for c in compromised]
    return {
        "compromised": [_attack_view(c, new=is_new) for c, is_new in zip(compromised[:MAX_ROWS], new)],
        "compromised_total": len(compromised),
        "compromised_new": sum(new),
    }


def _flaky_ids(manifest: Manifest, comparison: Comparison | None) -> list[str]:
    return sorted({c.id for c in manifest.cases if c.flaky} |
                  {c.id for c in (comparison.flaky if comparison is not None else [])})


def llm_view(manifest: Manifest) -> SimpleNamespace | None:
    """The run's LLM usage (the manifest's `telemetry`) as one line plus its cassette and budget, or None."""
    telemetry = manifest.telemetry
    if telemetry is None or not (telemetry.calls or telemetry.cassette or telemetry.budget):
        return None
    from khaos_action.llm.telemetry import usage_line

    return SimpleNamespace(line=usage_line(telemetry), models=telemetry.models[:10], cassette=telemetry.cassette,
                           budget=telemetry.budget, not_run=manifest.counts.not_run)


def score_rows(manifest: Manifest, comparison: Comparison | None) -> list[SimpleNamespace]:
    rows = comparison.scores if comparison is not None else []
    if rows:
        out = []
        for row in rows:
            if row.base is None and row.head is None:
                continue
            out.append(SimpleNamespace(name=md_escape(row.name), base=_fmt(row.base), head=_fmt(row.head),
                                       delta=_fmt_delta(row.delta), note=_row_note(row)))
        return out
    scores = manifest.scores.model_dump()
    return [SimpleNamespace(name=name, base="—", head=_fmt(scores[name]), delta="", note="")
            for name in SCORE_ORDER if scores.get(name) is not None]


def _row_note(row: ScoreRow) -> str:
    if row.evidence:
        return row_label(row)  # newly compromised or leaked: a regression, never noise
    if not row.delta:
        return ""
    if row.significant:
        return "significant ↓" if row.delta < 0 else "significant ↑"
    return "noise"


def unfired_faults(cases: list[CaseResult]) -> list[SimpleNamespace]:
    configured: dict[str, SimpleNamespace] = {}
    fired: set[str] = set()
    for case in cases:
        fired.update(case.faults_fired)
        fired.update(k for k, v in case.fault_hits.items() if v)
        for fault_id in case.fault_ids:
            row = configured.setdefault(fault_id, SimpleNamespace(id=fault_id, cases=0, scenario_set=set()))
            row.cases += 1
            row.scenario_set.add(case.scenario or case.phase)
    rows = [r for fid, r in sorted(configured.items()) if fid not in fired]
    for row in rows:
        row.scenarios = ", ".join(sorted(row.scenario_set))
    return rows


def owasp_rows(manifest: Manifest) -> list[SimpleNamespace]:
    table: dict[str, SimpleNamespace] = defaultdict(
        lambda: SimpleNamespace(id="", executed=0, blocked=0, compromised=0, uncertain=0, skipped=0))
    for case in manifest.cases:
        if case.attack_id is None or case.outcome is None:
            continue
        for oid in case.owasp:
            row = table[oid]
            row.executed += 1
            key = {Outcome.BLOCKED: "blocked", Outcome.COMPROMISED: "compromised"}.get(case.outcome, "uncertain")
            setattr(row, key, getattr(row, key) + 1)
    for skipped in manifest.skipped:
        for oid in skipped.owasp:
            table[oid].skipped += 1
    for oid, row in table.items():
        row.id = oid
    return [table[k] for k in sorted(table)]


def summary_markdown(sections: list[str], footer: str, *, report_md: str | None,
                     overflow: list[Annotation]) -> str:
    parts = [*sections]
    if overflow:
        title = (f"#### {len(overflow)} more finding{'s' if len(overflow) != 1 else ''} (beyond GitHub's "
                 "10 annotations per type)")
        lines = [title]
        lines += [f"- {md_escape(a.file or '')}:{a.line or 1} — {md_escape(a.message, 300)}" for a in overflow]
        parts.append("\n".join(lines))
    parts.append(footer)
    if report_md:
        parts.append("<details><summary>Full report</summary>\n\n" + report_md.strip() + "\n\n</details>")
    return "\n\n".join(parts) + "\n"


def _case_view(case_id: str, by_id: dict[str, CaseResult]) -> SimpleNamespace:
    case = by_id.get(case_id)
    if case is None:
        return SimpleNamespace(id=case_id, phase="", where="", why="not in this run", output="")
    where = " / ".join(x for x in (case.scenario, case.attack_id, case.mutation) if x) or case.input
    return SimpleNamespace(id=case.id, phase=case.phase, where=where, why=_why_failed(case), output=case.output)


def _why_failed(case: CaseResult) -> str:
    failed = [inv.id for inv in case.invariants if inv.passed is False]
    if case.error:
        return f"error: {case.error}"
    if case.outcome == Outcome.COMPROMISED:
        return "COMPROMISED: " + (", ".join(case.evidence_tags) or "objective met")
    return "failed: " + ", ".join(failed) if failed else "failed"


def _attack_view(case: CaseResult, *, new: bool) -> SimpleNamespace:
    return SimpleNamespace(attack_id=case.attack_id or case.id, severity=case.severity or "",
                           owasp=", ".join(case.owasp),
                           channel=case.channel or "", evidence=", ".join(case.evidence_tags), output=case.output,
                           span=case.evidence or "",
                           new="🆕 " if new else "")


def _dedupe_attacks(cases: list[CaseResult]) -> list[CaseResult]:
    seen, out = set(), []
    for case in sorted(cases, key=lambda c: (severity_rank(c.severity), c.attack_id or c.id)):
        if (case.attack_id or case.id) not in seen:
            seen.add(case.attack_id or case.id)
            out.append(case)
    return out


def _fmt(value: Any) -> str:
    return "—" if value is None else f"{float(value):.1f}"


def _fmt_delta(value: Any) -> str:
    if value is None:
        return ""
    return f"{float(value):+.1f}" if value else "±0.0"
