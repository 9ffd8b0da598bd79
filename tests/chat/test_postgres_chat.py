"""Two real chat servers on one PostgreSQL database (DESK_DATABASE_URL), each with its own data
folder, as two app processes behind a proxy: a run cut off by a kill -9 of the first is resumed on
the second, which answers a follow-up; the first, restarted, shows that follow-up in the thread and
answers another. Nothing of the thread is kept in the servers' folders."""
from __future__ import annotations

import contextlib

import pytest

from graph.core.personas import DEFAULT_ANALYSTS as ANALYSTS  # the default analysis' (no Macro Analyst)
from graph.core.personas import PERSONAS
from tests.support.attacks import list_threads
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished

pytestmark = [pytest.mark.postgres, pytest.mark.e2e]

NOTE = "what about the China export ban?"


def desk_texts(client: DeskClient, since: int = 0) -> list[str]:
    return [client.messages[i].get("output", "") for i in client.order[since:]
            if client.messages[i].get("name") == "Desk" and client.messages[i].get("type") == "assistant_message"]


async def follow_up(client: DeskClient, text: str) -> str:
    start, finished = len(client.order), runs_finished(client)
    await client.send(text)
    await client.wait_for(lambda: runs_finished(client) > finished, 60, f"the answer to {text!r}")
    assert [a for a in client.authors(start)] == ["Desk"], "answered from the record, no new analysis"
    return desk_texts(client, start)[-1]


async def test_a_thread_moves_between_two_servers_on_one_database(tmp_path, fresh_postgres_url):
    # The first server paced, to act while the Bull speaks; the second (and the first once back) at no pace: they
    # finish the run and answer follow-ups, watched whole.
    env = {"DESK_DATABASE_URL": fresh_postgres_url}
    first, second = Server(tmp_path / "one", **env, DESK_DEMO_DELAY_MS="30"), Server(tmp_path / "two", **env,
                                                                                       DESK_DEMO_DELAY_MS="0")
    for server in (first, second):
        server.data_dir.mkdir()
        server.start()
    client = DeskClient(first.base)
    try:
        # On the first server: an analysis, a note acknowledged, then the process is killed.
        try:
            await client.connect()
            await client.send("Should I buy NVDA today?")
            await client.wait_for(lambda: any(m.get("streaming") for m in client.by_author("Bull Researcher")), 90,
                                  "the Bull speaking")
            await client.send(NOTE)
            await client.wait_for(lambda: [t for t in desk_texts(client) if NOTE in t], 10, "the acknowledgement")
            thread = client.thread_id
            assert thread
            first.kill()
        finally:
            with contextlib.suppress(Exception):
                await client.close()

        # On the second: the thread, the offer to resume, the rest of the run, a follow-up.
        client = DeskClient(second.base)
        await client.connect(thread_id=thread)
        offer = await client.wait_for(lambda: [t for t in desk_texts(client) if "interrupted" in t], 30,
                                      "the offer to resume")
        assert "Bull Researcher" in offer[0]
        start = len(client.order)
        await client.send("resume")
        await client.wait_for(lambda: runs_finished(client) >= 1, 120, "the resumed run to end")
        authors = [a for a in client.authors(start) if a != "Desk"]
        order = list(PERSONAS)
        assert authors == order[order.index("Bull Researcher"):], "finished speakers are not asked again"
        assert not set(authors) & {a.persona for a in ANALYSTS}
        assert [m for p in authors for m in client.by_author(p) if NOTE in m.get("output", "")], \
            "the note acknowledged by the first server is answered on the second"
        assert [t for t in desk_texts(client, start) if "**Signal**" in t], "the decision card"
        rsi = await follow_up(client, "what was the RSI?")
        assert "RSI" in rsi
        await client.close()

        # The first server, back: the same thread with the second's follow-up, and another one.
        first.extra_env["DESK_DEMO_DELAY_MS"] = "0"
        first.start()
        client = DeskClient(first.base)
        await client.connect(thread_id=thread)
        [resumed] = await client.wait_for(lambda: [d for n, d in client.events if n == "resume_thread"], 30,
                                          "the thread")
        assert any(s.get("output") == rsi for s in resumed["steps"]), "what the second server said is there"
        assert "bear" in (await follow_up(client, "why was the bear worried?")).lower()
        threads = (await list_threads(first.base, client.cookie)).json()["data"]
        assert [t["id"] for t in threads] == [thread]
    finally:
        with contextlib.suppress(Exception):
            await client.close()
        first.stop()
        second.stop()
    for server in (first, second):
        assert "Traceback" not in server.log_text()
        kept = {p.name for p in server.data_dir.glob("*.sqlite")}
        assert not kept & {"chat.sqlite", "checkpoints.sqlite", "store.sqlite", "leases.sqlite"}, kept
