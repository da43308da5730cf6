"""Builds the transport an `agent:` block asks for: its `agent.type` entry in the transport registry builds it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from khaos_action.engine.transport.base import BindInstance, EnvForInstance, Seen, Transport, TransportBase
from khaos_action.messages import AgentRequest, AgentResponse
from khaos_action.services import Services
from khaos_action.transports import BuildOptions, transport_entry

if TYPE_CHECKING:  # the python worker builds its transport without the config's models (engine/worker/child.py)
    from khaos_action.config.models import AgentConfig
    from khaos_action.engine.context import CaseContext


def build_transport(agent: AgentConfig, *, base_dir: Path, services: Services | None = None,
                    env: Mapping[str, str] | None = None,
                    concurrency: int = 8, bind_instance: BindInstance | None = None,
                    env_for_instance: EnvForInstance | None = None) -> Transport:
    """A not-yet-started transport for `agent`; call `await transport.start()` before the first `send`.

    `env` is added to every out-of-process instance's environment, `env_for_instance(i)` to instance i's (the chaos
    proxy gives each instance its own listener URLs this way, rendering agent.env templates such as
    `{{ llm_proxy }}`). `bind_instance(i, case_id)` / `bind_instance(i, None)` bracket each case an out-of-process
    instance serves. Python agents ignore these: they are attributed through the `current_case` ContextVar.
    `services` (the run's environment and HTTP clients) is required by the out-of-process types; the python worker
    builds its in-process transport without one.
    """
    options = BuildOptions(base_dir=base_dir, services=services, env=env, concurrency=concurrency,
                           bind_instance=bind_instance, env_for_instance=env_for_instance)
    return declared(transport_entry(agent.type).builder()(agent, options))


class Declared(TransportBase):
    """A transport written against the protocol alone, given the defaults of the traits it does not declare: each
    trait reads the transport's own attribute when it has one (live: a trait may change once it started), anything
    else goes to the transport itself. The one place a trait is looked up rather than read."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:  # only what this class lacks: the transport's own state
        return getattr(self.inner, name)

    @property  # type: ignore[override]
    def has_reset(self) -> bool:
        return bool(getattr(self.inner, "has_reset", False))

    @property  # type: ignore[override]
    def concurrency(self) -> int | None:
        return getattr(self.inner, "concurrency", None)

    @property  # type: ignore[override]
    def ahead(self) -> int:
        return getattr(self.inner, "ahead", 0)

    @property  # type: ignore[override]
    def exclusive(self) -> bool:
        return getattr(self.inner, "exclusive", True)

    @property  # type: ignore[override]
    def runs_checks(self) -> bool:
        return getattr(self.inner, "runs_checks", False)

    @property  # type: ignore[override]
    def seen(self) -> Seen | None:
        return getattr(self.inner, "seen", None)

    @property  # type: ignore[override]
    def calls_sync(self) -> bool:
        return getattr(self.inner, "calls_sync", False)

    @property  # type: ignore[override]
    def tool_callables(self) -> Sequence[tuple[str, Any]]:
        return getattr(self.inner, "tool_callables", ())

    @property  # type: ignore[override]
    def spoiled(self) -> bool:
        return getattr(self.inner, "spoiled", False)

    def case_scope(self, ctx: CaseContext) -> AbstractAsyncContextManager[Any]:
        scope = getattr(self.inner, "case_scope", None)
        return nullcontext() if scope is None else scope(ctx)

    async def start(self) -> None:
        await self.inner.start()

    async def send(self, message: AgentRequest) -> AgentResponse:
        return await self.inner.send(message)

    async def reset(self) -> None:
        await self.inner.reset()

    async def close(self) -> None:
        await self.inner.close()


def declared(transport: Any) -> Transport:
    """`transport` with every trait of the protocol: itself when it extends `TransportBase`, else `Declared`."""
    return transport if isinstance(transport, TransportBase) else Declared(transport)
