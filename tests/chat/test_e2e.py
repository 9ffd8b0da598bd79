"""End to end: the real Chainlit server in demo mode, driven over socket.io like a browser."""
from __future__ import annotations

import itertools

import httpx
import pytest

from graph.core.personas import DEFAULT_ANALYSTS as ANALYSTS  # the default analysis' (no Macro Analyst)
from graph.core.personas import PERSONAS
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished

pytestmark = pytest.mark.e2e

ANALYST_NAMES = {a.persona for a in ANALYSTS}
AFTER_ANALYSTS = [p for p in PERSONAS if p not in ANALYST_NAMES]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("desk-e2e"))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def desk_text_after(client: DeskClient, index: int) -> list[str]:
    return [client.messages[i].get("output", "") for i in client.order[index:]
            if client.messages[i].get("name") == "Desk" and client.messages[i].get("type") == "assistant_message"]


async def test_analysis_interjection_followup_and_restart(server):
    client = DeskClient(server.base)
    await client.connect()
    try:
        await client.wait_for(lambda: client.by_author("Desk"), 15, "the mode notice")
        assert "Demo mode" in client.by_author("Desk")[0]["output"]

        start = len(client.order)
        await client.send("Should I buy NVDA today?")
        await client.wait_for(lambda: any(m["name"] == "Bull Researcher" and m.get("streaming")
                                          for m in client.by_author("Bull Researcher")), 60, "the bull speaking")
        note = "what about the China export ban?"
        await client.send(note)
        ack = await client.wait_for(lambda: [t for t in desk_text_after(client, start) if note in t], 10, "ack")
        assert "Bear Researcher" in ack[0]
        await client.wait_for(lambda: runs_finished(client) >= 1, 90, "the decision")

        authors = client.authors(start)
        assert authors[0] == "Desk"  # the request understood
        assert set(authors[1:5]) == ANALYST_NAMES
        personas = [a for a in authors[5:] if a != "Desk"]
        assert personas == AFTER_ANALYSTS
        for persona in PERSONAS:  # in several pieces (paced: chat/views/render.py STREAM_GAP_S), not one blob
            assert client.tokens_for(persona) >= 2, f"{persona} did not stream"
        # the four analysts streamed at the same time: their tokens interleave
        analyst_ids = {m["id"]: m["name"] for a in ANALYST_NAMES for m in client.by_author(a)}
        stream = [analyst_ids[d["id"]] for n, d in client.events if n == "stream_token" and d["id"] in analyst_ids]
        switches = sum(1 for a, b in itertools.pairwise(stream) if a != b)
        assert switches > 4
        # the next speaker answered the interjection, quoting it
        assert f"“{note}”" in client.by_author("Bear Researcher")[-1]["output"]
        # tool calls are steps under the analysts' messages
        tools = [m for m in client.messages.values() if m.get("type") == "tool"]
        market_id = client.by_author("Market Analyst")[0]["id"]
        assert {"get_price_history", "get_indicators"} <= {t["name"] for t in tools if t["parentId"] == market_id}
        # the decision card, with a chart and a report attached
        card = [t for t in desk_text_after(client, start) if "**Signal**" in t]
        assert card and "**Stop**" in card[0] and "Confidence" in card[0]
        kinds = {d["type"] for n, d in client.events if n == "element"}
        assert {"plotly", "file"} <= kinds, card[0]
        assert [d["title"] for n, d in client.events if n == "desk_stages"][-1] == "Decision ready"

        # a follow-up is answered from the record: no new analysis
        before = len(client.order)
        await client.send("why was the bear worried?")
        await client.wait_for(lambda: runs_finished(client) >= 2, 30, "the follow-up")
        assert client.authors(before) == ["Desk"]
        answer = desk_text_after(client, before)[-1]
        assert answer and "Analyzing" not in answer
        thread_id = client.thread_id
        assert thread_id
    finally:
        await client.close()

    # restart: the thread resumes from both stores and a follow-up is answered from the checkpoint
    server.stop()
    server.start()
    client = DeskClient(server.base)
    await client.connect(thread_id=thread_id)
    try:
        resumed = await client.wait_for(lambda: [d for n, d in client.events if n == "resume_thread"], 15, "resume")
        steps = resumed[0]["steps"]
        names = {s["name"] for s in steps}
        assert set(PERSONAS) <= names
        assert any(s["type"] == "tool" and s["output"] for s in steps)
        stored = [e for e in resumed[0]["elements"] if e["type"] in ("plotly", "file")]
        assert len(stored) == 2
        async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": client.cookie}) as http:
            chart = next(e for e in stored if e["type"] == "plotly")
            figure = await http.get(chart["url"])  # stored files are served to their owner, logged in
            assert figure.status_code == 200 and figure.json()["data"]

        before = len(client.order)
        await client.send("what was the RSI?")
        await client.wait_for(lambda: runs_finished(client) >= 1, 30, "the follow-up after restart")
        assert client.authors(before) == ["Desk"]
        assert "RSI" in desk_text_after(client, before)[-1]
    finally:
        await client.close()
    assert "Traceback" not in server.log_text()


async def test_stop_cancels_and_next_message_works(server):
    client = DeskClient(server.base)
    await client.connect()
    try:
        await client.send("$TSLA 2024-05-01")
        await client.wait_for(lambda: client.by_author("Bull Researcher"), 60, "the debate")
        await client.send("/stop")
        await client.wait_for(lambda: any(t.startswith("Stopped") for t in desk_text_after(client, 0)), 10, "stop")
        assert runs_finished(client) == 1
        assert not client.by_author("Risk Judge")
        # the stopped turn is closed, not left streaming
        bull = client.by_author("Bull Researcher")[-1]
        await client.wait_for(lambda: not bull.get("streaming"), 5, "the bull's message closed")

        before = len(client.order)
        await client.send("Is Berkshire B a sell?")
        await client.wait_for(lambda: client.by_author("Market Analyst") and
                              len(client.by_author("Market Analyst")) >= 2, 30, "a new analysis")
        [stop] = [d for n, d in client.events if n == "action"][-1:]
        assert stop["name"] == "stop_run" and stop["label"] == "Stop"
        await client.click(stop)  # the Stop button
        await client.wait_for(lambda: runs_finished(client) >= 2, 10, "the second stop")
        # The Stop button goes first, then the Desk says the run stopped.
        await client.wait_for(lambda: desk_text_after(client, before)[-1].startswith("Stopped"), 10, "the stop said")
        assert not [t for t in desk_text_after(client, before) if t.startswith("⚠️")]
    finally:
        await client.close()


def test_stopping_the_server_keeps_the_working_directory_files(tmp_path):
    """Chainlit deletes its session files' folder when it stops: that is the server's own folder under
    the data folder, not `.files` in the directory `chainlit run` was started from."""
    srv = Server(tmp_path)
    kept = srv.app_root() / ".files" / "keep.txt"
    kept.parent.mkdir()
    kept.write_text("someone else's")
    srv.start()
    try:
        [own] = (tmp_path / "sessions").iterdir()
        assert own.stat().st_mode & 0o077 == 0  # owner-only
    finally:
        srv.stop()
    assert kept.read_text() == "someone else's"
    assert list((tmp_path / "sessions").iterdir()) == []
