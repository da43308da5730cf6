"""Replay planner: recorded sessions (see replay/sessions.py for the file format) → replay cases.

Each session's recorded tool responses travel with its case and are served by the tool wrappers instead of the
real tools; its expectations become invariants (an expected `output` becomes a `similarity` invariant).
"""

from __future__ import annotations

from khaos_action.checkers import Invariant
from khaos_action.errors import ConfigError
from khaos_action.outcome import Phase
from khaos_action.plan.cases import Case, case_id
from khaos_action.plan.scheduler import PlanContext, PlanPart
from khaos_action.replay.sessions import load_sessions


def plan_replay(ctx: PlanContext) -> PlanPart:
    """The recorded sessions' cases and their invariants."""
    part = PlanPart()
    settings = ctx.settings.replay
    if settings is None:
        return part
    path = (ctx.settings.base_dir / settings.sessions).resolve()
    if not path.is_file():
        raise ConfigError(f"replay.sessions: no such file {path}; record sessions as JSON lines (see the "
                          f"README, 'Replay') or export failures with `khaos-action replay export`")
    sessions, problems = load_sessions(path, known_tools=set(ctx.settings.tool_names) or None)
    part.notes += [f"replay: {problem}" for problem in problems]
    for session in sessions:
        invariants = [inv.model_copy(update={"id": f"replay:{session.id}:{inv.id}"})
                      for inv in session.expect.invariants]
        if session.expect.output is not None:
            invariants.append(Invariant(id=f"replay:{session.id}:similar-output", type="similarity",
                                        expected=session.expect.output, threshold=session.expect.similarity,
                                        severity="high"))
        part.invariants.update({i.id: i for i in invariants})
        part.cases.append(Case(
            id=case_id("replay", session.id), phase=Phase.REPLAY, pillar="replay", input=session.input,
            history=tuple(t.model_dump() for t in session.history), invariant_ids=tuple(i.id for i in invariants),
            group=f"replay:{session.id}", tool_responses=tuple(session.tool_responses),
        ))
    return part
