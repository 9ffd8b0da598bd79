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

It also keeps which notes the run's message skipped (those posted before it): a run that ended before saving any
step cannot be resumed, so the next message's run answers the notes posted to it, and skips only those.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple
from langgraph.store.base import BaseStore, Item
from langgraph.types import StateSnapshot

from ..core.plan import RunPlan
from ..persistence.lease import Leases

__all__ = ["Begun", "begin", "cut_short", "forget", "last", "starting"]

NAMESPACE = ("run-begun",)


@dataclass(frozen=True)
class Begun:
    owner: str                  # the run's lease owner
    before: str | None          # the thread's newest checkpoint id when it began (None: a new thread)
    plan: Mapping[str, Any]     # the run's plan as state fields (RunPlan.state_fields)
    skipped: tuple[str, ...] = ()  # the keys of the notes its message skipped (posted before it)


async def begin(store: BaseStore, thread_id: str, begun: Begun) -> None:
    await store.aput(NAMESPACE, thread_id, {"owner": begun.owner, "before": begun.before, "plan": dict(begun.plan),
                                            "skipped": list(begun.skipped)}, index=False)


def _unsaved(value: Mapping[str, Any], checkpoint_id: str | None, source: str | None) -> bool:
    """Whether the thread's newest checkpoint is still the one the run began after, or its input's."""
    return checkpoint_id == value.get("before") or source == "input"


async def last(store: BaseStore, thread_id: str) -> Item | None:
    """What the thread's last run said as it began (None: no run has begun since the thread was made or emptied)."""
    return await store.aget(NAMESPACE, thread_id)


def cut_short(item: Item | None, newest: CheckpointTuple | None) -> frozenset[str] | None:
    """Asked by the thread's next run, holding its lease (so the last one is over), with `last` and the thread's
    newest checkpoint: when the last run that began ended before saving any step (a server stopped in its first
    moments), the notes its message had skipped. The notes posted to it since were told a reader and no resume
    reaches them (it has nothing to resume from): the next message's run answers them. None when no run began or
    its steps were saved."""
    if item is None:
        return None
    checkpoint_id = newest.config["configurable"].get("checkpoint_id") if newest is not None else None
    source = (newest.metadata or {}).get("source") if newest is not None else None
    if not _unsaved(item.value, checkpoint_id, source):
        return None
    return frozenset(item.value.get("skipped") or ())


async def forget(store: BaseStore, thread_id: str) -> None:
    await store.adelete(NAMESPACE, thread_id)


async def starting(store: BaseStore, leases: Leases, thread_id: str, snapshot: StateSnapshot,
                   parallel_analysts: bool = True) -> RunPlan | None:
    """The plan of a run of the thread that has begun and saved none of its own steps yet, given the thread's newest
    snapshot (`aget_state`); None when no such run is in force (the snapshot says where things stand)."""
    item = await last(store, thread_id)
    if item is None:
        return None
    newest = (snapshot.config or {}).get("configurable", {}).get("checkpoint_id")
    if not _unsaved(item.value, newest, (snapshot.metadata or {}).get("source")):
        return None  # its steps are being saved: the checkpoint says who has spoken
    holder = await leases.holder(thread_id)
    if holder is None or holder.owner != item.value.get("owner"):
        return None  # that run is over (or never got going): the thread is at rest
    return RunPlan.from_state(item.value.get("plan") or {}, parallel_analysts)
