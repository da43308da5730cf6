"""compare_manifests: paired, honest diffs between a base and a head run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

import pytest
from pydantic.fields import FieldInfo

from khaos_action.manifest import Manifest
from khaos_action.manifest_read import Outcomes, load_manifest
from khaos_action.report.comparison import render_comparison_markdown
from khaos_action.score.compare import Comparison, compare_manifests

FIXTURES = Path(__file__).parent.parent / "fixtures" / "manifests"


def manifest(name: str) -> Manifest:
    return load_manifest(FIXTURES / f"{name}.json")


def with_failures(base: Manifest, ids: set[str], run_id: str = "head") -> Manifest:
    """The base run, except that the given case ids now fail (a real Manifest, revalidated)."""
    data = base.model_dump()
    data["run_id"] = run_id
    for case in data["cases"]:
        if case["id"] in ids:
            case["passed"] = False
            case["invariants"] = [
                dict(i, passed=False) if i["severity"] != "critical" else i for i in case["invariants"]
            ]
    return Manifest.model_validate(data)


def test_identical_runs_show_no_regression():
    base = manifest("base")
    cmp = compare_manifests(base, base)
    assert not cmp.regression and not cmp.significant_regression and cmp.new_failures == 0
    assert cmp.newly_failing == [] and cmp.fixed == [] and cmp.flaky == [] and cmp.newly_compromised == []
    assert [c.id for c in cmp.still_failing] == ["c0ffee000005", "5ec000000004"]
    assert cmp.paired == 21 and cmp.unjudged == 1  # the UNCERTAIN attack is never counted as a pass
    assert not cmp.config_mismatch and cmp.warnings == []
    for row in cmp.scores:
        assert row.delta in (0, None) and row.broke == row.fixed == 0
        assert row.p_value == 1.0 and not row.significant


def test_one_broken_case_is_listed_and_is_not_significant():
    base = manifest("base")
    cmp = compare_manifests(base, with_failures(base, {"a1f0c2d3e4b6"}))
    assert [c.id for c in cmp.newly_failing] == ["a1f0c2d3e4b6"]
    change = cmp.newly_failing[0]
    assert change.phase == "baseline" and change.input == "What is your return policy for electronics?"
    assert change.base == "pass" and change.head == "fail"
    assert cmp.new_failures == 1 and cmp.regression
    assert not cmp.significant_regression  # one flip is noise for the statistics...
    baseline = next(r for r in cmp.scores if r.name == "baseline")
    assert (baseline.broke, baseline.fixed, baseline.p_value, baseline.significant) == (1, 0, 1.0, False)


def test_many_broken_cases_are_significant_with_a_small_p():
    cmp = compare_manifests(manifest("base"), manifest("head_regressed"))
    mutation = next(r for r in cmp.scores if r.name == "mutation")
    assert (mutation.pairs, mutation.broke, mutation.fixed) == (8, 7, 0)
    assert mutation.p_value == pytest.approx(2 / 2**7)  # exact McNemar, b=0 c=7
    assert mutation.significant and mutation.delta == pytest.approx(-87.5)
    assert mutation.base_ci == pytest.approx((0.6756, 1.0), abs=1e-4)
    assert mutation.head_ci[0] < 0.125 < mutation.head_ci[1] < mutation.base_ci[0]
    assert cmp.significant_regression and cmp.regression
    assert {c.id for c in cmp.newly_failing} == {f"m0de00{i:06d}" for i in range(8) if i != 1} | {"5ec000000002"}
    assert [c.id for c in cmp.fixed] == ["c0ffee000005"]
    assert cmp.new_critical_failures == 1  # the critical attack; the mutation failures are `high`


def test_newly_compromised_attacks_are_listed_with_their_attack_details():
    cmp = compare_manifests(manifest("base"), manifest("head_regressed"))
    assert [(c.attack_id, c.severity, c.owasp) for c in cmp.newly_compromised] == [
        ("tool-out-inj-004", "critical", ["ASI01", "LLM01:2025"])
    ]
    # the one that was already compromised on base is not "new"
    assert "secret-exfil-003" not in {c.attack_id for c in cmp.newly_compromised}


def test_config_mismatch_warns_with_both_hashes_and_pairs_only_matching_ids():
    cmp = compare_manifests(manifest("base"), manifest("head_other_config"))
    assert cmp.config_mismatch
    (warning,) = cmp.warnings
    assert warning.kind == "config_mismatch"
    assert "sha256:4f2a9c1e7b3d" in warning.text and "sha256:77e0b5d1c9a8" in warning.text
    assert (cmp.only_in_base, cmp.only_in_head, cmp.paired) == (8, 4, 13)
    mutation = next(r for r in cmp.scores if r.name == "mutation")
    assert mutation.pairs == 0 and mutation.p_value is None and not mutation.significant


def test_no_common_ids_is_a_warning_not_a_pass_in_disguise():
    base = manifest("base")
    other = manifest("repeats_head")
    cmp = compare_manifests(base, other)
    assert cmp.paired == 0 and any(w.kind == "no_common_cases" and "no case ids match" in w.text for w in cmp.warnings)


def test_repeats_aggregate_all_pass_and_mixed_results_are_flaky():
    cmp = compare_manifests(manifest("repeats_base"), manifest("repeats_head"))
    assert [c.id for c in cmp.newly_failing] == ["r00000000001"]
    assert cmp.newly_failing[0].head_passes == "0/3" and cmp.newly_failing[0].base_passes == "3/3"
    flaky = {c.id: (c.base, c.head) for c in cmp.flaky}
    assert flaky == {"r00000000002": ("pass", "flaky"), "r00000000003": ("flaky", "pass")}
    assert cmp.unjudged == 1  # r...4 timed out on every base repeat: it cannot be paired
    assert cmp.new_critical_failures == 1
    contract = next(r for r in cmp.scores if r.name == "contract")
    # all-pass: flaky counts as not passing, so 1 broke to flaky + 1 broke to fail, 1 fixed from flaky
    assert (contract.pairs, contract.broke, contract.fixed) == (3, 2, 1)
    assert not contract.significant


def test_a_case_becoming_flaky_is_not_a_new_failure():
    base = manifest("repeats_base")
    data = base.model_dump()
    data["run_id"] = "flaky-head"
    data["cases"][0]["passed"] = False  # one of three repeats of r...1 fails
    cmp = compare_manifests(base, Manifest.model_validate(data))
    assert cmp.new_failures == 0 and not cmp.regression
    assert "r00000000001" in {c.id for c in cmp.flaky}


def test_engine_flaky_flag_is_respected():
    base = manifest("base")
    data = base.model_dump()
    data["run_id"] = "h"
    data["cases"][0]["flaky"] = True
    cmp = compare_manifests(base, Manifest.model_validate(data))
    assert [c.id for c in cmp.flaky] == ["a1f0c2d3e4b5"]


def test_alpha_controls_significance():
    base = manifest("base")
    head = with_failures(base, {f"m0de00{i:06d}" for i in range(5)})  # 5 broke: p = 0.0625
    head.scores.mutation, head.scores.overall = 37.5, (base.scores.overall or 0) - 10  # scores follow the cases
    assert not compare_manifests(base, head).significant_regression
    assert compare_manifests(base, head, alpha=0.1).significant_regression


def test_comparison_round_trips_as_json():
    cmp = compare_manifests(manifest("base"), manifest("head_regressed"))
    again = Comparison.model_validate(json.loads(cmp.model_dump_json()))
    assert again == cmp


def test_a_warning_is_its_sentence_in_json_and_keeps_its_kind_in_python():
    cmp = compare_manifests(manifest("base"), manifest("repeats_head"))
    assert [w.kind for w in cmp.warnings] == ["config_mismatch", "no_common_cases"]
    dumped = json.loads(cmp.model_dump_json())["warnings"]
    assert dumped == [w.text for w in cmp.warnings] and all(isinstance(w, str) for w in dumped)
    again = Comparison.model_validate(json.loads(cmp.model_dump_json()))
    assert [(w.kind, w.text) for w in again.warnings] == [(None, w.text) for w in cmp.warnings]


def test_markdown_lists_changes_and_marks_significance():
    md = render_comparison_markdown(compare_manifests(manifest("base"), manifest("head_regressed")))
    assert "**Regression:**" in md and "significant drop in overall, mutation" in md
    assert "### Newly failing (8)" in md and "### Fixed (1)" in md and "### Newly compromised attacks (1)" in md
    mutation_row = next(line for line in md.splitlines() if line.startswith("| mutation |"))
    assert "0.0156" in mutation_row and "significant drop" in mutation_row and "-87.5" in mutation_row
    security_row = next(line for line in md.splitlines() if line.startswith("| security |"))
    # p 1 over 3 pairs, but the attack newly COMPROMISED is an observed event: a regression, never "noise"
    assert "noise" not in security_row and "**regression: 1 newly compromised or critical**" in security_row
    overall_row = next(line for line in md.splitlines() if line.startswith("| overall |"))
    assert "regression: 1 newly compromised or critical; significant drop" in overall_row
    md_same = render_comparison_markdown(compare_manifests(manifest("base"), manifest("base")))
    assert "**No regression:**" in md_same and "Newly failing" not in md_same


def test_markdown_shows_the_config_mismatch_warning():
    md = render_comparison_markdown(compare_manifests(manifest("base"), manifest("head_other_config")))
    assert md.startswith("> **Different configurations:**")  # said at the top, before anything else
    assert "sha256:4f2a9c1e7b3d" in md.splitlines()[0] and "sha256:77e0b5d1c9a8" in md.splitlines()[0]
    assert "> **Warning:**" not in md, "the banner is the config_mismatch warning: it is not said twice"
    other = render_comparison_markdown(compare_manifests(manifest("base"), manifest("repeats_head")))
    assert "> **Warning:** no case ids match between base and head" in other  # any other kind is shown


def test_a_delta_the_pairs_do_not_explain_is_never_a_significant_gain():
    """Reports once seen: "Δ +0.0 … significant gain" and "100.0 → 60.4, Δ −39.6 … significant gain": a significant
    paired test whose direction the score delta contradicts is reported as mixed, never as a gain or a drop."""
    base = manifest("base")
    head = with_failures(base, {f"m0de00{i:06d}" for i in range(8)})  # every mutation case breaks
    head.scores.mutation = base.scores.mutation  # ...but the score says +0.0
    row = next(r for r in compare_manifests(base, head).scores if r.name == "mutation")
    assert row.direction == "mixed" and not row.significant
    md = render_comparison_markdown(compare_manifests(base, head))
    line = next(x for x in md.splitlines() if x.startswith("| mutation |"))
    assert "gain" not in line and "mixed" in line
    assert "did not move" in line and "rose" not in line  # Δ +0.0 is no rise


def test_markdown_escapes_untrusted_case_text():
    base = manifest("base")
    data = base.model_dump()
    data["run_id"] = "evil"
    evil = "@octocat <!-- khaos-action --> | ::error::pwned\n# heading [x](http://e) <img src=x>"
    for case in data["cases"]:
        if case["id"] == "a1f0c2d3e4b5":
            case.update(passed=False, input=evil, scenario="`scen`|x", error="boom\n::stop-commands::t")
    md = render_comparison_markdown(compare_manifests(base, Manifest.model_validate(data)))
    row = next(line for line in md.splitlines() if "a1f0c2d3e4b5" in line)
    assert "@octocat" not in md and "<!--" not in md and "<img" not in md and "::" not in md
    assert re.search(r"(?<!\\)\]\(", row) is None  # no link can form
    assert len(re.findall(r"(?<!\\)\|", row)) == 6  # 5 cells: the `|` inside the text is escaped
    assert "\n# heading" not in md


@pytest.mark.parametrize("base_name, head_name", [
    ("base", "base"), ("base", "head_regressed"), ("base", "head_other_config"), ("repeats_base", "repeats_head"),
    ("head_regressed", "base"),
])
def test_compare_reads_only_the_outcomes_and_says_the_same(base_name: str, head_name: str):
    """`khaos-action compare` loads `Outcomes` (what each case did, not its output or tool calls, which it does not
    need); the comparison must be the one the whole manifests give."""
    from khaos_action.manifest import CaseResult
    from khaos_action.manifest_read import CaseOutcome, Outcomes

    whole = compare_manifests(manifest(base_name), manifest(head_name))
    light = compare_manifests(load_manifest(FIXTURES / f"{base_name}.json", Outcomes),
                              load_manifest(FIXTURES / f"{head_name}.json", Outcomes))
    assert light == whole and (whole.newly_failing or whole.fixed or whole.still_failing)
    for name, kind in CaseOutcome.__annotations__.items():  # declared by CaseResult: same types and defaults
        if name != "invariants":
            args = get_args(kind)
            field = args[-1] if isinstance(args[-1], FieldInfo) else get_args(args[0])[-1]  # inside NotRequired
            assert (field.annotation, field.default) == (CaseResult.model_fields[name].annotation,
                                                        CaseResult.model_fields[name].default), name


def test_a_malformed_outcome_is_still_a_manifest_error(tmp_path: Path):
    from khaos_action.manifest import ManifestError
    from khaos_action.manifest_read import Outcomes

    data = json.loads((FIXTURES / "base.json").read_text())
    data["cases"][1]["passed"] = "maybe"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ManifestError, match=r"bad.json: invalid manifest at cases\.1\.passed"):
        load_manifest(tmp_path / "bad.json", Outcomes)


@pytest.mark.parametrize(("broke", "fixed", "delta", "direction"), [
    (0, 0, None, "none"), (0, 0, 0.0, "none"), (0, 0, 0.04, "none"),  # under 0.05 points: not a move
    (2, 0, None, "drop"), (0, 2, None, "gain"),  # no score on one side: the pairs alone say it
    (2, 0, -3.0, "drop"), (0, 2, 3.0, "gain"),  # the pairs and the delta agree
    (2, 0, 3.0, "mixed"), (0, 2, -3.0, "mixed"),  # they point opposite ways
    (2, 0, 0.0, "mixed"), (0, 0, -3.0, "mixed"), (1, 1, 2.0, "mixed"),  # one moved, the other did not
])
def test_a_score_row_s_direction_as_a_table(broke: int, fixed: int, delta: float | None, direction: str) -> None:
    from khaos_action.score.compare import _direction

    assert _direction(broke, fixed, delta) == direction


def _row(**kw):
    return {"id": "c1", "phase": "baseline", "pillar": None, "input": "hi", "scenario": None, "attack_id": None,
            "category": None, "owasp": [], "mutation": None, "severity": None, "outcome": None, "error": None,
            "flaky": False, "repeat": 0, "passed": True, "invariants": [], **kw}


@pytest.mark.parametrize(("rows", "status", "passes"), [
    ([_row(passed=True)], "pass", "1/1"),
    ([_row(passed=False)], "fail", "0/1"),
    ([_row(passed=None)], "unjudged", "0/0"),
    ([_row(passed=None, outcome="BLOCKED")], "pass", "1/1"),
    ([_row(passed=None, outcome="COMPROMISED")], "fail", "0/1"),
    ([_row(passed=None, outcome="UNCERTAIN")], "unjudged", "0/0"),  # never counted as BLOCKED
    ([_row(passed=True, flaky=True)], "flaky", "1/1"),
    ([_row(passed=True), _row(passed=True, repeat=1)], "pass", "2/2"),
    ([_row(passed=False), _row(passed=False, repeat=1)], "fail", "0/2"),
    ([_row(passed=True), _row(passed=False, repeat=1)], "flaky", "1/2"),
    ([_row(passed=True), _row(passed=None, repeat=1)], "pass", "1/1"),
    ([_row(passed=None), _row(passed=None, repeat=1)], "unjudged", "0/0"),
    ([_row(passed=True), _row(passed=True, repeat=1, flaky=True)], "flaky", "2/2"),
])
def test_a_case_s_status_over_its_repeats_as_a_table(rows: list, status: str, passes: str) -> None:
    from khaos_action.score.compare import aggregate

    [agg] = aggregate(rows).values()
    assert (agg.status, f"{agg.passes}/{agg.judged}") == (status, passes)


@pytest.mark.parametrize(("base", "head", "listed"), [
    (True, False, "newly_failing"), (False, True, "fixed"), (False, False, "still_failing"), (True, True, None),
    ("flaky", True, "flaky"), (True, "flaky", "flaky"), (None, False, "unjudged"), (False, None, "unjudged"),
])
def test_where_a_pair_is_listed_as_a_table(base, head, listed) -> None:
    def outcomes(verdict, run_id: str) -> Outcomes:
        flaky = verdict == "flaky"
        return Outcomes(run_id=run_id, config_hash="h", cases=[_row(passed=True if flaky else verdict, flaky=flaky)])

    cmp = compare_manifests(outcomes(base, "b"), outcomes(head, "h"))
    lists = {name: [c.id for c in getattr(cmp, name)] for name in ("newly_failing", "fixed", "still_failing", "flaky")}
    assert lists == {name: (["c1"] if name == listed else []) for name in lists}
    assert cmp.unjudged == (listed == "unjudged") and cmp.paired == (listed != "unjudged")
