"""One definition of critical, masking of planted secrets, and a headline that tells the truth."""

from __future__ import annotations

import base64
import codecs
from functools import partial

from khaos_action.findings import SECRET_CHECK_ID, SECRET_CHECK_TYPE, critical_findings, is_critical
from khaos_action.manifest import (
    AgentInfo,
    InvariantResult,
    Scores,
)
from khaos_action.redact import MASK, Redactor
from khaos_action.report.comparison import render_comparison_markdown
from khaos_action.report.headline import headline
from khaos_action.score.compare import compare_manifests
from khaos_action.score.gates import verdict_of
from tests.builders import make_case, make_manifest

SECRET = "sk-live-PLANTED-9431"


# A contract case with nothing judged, unless a test says more.
case = partial(make_case, input="hi", pillar=None, scenario=None, output="", passed=None)


# A tiny passing run with no scores, unless a test says more.
manifest = partial(make_manifest, run_id="r", tool_version="t", seed=1, config_hash="h", started_at="now",
                   agent=AgentInfo(name="a", type="python"), scores=Scores())


def test_the_one_definition_of_critical():
    assert is_critical("secret", "low") and is_critical("invariant", "critical")
    assert is_critical("attack", "high") and is_critical("attack", "critical")
    assert not is_critical("attack", "medium") and not is_critical("invariant", "high")
    assert not is_critical("score", "critical")


def test_critical_findings_group_cases_by_kind():
    secret = InvariantResult(id=SECRET_CHECK_ID, type=SECRET_CHECK_TYPE, severity="critical", passed=False,
                             builtin=True)
    cases = [case(id="a", invariants=[secret]),
             case(id="b", scenario="down", invariants=[InvariantResult(id="no-pii", severity="critical",
                                                                        passed=False)]),
             case(id="c", phase="security", attack_id="pi-1", severity="high", outcome="COMPROMISED"),
             case(id="d", phase="security", attack_id="pi-2", severity="medium", outcome="COMPROMISED")]
    found = critical_findings(cases)
    assert [f.kind for f in found] == ["secret", "invariant", "attack"]
    assert all(f.is_critical for f in found)
    assert found[2].case_ids == ["c"]  # the medium attack is not critical


def test_every_form_of_a_secret_is_masked_and_nothing_else():
    r = Redactor([SECRET])
    forms = [SECRET, SECRET.lower(), base64.b64encode(SECRET.encode()).decode(), SECRET.encode().hex(),
             SECRET[::-1], " ".join(SECRET), codecs.encode(SECRET, "rot13"),
             "x" + base64.b64encode(b"ab" + SECRET.encode()).decode()]
    for form in forms:
        masked = r.text(f"before {form} after")
        assert MASK in masked and form not in masked, form
    assert r.text("order 1234 shipped") == "order 1234 shipped"
    assert r.data({"k": [SECRET, 1]}) == {"k": [MASK, 1]}
    assert not Redactor([]) and Redactor([]).text(SECRET) == SECRET


def test_headline_shows_security_beside_overall_and_says_why_first():
    from khaos_action.findings import Finding

    failed = manifest([], scores=Scores(overall=100.0, security=45.2), verdict=verdict_of([
        Finding(gate="threshold", kind="goal", text="security goal block_rate not met"),
        Finding(gate="critical", kind="attack", severity="high", text="critical/high attack COMPROMISED: pi-1")]))
    line = headline(failed)
    assert line.startswith("FAILED: critical/high attack COMPROMISED: pi-1 (+1 more)")
    assert "overall 100.0 · security 45.2" in line
    assert headline(manifest([], scores=Scores(overall=90.0))) == "PASSED · overall 90.0 · security not run"


def test_compare_newly_compromised_is_a_regression_and_the_headline_agrees():
    blocked = case(id="x", phase="security", attack_id="ii-005", severity="critical", outcome="BLOCKED", passed=True)
    base = manifest([blocked], run_id="base", scores=Scores(security=100.0))
    head = manifest([blocked.model_copy(update={"outcome": "COMPROMISED", "passed": False})], run_id="head",
                    scores=Scores(security=0.0))
    cmp = compare_manifests(base, head)
    assert cmp.regression and [c.id for c in cmp.newly_compromised] == ["x"] and cmp.new_critical_failures == 1
    md = render_comparison_markdown(cmp)
    assert "**Regression:** 1 attack newly COMPROMISED (1 critical/high)" in md and "No regression" not in md
    assert not compare_manifests(base, base).regression


def test_a_newly_failing_critical_check_is_a_regression_even_when_the_case_was_unjudged_before():
    crit = InvariantResult(id="no-leak", severity="critical", passed=False)
    base = manifest([case(id="y", passed=None)], run_id="base")
    head = manifest([case(id="y", passed=False, invariants=[crit])], run_id="head")
    cmp = compare_manifests(base, head)
    assert cmp.regression and [c.failed_invariants for c in cmp.newly_critical] == [["no-leak"]]


def test_the_alert_comes_first_in_the_comment():
    from khaos_action.github.gates import decide
    from khaos_action.github.render import render_sections

    m = manifest([case(passed=True)], alerts=["the agent's model is failing: 9 of 10 live LLM calls failed"],
                 scores=Scores(contract=100.0))
    sections, _ = render_sections(m, comparison=None, decision=decide(m, None, fail_on=["critical"], min_score=None),
                                  baseline_source="none", fail_on=["critical"])
    assert sections[0].startswith("> **⚠️ the agent's model is failing")
    assert "security **not run**" in sections[0]


class _CountingId(str):
    """A case id that counts how often it is compared for equality (a list scan compares with every element)."""

    compared = 0

    def __eq__(self, other):
        type(self).compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_critical_findings_is_linear_in_the_cases_and_keeps_their_order():
    secret = InvariantResult(id=SECRET_CHECK_ID, type=SECRET_CHECK_TYPE, severity="critical", passed=False,
                             builtin=True)
    other = InvariantResult(id="no-pii", severity="critical", passed=False)
    n = 3000
    cases = [case(id=f"c{i:05d}", scenario=f"s{i}", invariants=[secret, other, other]) for i in range(n)]
    for c in cases:
        object.__setattr__(c, "id", _CountingId(c.id))  # counted from here on
    _CountingId.compared = 0
    found = critical_findings(cases)
    assert [f.kind for f in found] == ["secret", "invariant"]
    assert found[0].case_ids == [f"c{i:05d}" for i in range(n)]  # first-seen order, each case once
    assert found[1].case_ids == found[0].case_ids  # twice critical in one case still lists it once
    # a membership scan of the list would compare ~n²/2 = 4.5 million times; a set compares on hash hits only
    assert _CountingId.compared < 2 * n, _CountingId.compared
