"""Notes posted at once from two processes' runtimes on one database all land and are each read
exactly once by the run: on the default SQLite data folder and on a real PostgreSQL server."""
from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from graph.core.events import Event, NotePickedUp
from graph.core.settings import Settings
from graph.notes.inbox import NOTES_PER_TURN
from graph.runtime.desk import DeskRuntime
from tests.support.desk import TODAY
from tests.support.models import HeldTurn

NOTES = 20


async def twenty_notes_during_a_run(settings: Settings) -> tuple[list[Event], dict[str, Any], int]:
    """A run held in its Market Analyst while two runtimes post 10 notes each, all at once."""
    thread = str(uuid.uuid4())
    held = HeldTurn("Market Analyst")
    async with (DeskRuntime.open(settings, models=held.models) as running, DeskRuntime.open(settings) as a,
                DeskRuntime.open(settings) as b):
        graph_input = await running.new_input(thread, "should I buy NVDA today?")
        run = asyncio.ensure_future(_collect(running, graph_input, thread))
        await held.reached()
        # Both processes' sockets at once; each post goes through `runtime.inbox`, as the chat's does.
        await asyncio.gather(*((a if i % 2 else b).inbox.post(thread, f"note {i}") for i in range(NOTES)))
        stored = len(await running.inbox.all(thread))
        held.release()
        events = await asyncio.wait_for(run, 180)
        state = await running.state(thread)
    return events, state, stored


async def _collect(runtime: DeskRuntime, graph_input: Any, thread: str) -> list[Event]:
    return [ev async for ev in runtime.events(graph_input, thread, runtime.context(today=TODAY))]


def assert_each_read_once(events: list[Event], state: dict[str, Any], stored: int) -> None:
    assert stored == NOTES
    picked = Counter(ev.text for ev in events if isinstance(ev, NotePickedUp))
    assert picked == Counter(f"note {i}" for i in range(NOTES)), "every note read, none twice"
    assert len(state["interventions"]) == NOTES and len(set(state["inbox_read"])) == NOTES
    # Posted while the analysts worked (they had read the inbox): the speakers after them take them
    # in turn, a turn's worth each (graph/notes/inbox.py NOTES_PER_TURN), the Bull first.
    readers = Counter(who for i in state["interventions"] for who in i.answered_by)
    assert readers["Bull Researcher"] == NOTES_PER_TURN
    assert set(readers.values()) == {NOTES_PER_TURN} and len(readers) == NOTES // NOTES_PER_TURN


async def test_twenty_notes_from_two_runtimes_on_one_sqlite_folder(tmp_path: Path, no_model_env: None):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    assert_each_read_once(*await twenty_notes_during_a_run(settings))


@pytest.mark.postgres
async def test_twenty_notes_from_two_runtimes_on_postgres(tmp_path: Path, fresh_postgres_url: str,
                                                          no_model_env: None):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0, DESK_DATABASE_URL=fresh_postgres_url)
    assert_each_read_once(*await twenty_notes_during_a_run(settings))
