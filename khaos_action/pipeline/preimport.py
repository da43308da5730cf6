"""The run's later imports, done on a thread while this process would only wait for the agent.

A run imports most of the package after its agent has started: planning, judging, scoring, the manifest, the
reports. Imported on the loop's thread they would sit on the critical path of a small run; imported on a thread
while the agent starts (PLANNING) and while the plan's first cases are at the agent (LATER_STAGES), they cost the
run nothing it would not wait anyway (figures: docs/performance.md, "The early zygote").
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from khaos_action.reporters import REPORTERS

PLANNING = (
    "khaos_action.attacks.profile", "khaos_action.attacks.recon", "khaos_action.engine.state_probe",
    "khaos_action.engine.llm_calls", "khaos_action.plan.contract", "khaos_action.plan.mutation",
    "khaos_action.plan.scheduler", "khaos_action.roles",
)
"""What a run imports to plan its cases once the agent has started: imported on a thread while the agent starts
(`agent_session(meanwhile=...)`), when this process would only wait for it."""
LATER_STAGES = (
    *PLANNING, "khaos_action.attacks.retry", "khaos_action.judge.stage", "khaos_action.llm.telemetry",
    "khaos_action.manifest", "khaos_action.score.summary", "khaos_action.report.writers",
)
"""What a run imports once the agent has started (planning, judging, scoring, the manifest, reports): what PLANNING
did not import is imported on a thread while the plan's first cases are at the agent (`import_later_stages`), when
this process would only wait for their replies (once the worker's zygote starts first, imported while the agent
starts they would be on the critical path)."""


def import_planning() -> None:
    """Import PLANNING (run on a thread: see PLANNING), best effort."""
    import_best_effort(PLANNING)


def import_later_stages(formats: Sequence[str] = ()) -> None:
    """Import LATER_STAGES and the renderers of `formats` (on a thread: see LATER_STAGES), best effort."""
    import_best_effort([*LATER_STAGES, *(reporter.render.partition(":")[0]
                                         for reporter in map(REPORTERS.get, formats)
                                         if reporter is not None and isinstance(reporter.render, str))])


def import_best_effort(names: Sequence[str]) -> None:
    """Import `names` (run on a thread: see LATER_STAGES). Best effort: a module that fails here is imported again
    where it is used, on the loop's thread, and its real error is raised there. (Besides a plain bug, Python's
    import lock may refuse this thread a package the loop's thread is importing at the same moment, with
    `_DeadlockError`: nothing to stop the run for.)"""
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 - see above: the import is only done early, never skipped
            continue
