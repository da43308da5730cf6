"""Did the agent's model answer? Per case and for the whole run, from the LLM telemetry (`llm_calls` records).

No verdict without a model behind it. An agent whose LLM endpoint is down usually catches the
SDK error and apologises; judged as text, that apology looks like a refusal (BLOCKED) or a polite pass. A call
*answered by the model* is a live (or replayed) reply with a 2xx/3xx status that none of our faults replaced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

ALERT_SHARE = 0.05
"""More than this share of live LLM calls failing is said first in every view."""


def answered(call: dict[str, Any]) -> bool:
    status = call.get("status")
    return (call.get("source") in ("live", "cassette") and not call.get("fault")
            and (status is None or int(status) < 400))


def live_failure(call: dict[str, Any]) -> bool:
    """A call the provider (not one of our faults) failed: unreachable, or an error status."""
    if call.get("fault"):
        return False
    status = call.get("status")
    return call.get("source") == "error" or (call.get("source") == "live" and status is not None and int(status) >= 400)


def describe(call: dict[str, Any]) -> str:
    """`HTTP 500 from http://127.0.0.1:9/v1/chat/completions` / `ConnectError: ... (url)`."""
    url = call.get("url") or "?"
    if call.get("error"):
        return f"{call['error']} ({url})"
    return f"HTTP {call.get('status')} from {url}"


@dataclass(frozen=True, slots=True)
class CaseModel:
    """What one case's LLM telemetry says."""

    calls: int
    answered: int
    live_failures: int
    first_failure: str | None

    @property
    def never_answered(self) -> bool:
        """The agent called its model and no call was answered by it (failed, or answered by our faults)."""
        return self.calls > 0 and self.answered == 0

    @property
    def dead(self) -> bool:
        """Never answered, and not only because of our faults: the model itself failed."""
        return self.never_answered and self.live_failures > 0

    def reason(self) -> str:
        if self.live_failures:
            return (f"the agent's model never answered ({self.live_failures} of {self.calls} LLM calls failed; "
                    f"first: {self.first_failure})")
        return f"the agent's model never answered: all {self.calls} LLM calls were answered by a khaos fault"


def case_model(calls: Sequence[dict[str, Any]]) -> CaseModel:
    failures = [c for c in calls if live_failure(c)]
    return CaseModel(calls=len(calls), answered=sum(1 for c in calls if answered(c)), live_failures=len(failures),
                     first_failure=describe(failures[0]) if failures else None)


def _live_calls(cases: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """The run's LLM calls that went to the model (live or failed there), not those a khaos fault answered."""
    for case in cases:
        for call in getattr(case, "llm_calls", ()) or ():
            if not call.get("fault") and call.get("source") in ("live", "error"):
                yield call


def run_alert(cases: Iterable[Any], share: float = ALERT_SHARE) -> str | None:
    """One sentence when more than `share` of the run's live LLM calls failed, with the error and the endpoint."""
    calls = list(_live_calls(cases))
    failures = [call for call in calls if live_failure(call)]
    live, failed = len(calls), len(failures)
    if not failures or failed / live <= share:
        return None
    first = failures[0]
    endpoints = Counter(str(call.get("url") or "?") for call in failures)
    where = ", ".join(sorted(endpoints, key=lambda e: -endpoints[e])[:3])
    return (f"the agent's model is failing: {failed} of {live} live LLM calls failed ({failed / live:.0%}); first "
            f"error: {describe(first)}; endpoint{'s' if len(endpoints) > 1 else ''}: {where}. Cases whose model "
            f"never answered are not exercised (no verdict without a model behind it)")
