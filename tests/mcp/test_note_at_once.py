"""An MCP client that starts an analysis and sends a note the moment the thread is listed (list_threads, then
follow_up "Bear, …"): the note goes to that run and is answered by the Bear, and the client is told so, even while
none of the run's checkpoints has landed. In process, through graph/mcp/service.py (what the server's tools call),
with the run's checkpoint writes held back and the run's taking of its lease slowed, so the first moments last."""
from __future__ import annotations

import asyncio
from pathlib import Path

from graph.core.settings import Settings
from graph.mcp.service import DeskService
from graph.runtime.desk import DeskRuntime
from tests.support.held_writes import HeldCheckpoints, TakenLeases
from tests.support.models import HeldTurn

USER = "alice"
BEAR = "Bear Researcher"
ASKED = "should I buy NVDA on 2024-05-03?"


async def _listed(service: DeskService, leases: TakenLeases, title: str) -> str:
    """The thread's id as soon as list_threads shows it. A run held at the lease's door is let in (a thread is not
    listed before its run holds it, or is, and the note races the run for the thread)."""
    while True:
        found = [t.thread_id for t in await service.threads() if t.title == title]
        if found:
            return found[0]
        if leases.waiting.is_set():
            leases.gate.set()
        await asyncio.sleep(0.005)


async def test_a_note_sent_as_soon_as_the_thread_is_listed_reaches_the_run_and_its_bear(
        tmp_path: Path, no_model_env: None) -> None:
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    checkpoints, held = HeldCheckpoints(), HeldTurn("Market Analyst")
    text = "Bear, what about the debt?"
    async with DeskRuntime.open(settings, models=held.models, checkpointer=checkpoints) as desk:
        leases = desk.leases = TakenLeases()
        leases.gate.clear()
        service = DeskService(desk, USER)
        analysis = asyncio.ensure_future(service.analyse(ASKED))
        try:
            thread = await asyncio.wait_for(_listed(service, leases, ASKED), 30)
            note = asyncio.ensure_future(service.follow_up(thread, text))
            await asyncio.sleep(0)
            leases.gate.set()
            noted = await asyncio.wait_for(note, 30)
        finally:
            leases.gate.set()
            checkpoints.release()
            held.release()
        done = await asyncio.wait_for(analysis, 120)
        state = await desk.state(thread)
    assert noted.reply.outcome == "noted", noted.text
    assert f"the {BEAR} will answer this." in noted.reply.said, noted.reply.said
    assert done.reply.outcome == "decision" and done.reply.thread_id == thread
    assert [(i.text, i.answered_by) for i in state["interventions"]] == [(text, [BEAR])]
