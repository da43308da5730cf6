"""`replay export`: a run's failing cases become replay sessions, so a failure found once is tested forever.

Each exported session carries the case input and history, the tool responses the agent really got in that case
(faulted ones included: they are the condition the agent failed under, and replaying them reproduces it without
the chaos scenario) and, as its expectation, the invariants that failed. Exported invariants drop `when`: the
replay runs with no chaos scenario, and the recorded responses already carry the failure condition.
An invariant's entry may say what a replay checks instead (`Invariant.for_replay`): `behavior_unchanged` with
`baseline: auto` becomes a `similarity` check against the no-chaos reply to the same input found in the same
manifest. Responses are recorded in call order without `args`, so a reworded tool call still gets
its recorded response.

Not exported, with a reason: attacks (the security phase re-runs them from the seed), pack-`expect` cases (their
checks are not in the manifest) and failures whose invariant definitions are unknown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from khaos_action.checkers import CHECKERS, Invariant
from khaos_action.manifest import CaseResult, Manifest
from khaos_action.outcome import Outcome, Phase
from khaos_action.replay.sessions import Session


@dataclass(slots=True)
class ExportResult:
    sessions: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(case id, why it was not exported)."""


def _failing_rows(manifest: Manifest) -> list[CaseResult]:
    """The first failing repeat of every case id that failed, in manifest order."""
    seen: set[str] = set()
    rows = []
    for case in manifest.cases:
        failed = case.passed is False or (case.passed is None and case.outcome == Outcome.COMPROMISED)
        if failed and case.id not in seen:
            seen.add(case.id)
            rows.append(case)
    return rows


def _reference_reply(manifest: Manifest, case: CaseResult) -> str | None:
    """The no-chaos reply to the same input: what `baseline: auto` compared against."""
    candidates = [other for other in manifest.cases
                  if other.input == case.input and not other.fault_ids and other.id != case.id
                  and not other.error and other.output.strip() and other.attack_id is None]
    # The same phase first: a contract cell's baseline is the contract's no-chaos cell, not a pack baseline case.
    candidates.sort(key=lambda other: other.phase != case.phase)
    return candidates[0].output if candidates else None


def _tool_responses(case: CaseResult) -> list[dict[str, Any]]:
    out = []
    for call in case.tool_calls:
        # Calls the agent only *reported* have no result or error: there is nothing recorded to feed back.
        if call.get("error") is not None:
            out.append({"tool": call["name"], "error": str(call["error"])})
        elif call.get("result") is not None:
            out.append({"tool": call["name"], "response": call["result"]})
    return out


def _expected_invariant(spec: dict[str, Any], manifest: Manifest, case: CaseResult) -> tuple[dict | None, str]:
    """The entry of the spec's type says what a replay checks instead (`Invariant.for_replay`); a type no longer
    registered is exported as it was recorded (loading the session then names the problem)."""
    spec = {k: v for k, v in spec.items() if k != "when"}
    entry = CHECKERS.get(spec.get("type"))  # type: ignore[arg-type]
    if entry is None:
        return spec, ""
    return entry.for_replay(spec, lambda: _reference_reply(manifest, case))


def export_report(
    manifest: Manifest, *, invariants: Mapping[str, Invariant] | Iterable[Invariant] | None = None
) -> ExportResult:
    """Sessions for the failing cases of `manifest`, and the failing cases left out with the reason.

    `invariants` (e.g. the config's contract) defines invariants whose spec the manifest does not carry.
    """
    if invariants is not None and not isinstance(invariants, Mapping):
        invariants = {inv.id: inv for inv in invariants}
    known = dict(invariants or {})
    result = ExportResult()
    for case in _failing_rows(manifest):
        exported = _export_case(manifest, case, known)
        if isinstance(exported, str):
            result.skipped.append((case.id, exported))
        else:
            result.sessions.append(exported)
    return result


def _export_case(manifest: Manifest, case: CaseResult, known: Mapping[str, Invariant]) -> dict[str, Any] | str:
    """The case's session, or why it is not exported."""
    why_not = _not_exportable(case)
    if why_not:
        return why_not
    expect, problems = _expectations(manifest, case, known)
    if not expect:
        return "; ".join(problems)
    session = _session(manifest, case, expect)
    return _load_problem(session) or session


def _not_exportable(case: CaseResult) -> str | None:
    if case.attack_id is not None or case.phase == Phase.SECURITY:
        return "attack case: the security phase re-runs it from the seed"
    if any(inv.passed is False for inv in case.invariants):
        return None
    if case.error:
        return f"failed with an error ({case.error}) and no invariant to check"
    return "its checks (pack `expect`) are not recorded in the manifest"


def _expectations(manifest: Manifest, case: CaseResult,
                  known: Mapping[str, Invariant]) -> tuple[list[dict[str, Any]], list[str]]:
    """(the failed invariants as a replay checks them, the ones that cannot be exported and why)."""
    expect, problems = [], []
    for inv in case.invariants:
        if inv.passed is not False:
            continue
        spec = inv.spec or (known[inv.id].model_dump(exclude_defaults=True) if inv.id in known else None)
        if spec is None:
            problems.append(f"{inv.id}: definition unknown (pass the contract to export it)")
            continue
        spec.setdefault("id", inv.id)
        spec.setdefault("type", inv.type)
        built, problem = _expected_invariant(dict(spec), manifest, case)
        if built is None:
            problems.append(problem)
        else:
            expect.append(built)
    return expect, problems


def _session(manifest: Manifest, case: CaseResult, expect: list[dict[str, Any]]) -> dict[str, Any]:
    scenario = f" under scenario {case.scenario}" if case.scenario else ""
    mutation = f" ({case.mutation} mutation)" if case.mutation else ""
    source = {"run_id": manifest.run_id, "case_id": case.id, "phase": case.phase, "scenario": case.scenario,
              "mutation": case.mutation, "git_sha": manifest.git.sha, "config_hash": manifest.config_hash}
    return {
        "id": case.id,
        "input": case.input,
        "history": [dict(turn) for turn in case.history],
        "tool_responses": _tool_responses(case),
        "expect": {"invariants": expect},
        "description": f"{case.phase} case failed {', '.join(i['id'] for i in expect)}{scenario}{mutation}",
        "source": {k: v for k, v in source.items() if v is not None},
    }


def _load_problem(session: dict[str, Any]) -> str | None:
    """Whatever we write must load back: validated through the same model `load_sessions` uses."""
    try:
        Session.model_validate(session)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"would not load back as a session ({where}: {first['msg']})"
    return None


def export_sessions(
    manifest: Manifest, *, invariants: Mapping[str, Invariant] | Iterable[Invariant] | None = None
) -> list[dict[str, Any]]:
    """The manifest's failing cases as replay session dicts (one JSONL line each); see `export_report`."""
    return export_report(manifest, invariants=invariants).sessions
