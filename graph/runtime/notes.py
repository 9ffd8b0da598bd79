"""Posting a note to a thread during a run, addressed from the server's view of the run.

Who a note is for is decided from the thread's run plan and checkpoint (graph/notes/address.py
reads names and turns), or, before a run's first step is saved, from what the run said as it began
(runtime/begun.py); the note is stored in the thread's inbox before anyone acknowledges it.
The caller words the acknowledgement from `Posted` (the chat says "Noted — the Bear will answer").
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.context import thread_config
from ..core.personas import ANALYST_PERSONAS, PERSONA_OF_NODE, persona_label
from ..core.plan import RunPlan
from ..core.words import DEFAULT_LANGUAGE, phrase
from ..notes.address import address, named
from ..notes.inbox import Note
from .begun import starting
from .desk import DeskRuntime

__all__ = ["Posted", "post_note"]


@dataclass(frozen=True)
class Posted:
    note: Note
    reader: str | None   # who will answer: the addressee, or the predicted next speaker (None: not known)
    # A persona the note names whose turns in this run are over ("bear, …" after the Bear's last turn):
    # the user is told at once that another will answer.
    finished: str | None = None



# A run's checkpoints are written in the background (LangGraph's default durability), so a snapshot
# read mid-run may show a finished turn without the next one scheduled yet: read again shortly.
SNAPSHOT_TRIES, SNAPSHOT_WAIT_S = 10, 0.05


async def _started_now(desk: DeskRuntime, thread_id: str) -> tuple[RunPlan, list[str] | None]:
    """The plan and whose turns have started, from the thread's checkpoint: the turns spoken plus the
    nodes running now (or, before a run's first step is saved, from what it said as it began: runtime/begun.py).
    None: no analysis is in flight."""
    for _ in range(SNAPSHOT_TRIES):
        snapshot = await desk.graph.aget_state(thread_config(thread_id))
        # A run that began and saved none of its steps yet: the snapshot is the thread at rest before it.
        if (begun := await starting(desk.store, desk.leases, thread_id, snapshot,
                                    desk.settings.parallel_analysts)) is not None:
            return begun, []                # a new message about to be read: every turn is ahead
        values: Mapping[str, Any] = snapshot.values or {}
        plan = RunPlan.from_state(values, desk.settings.parallel_analysts)
        if "coordinator" in snapshot.next:
            return plan, []                 # a new analysis is about to start: every turn is ahead
        spoken = plan.spoken(values)
        if snapshot.next:
            running = [PERSONA_OF_NODE.get(n, n) for n in snapshot.next]
            # An analyst whose report is in is not running any more (parallel analysts finish apart).
            return plan, spoken + [p for p in running if p != "Desk" and not (p in ANALYST_PERSONAS and p in spoken)]
        if values.get("intent") != "analyze" or values.get("final_decision") is not None:
            return plan, None               # no analysis in flight
        await asyncio.sleep(SNAPSHOT_WAIT_S)
    return plan, spoken


async def post_note(desk: DeskRuntime, thread_id: str, text: str, started: Iterable[str] | None = None) -> Posted:
    """Post a note during a run, addressed from the server's view of it: the plan and who spoke in
    the checkpoint, plus the nodes running now (their turns started). `started`: the turns a run in
    this process has seen start (its event stream can be ahead of its checkpoints); the further
    along of the two views counts."""
    plan, seen = await _started_now(desk, thread_id)
    hint = list(started or [])
    if hint and len(hint) > len(seen or []):
        seen = hint
    to = address(text, plan, seen) if seen is not None else None
    note = await desk.inbox.post(thread_id, text, to)
    if to or seen is None:
        return Posted(note, to)
    slot = plan.next_reader(seen)
    planned = {s.persona for s in plan.slots()}
    finished = next((p for p in named(text) if p in planned), None)
    return Posted(note, slot.persona if slot else None, finished)


def acknowledgement(posted: Posted, language: str = DEFAULT_LANGUAGE) -> str:
    """What the Desk says when a note is stored: who will answer it (the chat's and the MCP server's words)."""
    if posted.note.to:
        return phrase(language, "chat.noted_to", who=persona_label(posted.note.to, language))
    if posted.reader and posted.finished:
        return phrase(language, "chat.noted_finished", named=persona_label(posted.finished, language),
                      who=persona_label(posted.reader, language))
    if posted.reader:
        return phrase(language, "chat.noted_next", who=persona_label(posted.reader, language))
    return phrase(language, "chat.noted_desk")
