"""`khaos-action compare` as Markdown: the typed `Comparison` (score/compare.py computes it) rendered for people.

Every value taken from a manifest may be agent or attack text: it goes through report/escape.py.
"""

from __future__ import annotations

from khaos_action.findings import is_critical
from khaos_action.report.escape import md_escape, md_span
from khaos_action.score.compare import CaseChange, Comparison, ScoreRow, row_label

MAX_ROWS = 25
"""Rows per case table; the JSON output (`--format json`) lists them all."""


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
    label = row_label(row)
    return f"**{label}**" if label.startswith(("regression", "significant drop")) else label


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


def comparison_headline(cmp: Comparison) -> str:
    """One line that agrees with the lists and the score rows below it."""
    if not cmp.regression:
        gains = [row.name for row in cmp.scores if row.significant and row.direction == "gain"]
        extra = f" Significant gain in {', '.join(gains)}." if gains else ""
        return ("**No regression:** no newly compromised attack, no newly failing critical check, no case that "
                "passed on base fails on head, and no significant drop." + extra)
    why = []
    if cmp.newly_compromised:
        n = len(cmp.newly_compromised)
        severe = sum(1 for c in cmp.newly_compromised if is_critical("attack", c.severity))
        why.append(f"{n} attack{'s' if n != 1 else ''} newly COMPROMISED"
                   + (f" ({severe} critical/high)" if severe else ""))
    if cmp.newly_critical:
        n = len(cmp.newly_critical)
        why.append(f"{n} case{'s' if n != 1 else ''} with a newly failing critical check")
    if cmp.new_failures:
        why.append(f"{cmp.new_failures} case{'s' if cmp.new_failures != 1 else ''} newly failing")
    drops = [row.name for row in cmp.scores if row.significant and row.direction == "drop"]
    if drops:
        why.append("significant drop in " + ", ".join(drops))
    return f"**Regression:** {'; '.join(why)}."


def render_comparison_markdown(cmp: Comparison) -> str:
    """The comparison as Markdown; every value taken from a manifest is escaped (it may be agent or attack text)."""
    out = []
    if cmp.config_mismatch:
        out += [f"> **Different configurations:** base config_hash {md_span(cmp.base_config_hash, 40, table=False)}, "
                f"head config_hash {md_span(cmp.head_config_hash, 40, table=False)}; only cases with matching ids are "
                f"compared.", ""]
    base, head = md_span(cmp.base_run_id, 60, table=False), md_span(cmp.head_run_id, 60, table=False)
    out += [f"## khaos-action comparison: {base} → {head}", ""]
    out.append(comparison_headline(cmp))
    for warning in cmp.warnings:
        if warning.kind != "config_mismatch":  # the banner above says it, with both hashes
            out += ["", f"> **Warning:** {md_escape(warning.text, None)}"]
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
    if cmp.newly_critical:
        out += [f"### Newly failing critical checks ({len(cmp.newly_critical)})", "",
                *_case_table(cmp.newly_critical), ""]
    if cmp.breakdown:
        out += ["### Attack success and utility under attack, base → head", "",
                "| | name | attack success | utility under attack |", "|---|---|---|---|"]
        for row in cmp.breakdown:
            out.append(f"| {row.kind} | {md_escape(row.name, 60)} | {_pct(row.base_success)} → "
                       f"{_pct(row.head_success)} | {_pct(row.base_utility)} → {_pct(row.head_utility)} |")
        out.append("")
    if cmp.still_failing:
        out += [f"<details><summary>Still failing ({len(cmp.still_failing)})</summary>", "",
                *_case_table(cmp.still_failing), "", "</details>", ""]
    return "\n".join(out).rstrip() + "\n"
