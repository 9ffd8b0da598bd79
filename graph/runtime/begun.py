"""A run that has begun but whose own checkpoints are not saved yet, as every process sees it.

LangGraph writes a run's checkpoints behind it (its default durability): for its first moments the thread's
newest checkpoint is the one from before it (a new thread has none), then its input's, both of which read as a
thread at rest. A note posted then (the chat's, MCP's, from another process) was addressed from that and went to
nobody: "Bear, …" to whoever spoke next, "Noted — the desk will take this up" instead of "the Bear will answer".

So `DeskRuntime.turn` writes, once it holds the thread's lease and before the run's input is given, which run
began (its lease's owner), the newest checkpoint it began after, and its plan: in the Store, beside the notes, so
every process sharing the database reads it (SQLite or Postgres). It is in force while that owner holds the lease
and the thread's newest checkpoint is still the one it began after, or its input's; a run's first step saved, the
checkpoints say where the run is. One item per thread, overwritten by the next run's; an ended run's is never in
force again (the lease is another run's or nobody's).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langgraph.store.base import BaseStore
from langgraph.types import StateSnapshot

from ..core.plan import RunPlan
from ..persistence.lease import Leases

__all__ = ["Begun", "begin", "forget", "starting"]

NAMESPACE = ("run-begun",)


@dataclass(frozen=True)
class Begun:
    owner: str                  # the run's lease owner
    before: str | None          # the thread's newest checkpoint id when it began (None: a new thread)
    plan: Mapping[str, Any]     # the run's plan as state fields (RunPlan.state_fields)


async def begin(store: BaseStore, thread_id: str, begun: Begun) -> None:
    await store.aput(NAMESPACE, thread_id, {"owner": begun.owner, "before": begun.before, "plan": dict(begun.plan)},
                     index=False)


async def forget(store: BaseStore, thread_id: str) -> None:
    await store.adelete(NAMESPACE, thread_id)


async def starting(store: BaseStore, leases: Leases, thread_id: str, snapshot: StateSnapshot,
                   parallel_analysts: bool = True) -> RunPlan | None:
    """The plan of a run of the thread that has begun and saved none of its own steps yet, given the thread's newest
    snapshot (`aget_state`); None when no such run is in force (the snapshot says where things stand)."""
    item = await store.aget(NAMESPACE, thread_id)
    if item is None:
        return None
    configurable = (snapshot.config or {}).get("configurable", {})
    newest = configurable.get("checkpoint_id")
    source = (snapshot.metadata or {}).get("source")
    if newest != item.value.get("before") and source != "input":
        return None  # its steps are being saved: the checkpoint says who has spoken
    holder = await leases.holder(thread_id)
    if holder is None or holder.owner != item.value.get("owner"):
        return None  # that run is over (or never got going): the thread is at rest
    return RunPlan.from_state(item.value.get("plan") or {}, parallel_analysts)
