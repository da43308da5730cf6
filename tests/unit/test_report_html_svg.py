"""Inline SVG charts: geometry follows the numbers, None is "not run" (never 0), labels are escaped."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from khaos_action.report.svg import Bar, format_score, gauge, score_band, score_bars, shift, stack

SVG = "{http://www.w3.org/2000/svg}"


def parse(markup: str) -> ET.Element:
    # Charts are well-formed XML once the namespace is declared: a stray "<" from a label would break this.
    return ET.fromstring(str(markup).replace("<svg ", f'<svg xmlns="{SVG[1:-1]}" ', 1))


def rects(root: ET.Element, cls: str) -> list[ET.Element]:
    return [r for r in root.iter(f"{SVG}rect") if cls in r.get("class", "").split()]


@pytest.mark.parametrize(("value", "band"), [(None, "na"), (0, "bad"), (59.9, "bad"), (60, "warn"), (80, "good")])
def test_score_band(value: float | None, band: str) -> None:
    assert score_band(value) == band


@pytest.mark.parametrize(
    ("value", "text"), [(None, "not run"), (0.0, "0"), (72.0, "72"), (72.46, "72.5"), (100, "100")]
)
def test_format_score(value: float | None, text: str) -> None:
    assert format_score(value) == text


def test_score_bars_fill_in_proportion_and_draw_none_as_not_run() -> None:
    root = parse(score_bars([Bar("baseline", 100.0), Bar("security", 25.0), Bar("replay", None), Bar("zero", 0.0)]))
    fills = [float(r.get("width")) for r in rects(root, "fill")]
    assert len(fills) == 3 and fills[0] == pytest.approx(4 * fills[1]) and fills[2] == 0
    assert [r.get("class") for r in rects(root, "fill")] == ["fill good", "fill bad", "fill bad"]
    assert len(rects(root, "na")) == 1
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts.count("not run") == 1 and "0" in texts  # a real zero is shown as 0, a missing score is not


def test_score_bars_clamp_out_of_range_values() -> None:
    root = parse(score_bars([Bar("a", 150.0), Bar("b", -5.0), Bar("c", 100.0)]))
    widths = [float(r.get("width")) for r in rects(root, "fill")]
    assert widths[0] == widths[2] and widths[1] == 0


def test_gauge_arc_length_follows_the_score_and_none_has_no_arc() -> None:
    half = parse(gauge(50.0))
    arc = [c for c in half.iter(f"{SVG}circle") if "arc" in c.get("class", "")][0]
    filled, circumference = (float(x) for x in arc.get("stroke-dasharray").split())
    assert filled == pytest.approx(circumference / 2, rel=1e-3)
    empty = parse(gauge(None))
    assert not [c for c in empty.iter(f"{SVG}circle") if "arc" in c.get("class", "")]
    assert "not run" in [t.text for t in empty.iter(f"{SVG}text")]


def test_stack_segments_share_the_width_by_count_and_skip_empty_ones() -> None:
    root = parse(stack([("blocked", 3), ("compromised", 1), ("uncertain", 0)], width=200))
    segments = [(r.get("class"), float(r.get("width"))) for r in rects(root, "seg")]
    assert segments == [("seg blocked", 150.0), ("seg compromised", 50.0)]
    assert parse(stack([("a", 0)])).find(f"{SVG}title").text == "none"
    assert not rects(parse(stack([("fired", 1), ("unfired", -1)])), "unfired")


def test_shift_marks_base_and_head_positions() -> None:
    root = parse(shift(20.0, 80.0, width=114))
    base = root.find(f"{SVG}circle[@class='base-dot']")
    head = [c for c in root.iter(f"{SVG}circle") if "head-dot" in c.get("class", "")][0]
    assert float(base.get("cx")) == pytest.approx(7 + 100 * 0.2) and float(head.get("cx")) == pytest.approx(87)
    assert [ln.get("class") for ln in root.iter(f"{SVG}line")] == ["axis", "move up"]
    assert "not run" in [t.text for t in parse(shift(None, None)).iter(f"{SVG}text")]
    assert len(list(parse(shift(None, 50.0)).iter(f"{SVG}circle"))) == 1


def test_labels_are_escaped_inside_the_svg() -> None:
    hostile = '</text><script>alert(1)</script><text x="'
    markup = str(score_bars([Bar(hostile, 50.0, title=hostile)])) + str(stack([(hostile, 1)]))
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    root = parse(score_bars([Bar(hostile, 50.0)]))
    assert hostile in [t.text for t in root.iter(f"{SVG}text")]
    assert not re.search(r"<script", str(gauge(50.0, label=hostile)))
