"""The attack tables per channel and per objective (manifest `attack_breakdown`), as rows every view renders:
report.md, the job summary, the PR comment, the HTML report and the console."""

from __future__ import annotations

from types import SimpleNamespace

from khaos_action.manifest import BreakdownRow, Manifest


def rate(part: int, whole: int) -> str:
    """`12% (3/25)`, or `–` when there is nothing to divide by."""
    return f"{part / whole:.0%} ({part}/{whole})" if whole else "–"


def row_view(name: str, row: BreakdownRow) -> SimpleNamespace:
    return SimpleNamespace(name=name, executed=row.executed, blocked=row.blocked, compromised=row.compromised,
                           uncertain=row.uncertain, not_exercised=row.not_exercised,
                           not_applicable=row.not_applicable, success=rate(row.compromised, row.executed),
                           utility=rate(row.utility_kept, row.utility_judged))


def breakdown_tables(manifest: Manifest) -> list[SimpleNamespace]:
    """[(title, rows)] for the tables that have rows; names are attack-file text: views escape them."""
    breakdown = manifest.attack_breakdown
    if breakdown is None:
        return []
    tables = []
    for title, rows in (("Channel", breakdown.by_channel), ("Objective", breakdown.by_objective)):
        if rows:
            tables.append(SimpleNamespace(title=title, rows=[row_view(name, row) for name, row in rows.items()]))
    return tables


def console_lines(manifest: Manifest) -> list[str]:
    """One line per channel and per objective, for the console."""
    lines = []
    for table in breakdown_tables(manifest):
        for r in table.rows:
            lines.append(f"  {table.title.lower()} {r.name}: {r.executed} executed, {r.not_exercised} not exercised, "
                         f"{r.not_applicable} not applicable; attack success {r.success}; utility under attack "
                         f"{r.utility}")
    return lines
