"""render_html: one self-contained, inert HTML file from a manifest, fine for 2,000 cases."""

from __future__ import annotations

import json
import re
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from khaos_action.manifest import OUTPUT_CAP, Manifest
from khaos_action.manifest_read import load_manifest, parse_manifest
from khaos_action.report.html import render_html
from khaos_action.score.compare import CaseChange, Comparison, ScoreRow, compare_manifests

FIXTURES = Path(__file__).parents[1] / "fixtures" / "report"
HOSTILE = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    "</details></pre></section><h1>fake verdict: PASSED</h1>",
    "{{ 7*7 }} {% if true %}jinja{% endif %}",
    "\"><svg onload=alert(1)>",
    "javascript:alert(1)",
]


class Page(HTMLParser):
    """The parsed document: every start tag with its attributes, end tags, and the text of each <pre>."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.starts: list[tuple[str, dict[str, str | None]]] = []
        self.ends: list[str] = []
        self.pres: list[str] = []
        self._pre: list[str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.starts.append((tag, dict(attrs)))
        if tag == "pre":
            self._pre = []

    def handle_endtag(self, tag: str) -> None:
        self.ends.append(tag)
        if tag == "pre" and self._pre is not None:
            self.pres.append("".join(self._pre))
            self._pre = None

    def handle_data(self, data: str) -> None:
        if self._pre is not None:
            self._pre.append(data)

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.starts if tag == name]


def fixture(name: str) -> Manifest:
    return load_manifest(FIXTURES / name)


def raw_fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def hostile_manifest() -> Manifest:
    data = raw_fixture("mixed_run.json")
    payload = "\n".join(HOSTILE)
    for case in data["cases"]:
        case["output"] = payload
        case["input"] = payload
        case["evidence_tags"] = [HOSTILE[1]]
        case["notes"] = [HOSTILE[0]]
        case["tool_calls"] = [{"name": HOSTILE[4], "args": {"q": HOSTILE[0]}}]
        case["error"] = HOSTILE[2] if case.get("error") else None
        for invariant in case.get("invariants", []):
            invariant["detail"] = HOSTILE[1]
        if case.get("scenario"):
            case["scenario"] = case["scenario"] + HOSTILE[4]
        if case.get("category"):
            case["category"] = HOSTILE[0]
    data["agent"]["name"] = HOSTILE[0]
    data["verdict"]["reasons"].append(HOSTILE[2])
    data["warnings"].append(HOSTILE[1])
    data["skipped"][0]["reason"] = HOSTILE[0]
    return parse_manifest(data)


@pytest.mark.parametrize("name", ["mixed_run.json", "minimal_baseline.json"])
def test_fixture_reports_are_self_contained_and_script_free(name: str) -> None:
    html = render_html(fixture(name))
    page = Page(html)
    tags = {tag for tag, _ in page.starts}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed", "base", "form"}
    for _, attrs in page.starts:
        assert not [a for a in attrs if a.startswith("on")]
        for attr in ("src", "href", "xlink:href"):
            value = attrs.get(attr)
            assert value is None or value.startswith("#"), f"external or non-anchor reference {attr}={value!r}"
    assert not re.search(r"url\(|@import|https?://", html.split("<body>")[0]), "the stylesheet loads nothing"
    csp = [a["content"] for a in page.tags("meta") if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0] and "script-src" not in csp[0]
    assert page.tags("style") and html.count("<svg") >= 2


def test_untrusted_text_never_becomes_markup() -> None:
    manifest = hostile_manifest()
    clean = Page(render_html(fixture("mixed_run.json")))
    html = render_html(manifest)
    page = Page(html)
    # Same document structure as the benign run: the payloads added no element and closed none.
    assert sorted({tag for tag, _ in page.starts}) == sorted({tag for tag, _ in clean.starts})
    assert len(page.tags("details")) == page.ends.count("details") == len(clean.tags("details"))
    assert page.ends.count("pre") == len(page.tags("pre"))
    assert not page.tags("script") and not page.tags("img") and not page.tags("h1")[1:]
    for _, attrs in page.starts:
        assert not [a for a in attrs if a.startswith("on")]
    # The payloads are shown literally, as text, and jinja syntax inside them was not evaluated.
    payload = "\n".join(HOSTILE)
    assert sum(payload in text for text in page.pres) >= 2 * len(manifest.cases)
    assert "{{ 7*7 }}" in html and "jinja{% endif %}" in html and ">49<" not in html
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html


def test_hostile_case_ids_cannot_break_out_of_attributes() -> None:
    data = raw_fixture("minimal_baseline.json")
    data["cases"][0]["id"] = '"><script>x()</script>'
    page = Page(render_html(parse_manifest(data)))
    assert not page.tags("script")
    assert '"><script>x()</script>' in {a.get("id", "").removeprefix("case-") for a in page.tags("details")}


def test_scores_that_did_not_run_read_not_run_never_zero() -> None:
    html = render_html(fixture("minimal_baseline.json"))
    assert html.count(">not run</text>") == 6  # resilience, security, contract, chaos, mutation, replay
    bars = re.findall(r'<text class="bar-value"[^>]*>([^<]*)</text>', html)
    assert bars == ["100"]
    assert "No attacks were executed" in html and "contract pillar was not run" in html

    data = raw_fixture("minimal_baseline.json")
    data["scores"] = {}
    html = render_html(parse_manifest(data))
    assert "overall not run" in html and 'aria-label="Overall score not run"' in html
    assert not re.findall(r'<text class="(?:bar|gauge)-value"', html)


def test_mixed_report_shows_every_section_from_the_manifest() -> None:
    html = render_html(fixture("mixed_run.json"))
    page = Page(html)
    ids = {a.get("id") for _, a in page.starts}
    assert {"overview", "contract", "attacks", "faults", "cases"} <= ids and "comparison" not in ids
    assert "FAILED" in html and "overall score 68.4 is below min_overall 70" in html
    assert len([a for a in page.tags("details") if "case" in (a.get("class") or "").split()]) == 22
    # Heat map: one critical failed cell (no-pii-leak under tool-down), which links to the failing case.
    cells = [a for a in page.tags("td") if "cell" in (a.get("class") or "")]
    assert len(cells) == 4 * 3
    assert [a["title"] for a in cells if "fail-critical" in a["class"]] == [
        "no-pii-leak in tool-down: 1 passed, 1 failed, 0 not exercised"
    ]
    assert 'href="#case-c0ffee000003"' in html
    # Attacks by OWASP id carry the OWASP title; skipped attacks are listed as not applicable.
    assert "ASI01</span> Agent Goal Hijack" in html and "LLM07:2025</span> System Prompt Leakage" in html
    assert "Not applicable (3)" in html and "requires has_mcp" in html
    # The fault that never fired is flagged.
    assert re.search(r"llm-latency-8s</td>.*?never fired", html, re.S)


def test_rendering_is_deterministic() -> None:
    manifest = fixture("mixed_run.json")
    assert render_html(manifest) == render_html(manifest)


def big_manifest(n: int, output_len: int) -> Manifest:
    data = raw_fixture("mixed_run.json")
    template = data["cases"]
    cases = []
    for i in range(n):
        case = dict(template[i % len(template)])
        case["id"] = f"{i:012x}"
        case["output"] = ("Order <b>1234</b> & more; " * (output_len // 26 + 1))[:output_len]
        case["input"] = "y" * output_len
        cases.append(case)
    data["cases"] = cases
    return parse_manifest(data)


def test_two_thousand_cases_render_fast_and_output_size_is_bounded_by_the_cap() -> None:
    started = time.perf_counter()
    at_cap = render_html(big_manifest(2000, OUTPUT_CAP))
    elapsed = time.perf_counter() - started
    over_cap = render_html(big_manifest(2000, OUTPUT_CAP * 5))
    assert elapsed < 10
    # Longer outputs than the cap cost nothing more than the "(truncated)" notes.
    assert len(over_cap) - len(at_cap) < 2000 * 2 * 40
    assert len(over_cap) < 2000 * 3 * OUTPUT_CAP * 2, "a 2,000-case report stays in the tens of megabytes"
    assert "(truncated)" in over_cap and "(truncated)" not in at_cap.split('id="cases"')[1].split("<details")[1]


def test_comparison_section_from_a_typed_comparison_built_by_hand() -> None:
    changes = [CaseChange(id="c0ffee000003", phase="contract", base="pass", head="fail"),
               CaseChange(id=HOSTILE[0], phase="baseline", input=HOSTILE[0], base="pass", head="fail")]
    scores = [ScoreRow(name="overall", base=74.0, head=68.4, delta=-5.6, pairs=20, broke=6, fixed=0, p_value=0.03125,
                       significant=True, direction="drop"), ScoreRow(name="replay")]
    comparison = Comparison(base_run_id="base-run-0", head_run_id="head-run-0", base_config_hash="cfg",
                            head_config_hash="cfg", newly_failing=changes, scores=scores)
    html = render_html(fixture("mixed_run.json"), comparison)
    page = Page(html)
    assert not page.tags("script")
    assert 'href="#comparison"' in html and 'href="#case-c0ffee000003"' in html
    assert "significant drop" in html and ">-5.6<" in html
    assert "No case that failed on the base passes on the head." in html
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html


def test_comparison_section_from_the_real_paired_comparison() -> None:
    head = raw_fixture("mixed_run.json")
    base = json.loads(json.dumps(head))
    base["run_id"] = "base-run-1"
    base["scores"]["contract"] = 85.7
    for case in base["cases"]:
        if case["id"] == "c0ffee000003":  # passed on base, fails on head
            case["passed"] = True
            for invariant in case["invariants"]:
                invariant["passed"] = True
        if case["id"] == "5ec000000001":  # compromised on base, blocked on head
            case["outcome"] = "COMPROMISED"
    comparison = compare_manifests(parse_manifest(base), parse_manifest(head))
    html = render_html(parse_manifest(head), comparison)
    section = html.split('id="comparison"')[1].split("</section>")[0]
    assert "base run base-run-1" in section
    assert re.search(r"Newly failing</strong> <span class=\"badge bad\">1<", section)
    assert re.search(r"Fixed</strong> <span class=\"badge good\">1<", section)
    assert "#case-c0ffee000003" in section and "#case-5ec000000001" in section
    assert "no-pii-leak" in section and "1/1 → 0/1" in section
    assert ">85.7<" in section and ">71.4<" in section and ">-14.3<" in section


def test_repeats_of_a_case_get_distinct_anchors_and_links_reach_the_first() -> None:
    data = raw_fixture("minimal_baseline.json")
    first = data["cases"][0]
    data["cases"] += [{**first, "repeat": 1, "passed": False}, {**first, "repeat": 2}]
    page = Page(render_html(parse_manifest(data)))
    anchors = [a["id"] for a in page.tags("details") if a.get("id", "").startswith("case-")]
    assert len(anchors) == len(set(anchors)) == 5
    assert {"case-a1b2c3d4e5f6", "case-a1b2c3d4e5f6-r1", "case-a1b2c3d4e5f6-r2"} <= set(anchors)
