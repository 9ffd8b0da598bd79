"""A comparison asked in the chat, over the real server's socket (issue 24): both desks' personas streaming into
the thread, each labelled with its ticker; an interjection naming AMD reaching AMD's next speaker only; the
Comparison turn and the side-by-side card with its chart; a follow-up answered from the comparison; stop and
resume; another user kept out of the desks' threads."""
from __future__ import annotations

import re

import pytest
import socketio

from graph.core.personas import PERSONAS
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, desk_texts

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(shared_chat_server) -> Server:
    # The test pace: a desk takes a few seconds, room to interject. Shared with the other modules on the test pace
    # (tests/conftest.py): a user per test.
    return shared_chat_server()


def labelled(client: DeskClient, ticker: str) -> dict[str, dict]:
    """Persona messages whose label names `ticker` ("Bear Researcher · AMD"), by persona."""
    out: dict[str, dict] = {}
    for mid in client.order:
        m = client.messages[mid]
        label = (m.get("metadata") or {}).get("avatarName") or ""
        if m.get("type") == "assistant_message" and label.split(" · ")[1:2] == [ticker]:
            out.setdefault(m["name"], m)
    return out


async def test_two_desks_stream_labelled_with_an_interjection_then_the_comparison_card(server):
    alice = DeskClient(server.base, username="alice")
    await alice.connect()
    try:
        await alice.wait_for(lambda: alice.by_author("Desk"), 15, "the mode notice")
        await alice.send("NVDA or AMD?")
        # As soon as AMD's desk speaks, a note for its Bear.
        await alice.wait_for(lambda: "Market Analyst" in labelled(alice, "AMD"), 60, "AMD's analysts")
        note = "Bear on AMD, what about the MI400 delay?"
        await alice.send(note)
        ack = await alice.wait_for(lambda: [t for t in desk_texts(alice) if "MI400" in t], 15, "the acknowledgement")
        assert "**AMD**" in ack[0] and "Bear Researcher" in ack[0]

        await alice.wait_for(lambda: alice.by_author("Comparison"), 120, "the comparison")
        card = await alice.wait_for(lambda: [t for t in desk_texts(alice) if "| Rank | Ticker |" in t], 30, "the card")

        for ticker in ("NVDA", "AMD"):  # every persona of both desks, each labelled with its ticker
            assert set(labelled(alice, ticker)) >= set(PERSONAS), ticker
        # The note reached AMD's Bear, and only AMD's.
        assert "MI400" in labelled(alice, "AMD")["Bear Researcher"]["output"]
        assert "MI400" not in labelled(alice, "NVDA")["Bear Researcher"]["output"]
        assert any("Picked up on **AMD** by Bear Researcher" in t for t in desk_texts(alice))

        comparison = alice.by_author("Comparison")[-1]["output"]
        assert re.search(r"^1\. \*\*(NVDA|AMD)\*\*", comparison, re.M)
        assert re.search(r"\| 1 \| \*\*(NVDA|AMD)\*\* \| .+(BUY|SELL|HOLD) \|", card[0])
        assert "| Rank | Ticker | Signal | Size | Confidence | Entry | Stop |" in card[0]
        # Chainlit sends a message's elements after the message itself: wait for the chart.
        await alice.wait_for(lambda: [d for n, d in alice.events if n == "element" and d.get("type") == "plotly"],
                             30, "the normalised chart")
        stages = [d for n, d in alice.events if n == "desk_stages"][-1]
        assert {s["title"].split(" · ")[0] for s in stages["stages"]} == {"NVDA", "AMD"}
        assert all(s["status"] == "done" for s in stages["stages"])

        # A follow-up is the comparison's, answered from its record.
        before = len(alice.order)
        await alice.send("which was riskier?")
        answer = await alice.wait_for(lambda: [alice.messages[i]["output"] for i in alice.order[before:]
                                               if alice.messages[i].get("name") == "Desk"
                                               and "riskier" in alice.messages[i].get("output", "")], 30, "answer")
        assert "NVDA" in answer[0] and "AMD" in answer[0]

        # Each desk is alice's thread: she may open it; bob may not.
        threads = re.findall(r"\]\(/thread/([0-9a-f-]{36})\)", card[0])
        assert len(threads) == 2
        mine = DeskClient(server.base, username="alice")
        await mine.connect(thread_id=threads[0], cookie=alice.cookie)
        await mine.close()
        bob = DeskClient(server.base, username="bob")
        with pytest.raises(socketio.exceptions.ConnectionError):
            await bob.connect(thread_id=threads[1])
    finally:
        await alice.close()


async def test_stop_then_resume_finishes_both_desks(server):
    alice = DeskClient(server.base, username="carol")
    await alice.connect()
    try:
        await alice.send("compare AAPL and MSFT")
        await alice.wait_for(lambda: "Bull Researcher" in labelled(alice, "MSFT"), 90, "MSFT's bull")
        await alice.send("/stop")
        await alice.wait_for(lambda: [t for t in desk_texts(alice) if t.startswith("Stopped.")], 30, "stopped")
        judged = {t: "Risk Judge" in labelled(alice, t) for t in ("AAPL", "MSFT")}
        assert not all(judged.values())
        before = len(alice.order)
        await alice.send("resume")
        await alice.wait_for(lambda: alice.by_author("Comparison"), 120, "the comparison after resuming")
        resumed = [t for t in desk_texts(alice) if t.startswith("Resuming the comparison")]
        assert resumed and "MSFT from its last step" in resumed[0]
        # Nobody who finished before the stop spoke again.
        again = [alice.messages[i] for i in alice.order[before:]
                 if alice.messages[i].get("type") == "assistant_message"]
        spoke = [(m["name"], (m.get("metadata") or {}).get("avatarName")) for m in again if m["name"] in PERSONAS]
        assert ("Bull Researcher", "Bull Researcher · MSFT") not in spoke
        assert ("Market Analyst", "Market Analyst · MSFT") not in spoke
        assert {m.get("metadata", {}).get("avatarName") for m in alice.by_author("Risk Judge")} == {
            "Risk Judge · AAPL", "Risk Judge · MSFT"}
    finally:
        await alice.close()
