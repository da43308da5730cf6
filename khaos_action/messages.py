"""What goes to and comes back from an agent: the engine's `AgentRequest` and the transport's `AgentResponse`, the
two sides of the transport seam (engine/transport/base.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CHECK_KEY = "khaos_check"
"""The payload key of a state-check request and of its answer (engine/state_check.py)."""
NOTES_DROPPED = "_notes_dropped"
"""The reply payload key of how many notes the transport dropped (`normalise_reply` keeps the first ones)."""


@dataclass(slots=True)
class AgentRequest:
    """One call the engine makes to an agent: a turn of a case (its text, the conversation before it, the session
    it belongs to) or, after the case's last turn, the attack's state checks (`checks`).

    `payload` and `metadata` show it as the dicts a transport hands on (the python worker's pipe, an agent that
    takes the whole payload, a state check)."""

    text: str
    history: list[dict[str, Any]] = field(default_factory=list)
    """The conversation before this turn, `{"role", "content"}` items."""
    session_id: str = ""
    """The conversation's id (the case's key): an agent keeping sessions keys them on it."""
    case_id: str = ""
    phase: str = ""
    run_id: str = ""
    checks: dict[str, Any] | None = None
    """A state-check request (refs, case, reply, tool calls), answered under the same key."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Payload keys beside these, which a context fault's rewrite may add."""

    @property
    def payload(self) -> dict[str, Any]:
        payload = {"text": self.text, "history": self.history, "session_id": self.session_id, **self.extra}
        if self.checks is not None:
            payload[CHECK_KEY] = self.checks
        return payload

    @property
    def metadata(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "phase": self.phase, "run_id": self.run_id}

    @classmethod
    def of(cls, payload: Mapping[str, Any], metadata: Mapping[str, Any] | None = None) -> AgentRequest:
        """The request a payload and its metadata describe (a missing key is empty, as every transport read it)."""
        rest = {k: v for k, v in payload.items() if k not in _PAYLOAD_KEYS}
        meta = metadata or {}
        text = payload.get("text")
        history = payload.get("history")
        checks = payload.get(CHECK_KEY)
        return cls(text="" if text is None else str(text),
                   history=list(history) if isinstance(history, (list, tuple)) else [],
                   session_id=str(payload.get("session_id") or ""), case_id=str(meta.get("case_id") or ""),
                   phase=str(meta.get("phase") or ""), run_id=str(meta.get("run_id") or ""),
                   checks=checks if isinstance(checks, dict) else None, extra=rest)


_PAYLOAD_KEYS = frozenset({"text", "history", "session_id", CHECK_KEY})


@dataclass(slots=True)
class AgentResponse:
    """One answer of an agent, as its transport returns it to the engine: the reply's keys the engine reads, by name,
    and the rest in `extra`. A transport builds it with `response(normalise_reply(value))` (engine/transport/base.py),
    from the reply dict `normalise_reply` makes of whatever the agent returned.

    The annotations are the contract `normalise_reply` keeps; None is a key the reply did not have. The engine still
    checks, converts and caps each value (engine/textsafe.py) before anything is stored: the python worker's side of
    a reply is made in the process that runs the agent's code, and an extension's transport is not ours, so a value
    of another type is an agent's error, never a crash. Not `AgentReply`, which is a reply as the judge reads it."""

    text: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    """`[{"name", "args", "result"?}]`: the calls the agent reports making."""
    notes: list[str] | None = None
    notes_dropped: int | None = None
    """How many notes the transport already dropped (NOTES_DROPPED)."""
    error: Any = None
    """An error the agent reported beside its text, as it gave it (the case then fails with it, as text)."""
    checks: dict[str, Any] | None = None
    """The answer to a state-check request, `{ref: verdict}` (CHECK_KEY)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """The reply's other keys (an http agent's `{"text": ..., "pid": ...}`), as the agent gave them: the engine reads
    none of them."""

    @classmethod
    def of(cls, payload: Mapping[str, Any]) -> AgentResponse:
        """The response a reply dict describes (`normalise_reply`'s keys; a missing one is None)."""
        get = payload.get
        rest = {k: v for k, v in payload.items() if k not in _REPLY_KEYS}
        return cls(text=get("text"), tool_calls=get("tool_calls"), notes=get("notes"),
                   notes_dropped=get(NOTES_DROPPED), error=get("error"), checks=get(CHECK_KEY), extra=rest)


_REPLY_KEYS = frozenset({"text", "tool_calls", "notes", NOTES_DROPPED, "error", CHECK_KEY})


@dataclass(slots=True)
class ToolCall:
    """A tool invocation, as reported by the agent or observed by a tool wrapper."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    error: str | None = None
    fault: str | None = None
    """The fault id that answered this call, if any."""
    error_source: str | None = None
    """Whose error `error` is: "fault" (injected as planned) or "tool" (the tool itself broke)."""
