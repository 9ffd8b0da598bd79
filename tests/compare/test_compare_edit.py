"""Editing the past in one desk of a comparison (issue 24: "edit-the-past in any one of the compared desks"), over the
real server's socket: the comparison's thread offers Edit on every desk's finished turns; editing AMD's Bull re-runs
only what follows it in AMD's desk (NVDA's desk is untouched: not a checkpoint more), then the Comparison turn and the
side-by-side card are made again from the desks' rulings, the card saying what the edit changed; the earlier AMD
turns, Comparison and card fold to one line. Refused while the re-run goes on, for a stale button, and for another
user; a reopened thread gets its Edit buttons back."""
from __future__ import annotations

import re

import httpx
import pytest

from chat.edits import SUPERSEDED
from chat.features.compare import EDIT_ACTION
from tests.chat.test_edit_chat import actions, answering
from tests.chat.test_security import count, db
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient

pytestmark = pytest.mark.e2e

NEW_BULL = "EDITED BULL: AMD's data center share gain is the whole story here; buy the dip."
AFTER_BULL = ["Bull Researcher", "Bear Researcher", "Research Manager", "Trader", "Risky Analyst", "Safe Analyst",
              "Neutral Analyst", "Risk Judge"]
CARD_HEAD = "| Rank | Ticker |"


@pytest.fixture(scope="module")
def server(shared_chat_server) -> Server:
    # Shared with the other modules on the test pace (tests/conftest.py): the users' threads are their own.
    return shared_chat_server()


def desk_of(message: dict) -> str:
    label = (message.get("metadata") or {}).get("avatarName") or ""
    parts = label.split(" · ")
    return parts[1] if len(parts) > 1 and not parts[1].startswith("round") else ""


def turns(client: DeskClient, since: int = 0) -> list[dict]:
    """The desks' persona turns from message index `since`, in order."""
    return [client.messages[i] for i in client.order[since:]
            if client.messages[i].get("type") == "assistant_message" and desk_of(client.messages[i])]


def turn_of(client: DeskClient, persona: str, ticker: str, since: int = 0) -> dict:
    return next(m for m in turns(client, since) if m["name"] == persona and desk_of(m) == ticker)


def cards(client: DeskClient, since: int = 0) -> list[dict]:
    return [client.messages[i] for i in client.order[since:] if client.messages[i].get("name") == "Desk"
            and CARD_HEAD in client.messages[i].get("output", "")]


def desk_said(client: DeskClient, since: int = 0) -> list[str]:
    return [client.messages[i].get("output", "") for i in client.order[since:]
            if client.messages[i].get("name") == "Desk"]


def edit_for(client: DeskClient, message_id: str) -> dict:
    return [a for a in actions(client, EDIT_ACTION) if a["forId"] == message_id][-1]


def checkpoints(server: Server, thread: str) -> int:
    with db(server, "checkpoints.sqlite") as conn:
        return count(conn, "SELECT count(*) FROM checkpoints WHERE thread_id = ?", thread)


