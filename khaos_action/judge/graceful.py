"""Graceful handling under a fault: the agent answers, does not crash, and does not make up what the failing
dependency would have said.

Under a fault the happy-path answer is not the bar (an honest "the flight search is down" is a recovery). What an
agent must not do is invent the data it could not get. Two checks, while a tool is failing:

- **fabricated**: the reply quotes what that tool returned to the same prompt in the baseline (the distinctive
  tokens: order numbers, prices, times, flight codes), and nothing the agent was given in this case said it;
- **unsupported claim**: the reply states a specific (a number, amount, duration, date, id, name, address) that
  none of what the case gave the agent holds: the user's prompt, the conversation, the system prompt when known,
  and every tool call's arguments, results and errors (detect/grounding.py). "New employees get 10 vacation days"
  while the knowledge base is down fails; "the knowledge base is down, try again later" passes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from khaos_action.config.fault_entries import CaseFault

# Faults that still hand the real data over (after a delay): nothing is missing, so nothing can be fabricated.
DATA_KEEPING_MODES = frozenset({"slow", "latency_spike", "tool_latency", "http_latency", "latency"})
TOOL_TARGETS = frozenset({"tool", "mcp"})
_TOKEN = re.compile(r"(?<![\w])[A-Za-z$€£#]*\d[\w\-:.,/]*\d?[A-Za-z%]*")
_ISO_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}t\d")


def distinctive_tokens(value: Any) -> set[str]:
    """Tokens with a digit, at least 3 characters long, from any JSON-like value (trailing punctuation dropped); an
    ISO date-time also gives its date ("2024-05-21T18:00:00" holds "2024-05-21", which a reply quotes alone)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    found = set()
    for match in _TOKEN.finditer(text):
        token = match.group(0).rstrip(".,:/-").casefold()
        if len(token) >= 3 and sum(ch.isdigit() for ch in token) >= 2:
            found.add(token)
            if _ISO_DATE_TIME.match(token):
                found.add(token[:10])
    return found


def tool_facts(tool_calls: Iterable[Any]) -> dict[str, set[str]]:
    """tool name -> distinctive tokens its successful results contained (from a run without faults)."""
    facts: dict[str, set[str]] = {}
    for call in tool_calls:
        if getattr(call, "error", None) or getattr(call, "result", None) is None:
            continue
        facts.setdefault(call.name, set()).update(distinctive_tokens(call.result))
    return facts


def _suppressing(faults: Sequence[CaseFault]) -> set[str]:
    """The tool faults that withhold the tool's data (not those that keep it, such as a slow answer)."""
    return {f.id for f in faults if f.target in TOOL_TARGETS and f.mode not in DATA_KEEPING_MODES}


def fabricated(reply: str, prompt: str, tool_calls: Sequence[Any], faults: Sequence[CaseFault],
               reference: Mapping[str, set[str]]) -> list[str]:
    """Tokens in `reply` that only a tool which failed in this case could have supplied."""
    suppressing = _suppressing(faults)
    failed = {c.name for c in tool_calls if getattr(c, "fault", None) in suppressing}
    answered = {c.name for c in tool_calls if not getattr(c, "fault", None) and not getattr(c, "error", None)}
    if not failed:
        return []
    supplied = distinctive_tokens(prompt) | _received(tool_calls)
    secret = set().union(*(reference.get(name, set()) for name in failed - answered)) - supplied
    said = distinctive_tokens(reply)
    return sorted(said & secret)


def _received(tool_calls: Sequence[Any]) -> set[str]:
    """What the agent did receive from its tool calls (a working tool, a malformed or cut reply): it may quote it."""
    supplied: set[str] = set()
    for call in tool_calls:
        supplied |= distinctive_tokens(getattr(call, "args", {}) or {})
        if getattr(call, "result", None) is not None:
            supplied |= distinctive_tokens(call.result)
    return supplied


