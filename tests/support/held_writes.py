"""A run's first moments held open: a checkpointer whose writes wait (LangGraph writes a run's checkpoints behind
it, and on a busy server they land late), and leases that do something the moment one is taken."""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from graph.persistence.checkpoint import SERDE
from graph.persistence.lease import DEFAULT_TTL_S, Lease, MemoryLeases


class HeldCheckpoints(InMemorySaver):
    """Checkpoints written only once `release()` is called (the first `allow` go through at once)."""

    def __init__(self, allow: int = 0) -> None:
        super().__init__(serde=SERDE)
        self.allow = allow
        self.released = asyncio.Event()
        self.dropped = False

    def hold(self, allow: int = 0) -> None:
        self.allow, self.dropped = allow, False
        self.released.clear()

    def release(self) -> None:
        self.released.set()

    def lose(self) -> None:
        """The process stops: what it had not written never lands, until `keep()` (a process started again)."""
        self.dropped = True
        self.released.set()

    def keep(self) -> None:
        self.dropped = False
        self.released.set()

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        if self.allow > 0:
            self.allow -= 1
        else:
            await self.released.wait()
        if self.dropped:
            return {"configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}}
        return await super().aput(config, checkpoint, metadata, new_versions)


class TakenLeases(MemoryLeases):
    """In-process leases that await `on_taken` the moment a run takes one, and can hold takers at a gate
    (`gate`: cleared, every acquire waits until it is set; `waiting` says one does)."""

    def __init__(self) -> None:
        super().__init__()
        self.on_taken: Callable[[], Awaitable[None]] | None = None
        self.gate = asyncio.Event()
        self.gate.set()
        self.waiting = asyncio.Event()

    async def acquire(self, thread_id: str, owner: str, ttl_s: float = DEFAULT_TTL_S) -> Lease | None:
        if not self.gate.is_set():
            self.waiting.set()
            await self.gate.wait()
        lease = await super().acquire(thread_id, owner, ttl_s)
        if lease is not None and self.on_taken is not None:
            taken, self.on_taken = self.on_taken, None
            await taken()
        return lease
