"""Renders a run manifest (and, optionally, a base→head comparison) as one self-contained HTML file.

The page is built from the manifest alone (DESIGN: reports never re-run anything). `html_views` turns the manifest
into small view objects with pure functions (score bars, the invariants × scenarios heat map, attack outcomes by
category and OWASP id, fault firing, per-case drill-down); `templates/report.html.j2` lays them out.

Agent output and attack payloads are untrusted: the jinja2 environment autoescapes every value,
nothing from the manifest is ever marked safe, and the page carries a Content-Security-Policy that forbids scripts
and every external load, so even a rendering mistake could not run injected markup or phone home.
"""

from __future__ import annotations

import functools

from jinja2 import Environment, FileSystemBytecodeCache, PackageLoader, StrictUndefined, select_autoescape

from khaos_action.manifest import Manifest
from khaos_action.report import svg
from khaos_action.report.html_views import (
    OWASP_TITLES,
    PHASE_SCORES,
    PILLAR_SCORES,
    attack_breakdown,
    case_groups,
    comparison_view,
    fault_firing,
    format_delta,
    format_metric,
    format_p,
    heatmap,
    score_bars,
)
from khaos_action.score.compare import Comparison


@functools.cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("khaos_action.report", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html", "j2"), default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Compiling the templates cost more than rendering a small run's page; jinja2 keeps the compiled code in
        # a per-user folder under the temp directory and recompiles when a template changes.
        bytecode_cache=FileSystemBytecodeCache(),
    )
    env.filters.update(
        score=svg.format_score, band=svg.score_band, delta=format_delta, metric=format_metric, pvalue=format_p
    )
    env.globals.update(gauge=svg.gauge, score_bars=svg.score_bars, owasp_titles=OWASP_TITLES)
    return env


def render_html(manifest: Manifest, comparison: Comparison | None = None) -> str:
    """The whole report as one HTML document: no external resources, no scripts."""
    by_category, by_owasp = attack_breakdown(manifest.cases)
    from khaos_action.report.breakdown import breakdown_tables
    from khaos_action.report.headline import headline

    groups = case_groups(manifest.cases)
    shown = {view.case.id for group in groups for view in group.cases}
    context = {
        "m": manifest, "headline": headline(manifest),
        "phase_bars": score_bars(manifest, PHASE_SCORES),
        "pillar_bars": score_bars(manifest, PILLAR_SCORES),
        "heatmap": heatmap(manifest.cases),
        "by_category": by_category,
        "by_owasp": by_owasp,
        "channel_tables": breakdown_tables(manifest),
        "faults": fault_firing(manifest.cases),
        "groups": groups,
        "comparison": comparison_view(comparison, manifest, shown) if comparison is not None else None,
    }
    return environment().get_template("report.html.j2").render(**context)
