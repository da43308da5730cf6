"""junit.xml: one suite per phase/pillar, one testcase per case (per contract cell).

Not-exercised and not-judged cases are `skipped` with the reason, never passes; agent errors are `error`s.

The XML is written here rather than through junit-xml: that library pretty-prints by re-parsing the whole document
with minidom, which at scale took longer than the rest of the run's reports together. The elements and attributes are
the ones junit-xml produces (tests/unit/test_report_junit.py checks that against it), one element per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from khaos_action.manifest import CaseResult, InvariantResult, Manifest
from khaos_action.outcome import Outcome

# Characters XML 1.0 cannot carry (control characters, surrogates, non-characters) are dropped, as junit-xml did;
# a carriage return survives in attributes as `&#13;` (junit-xml escaped it there before cleaning) but not in text.
_PLANES = "".join(f"{chr(plane + 0xFFFE)}-{chr(plane + 0xFFFF)}" for plane in range(0x10000, 0x110000, 0x10000))
_NOT_XML = f"\x7f-\x84\x86-\x9f\ud800-\udfff\ufdd0-\ufddf\ufffe\uffff{_PLANES}"
_ILLEGAL = re.compile(f"[\x00-\x08\x0b-\x1f{_NOT_XML}]")
_ILLEGAL_IN_ATTR = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f{_NOT_XML}]")
_ASCII_ILLEGAL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_ASCII_ILLEGAL_IN_ATTR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _clean(value: str, ascii_illegal: re.Pattern, illegal: re.Pattern) -> str:
    # The full pattern is slow per string; most text is ASCII without control characters, which is cheap to check.
    if value.isascii():
        return value if ascii_illegal.search(value) is None else ascii_illegal.sub("", value)
    return illegal.sub("", value)


# ASCII text holding none of these is written as it is (most of a run's text: one check instead of nine passes).
_ASCII_PLAIN_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f&<>]")
_ASCII_PLAIN_ATTR = re.compile("[\x00-\x1f\x7f&<>\"]")


def _text(value: str) -> str:
    if value.isascii() and _ASCII_PLAIN_TEXT.search(value) is None:
        return value
    value = _clean(value, _ASCII_ILLEGAL, _ILLEGAL)
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(value: str) -> str:
    if value.isascii() and _ASCII_PLAIN_ATTR.search(value) is None:
        return value
    value = _clean(value, _ASCII_ILLEGAL_IN_ATTR, _ILLEGAL_IN_ATTR)
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#09;"))


@lru_cache(maxsize=4096)
def _attr_of_label(value: str) -> str:
    """_attr of what repeats from case to case (suite names, invariant ids, scenarios, attack ids)."""
    return _attr(value)


def _name(case: CaseResult) -> str:
    """The testcase name, escaped (each part on its own: the separator is not ASCII, and text that is skips the
    slow check for illegal characters)."""
    where, scenario, text = case.attack_id or case.mutation, case.scenario, case.input[:80].replace("\n", " ")
    parts = [_attr_of_label(where)] if where else []
    if scenario:
        parts.append(_attr_of_label(scenario))
    if text:
        parts.append(_attr(text))
    label = " · ".join(parts)
    return f"{label} [{_attr(case.id)}{'#' + str(case.repeat) if case.repeat else ''}]"


class _Suite:
    """One suite's testcases, already written out, and what its header counts (linear: each case is turned into
    XML once, while its fields are at hand)."""

    __slots__ = ("xml", "seconds", "counts")

    def __init__(self) -> None:
        self.xml: list[str] = []
        self.seconds: list[float] = []
        self.counts = {"error": 0, "failure": 0, "skipped": 0}


def _add_case(suite: _Suite, case: CaseResult) -> None:
    # What every testcase of one case shares is written out once (a contract case is one testcase per invariant:
    # a large run has several testcases per case), and the loop over them calls nothing it can do without.
    seconds = case.latency_ms / 1000
    stdout = _text(case.output)
    time = f' time="{seconds:f}"' if seconds else ""
    after_name = f'"{time} classname="{_attr_of_label(f"khaos.{case.pillar or case.phase}")}"'
    system_out = f"\t\t\t<system-out>{stdout}</system-out>\n" if stdout else ""
    closed = f">\n{system_out}\t\t</testcase>\n" if stdout else "/>\n"
    if case.invariants:
        _add_invariants(suite, case, after_name, system_out, closed)
        if seconds:
            suite.seconds.extend([seconds] * len(case.invariants))
        return
    kind, message = _verdict(case)
    if seconds:
        suite.seconds.append(seconds)
    if kind is None:
        suite.xml.append(f'\t\t<testcase name="{_name(case)}{after_name}{closed}')
        return
    suite.xml.append(_judged(suite.counts, f"{_name(case)}{after_name}", kind, message, system_out))


def _add_invariants(suite: _Suite, case: CaseResult, after_name: str, system_out: str, closed: str) -> None:
    """A contract cell is (invariant × scenario): one testcase each, so CI dashboards show the matrix."""
    tail = f" · {_name(case)}"
    passed_tail = f"{tail}{after_name}{closed}"
    error, xml = case.error, suite.xml
    for inv in case.invariants:
        if not error and inv.passed:
            xml.append(f'\t\t<testcase name="{_attr_of_label(inv.id)}{passed_tail}')
            continue
        kind, message = _invariant_verdict(inv, error)
        xml.append(_judged(suite.counts, f"{_attr_of_label(inv.id)}{tail}{after_name}", kind, message, system_out))


def _invariant_verdict(inv: InvariantResult, error: str | None) -> tuple[str, str]:
    """(kind, message) of an invariant's testcase that did not pass: the call's error wins."""
    if error:
        return "error", error[:500]
    if inv.passed is False:
        return "failure", f"[{inv.severity}] {inv.detail}"[:500]
    return "skipped", inv.detail or "not exercised"


def _verdict(case: CaseResult) -> tuple[str | None, str]:
    """(kind, message) of a case judged as a whole (an attack by its outcome); kind None: it passed."""
    if case.outcome is not None:
        return _attack_verdict(case)
    if case.error:
        return "error", case.error[:500]
    if case.passed is False:
        return "failure", "; ".join(case.notes)[:500] or "failed"
    if case.passed is None:
        return "skipped", "; ".join(case.notes)[:500] or "not judged"
    return None, ""


def _attack_verdict(case: CaseResult) -> tuple[str | None, str]:
    if case.outcome == Outcome.COMPROMISED:
        return "failure", f"COMPROMISED [{case.severity}] {', '.join(case.evidence_tags)}"[:500]
    if case.outcome == Outcome.UNCERTAIN:
        return "skipped", f"UNCERTAIN: {case.error or ', '.join(case.evidence_tags)}"[:500]
    return None, ""  # BLOCKED


def _judged(counts: dict[str, int], head: str, kind: str, message: str, system_out: str) -> str:
    """A testcase that did not pass (`head`: its name and attributes, escaped), with its failure, error or skipped
    element, counted for its suite's header."""
    counts[kind] += 1
    attr = f' message="{_attr(message)}"' if message else ""
    return f'\t\t<testcase name="{head}>\n\t\t\t<{kind} type="{kind}"{attr}/>\n{system_out}\t\t</testcase>\n'


