"""The replay sessions file: recorded conversations that become permanent regression tests.

Format: JSON Lines (UTF-8), one session object per line; blank lines are ignored.

```json
{"id": "refund-double-charge",
 "input": "I was charged twice for order 7781, fix it",
 "history": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello! How can I help?"}],
 "tool_responses": [{"tool": "lookup_order", "args": {"order_id": "7781"}, "response": {"charges": [19.99, 19.99]}},
                    {"tool": "refund", "error": "HTTP 503: payments service unavailable"}],
 "expect": {"invariants": [{"id": "mentions-refund", "type": "contains", "value": "refund"}],
            "output": "I've refunded the duplicate charge on order 7781.", "similarity": 0.8}}
```

- `id` (required, unique in the file): names the replay case in reports; keep it stable.
- `input` (required): the user message sent to the agent.
- `history` (optional): earlier turns, each `{"role": "user"|"assistant"|"system"|"tool", "content": "..."}`.
- `tool_responses` (optional): recorded tool results, fed back through the tool wrappers instead of calling the real
  tool. Each names the `tool` (one of `agent.tools`), the `response` to return (any JSON) or an `error` to raise,
  and optionally the `args` the call must have. Calls to a tool get that tool's recorded responses in order; a
  response with `args` is only given to a call with those arguments (see `RecordedTools`).
- `expect` (required, at least one check): `invariants`, a list of contract invariants in the same schema as
  `contract.invariants`, and/or `output`, a reference answer the reply must resemble with at least
  `similarity` (0..1, default 0.8).
- `description`, `source` (optional): free text, and where the session came from (`replay export` writes the run id
  and case id there).

Unknown keys are errors. A line that is not valid is reported with its line number and the other lines still load.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, ValidationError, model_validator

from khaos_action.checkers import Invariant
from khaos_action.errors import ConfigError


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")  # field docstrings: config.schema_reading.attribute_docs


class Turn(_Strict):
    role: Literal["user", "assistant", "system", "tool"]
    content: str


class ToolResponse(_Strict):
    tool: str = Field(min_length=1)
    """The tool name, as the agent knows it."""
    args: dict[str, Any] | None = None
    """When given, only a call with these arguments receives this response."""
    response: Any = None
    """What the tool returns (any JSON value)."""
    error: str | None = None
    """Raise this error from the tool instead of returning `response` (a recorded failure)."""


class SessionExpect(_Strict):
    invariants: list[SerializeAsAny[Invariant]] = []
    """Contract invariants checked on the reply (same schema as `contract.invariants`)."""
    output: str | None = None
    """A reference answer; the reply must be at least `similarity` similar to it."""
    similarity: float = Field(0.8, ge=0, le=1)

    @model_validator(mode="after")
    def _something_to_check(self) -> SessionExpect:
        if not self.invariants and self.output is None:
            raise ValueError("expect needs `invariants` or `output` (a session with nothing to check tests nothing)")
        ids = [inv.id for inv in self.invariants]
        duplicate = next((i for i in ids if ids.count(i) > 1), None)
        if duplicate:
            raise ValueError(f"duplicate invariant id {duplicate!r} in expect.invariants")
        return self


class Session(_Strict):
    id: str = Field(min_length=1)
    input: str
    history: list[Turn] = []
    tool_responses: list[ToolResponse] = []
    expect: SessionExpect
    description: str | None = None
    source: dict[str, Any] | None = None
    """Provenance, e.g. {"run_id", "case_id", "phase", "scenario"} for exported sessions."""

    def tools(self) -> list[str]:
        """Every tool this session refers to (recorded responses, and invariants whose named tools must exist:
        tool_called)."""
        names = [r.tool for r in self.tool_responses]
        names += [tool for inv in self.expect.invariants if inv.needs_named_tools
                  for tool in inv.tools_named().values()]
        return list(dict.fromkeys(names))


@dataclass(frozen=True, slots=True)
class SessionProblem:
    line: int
    message: str
    session_id: str | None = None

    def __str__(self) -> str:
        who = f" (session {self.session_id!r})" if self.session_id else ""
        return f"line {self.line}{who}: {self.message}"


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    more = f" (and {exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return "; ".join(parts) + more


def parse_sessions(
    lines: Iterable[str], *, known_tools: set[str] | None = None
) -> tuple[list[Session], list[SessionProblem]]:
    """Sessions from JSONL lines, and one problem per line that could not be used (the rest are kept)."""
    sessions: list[Session] = []
    problems: list[SessionProblem] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        found = _parse_line(number, line)
        if isinstance(found, Session):
            found = _reused(number, found, seen) or _unknown_tools(number, found, known_tools) or found
        if isinstance(found, SessionProblem):
            problems.append(found)
            continue
        seen[found.id] = number
        sessions.append(found)
    return sessions, problems


def _parse_line(number: int, line: str) -> Session | SessionProblem:
    """One line's session, or why it is none (not JSON, not an object, not a valid session)."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return SessionProblem(number, f"not valid JSON ({exc.msg} at column {exc.colno}); each line must be one "
                                      "complete JSON object")
    if not isinstance(data, dict):
        return SessionProblem(number, f"expected a JSON object, got {type(data).__name__}")
    try:
        return Session.model_validate(data)
    except ValidationError as exc:
        raw_id = data.get("id")
        return SessionProblem(number, _validation_message(exc), raw_id if isinstance(raw_id, str) else None)


def _reused(number: int, session: Session, seen: dict[str, int]) -> SessionProblem | None:
    if session.id not in seen:
        return None
    return SessionProblem(number, f"duplicate session id (first used on line {seen[session.id]}); give every "
                                  "session its own id", session.id)


def _unknown_tools(number: int, session: Session, known_tools: set[str] | None) -> SessionProblem | None:
    """The session's tools the agent does not have (when the agent's tools are known)."""
    unknown = [t for t in session.tools() if t not in known_tools] if known_tools is not None else []
    if not unknown:
        return None
    have = ", ".join(sorted(known_tools)) if known_tools else "none (agent.tools is empty)"
    return SessionProblem(
        number, f"refers to tool{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} that the agent "
                f"does not have; known tools: {have}. Add it to agent.tools or fix the session", session.id)


def load_sessions(path: Path, *, known_tools: set[str] | None) -> tuple[list[Session], list[SessionProblem]]:
    """Read a sessions JSONL file. A missing or unreadable file is a ConfigError; bad lines are problems."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"replay.sessions: {path} does not exist; create it (one JSON session per line) or "
                          "export one from a run with `khaos-action replay export MANIFEST -o FILE`") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"replay.sessions: cannot read {path} ({exc}); it must be a UTF-8 JSONL file") from None
    return parse_sessions(text.splitlines(), known_tools=known_tools)


class RecordedTools:
    """Hands a session's recorded tool responses to the tool calls of one replay, in recorded order.

    A call gets the first unused response recorded for its tool whose `args` (if any) equal the call's arguments.
    None means nothing is left for that call: the replay engine should report the divergence rather than call the
    real tool, since the session is meant to be reproducible.
    """

    def __init__(self, responses: Iterable[ToolResponse]):
        self._pending = list(responses)

    def take(self, tool: str, args: dict[str, Any] | None = None) -> ToolResponse | None:
        for i, recorded in enumerate(self._pending):
            if recorded.tool == tool and (recorded.args is None or recorded.args == (args or {})):
                return self._pending.pop(i)
        return None

    def unused(self) -> list[ToolResponse]:
        """Recorded responses no call asked for (the agent took a different path than when recorded)."""
        return list(self._pending)
