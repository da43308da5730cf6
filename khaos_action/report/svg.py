"""Inline SVG charts for the HTML report: a score gauge, score bars and outcome stacks.

Every function is pure and returns `Markup` (already-safe SVG) so the template inserts it as is; every piece of
text that reaches the SVG goes through `escape`, because labels (scenario names, categories) come from user config
and attack data. Colours are CSS classes, not literal fills, so the page's light/dark palette applies to charts too.
A score of None is drawn as an empty dashed track labelled "not run": a phase that did not run is never a 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

NOT_RUN = "not run"


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float | None
    """0..100, or None when the score was not computed."""
    title: str = ""
    """Tooltip: what the score measures (manifest.score_notes)."""


def score_band(value: float | None) -> str:
    """CSS class for a 0..100 score: the same thresholds everywhere in the report."""
    if value is None:
        return "na"
    if value >= 80:
        return "good"
    if value >= 60:
        return "warn"
    return "bad"


def format_score(value: float | None) -> str:
    if value is None:
        return NOT_RUN
    # Scores are shown to one decimal only when it carries information (72.5, not 72.0).
    return f"{value:.0f}" if abs(value - round(value)) < 0.05 else f"{value:.1f}"


def _clamp(value: float) -> float:
    return max(0.0, min(100.0, value))


def gauge(value: float | None, label: str = "Overall", size: int = 148, band: str | None = None) -> Markup:
    """A ring gauge for one 0..100 score, coloured by its band unless `band` says otherwise (the overall gauge
    takes the verdict's colour: never green next to FAILED)."""
    radius = 56.0
    circumference = 2 * 3.141592653589793 * radius
    aria = f"{label} score {format_score(value)}" + (" of 100" if value is not None else "")
    parts = [
        f'<svg class="gauge" width="{size}" height="{size}" viewBox="0 0 140 140" role="img" '
        f'aria-label="{escape(aria)}">',
        f"<title>{escape(aria)}</title>",
    ]
    if value is None:
        parts.append(f'<circle class="track na" cx="70" cy="70" r="{radius}" stroke-dasharray="6 6"/>')
        parts.append(f'<text class="gauge-na" x="70" y="76" text-anchor="middle">{NOT_RUN}</text>')
    else:
        filled = circumference * _clamp(value) / 100
        parts.append(f'<circle class="track" cx="70" cy="70" r="{radius}"/>')
        # The arc starts at 12 o'clock: rotate the circle's natural 3 o'clock start by -90 degrees.
        parts.append(
            f'<circle class="arc {band or score_band(value)}" cx="70" cy="70" r="{radius}" '
            f'stroke-dasharray="{filled:.2f} {circumference:.2f}" transform="rotate(-90 70 70)"/>'
        )
        parts.append(f'<text class="gauge-value" x="70" y="78" text-anchor="middle">{format_score(value)}</text>')
        parts.append('<text class="gauge-unit" x="70" y="98" text-anchor="middle">/ 100</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def score_bars(bars: Sequence[Bar], width: int = 520, row: int = 30) -> Markup:
    """Horizontal 0..100 bars, one row per score, with the value at the end of each bar."""
    label_w, value_w = 112, 64
    track_w = width - label_w - value_w
    height = row * len(bars) + 4
    names = ", ".join(f"{b.label} {format_score(b.value)}" for b in bars)
    parts = [
        f'<svg class="bars" width="100%" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(names)}" '
        'preserveAspectRatio="xMinYMin meet">'
    ]
    for i, bar in enumerate(bars):
        y = i * row + 2
        mid = y + row / 2
        tip = bar.title or f"{bar.label}: {format_score(bar.value)}"
        parts.append(f"<g><title>{escape(tip)}</title>")
        parts.append(f'<text class="bar-label" x="0" y="{mid + 5:.1f}">{escape(bar.label)}</text>')
        if bar.value is None:
            parts.append(
                f'<rect class="track na" x="{label_w}" y="{y + 6}" width="{track_w}" height="{row - 12}" rx="4" '
                'stroke-dasharray="5 4"/>'
            )
            parts.append(
                f'<text class="bar-na" x="{label_w + track_w / 2:.1f}" y="{mid + 4:.1f}" '
                f'text-anchor="middle">{NOT_RUN}</text>'
            )
        else:
            filled = track_w * _clamp(bar.value) / 100
            parts.append(
                f'<rect class="track" x="{label_w}" y="{y + 6}" width="{track_w}" height="{row - 12}" rx="4"/>'
            )
            parts.append(
                f'<rect class="fill {score_band(bar.value)}" x="{label_w}" y="{y + 6}" width="{filled:.1f}" '
                f'height="{row - 12}" rx="4"/>'
            )
            parts.append(
                f'<text class="bar-value" x="{width}" y="{mid + 5:.1f}" text-anchor="end">'
                f"{format_score(bar.value)}</text>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return Markup("".join(parts))


def stack(segments: Sequence[tuple[str, int]], width: int = 180, height: int = 14) -> Markup:
    """One stacked bar of counts, e.g. [("blocked", 7), ("compromised", 2), ("uncertain", 1)].

    The segment name is also its CSS class; empty segments are omitted; an all-zero stack is an empty track.
    """
    total = sum(max(count, 0) for _, count in segments)
    summary = ", ".join(f"{count} {name}" for name, count in segments if count > 0) or "none"
    parts = [
        f'<svg class="stack" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(summary)}"><title>{escape(summary)}</title>',
        f'<rect class="track" x="0" y="0" width="{width}" height="{height}" rx="3"/>',
    ]
    x = 0.0
    for name, count in segments:
        if count <= 0 or total <= 0:
            continue
        w = width * count / total
        parts.append(f'<rect class="seg {escape(name)}" x="{x:.2f}" y="0" width="{w:.2f}" height="{height}"/>')
        x += w
    parts.append("</svg>")
    return Markup("".join(parts))


def shift(base: float | None, head: float | None, width: int = 160, height: int = 20) -> Markup:
    """Base → head on one 0..100 scale: a hollow dot for base, a filled dot for head, a line for the move."""
    pad = 7
    span = width - 2 * pad

    def x(value: float) -> float:
        return pad + span * _clamp(value) / 100

    summary = f"base {format_score(base)}, head {format_score(head)}"
    parts = [
        f'<svg class="shift" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(summary)}"><title>{escape(summary)}</title>',
        f'<line class="axis" x1="{pad}" y1="{height / 2}" x2="{width - pad}" y2="{height / 2}"/>',
    ]
    if base is None and head is None:
        parts.append(f'<text class="bar-na" x="{width / 2}" y="{height / 2 + 4}" text-anchor="middle">{NOT_RUN}</text>')
    if base is not None and head is not None and abs(head - base) >= 0.05:
        direction = "up" if head > base else "down"
        parts.append(
            f'<line class="move {direction}" x1="{x(base):.1f}" y1="{height / 2}" '
            f'x2="{x(head):.1f}" y2="{height / 2}"/>'
        )
    if base is not None:
        parts.append(f'<circle class="base-dot" cx="{x(base):.1f}" cy="{height / 2}" r="5"/>')
    if head is not None:
        parts.append(f'<circle class="head-dot {score_band(head)}" cx="{x(head):.1f}" cy="{height / 2}" r="5"/>')
    parts.append("</svg>")
    return Markup("".join(parts))
