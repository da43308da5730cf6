"""What goes to and comes back from an agent: the engine's `AgentRequest`, the transport's `TransportMessage` reply
and `AgentResponse`, that reply's payload as the engine reads it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

CHECK_KEY = "khaos_check"
"""The payload key of a state-check request and of its answer (engine/state_check.py)."""
NOTES_DROPPED = "_notes_dropped"
"""The reply payload key of how many notes the transport dropped (`normalise_reply` keeps the first ones)."""


@dataclass(slots=True)
class TransportMessage:
    """A transport's reply (`name` "response"): {"text": str, "tool_calls": [{"name", "args"}], "notes": [...],
    ...anything the agent returned}, as `normalise_reply` makes it; `metadata` is the request's.

    A request made this way (`name` "invoke", the payload and metadata `AgentRequest` shows) is still accepted by
    every transport, which reads it through `as_request`: the shape extensions and tests wrote before the request
    had a type of its own."""

    name: str
    payload: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class AgentRequest:
    """One call the engine makes to an agent: a turn of a case (its text, the conversation before it, the session
    it belongs to) or, after the case's last turn, the attack's state checks (`checks`).

    `payload` and `metadata` show it as the dicts a transport hands on (the python worker's pipe, an agent that
    takes the whole payload) and as `TransportMessage` carried it."""

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
    name: ClassVar[str] = "invoke"

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
    """A transport's reply (`TransportMessage.payload`) as the engine reads it: the keys it knows, by name. Each
    field is what the transport gave, of any type: the reply comes from the agent, so the engine checks, converts
    and caps each one (engine/textsafe.py) before anything is stored. Not `AgentReply`, which is a reply as the judge
    reads it."""

    text: Any = None
    tool_calls: Any = None
    """`[{"name", "args", "result"?}]`: the calls the agent reports making."""
    notes: Any = None
    notes_dropped: Any = None
    """How many notes the transport already dropped (NOTES_DROPPED)."""
    error: Any = None
    """An error the agent reported beside its text (the case then fails with it)."""
    checks: Any = None
    """The answer to a state-check request, `{ref: verdict}` (CHECK_KEY)."""

    @classmethod
    def of(cls, payload: Mapping[str, Any]) -> AgentResponse:
        get = payload.get
        return cls(text=get("text"), tool_calls=get("tool_calls"), notes=get("notes"),
                   notes_dropped=get(NOTES_DROPPED), error=get("error"), checks=get(CHECK_KEY))


def as_request(message: AgentRequest | TransportMessage) -> AgentRequest:
    """`message` as an `AgentRequest`: itself, or the one a `TransportMessage` request's dicts describe."""
    return message if isinstance(message, AgentRequest) else AgentRequest.of(message.payload, message.metadata)


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
