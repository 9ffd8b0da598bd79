"""A note in a run's first moments, before any step of the run is saved (LangGraph writes a run's checkpoints
behind it; here they are held back): it is addressed from that run, not from the thread at rest before it, and a
note posted the moment the run takes the thread is answered, never marked read unanswered, as is one posted to a run
that stopped before any of its steps was saved (nothing to resume: the next message's run answers it). As another
process (the chat's other window, an MCP call) posts it: from the store and the lease, no hint from the run's stream."""
from __future__ import annotations

import asyncio
import contextlib
import uuid
from pathlib import Path

import pytest

from graph.core.events import Event, NotePickedUp
from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.runtime.notes import Posted, acknowledgement, post_note
from tests.support.desk import TODAY
from tests.support.held_writes import HeldCheckpoints, TakenLeases
from tests.support.models import HeldTurn

BEAR = "Bear Researcher"
ASKED = "should I buy NVDA on 2024-05-03?"


async def _run(desk: DeskRuntime, thread: str, text: str) -> list[Event]:
    async with desk.turn(thread, text, desk.plan()) as turn:
        return [ev async for ev in turn.events(desk.context(today=TODAY))]


def _picked(events: list[Event]) -> list[tuple[str, str]]:
    return [(ev.persona, ev.text) for ev in events if isinstance(ev, NotePickedUp)]


@pytest.mark.parametrize("earlier", [False, True], ids=["new thread", "after a decision"])
@pytest.mark.parametrize("saved", [0, 1], ids=["nothing saved", "its input saved"])
async def test_a_note_naming_the_bear_before_the_runs_first_step_is_saved_waits_for_the_bear(
        tmp_path: Path, no_model_env: None, earlier: bool, saved: int) -> None:
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    checkpoints, held = HeldCheckpoints(), HeldTurn("Market Analyst")
    checkpoints.release()
    text = "Bear, what about the debt?"
    async with DeskRuntime.open(settings, models=held.models, checkpointer=checkpoints) as desk:
        thread = str(uuid.uuid4())
        if earlier:  # a decided analysis: the thread at rest reads as no run in flight
            held.release()
            await _run(desk, thread, "should I buy AMD on 2024-05-03?")
            held.started.clear()
            held.released.clear()
        checkpoints.hold(allow=saved)
        run = asyncio.ensure_future(_run(desk, thread, ASKED))
        try:
            await held.reached()  # the analysts speak; none of the run's steps is saved (or only its input)
            sent = await post_note(desk, thread, text)
        finally:
            checkpoints.release()
            held.release()
        events = await asyncio.wait_for(run, 120)
    assert sent.note.to == BEAR
    assert acknowledgement(sent) == f"Noted — the **{BEAR}** will answer this."
    assert _picked(events) == [(BEAR, text)], "the Bear, not whoever spoke next"


async def test_a_note_posted_the_moment_a_run_takes_the_thread_is_answered(tmp_path: Path, no_model_env: None):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    text = "what about the debt?"
    async with DeskRuntime.open(settings) as desk:
        thread = str(uuid.uuid4())
        leases = desk.leases = TakenLeases()
        sent: list[Posted] = []

        async def note() -> None:  # another process sees the thread running and posts to it
            sent.append(await post_note(desk, thread, text))

        leases.on_taken = note
        events = await asyncio.wait_for(_run(desk, thread, ASKED), 120)
    assert sent and not sent[0].note.to
    picked = _picked(events)
    assert picked and {t for _, t in picked} == {text}, "answered, not marked read before anyone saw it"


@pytest.mark.parametrize("saved", [0, 1], ids=["nothing saved", "its input saved"])
async def test_a_note_to_a_run_stopped_before_a_step_was_saved_is_answered_by_the_next_run(
        tmp_path: Path, no_model_env: None, saved: int) -> None:
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    checkpoints, held = HeldCheckpoints(allow=saved), HeldTurn("Market Analyst")
    text = "Bear, what about the debt?"
    async with DeskRuntime.open(settings, models=held.models, checkpointer=checkpoints) as desk:
        thread = str(uuid.uuid4())
        skipped = await desk.inbox.post(thread, "a note to no run, posted before the message")
        run = asyncio.ensure_future(_run(desk, thread, ASKED))
        await held.reached()
        sent = await post_note(desk, thread, text)
        run.cancel()  # the server stops: what it had not written is gone
        checkpoints.lose()
        with contextlib.suppress(asyncio.CancelledError):
            await run
        checkpoints.keep()
        assert await desk.interrupted(thread) is None, "nothing to resume from"
        events = await asyncio.wait_for(_run(desk, thread, ASKED), 120)
    assert sent.note.to == BEAR
    assert _picked(events) == [(BEAR, text)], "told the Bear would answer: it does"
    assert skipped.text not in {t for _, t in _picked(events)}
