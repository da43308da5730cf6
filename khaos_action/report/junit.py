"""junit.xml (via junit-xml): one suite per phase/pillar, one testcase per case (per contract cell).

Not-exercised and not-judged cases are `skipped` with the reason, never passes; agent errors are `error`s.
"""

from __future__ import annotations

from junit_xml import TestCase, TestSuite, to_xml_report_string

from khaos_action.report.manifest import CaseResult, Manifest


def _name(case: CaseResult) -> str:
    parts = [case.attack_id or case.mutation or "", case.scenario or "", case.input[:80].replace("\n", " ")]
    label = " · ".join(p for p in parts if p)
    return f"{label} [{case.id}{'#' + str(case.repeat) if case.repeat else ''}]"


def _testcases(case: CaseResult) -> list[TestCase]:
    suite_class = f"khaos.{case.pillar or case.phase}"
    if case.invariants:
        # A contract cell is (invariant × scenario): one testcase each, so CI dashboards show the matrix.
        out = []
        for inv in case.invariants:
            tc = TestCase(f"{inv.id} · {_name(case)}", classname=suite_class, elapsed_sec=case.latency_ms / 1000,
                          stdout=case.output)
            if case.error:
                tc.add_error_info(message=case.error[:500])
            elif inv.passed is False:
                tc.add_failure_info(message=f"[{inv.severity}] {inv.detail}"[:500])
            elif inv.passed is None:
                tc.add_skipped_info(message=inv.detail or "not exercised")
            out.append(tc)
        return out
    tc = TestCase(_name(case), classname=suite_class, elapsed_sec=case.latency_ms / 1000, stdout=case.output)
    if case.outcome is not None:
        if case.outcome == "COMPROMISED":
            tc.add_failure_info(message=f"COMPROMISED [{case.severity}] {', '.join(case.evidence_tags)}"[:500])
        elif case.outcome == "UNCERTAIN":
            tc.add_skipped_info(message=f"UNCERTAIN: {case.error or ', '.join(case.evidence_tags)}"[:500])
    elif case.error:
        tc.add_error_info(message=case.error[:500])
    elif case.passed is False:
        tc.add_failure_info(message="; ".join(case.notes)[:500] or "failed")
    elif case.passed is None:
        tc.add_skipped_info(message="; ".join(case.notes)[:500] or "not judged")
    return [tc]


def render_junit(manifest: Manifest) -> str:
    suites: dict[str, list[TestCase]] = {}
    for case in manifest.cases:
        suites.setdefault(case.pillar or case.phase, []).extend(_testcases(case))
    score_props = {f"score.{k}": "" if v is None else f"{v:.2f}" for k, v in manifest.scores.model_dump().items()}
    return to_xml_report_string([
        TestSuite(f"khaos.{name}", cases, properties={"run_id": manifest.run_id, **score_props})
        for name, cases in suites.items()
    ])
