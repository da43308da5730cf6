"""A pool of agent instances (processes or connections), each serving one case at a time.

Shared by the out-of-process transports (http, command, mcp). Checking an instance out tells the binder which case
it now serves, so the chaos proxy attributes that instance's dependency calls to the right case; checking it back in
unbinds it. `all_instances` takes every instance at once, so nothing runs during a reset.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Generic, Protocol, TypeVar


class Indexed(Protocol):
    index: int


InstanceT = TypeVar("InstanceT", bound=Indexed)


class InstancePool(Generic[InstanceT]):
    def __init__(self, instances: Sequence[InstanceT], bind_instance: Callable[[int, str | None], None] | None) -> None:
        self._idle: asyncio.Queue[InstanceT] = asyncio.Queue()
        self._count = len(instances)
        self._bind = bind_instance
        for inst in instances:
            self._idle.put_nowait(inst)

    @asynccontextmanager
    async def serving(self, case_id: str) -> AsyncIterator[InstanceT]:
        inst = await self._idle.get()
        try:
            if self._bind:
                self._bind(inst.index, case_id)
            yield inst
        finally:
            if self._bind:
                self._bind(inst.index, None)
            self._idle.put_nowait(inst)

    @asynccontextmanager
    async def all_instances(self) -> AsyncIterator[list[InstanceT]]:
        taken = [await self._idle.get() for _ in range(self._count)]
        try:
            yield taken
        finally:
            for inst in taken:
                self._idle.put_nowait(inst)