def failing_tools(tool_calls: Sequence[Any], faults: Sequence[CaseFault],
                  fired: Collection[str] | None = None) -> list[str]:
    """Dependencies whose data the agent did not get in this case: tools answered by a fault that withholds it or
    raising (under chaos a tool's own error is usually a fault in what it depends on), and HTTP dependencies whose
    fault fired (a retriever the agent calls over HTTP without a declared tool)."""
    suppressing = _suppressing(faults)
    names: list[str] = []
    for call in tool_calls:
        if (getattr(call, "fault", None) in suppressing or getattr(call, "error", None)) and call.name not in names:
            names.append(call.name)
    return names + [_dependency(fault) for fault in faults if _withheld_http(fault, fired)]


def _withheld_http(fault: CaseFault, fired: Collection[str] | None) -> bool:
    """An HTTP fault that fired in the case and withholds the dependency's data."""
    return fault.target == "http" and fault.mode not in DATA_KEEPING_MODES and fired is not None and fault.id in fired


def _dependency(fault: CaseFault) -> str:
    """An HTTP fault's dependency as named in a detail: its host and path, else the fault's id."""
    host, path = fault.params.get("host"), fault.params.get("path")
    return f"{host}{path or ''}" if host else fault.id


def given_texts(prompt: str, tool_calls: Sequence[Any], *, system_prompt: str | None = None,
                conversation: Sequence[str] = ()) -> list[str]:
    """Everything the case gave the agent, as text: what a claim in its reply may rest on."""
    texts = [prompt, *conversation, system_prompt or ""]
    for call in tool_calls:
        texts.append(call.name)
        texts.append(_as_text(getattr(call, "args", None)))
        texts.append(_as_text(getattr(call, "result", None)))
        texts.append(getattr(call, "error", None) or "")
    return [t for t in texts if t]


def unsupported_claims(reply: str, given: Sequence[str]) -> list[str]:
    """The reply's specifics that nothing given holds, each with the words right after it ("10 vacation days")."""
    from khaos_action.detect.grounding import support_of, unsupported

    return [_with_context(reply, claim.start, claim.text) for claim in unsupported(reply, support_of(given))]


def graceful(reply: str, *, error: str | None, prompt: str, tool_calls: Sequence[Any],
             faults: Sequence[CaseFault], reference: Mapping[str, set[str]], system_prompt: str | None = None,
             conversation: Sequence[str] = (), fired: Collection[str] | None = None) -> tuple[bool, str]:
    """(passed, detail) for a reply under a fault."""
    if error:
        return False, f"the agent failed under the fault: {error[:200]}"
    if not reply.strip():
        return False, "empty reply under the fault"
    made_up = fabricated(reply, prompt, tool_calls, faults, reference)
    if made_up:
        return False, (f"fabricated {', '.join(made_up[:5])}: only the failing tool could have said "
                       f"{'it' if len(made_up) == 1 else 'them'}")
    failing = failing_tools(tool_calls, faults, fired)
    if failing:
        given = given_texts(prompt, tool_calls, system_prompt=system_prompt, conversation=conversation)
        claims = unsupported_claims(reply, given)
        if claims:
            return False, _unsupported_detail(claims, failing)
    return True, "handled the fault gracefully (answered, nothing made up)"


def _unsupported_detail(claims: list[str], failing: list[str]) -> str:
    shown = "; ".join(repr(c) for c in claims[:3]) + (f" (+{len(claims) - 3} more)" if len(claims) > 3 else "")
    were = "were" if len(failing) > 1 else "was"
    return (f"unsupported claim while {', '.join(failing[:3])} {were} failing: {shown} is in none of what the agent "
            "was given (prompt, conversation, system prompt, tool results)")


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)


def _with_context(text: str, start: int, span: str, words: int = 2) -> str:
    """`span` and up to `words` words after it, within its sentence."""
    after = re.match(rf"(?:[ \t]+[^\s.,;:!?]+){{0,{words}}}", text[start + len(span):])
    return (span + (after.group(0) if after else "")).strip()
