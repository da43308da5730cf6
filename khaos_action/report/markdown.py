"""report.md: the Markdown report, rendered from the manifest alone (also the job summary and the CLI summary)."""

from __future__ import annotations

import re
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import jinja2

from khaos_action.fields import severity_rank
from khaos_action.llm.telemetry import usage_line
from khaos_action.manifest import CaseResult, Manifest
from khaos_action.outcome import Outcome, Phase
from khaos_action.report.breakdown import breakdown_tables
from khaos_action.report.escape import md_code, md_escape, md_span
from khaos_action.score.actions import consequential_calls

SCORE_ORDER = ("overall", "baseline", "resilience", "security", "contract", "chaos", "mutation", "replay")
MAX_FAILURES = 25
MAX_ACTIONS = 50


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    # Markdown is not HTML: autoescape would be wrong here. Untrusted values go through md_escape/md_code instead,
    # and templates come only from our package, never from user input.
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("khaos_action.report", "templates"), autoescape=False,
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
        bytecode_cache=jinja2.FileSystemBytecodeCache(),  # compiled templates kept across runs (see report/html.py)
    )
    env.globals.update(esc=md_escape, code=lambda text, limit=None: md_code(text, limit=limit), span=md_span,
                       fmt_score=fmt_score, fmt_num=fmt_num, fmt_rate=fmt_rate, fmt_ci=fmt_ci,
                       usage_line=usage_line)
    return env


def fmt_score(value: float | None) -> str:
    return "not run" if value is None else f"{value:.1f}"


def fmt_num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3g}" if abs(value) < 10 else f"{value:.0f}"


def fmt_rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def fmt_ci(entry: dict | None) -> str:
    if not entry or not entry.get("n"):
        return "–"
    low, high = entry["ci95"]
    return f"{entry['rate']:.0%} ({low:.0%}–{high:.0%})"


def security_categories(manifest: Manifest) -> list[tuple[str, SimpleNamespace]]:
    """Per category: executed outcomes from the stats, not-applicable counts from the coverage table."""
    by_category = manifest.stats.get("security", {}).get("category", {})
    coverage = manifest.coverage.get("categories", {})
    rows = []
    for name in sorted(set(by_category) | set(coverage)):
        stats = by_category.get(name, {})
        executed = stats.get("executed", 0)
        ci = stats.get("block_rate_ci95")
        blocked = (f"{stats['blocked']} ({ci[0]:.0%}–{ci[1]:.0%})" if executed else "–")
        rows.append((name, SimpleNamespace(executed=executed, blocked_ci=blocked,
                                           compromised=stats.get("compromised", 0),
                                           uncertain=stats.get("uncertain", 0),
                                           not_applicable=coverage.get(name, {}).get("not_applicable", 0))))
    return rows


def owasp_rows(manifest: Manifest) -> list[tuple[str, SimpleNamespace]]:
    stats = manifest.stats.get("security", {}).get("owasp", {})
    coverage = manifest.coverage.get("owasp", {})
    ids = sorted(set(coverage) | set(stats))
    return [(oid, SimpleNamespace(executed=stats.get(oid, {}).get("executed", 0),
                                  compromised=stats.get(oid, {}).get("compromised", 0))) for oid in ids]


def contract_matrix(cases: list[CaseResult]) -> SimpleNamespace:
    """invariants × scenarios: ✅ all exercised checks passed, ❌ any failed, ➖ never exercised."""
    cells, severity = _contract_cells(cases)
    scenarios = list(cells)
    rows = [SimpleNamespace(id=inv_id, severity=severity[inv_id],
                            cells=[_CELL_MARKS[cells[scenario].get(inv_id)] for scenario in scenarios])
            for inv_id in severity]
    return SimpleNamespace(scenarios=scenarios, rows=rows)


_CELL_MARKS = {None: "➖", True: "✅", False: "❌"}
"""A contract cell as shown: never exercised, all passed, one failed."""


def _contract_cells(cases: list[CaseResult]) -> tuple[dict[str, dict[str, bool]], dict[str, str]]:
    """scenario -> invariant id -> whether all its exercised checks passed so far, and each invariant's severity.
    A cell is kept as what it shows, not as the list of its results (that list was most of report.md's time at
    scale)."""
    cells: dict[str, dict[str, bool]] = {}
    severity: dict[str, str] = {}
    for case in cases:
        if case.pillar != "contract" or case.scenario is None:
            continue
        column = cells.setdefault(case.scenario, {})
        for inv in case.invariants:
            severity.setdefault(inv.id, inv.severity)
            if inv.passed is not None:
                column[inv.id] = column.get(inv.id, True) and inv.passed
    return cells, severity


def fault_rows(cases: list[CaseResult]) -> list[SimpleNamespace]:
    table: dict[str, SimpleNamespace] = {}
    for case in cases:
        for fault_id in case.fault_ids:
            row = table.setdefault(fault_id, SimpleNamespace(id=fault_id, cases=0, fired_in=0, hits=0))
            row.cases += 1
            hits = case.fault_hits.get(fault_id, 0)
            row.hits += hits
            row.fired_in += 1 if hits else 0
    return sorted(table.values(), key=lambda r: (r.fired_in > 0, r.id))


def _metrics_rows(manifest: Manifest) -> list[tuple[str, SimpleNamespace]]:
    """The metrics table: each phase that ran (security has its own tables) with its counts and rates."""
    return [(p, SimpleNamespace(**{k: manifest.metrics[p].get(k) for k in (
        "invocations", "task_completion", "error_rate", "latency_p50", "latency_p95")}))
        for p in (Phase.BASELINE, Phase.RESILIENCE, Phase.CONTRACT, Phase.MUTATION, Phase.REPLAY)
        if p in manifest.metrics]


def render_markdown(manifest: Manifest) -> str:
    cases = manifest.cases
    findings = sorted(
        (c for c in cases if c.outcome in (Outcome.COMPROMISED, Outcome.UNCERTAIN)),
        key=lambda c: (c.outcome != Outcome.COMPROMISED, severity_rank(c.severity)),
    )
    failures = [c for c in cases if c.passed is False and c.phase != Phase.SECURITY]
    from khaos_action.report.headline import headline_markdown

    context: dict[str, Any] = {
        "m": manifest, "headline": headline_markdown(manifest), "score_order": [s for s in SCORE_ORDER],
        "metrics_rows": _metrics_rows(manifest),
        "matrix": contract_matrix(cases), "faults": fault_rows(cases),
        "security": any(c.phase == Phase.SECURITY for c in cases) or manifest.counts.attacks_skipped,
        "categories": security_categories(manifest), "owasp_rows": owasp_rows(manifest),
        "breakdown": breakdown_tables(manifest),
        "findings": findings[:50], "failures": failures[:MAX_FAILURES],
        "failures_more": max(0, len(failures) - MAX_FAILURES),
        "actions": consequential_calls(cases, manifest.tool_roles)[:MAX_ACTIONS],
    }
    text = _environment().get_template("report.md.j2").render(**context)
    return re.sub(r"\n{3,}", "\n\n", text)