def iter_junit(manifest: Manifest) -> Iterator[str]:
    """The document in pieces, suites in the order their first case appears (linear in the number of cases)."""
    yield from junit_document(manifest, junit_suites(manifest.cases))


def junit_suites(cases: Sequence[CaseResult]) -> dict[str, _Suite]:
    """Every testcase, written out: what the document needs of the cases alone (`merge` has another process write
    them while this one scores the cases)."""
    suites: dict[str, _Suite] = {}
    for case in cases:
        key = case.pillar or case.phase
        suite = suites.get(key)
        if suite is None:
            suite = suites[key] = _Suite()
        _add_case(suite, case)
    return suites


def junit_document(manifest: Manifest, suites: dict[str, _Suite]) -> Iterator[str]:
    """The document around `junit_suites(manifest.cases)`: the totals, and the run's id and scores as properties."""
    properties = {"run_id": manifest.run_id,
                  **{f"score.{k}": "" if v is None else f"{v:.2f}" for k, v in manifest.scores.model_dump().items()}}
    totals = {"disabled": 0, "errors": 0, "failures": 0, "tests": 0}
    total_time = 0.0
    heads = []
    for name, suite in suites.items():
        counts = suite.counts
        seconds = sum(suite.seconds)  # sum(), as before: Python 3.12's compensated sum gives the same figures
        heads.append(f'\t<testsuite disabled="0" errors="{counts["error"]}" failures="{counts["failure"]}" '
                     f'name="{_attr("khaos." + name)}" skipped="{counts["skipped"]}" tests="{len(suite.xml)}" '
                     f'time="{seconds!s}">\n')
        totals["errors"] += counts["error"]
        totals["failures"] += counts["failure"]
        totals["tests"] += len(suite.xml)
        total_time += float(str(seconds))
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    yield "<testsuites " + " ".join(f'{k}="{v}"' for k, v in totals.items()) + f' time="{total_time!s}">\n'
    props = "".join(f'\t\t\t<property name="{_attr(k)}" value="{_attr(v)}"/>\n' for k, v in properties.items())
    for head, suite in zip(heads, suites.values(), strict=True):
        yield head
        yield f"\t\t<properties>\n{props}\t\t</properties>\n"
        for start in range(0, len(suite.xml), 1000):  # a thousand testcases a write
            yield "".join(suite.xml[start:start + 1000])
        yield "\t</testsuite>\n"
    yield "</testsuites>\n"
