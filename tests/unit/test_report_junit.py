"""junit.xml is written by hand (no minidom pass: it is slow at scale) but must stay the document junit-xml produced:
the same elements, attributes and texts, with illegal XML characters dropped and markup in agent text escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from khaos_action.manifest import CaseResult, InvariantResult, Manifest, Scores
from khaos_action.manifest_read import load_manifest
from khaos_action.report.writers import write_all

junit_xml = pytest.importorskip("junit_xml")  # the reference implementation (test extra)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HOSTILE = 'a"b <x>&amp; ]]> \x00\x07\x1b tab\there\r\nline ✓ \U0001F600'
"""Agent text no XML document can hold as is. (U+FFFE is left out: junit-xml wrote it as `&#65534;`, which no
parser accepts; ours drops it, checked below.)"""


def written(manifest: Manifest, out: Path) -> str:
    """junit.xml as a run writes it: through the format registry's renderer and the writers (it is streamed)."""
    return write_all(manifest, out, ["junit"])["junit"].read_text(encoding="utf-8")


def reference(manifest: Manifest) -> str:
    """junit.xml as the previous implementation produced it through junit-xml (without its pretty-printing)."""
    from junit_xml import TestCase, TestSuite, to_xml_report_string

    def name(case: CaseResult) -> str:
        parts = [case.attack_id or case.mutation or "", case.scenario or "", case.input[:80].replace("\n", " ")]
        return f"{' · '.join(p for p in parts if p)} [{case.id}{'#' + str(case.repeat) if case.repeat else ''}]"

    def testcases(case: CaseResult) -> list:
        cls = f"khaos.{case.pillar or case.phase}"
        if case.invariants:
            out = []
            for inv in case.invariants:
                tc = TestCase(f"{inv.id} · {name(case)}", classname=cls, elapsed_sec=case.latency_ms / 1000,
                              stdout=case.output)
                if case.error:
                    tc.add_error_info(message=case.error[:500])
                elif inv.passed is False:
                    tc.add_failure_info(message=f"[{inv.severity}] {inv.detail}"[:500])
                elif inv.passed is None:
                    tc.add_skipped_info(message=inv.detail or "not exercised")
                out.append(tc)
            return out
        tc = TestCase(name(case), classname=cls, elapsed_sec=case.latency_ms / 1000, stdout=case.output)
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

    suites: dict[str, list] = {}
    for case in manifest.cases:
        suites.setdefault(case.pillar or case.phase, []).extend(testcases(case))
    props = {f"score.{k}": "" if v is None else f"{v:.2f}" for k, v in manifest.scores.model_dump().items()}
    return to_xml_report_string([TestSuite(f"khaos.{n}", cs, properties={"run_id": manifest.run_id, **props})
                                 for n, cs in suites.items()], prettyprint=False)


def same_tree(ours: ET.Element, theirs: ET.Element, where: str = "") -> None:
    where = f"{where}/{ours.tag}"
    assert ours.tag == theirs.tag, where
    assert ours.attrib == theirs.attrib, where
    if len(theirs) == 0:
        assert (ours.text or "") == (theirs.text or ""), where
    assert [c.tag for c in ours] == [c.tag for c in theirs], where
    for mine, ref in zip(ours, theirs, strict=True):
        same_tree(mine, ref, where)


def mixed_manifest() -> Manifest:
    manifest = load_manifest(FIXTURES / "report" / "mixed_run.json")
    extra = [
        CaseResult(id="c:1", phase="contract", pillar="contract", input=f"multi\nline {HOSTILE}", scenario="s<1>",
                   output=HOSTILE, latency_ms=12.5, invariants=[
                       InvariantResult(id="ok", passed=True), InvariantResult(id="bad", passed=False, detail=HOSTILE),
                       InvariantResult(id="unexercised", passed=None), InvariantResult(id="empty", passed=False)]),
        CaseResult(id="c:2", phase="contract", pillar="contract", input="x", error=f"boom {HOSTILE}",
                   invariants=[InvariantResult(id="ok", passed=True)], repeat=2),
        CaseResult(id="s:1", phase="security", input="attack", attack_id="pi-1", outcome="COMPROMISED",
                   severity="critical", evidence_tags=["tool_call:x", HOSTILE], output="leak"),
        CaseResult(id="s:2", phase="security", input="attack", attack_id="pi-2", outcome="UNCERTAIN"),
        CaseResult(id="s:3", phase="security", input="attack", attack_id="pi-3", outcome="BLOCKED", latency_ms=0),
        CaseResult(id="b:1", phase="baseline", input="q", passed=False, notes=[HOSTILE, "second"]),
        CaseResult(id="b:2", phase="baseline", input="q", passed=None),
        CaseResult(id="b:3", phase="baseline", input="q", passed=False),
        CaseResult(id="m:1", phase="mutation", pillar="mutation", mutation="typos", input="q", passed=True,
                   latency_ms=3.25, output="fine"),
    ]
    return manifest.model_copy(update={"cases": [*manifest.cases, *extra],
                                       "scores": Scores(overall=81.234, security=None, contract=50)})


@pytest.mark.parametrize("source", ["mixed", "minimal_baseline"])
def test_junit_is_the_document_junit_xml_wrote(source: str, tmp_path: Path) -> None:
    manifest = (mixed_manifest() if source == "mixed"
                else load_manifest(FIXTURES / "report" / "minimal_baseline.json"))
    ours = ET.fromstring(written(manifest, tmp_path).encode("utf-8"))
    theirs = ET.fromstring(reference(manifest).encode("utf-8"))
    same_tree(ours, theirs)


def test_agent_text_cannot_break_the_document(tmp_path: Path) -> None:
    manifest = mixed_manifest()
    manifest.cases[-1].output = "non-character \ufffe\U0010ffff here"
    text = written(manifest, tmp_path)
    root = ET.fromstring(text.encode("utf-8"))  # well-formed despite NULs, ESC, ]]> and quotes
    outs = [e.text for e in root.iter("system-out")]
    assert 'a"b <x>&amp; ]]>  tab\there' in "".join(outs)
    assert "\x00" not in text and "\x1b" not in text and "\r" not in text  # dropped, as junit-xml did
    assert "non-character  here" in outs
    messages = [e.get("message") for e in root.iter("failure")]
    assert any(m and m.startswith("[medium] a\"b <x>") and "\there\r\nline" in m for m in messages)


def test_junit_counts_each_contract_cell(tmp_path: Path) -> None:
    root = ET.fromstring(written(mixed_manifest(), tmp_path).encode("utf-8"))
    contract = next(s for s in root.iter("testsuite") if s.get("name") == "khaos.contract")
    cells = contract.findall("testcase")
    assert len(cells) == int(contract.get("tests")) == 5 + sum(
        len(c.invariants) or 1 for c in load_manifest(FIXTURES / "report" / "mixed_run.json").cases
        if (c.pillar or c.phase) == "contract")
    assert contract.get("errors") == "1" and root.get("errors") == str(len(root.findall(".//error")))
