"""The chat on PostgreSQL while the database goes away mid-run (issue 36, point 1), on a durable cluster of the
module's own (crashed with `pg_ctl -m immediate` and started again; the session's shared cluster serves other tests).

- A blip shorter than DESK_DB_RETRY_S: the run goes on by itself; the page shows a short "reconnecting" note, then
  "reconnected"; every persona speaks once; a note typed during the blip is stored and answered.
- A longer outage (the run stops with a sentence, no driver's error; a note typed meanwhile is kept; once the database
  is back the chat resumes by itself from the last saved step and answers the note): tests/browser/test_db_outage.py,
  the same run in a real browser, checks what this socket test checked and what the page shows (one run of 40 s
  rather than two)."""
from __future__ import annotations

import asyncio
import contextlib

import pytest

from benchmarks.support.postgres import PostgresServer
from graph import phrase
from graph.core.personas import ANALYSTS, PERSONAS
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished

pytestmark = [pytest.mark.postgres, pytest.mark.e2e, pytest.mark.faults]

NOTE = "what about the China export ban?"
PLANNED = [p for p in PERSONAS if p == "Market Analyst" or p not in {a.persona for a in ANALYSTS}]
RECONNECTING, BACK = phrase("en", "chat.db_reconnecting"), phrase("en", "chat.db_back")



def desk_texts(client: DeskClient) -> list[str]:
    return [client.messages[i].get("output", "") for i in client.order if client.messages[i].get("name") == "Desk"]


def spoke(client: DeskClient) -> list[str]:
    return [client.messages[i]["name"] for i in client.order
            if client.messages[i].get("name") in PERSONAS and client.messages[i].get("type") == "assistant_message"]


async def started(durable_postgres: PostgresServer, tmp_path, **env: str) -> tuple[Server, DeskClient]:
    server = Server(tmp_path / "chat", DESK_DATABASE_URL=durable_postgres.create_database(), DESK_DEMO_DELAY_MS="20",
                    DESK_ANALYSTS='["market"]', **env)
    server.data_dir.mkdir()
    server.start()
    client = DeskClient(server.base)
    await client.connect()
    await client.send("Should I buy NVDA today?")
    await client.wait_for(lambda: any(m.get("streaming") for m in client.by_author("Bull Researcher")), 90,
                          "the Bull speaking")
    return server, client


async def test_a_blip_is_ridden_out_without_the_user(durable_postgres, tmp_path):
    server, client = await started(durable_postgres, tmp_path)
    try:
        await asyncio.to_thread(durable_postgres.crash)
        await client.send(NOTE)  # typed while the database is down: stored once it is back
        await asyncio.sleep(2)  # the outage lasts a while: the run's next writes meet it
        await asyncio.to_thread(durable_postgres.restart)
        await client.wait_for(lambda: runs_finished(client) >= 1, 120, "the run to end")
        texts = desk_texts(client)
        assert not [t for t in texts if "went wrong" in t or "OperationalError" in t], texts
        assert [t for t in texts if "**Signal**" in t], "the decision card: the run went on by itself"
        assert sorted(spoke(client)) == sorted(PLANNED), "each persona spoke once"
        notes = [t for t in texts if NOTE in t]
        assert notes, "the note typed during the blip was acknowledged"
        assert [m for p in set(spoke(client)) for m in client.by_author(p) if NOTE in m.get("output", "")], \
            "and answered by a persona"
        if any(RECONNECTING in t or BACK in t for t in texts):  # said when a write met the outage
            assert [t for t in texts if BACK in t], "the reconnecting note says the database is back"
    finally:
        with contextlib.suppress(Exception):
            await client.close()
        server.stop()
    assert "Traceback" not in server.log_text()
