"""The sticky comment's marker, its size limit, and the comment/summary content with untrusted agent text."""

from __future__ import annotations

import pytest

from khaos_action.github import gates
from khaos_action.github.comment import BODY_LIMIT, fit_body, instance_id, marker
from khaos_action.github.render import render_sections, summary_markdown
from khaos_action.github.workflow import Annotation
from khaos_action.manifest import Scores, SkippedAttack, Verdict
from khaos_action.score.compare import compare_manifests
from tests.builders import critical_invariant_case, make_case, make_manifest

EVIL = "::error::pwned @octocat <!-- khaos-action:khaos.yaml --> | col | <img src=x onerror=alert(1)> `tick`"


@pytest.mark.parametrize("path,expected", [
    ("khaos.yaml", "khaos.yaml"),
    ("./svc/khaos.yaml", "svc/khaos.yaml"),
    ("a b/--> x.yaml", "a_b/-_>_x.yaml".replace(">", "_")),
])
def test_instance_id_is_stable_and_cannot_close_the_html_comment(path: str, expected: str) -> None:
    got = instance_id(path)
    assert got == expected
    assert "--" not in got and ">" not in got


def test_marker_differs_per_config() -> None:
    assert marker(instance_id("a/khaos.yaml")) != marker(instance_id("b/khaos.yaml"))


def test_body_that_fits_keeps_every_section_and_the_footer() -> None:
    body = fit_body(["verdict", "scores", "owasp"], marker_line="<!-- m -->", footer="foot")
    assert body == "<!-- m -->\nverdict\n\nscores\n\nowasp\n\nfoot\n"


def test_body_over_the_limit_drops_whole_sections_keeps_marker_and_links_the_run() -> None:
    sections = ["verdict", "s" * 40_000, "t" * 40_000]
    body = fit_body(sections, marker_line="<!-- m -->", footer="foot", run_url="https://gh/run/1")
    assert len(body) <= BODY_LIMIT
    assert body.startswith("<!-- m -->\nverdict")
    assert "s" * 40_000 in body and "t" * 40_000 not in body
    assert "1 section omitted" in body and "https://gh/run/1" in body and body.rstrip().endswith("foot")


def test_a_single_huge_section_is_cut_at_a_line() -> None:
    body = fit_body(["\n".join("x" * 99 for _ in range(2000))], marker_line="<!-- m -->", footer="foot")
    assert len(body) <= BODY_LIMIT and body.startswith("<!-- m -->\n") and "foot" in body


def _sections(manifest, comparison=None, **kw):
    decision = gates.decide(manifest, comparison, fail_on=["critical", "regression", "threshold"], min_score=None)
    return render_sections(manifest, comparison=comparison, decision=decision, baseline_source="artifact x",
                           fail_on=["critical", "regression", "threshold"], run_url="https://gh/run/1", **kw)


def test_agent_text_is_inert_in_the_comment() -> None:
    case = make_case("a1", passed=False, phase="security", attack_id="inj-1", outcome="COMPROMISED",
                     severity="critical", owasp=["LLM01:2025"], channel="tool_output", output=EVIL,
                     evidence_tags=["canary_echo", EVIL])
    sections, footer = _sections(make_manifest([case, make_case("ok")]))
    body = fit_body(sections, marker_line=marker("khaos.yaml"), footer=footer)
    assert body.count("<!-- khaos-action") == 1  # only our own marker
    assert "::error::" not in body
    assert "@octocat" not in body
    assert "<img" not in body
    assert "| col |" not in body
    assert "COMPROMISED attacks" in body and "inj-1" in body


def test_no_baseline_says_so_and_shows_head_scores() -> None:
    sections, _ = _sections(make_manifest())
    text = "\n\n".join(sections)
    assert "No baseline yet" in text and "| overall | — | **90.0** |" in text


def test_comparison_shows_deltas_newly_failing_and_fixed() -> None:
    base = make_manifest([make_case(f"c{i}") for i in range(8)] + [make_case("f1", passed=False)],
                         scores=Scores(overall=95.0))
    head = make_manifest([make_case("c0", passed=False, output=EVIL, invariants=[])] +
                         [make_case(f"c{i}") for i in range(1, 8)] + [make_case("f1")], scores=Scores(overall=88.5))
    sections, _ = _sections(head, compare_manifests(base, head))
    text = "\n\n".join(sections)
    assert "| overall | 95.0 | **88.5** | -6.5 | noise |" in text
    assert "Newly failing (1)" in text and "`c0`" in text
    assert "Fixed (1)" in text and "`f1`" in text
    assert "regression" in text  # the newly failing case fails the regression gate


def test_unfired_faults_owasp_and_flaky_sections() -> None:
    cases = [
        make_case("r1", phase="resilience", scenario="tool-down", fault_ids=["tool-down/0"], fault_hits={}),
        make_case("r2", phase="resilience", scenario="slow", fault_ids=["slow/0"], fault_hits={"slow/0": 2},
                  faults_fired=["slow/0"]),
        make_case("a1", phase="security", attack_id="x", outcome="BLOCKED", owasp=["ASI01"], passed=None),
        make_case("fl", flaky=True),
    ]
    manifest = make_manifest(cases, skipped=[SkippedAttack(attack_id="m", category="c", channel="memory",
                                                           owasp=["ASI06"], reason="no memory")])
    text = "\n\n".join(_sections(manifest)[0])
    assert "`tool-down/0`" in text and "`slow/0`" not in text
    assert "| ASI01 | 1 | 1 | 0 | 0 | 0 |" in text and "| ASI06 | 0 | 0 | 0 | 0 | 1 |" in text
    assert "Flaky cases (1)" in text


def test_verdict_lists_failing_and_ignored_gates() -> None:
    manifest = make_manifest([critical_invariant_case("c1"), make_case("c2")],
                             verdict=Verdict(passed=False, reasons=["overall score 40.0 is below min_overall 70"]))
    decision = gates.decide(manifest, None, fail_on=["critical"], min_score=None)
    sections, _ = render_sections(manifest, comparison=None, decision=decision, baseline_source="none",
                                  fail_on=["critical"])
    assert "❌ **critical**: critical invariant failed: no-pii" in sections[0]
    assert "⚠️ threshold (not in `fail-on`)" in sections[0]


def test_summary_lists_annotation_overflow_and_embeds_the_report() -> None:
    text = summary_markdown(["v"], "foot", report_md="# Report\nbody",
                            overflow=[Annotation("error", "msg | x", file="khaos.yaml", line=3)])
    assert "1 more finding" in text and "khaos.yaml:3 — msg \\| x" in text and "# Report" in text


def test_a_newly_compromised_attack_is_a_regression_in_the_comment_not_noise() -> None:
    def attack(cid, outcome):
        return make_case(cid, phase="security", attack_id=cid, outcome=outcome, severity="high",
                         passed=outcome == "BLOCKED", invariants=[])

    base = make_manifest([attack(f"a{i}", "BLOCKED") for i in range(7)], scores=Scores(security=100.0))
    head = make_manifest([attack(f"a{i}", "COMPROMISED" if i < 5 else "BLOCKED") for i in range(7)],
                         scores=Scores(security=28.6))
    sections, _ = _sections(head, compare_manifests(base, head))
    row = next(line for line in "\n".join(sections).splitlines() if line.startswith("| security |"))
    assert "regression: 5 newly compromised or critical" in row and "noise" not in row