async def test_editing_one_desk_reruns_only_it_then_the_comparison_and_card_again(server):
    logged = len(server.log_text())  # the log from here on is this test's (the server is shared)
    alice = DeskClient(server.base, username="alice")
    await alice.connect()
    try:
        await alice.wait_for(lambda: alice.by_author("Desk"), 15, "the mode notice")
        await alice.send("NVDA or AMD?")
        card = dict((await alice.wait_for(lambda: cards(alice), 180, "the side-by-side card"))[0])
        # Every desk's finished turns (4 analysts, Bull, Bear, manager, trader, 3 risk analysts) get an Edit.
        edits = await alice.wait_for(lambda: len(actions(alice, EDIT_ACTION)) >= 22 and actions(alice, EDIT_ACTION),
                                     30, "the Edit buttons")
        assert {desk_of(alice.messages[a["forId"]]) for a in edits} == {"NVDA", "AMD"}
        assert len({a["forId"] for a in edits}) == 22
        threads = dict(re.findall(r"\[(NVDA|AMD)\]\(/thread/([0-9a-f-]{36})\)", card["output"]))
        nvda_checkpoints = checkpoints(server, threads["NVDA"])
        old = {(p, t): dict(turn_of(alice, p, t)) for p in ("Market Analyst", "Bull Researcher", "Bear Researcher")
               for t in ("NVDA", "AMD")}  # copies: the client updates its messages in place
        old_comparison = dict(alice.by_author("Comparison")[-1])
        old_amd_bear = old["Bear Researcher", "AMD"]["output"]

        asked: list[str] = []
        answering(alice, NEW_BULL, asked)
        start = len(alice.order)
        await alice.click(edit_for(alice, old["Bull Researcher", "AMD"]["id"]))
        # While AMD's desk re-runs, an edit of NVDA's is refused: stop first.
        await alice.wait_for(lambda: [m for m in turns(alice, start) if m["name"] == "Bear Researcher"], 60,
                             "AMD's Bear again")
        await alice.click(edit_for(alice, old["Bull Researcher", "NVDA"]["id"]))
        await alice.wait_for(lambda: [t for t in desk_said(alice, start) if "Stop the run first" in t], 30,
                             "the refusal while running")

        new_card = (await alice.wait_for(lambda: cards(alice, start), 120, "the card made again"))[0]
        # The question showed AMD's Bull's words now.
        assert asked and "AMD Bull Researcher" in asked[0]
        assert old["Bull Researcher", "AMD"]["output"].strip()[:60] in asked[0]
        # Only AMD's desk spoke again, from the edited Bull on; NVDA's said nothing.
        again = turns(alice, start)
        assert {desk_of(m) for m in again} == {"AMD"}
        assert list(dict.fromkeys(m["name"] for m in again)) == AFTER_BULL
        assert again[0]["output"].startswith(NEW_BULL)
        assert "EDITED BULL" in turn_of(alice, "Bear Researcher", "AMD", start)["output"]
        assert checkpoints(server, threads["NVDA"]) == nvda_checkpoints
        # Then the Comparison turn and the card, anew, the card saying what the edit changed.
        assert [m for m in alice.by_author("Comparison") if m["id"] != old_comparison["id"]]
        assert re.search(r"^> ✏️ \*\*AMD\*\* — Against the branch before the edit: "
                         r"(was (BUY|SELL|HOLD).* → now (BUY|SELL|HOLD)|the decision stands, (BUY|SELL|HOLD))",
                         new_card["output"], re.M), new_card["output"]
        assert re.search(r"\| 1 \| \*\*(NVDA|AMD)\*\* \| .+(BUY|SELL|HOLD) \|", new_card["output"])
        # Chainlit sends a message's elements after the message: the card's chart comes after it.
        await alice.wait_for(lambda: [d for n, d in alice.events if n == "element" and d.get("type") == "plotly"
                                      and d.get("forId") == new_card["id"]], 30, "the new card's chart")
        # What the edit outdated folds to one line: AMD's Bull and Bear, the Comparison, the card.
        for gone in (old["Bull Researcher", "AMD"], old["Bear Researcher", "AMD"], old_comparison, card):
            await alice.wait_for(lambda gone=gone: alice.messages[gone["id"]]["output"].startswith(SUPERSEDED), 30,
                                 f"{gone['name']} folded")
        assert old_amd_bear.split()[0] in alice.messages[old["Bear Researcher", "AMD"]["id"]]["output"]
        # NVDA's desk and AMD's analysts (before the edited turn) stay as they were.
        for kept in (old["Market Analyst", "AMD"], old["Market Analyst", "NVDA"], old["Bull Researcher", "NVDA"],
                     old["Bear Researcher", "NVDA"]):
            assert not alice.messages[kept["id"]]["output"].startswith(SUPERSEDED)
        # The folded turns lose their Edit; the new ones get one.
        removed = {d["forId"] for n, d in alice.events if n == "remove_action" and d.get("name") == EDIT_ACTION}
        assert {old["Bull Researcher", "AMD"]["id"], old["Bear Researcher", "AMD"]["id"]} <= removed
        new_bear = turn_of(alice, "Bear Researcher", "AMD", start)
        await alice.wait_for(lambda: [a for a in actions(alice, EDIT_ACTION) if a["forId"] == new_bear["id"]], 30,
                             "the new AMD Bear's Edit")

        # A stale button (the earlier AMD Bear's) pressed anyway is refused.
        before = len(alice.order)
        await alice.click(edit_for(alice, old["Bear Researcher", "AMD"]["id"]))
        await alice.wait_for(lambda: [t for t in desk_said(alice, before) if "current branch" in t], 30,
                             "the stale button's refusal")

        # Another user cannot edit: not by pressing alice's button in his own chat, nor in her session.
        bob = DeskClient(server.base, username="bob")
        await bob.connect()
        try:
            await bob.send("hello")
            await bob.wait_for(lambda: bob.thread_id and bob.by_author("Desk"), 30, "bob's thread")
            bob_asked: list[str] = []
            answering(bob, "hijacked words", bob_asked)
            await bob.click(edit_for(alice, new_bear["id"]))
            await bob.wait_for(lambda: [t for t in desk_said(bob) if "another chat" in t], 30, "bob refused")
            assert not bob_asked
            async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": bob.cookie}) as http:
                r = await http.post("/project/action", json={"sessionId": alice.session_id,
                                                             "action": edit_for(alice, new_bear["id"])})
                assert r.status_code in (401, 403)
        finally:
            await bob.close()
        assert checkpoints(server, threads["NVDA"]) == nvda_checkpoints
    finally:
        await alice.close()

    # Reopened: the stored thread shows the fold, and the current turns get their Edit buttons back.
    page = DeskClient(server.base, username="alice")
    await page.connect(thread_id=alice.thread_id or "", cookie=alice.cookie)
    try:
        resumed = await page.wait_for(lambda: [d for n, d in page.events if n == "resume_thread"], 20, "the thread")
        stored = {s["id"]: s for s in resumed[0]["steps"]}
        assert stored[old["Bear Researcher", "AMD"]["id"]]["output"].startswith(SUPERSEDED)
        assert "EDITED BULL" in stored[new_bear["id"]]["output"]
        offered = await page.wait_for(lambda: len(actions(page, EDIT_ACTION)) >= 22 and actions(page, EDIT_ACTION),
                                      20, "the Edit buttons back")
        assert new_bear["id"] in {a["forId"] for a in offered}
        assert not any(stored[a["forId"]]["output"].startswith(SUPERSEDED) for a in offered)
    finally:
        await page.close()
    assert "Traceback" not in server.log_text()[logged:]
