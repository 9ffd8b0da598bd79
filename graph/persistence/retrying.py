"""LangGraph's Postgres checkpointer and store, each operation ridden through a blip (graph/persistence/outages.py).

Only what the desk calls is wrapped, and each is safe to run twice: a checkpoint and its blobs are upserted by
their ids, pending writes by (task, index), store items by (namespace, key); reads and deletes are what they are.
An operation that fails on a lost connection is run again, whole, on a fresh connection from the pool."""
from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.store.base import Op, Result
from langgraph.store.postgres.aio import AsyncPostgresStore

from .outages import Outages


class RetryingPostgresSaver(AsyncPostgresSaver):
    outages: Outages

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await self.outages.retried(lambda: super(RetryingPostgresSaver, self).aget_tuple(config))

    async def alist(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None, limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        # The saver reads every row before it yields the first (fetchall): read whole, then handed out.
        async def read() -> list[CheckpointTuple]:
            return [t async for t in super(RetryingPostgresSaver, self).alist(config, filter=filter, before=before,
                                                                               limit=limit)]
        for found in await self.outages.retried(read):
            yield found

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        return await self.outages.retried(
            lambda: super(RetryingPostgresSaver, self).aput(config, checkpoint, metadata, new_versions))

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        await self.outages.retried(
            lambda: super(RetryingPostgresSaver, self).aput_writes(config, writes, task_id, task_path))

    async def adelete_thread(self, thread_id: str) -> None:
        await self.outages.retried(lambda: super(RetryingPostgresSaver, self).adelete_thread(thread_id))

    async def aget_delta_channel_history(self, *, config: RunnableConfig,
                                         channels: Sequence[str]) -> Mapping[str, Any]:
        return await self.outages.retried(lambda: super(RetryingPostgresSaver, self).aget_delta_channel_history(
            config=config, channels=channels))


class RetryingPostgresStore(AsyncPostgresStore):
    outages: Outages

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        batch = list(ops)  # an iterable is read once: kept for the tries after the first
        return await self.outages.retried(lambda: super(RetryingPostgresStore, self).abatch(batch))
