"""A transport answered by a function, as httpx ships `MockTransport`: the engine (or an extension's code around
it) runs against a handler in the test's own process, with no agent to start and no fake written by hand.

```python
from khaos_action.plugins import MockTransport

def handler(request):                                  # an AgentRequest: text, history, session_id, case_id...
    if request.text == "boom":
        raise RuntimeError("database is on fire")   # recorded on the case, as any agent failure
    return f"echo {request.text}"                   # what an agent returns: str, dict, None, an object

engine = Engine(MockTransport(handler), settings=EngineSettings())
```

The handler may be a plain or an async function; it runs in the engine's task, so `current_case` is the case it
serves and a tool it calls is wrapped and faulted as an in-process agent's is. Its return value goes through
`normalise_reply`, as a real transport's reply does (an `AgentResponse` it returns is passed on as it is: a test
that needs a reply's `error`, `checks` or notes as the engine reads them returns one).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from khaos_action.engine.transport.base import Seen, TransportBase, normalise_reply, response
from khaos_action.messages import AgentRequest, AgentResponse

Handler = Callable[[AgentRequest], Any]
"""request -> an agent's reply (or an awaitable of one); raise to fail the call."""


class MockTransport(TransportBase):
    """Every request goes to `handler`; `on_reset` (plain or async) is the agent's reset hook, and the traits are the
    protocol's (`TransportBase`), set here to what the test needs. `requests` keeps what was sent, in order."""

    def __init__(self, handler: Handler, *, on_reset: Callable[[], Any] | None = None, concurrency: int | None = None,
                 ahead: int = 0, exclusive: bool = True, runs_checks: bool = False, seen: Seen | None = None) -> None:
        self.handler = handler
        self.on_reset = on_reset
        self.has_reset = on_reset is not None
        self.concurrency, self.ahead, self.exclusive = concurrency, ahead, exclusive
        self.runs_checks, self.seen = runs_checks, seen
        self.requests: list[AgentRequest] = []
        self.resets = 0
        self.started = self.closed = False

    async def start(self) -> None:
        self.started = True

    async def send(self, message: AgentRequest) -> AgentResponse:
        self.requests.append(message)
        reply = self.handler(message)
        if inspect.isawaitable(reply):
            reply = await reply
        return reply if isinstance(reply, AgentResponse) else response(normalise_reply(reply))

    async def reset(self) -> None:
        self.resets += 1
        if self.on_reset is not None:
            done = self.on_reset()
            if inspect.isawaitable(done):
                await done

    async def close(self) -> None:
        self.closed = True
