"""The attack tables per channel and per objective (manifest `attack_breakdown`), as rows every view renders:
report.md, the job summary, the PR comment, the HTML report and the console."""

from __future__ import annotations

from types import SimpleNamespace

from khaos_action.manifest import BreakdownRow, Manifest


def rate(part: int, whole: int) -> str:
    """`12% (3/25)`, or `–` when there is nothing to divide by."""
    return f"{part / whole:.0%} ({part}/{whole})" if whole else "–"


def _since(part: int, whole: int, base: BreakdownRow | None, field: str) -> str:
    """` (base 4%)`: the base run's rate of the same row, when there is one to compare with."""
    if base is None:
        return ""
    base_part, base_whole = ((base.compromised, base.executed) if field == "success"
                             else (base.utility_kept, base.utility_judged))
    if not base_whole:
        return " (base –)"
    return f" (base {base_part / base_whole:.0%})"


def row_view(name: str, row: BreakdownRow, base: BreakdownRow | None = None, *,
             compared: bool = False) -> SimpleNamespace:
    """One row as text; `compared`: the base run's rates beside (a row the base run did not have says so)."""
    missing = compared and base is None
    return SimpleNamespace(
        name=name, executed=row.executed, blocked=row.blocked, compromised=row.compromised, uncertain=row.uncertain,
        not_exercised=row.not_exercised, not_applicable=row.not_applicable,
        success=rate(row.compromised, row.executed) + (" (new)" if missing else
                                                        _since(row.compromised, row.executed, base, "success")),
        utility=rate(row.utility_kept, row.utility_judged) + ("" if missing else
                                                              _since(row.utility_kept, row.utility_judged, base,
                                                                     "utility")))


def breakdown_tables(manifest: Manifest, base: Manifest | None = None) -> list[SimpleNamespace]:
    """[(title, rows)] for the tables that have rows; names are attack-file text: views escape them. With `base`
    (the base branch's run), each rate has the base run's beside it."""
    breakdown = manifest.attack_breakdown
    if breakdown is None:
        return []
    before = base.attack_breakdown if base is not None else None
    tables = []
    for title, rows, base_rows in (
            ("Channel", breakdown.by_channel, before.by_channel if before else None),
            ("Objective", breakdown.by_objective, before.by_objective if before else None)):
        if rows:
            tables.append(SimpleNamespace(title=title, rows=[
                row_view(name, row, (base_rows or {}).get(name), compared=base_rows is not None)
                for name, row in rows.items()]))
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
