"""A headless run on PostgreSQL while the server is crashed (`pg_ctl -m immediate`) and started again a few seconds
later (issue 36, point 1): the checkpoint and store operations that meet the outage are tried again, and the run
goes on by itself to its decision; every speaker once, nothing of it lost. On a durable cluster of this module's
own (the session's shared one serves other tests)."""
from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from benchmarks.support.postgres import PostgresServer
from graph.core.events import Event
from graph.core.personas import PERSONAS
from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from tests.support.desk import TODAY, spoken

pytestmark = [pytest.mark.postgres, pytest.mark.faults]



async def test_a_run_goes_on_through_a_crash_and_restart_of_the_database(
        tmp_path: Path, durable_postgres: PostgresServer, no_model_env: None):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=5,
                        DESK_DATABASE_URL=durable_postgres.create_database(), DESK_DB_RETRY_S=60)
    thread = str(uuid.uuid4())
    events: list[Event] = []
    async with DeskRuntime.open(settings) as desk:
        assert desk.outages is not None
        heard: list[str] = []
        desk.outages.listen(heard.append)
        crashed = False
        async with desk.turn(thread, "should I buy NVDA today?") as turn:
            async for ev in turn.events(desk.context(today=TODAY)):
                events.append(ev)
                if not crashed and "Market Analyst" in spoken(events):
                    crashed = True
                    await asyncio.to_thread(durable_postgres.crash)
                    # Down for longer than a pooled connection is waited for (2 s): operations fail and are retried.
                    asyncio.get_running_loop().call_later(4, lambda: asyncio.ensure_future(
                        asyncio.to_thread(durable_postgres.restart)))
        state = await desk.state(thread)
    assert crashed
    assert state["final_decision"] is not None, "the run reached its decision by itself"
    said = [p for p in spoken(events) if p != "Desk"]
    assert sorted(said) == sorted(PERSONAS), "every speaker once"
    assert heard[:1] == ["reconnecting"] and heard[-1] == "back" and "out" not in heard
