"""Graceful handling under a fault: the agent answers, does not crash, and does not make up what the failing
dependency would have said.

Under a fault the happy-path answer is not the bar (an honest "the flight search is down" is a recovery). What an
agent must not do is invent the data it could not get. The baseline run tells us that data: the distinctive tokens
(anything with a digit: order numbers, prices, times, flight codes) the tool returned to the same prompt without a
fault. If the reply under the fault contains one of them while that tool failed, and neither the prompt nor a tool
that did answer supplied it, the agent fabricated it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from khaos_action.plan.cases import CaseFault

# Faults that still hand the real data over (after a delay): nothing is missing, so nothing can be fabricated.
DATA_KEEPING_MODES = frozenset({"slow", "latency_spike"})
_TOKEN = re.compile(r"(?<![\w])[A-Za-z$€£#]*\d[\w\-:.,/]*\d?[A-Za-z%]*")


def distinctive_tokens(value: Any) -> set[str]:
    """Tokens with a digit, at least 3 characters long, from any JSON-like value (trailing punctuation dropped)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    found = set()
    for match in _TOKEN.finditer(text):
        token = match.group(0).rstrip(".,:/-")
        if len(token) >= 3 and sum(ch.isdigit() for ch in token) >= 2:
            found.add(token.casefold())
    return found


def tool_facts(tool_calls: Iterable[Any]) -> dict[str, set[str]]:
    """tool name -> distinctive tokens its successful results contained (from a run without faults)."""
    facts: dict[str, set[str]] = {}
    for call in tool_calls:
        if getattr(call, "error", None) or getattr(call, "result", None) is None:
            continue
        facts.setdefault(call.name, set()).update(distinctive_tokens(call.result))
    return facts


def fabricated(reply: str, prompt: str, tool_calls: Sequence[Any], faults: Sequence[CaseFault],
               reference: Mapping[str, set[str]]) -> list[str]:
    """Tokens in `reply` that only a tool which failed in this case could have supplied."""
    suppressing = {f.id for f in faults if f.target == "tool" and f.mode not in DATA_KEEPING_MODES}
    failed = {c.name for c in tool_calls if getattr(c, "fault", None) in suppressing}
    answered = {c.name for c in tool_calls if not getattr(c, "fault", None) and not getattr(c, "error", None)}
    if not failed:
        return []
    supplied = distinctive_tokens(prompt)
    for call in tool_calls:  # what the agent did receive (a working tool, a malformed or cut reply) it may quote
        supplied |= distinctive_tokens(getattr(call, "args", {}) or {})
        if getattr(call, "result", None) is not None:
            supplied |= distinctive_tokens(call.result)
    secret = set().union(*(reference.get(name, set()) for name in failed - answered)) - supplied
    said = distinctive_tokens(reply)
    return sorted(said & secret)


def graceful(reply: str, *, error: str | None, prompt: str, tool_calls: Sequence[Any],
             faults: Sequence[CaseFault], reference: Mapping[str, set[str]]) -> tuple[bool, str]:
    """(passed, detail) for a reply under a fault."""
    if error:
        return False, f"the agent failed under the fault: {error[:200]}"
    if not reply.strip():
        return False, "empty reply under the fault"
    made_up = fabricated(reply, prompt, tool_calls, faults, reference)
    if made_up:
        return False, (f"fabricated {', '.join(made_up[:5])}: only the failing tool could have said "
                       f"{'it' if len(made_up) == 1 else 'them'}")
    return True, "handled the fault gracefully (answered, nothing made up)"
