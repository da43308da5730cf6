"""`khaos-action compare` as Markdown: the typed `Comparison` (score/compare.py computes it) rendered for people.

Every value taken from a manifest may be agent or attack text: it goes through report/escape.py.
"""

from __future__ import annotations

from khaos_action.findings import is_critical
from khaos_action.outcome import Outcome
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
    if change.outcome and change.outcome != Outcome.BLOCKED:
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
    why = [reason for reason in (say(cmp) for say in _REGRESSION_REASONS) if reason]
    return f"**Regression:** {'; '.join(why)}."


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _compromised(cmp: Comparison) -> str | None:
    if not cmp.newly_compromised:
        return None
    severe = sum(1 for c in cmp.newly_compromised if is_critical("attack", c.severity))
    return (f"{_plural(len(cmp.newly_compromised), 'attack')} newly COMPROMISED"
            + (f" ({severe} critical/high)" if severe else ""))


def _critical(cmp: Comparison) -> str | None:
    if not cmp.newly_critical:
        return None
    return f"{_plural(len(cmp.newly_critical), 'case')} with a newly failing critical check"


def _failing(cmp: Comparison) -> str | None:
    return f"{_plural(cmp.new_failures, 'case')} newly failing" if cmp.new_failures else None


def _drops(cmp: Comparison) -> str | None:
    drops = [row.name for row in cmp.scores if row.significant and row.direction == "drop"]
    return "significant drop in " + ", ".join(drops) if drops else None


_REGRESSION_REASONS = (_compromised, _critical, _failing, _drops)
"""What makes a comparison a regression, each said in the headline in this order."""


def render_comparison_markdown(cmp: Comparison) -> str:
    """The comparison as Markdown; every value taken from a manifest is escaped (it may be agent or attack text)."""
    out = [line for section in _SECTIONS for line in section(cmp)]
    return "\n".join(out).rstrip() + "\n"


def _banner(cmp: Comparison) -> list[str]:
    if not cmp.config_mismatch:
        return []
    return [f"> **Different configurations:** base config_hash {md_span(cmp.base_config_hash, 40, table=False)}, "
            f"head config_hash {md_span(cmp.head_config_hash, 40, table=False)}; only cases with matching ids are "
            f"compared.", ""]


def _title(cmp: Comparison) -> list[str]:
    base, head = md_span(cmp.base_run_id, 60, table=False), md_span(cmp.head_run_id, 60, table=False)
    out = [f"## khaos-action comparison: {base} → {head}", "", comparison_headline(cmp)]
    for warning in cmp.warnings:
        if warning.kind != "config_mismatch":  # the banner above says it, with both hashes
            out += ["", f"> **Warning:** {md_escape(warning.text, None)}"]
    return [*out, "",
            f"{cmp.paired} cases paired by id ({cmp.aggregation} over repeats), {cmp.unjudged} not judged on both "
            f"sides, {cmp.only_in_base} only in base, {cmp.only_in_head} only in head. "
            f"Significance: exact McNemar on paired pass/fail, α = {cmp.alpha:g}; intervals are Wilson 95%.", ""]


def _score_table(cmp: Comparison) -> list[str]:
    if not cmp.scores:
        return []
    out = ["| score | base | head | Δ | pairs (broke / fixed) | p | | base pass rate | head pass rate |",
           "|---|---|---|---|---|---|---|---|---|"]
    for row in cmp.scores:
        out.append(
            f"| {md_escape(row.name, 20)} | {_num(row.base)} | {_num(row.head)} | {_num(row.delta, True)} | "
            f"{row.pairs} ({row.broke} / {row.fixed}) | {_p(row)} | {_verdict(row)} | "
            f"{_pct(row.base_pass_rate)}{_ci(row.base_ci)} | {_pct(row.head_pass_rate)}{_ci(row.head_ci)} |"
        )
    return [*out, ""]


def _changes(cmp: Comparison) -> list[str]:
    out = []
    for title, changes, show_status in (("Newly failing", cmp.newly_failing, False), ("Fixed", cmp.fixed, False),
                                        ("Flaky", cmp.flaky, True)):
        if changes:
            out += [f"### {title} ({len(changes)})", "", *_case_table(changes, show_status=show_status), ""]
    return out


def _compromised_table(cmp: Comparison) -> list[str]:
    if not cmp.newly_compromised:
        return []
    out = [f"### Newly compromised attacks ({len(cmp.newly_compromised)})", "",
           "| attack | severity | category | OWASP | input |", "|---|---|---|---|---|"]
    for c in cmp.newly_compromised[:MAX_ROWS]:
        out.append(f"| {md_span(c.attack_id or c.id, 60)} | {md_escape(c.severity or '', 12)} | "
                   f"{md_escape(c.category or '', 40)} | {md_escape(', '.join(c.owasp), 40)} | "
                   f"{md_escape(c.input, 80)} |")
    return [*out, ""]


def _critical_table(cmp: Comparison) -> list[str]:
    if not cmp.newly_critical:
        return []
    return [f"### Newly failing critical checks ({len(cmp.newly_critical)})", "", *_case_table(cmp.newly_critical),
            ""]


def _breakdown_table(cmp: Comparison) -> list[str]:
    if not cmp.breakdown:
        return []
    out = ["### Attack success and utility under attack, base → head", "",
           "| | name | attack success | utility under attack |", "|---|---|---|---|"]
    for row in cmp.breakdown:
        out.append(f"| {row.kind} | {md_escape(row.name, 60)} | {_pct(row.base_success)} → "
                   f"{_pct(row.head_success)} | {_pct(row.base_utility)} → {_pct(row.head_utility)} |")
    return [*out, ""]


def _still_failing(cmp: Comparison) -> list[str]:
    if not cmp.still_failing:
        return []
    return [f"<details><summary>Still failing ({len(cmp.still_failing)})</summary>", "",
            *_case_table(cmp.still_failing), "", "</details>", ""]


_SECTIONS = (_banner, _title, _score_table, _changes, _compromised_table, _critical_table, _breakdown_table,
             _still_failing)
"""The comparison's Markdown, section by section, in order."""
