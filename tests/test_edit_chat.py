"""Editing the past in the chat: which message shows which step, what an edit leaves behind, and
the whole path over the real server's socket (Edit, the question, the re-run, the collapsed
earlier branch, the decision change, switching back, refusals)."""
from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

import pytest

from chat.edits import EDIT_ACTION, EDIT_PROMPT_START, SUPERSEDED, SWITCH_ACTION, match_messages, superseded_after
from graph.branches import Step
from graph.personas import ANALYSTS
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient


def step(id_: str, persona: str, text: str) -> Step:
    return Step(id_, persona, persona, text, f"cp-{id_}", "node")


def msg(id_: str, name: str, output: str, type_: str = "assistant_message") -> dict:
    return {"id": id_, "name": name, "output": output, "type": type_}


def test_steps_are_matched_to_the_newest_messages_that_hold_their_words():
    steps = [step("bull-1", "Bull Researcher", "Up we go."), step("bear-1", "Bear Researcher", "Down.\n\nSee."),
             step("bull-2", "Bull Researcher", "Up we go.")]
    messages = [
        msg("old-bull", "Bull Researcher", "Up we go."),            # an earlier analysis, same words
        msg("u1", "tester", "NVDA?", "user_message"),
        msg("b1", "Bull Researcher", "\n\nUp we go."),              # streamed with a paragraph break
        msg("tool", "get_indicators", "Up we go.", "tool"),         # not a message
        msg("r1", "Bear Researcher", "Down.\nSee."),
        msg("b2", "Bull Researcher", "Up  we go."),
        msg("gone", "Bear Researcher", f"{SUPERSEDED} of the Bull Researcher"),
    ]
    assert match_messages(steps, messages) == {"bull-2": "b2", "bull-1": "b1", "bear-1": "r1"}
    assert match_messages(steps, []) == {}


def test_an_edit_leaves_behind_the_edited_message_and_everything_after_it_but_earlier_turns():
    messages = [msg("d", "Desk", "Analyzing NVDA"), msg("m", "Market Analyst", "m"), msg("s", "Social Analyst", "s"),
                msg("b", "Bull Researcher", "b"), msg("ask", "Desk", f"{EDIT_PROMPT_START} the Bull"),
                msg("x", "Bear Researcher", f"{SUPERSEDED} of ..."), msg("c", "Desk", "card"),
                msg("q", "tester", "why?", "user_message")]
    left = superseded_after(messages, "m", kept=["s"])
    assert [m["id"] for m in left] == ["m", "b", "c", "q"]
    assert superseded_after(messages, "nope", kept=[]) == []


# -- over the socket ------------------------------------------------------------------------------

NEW_BULL = "EDITED BULL: the data center backlog is the whole story here; buy the dip."


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("desk-edit"), DESK_DEMO_DELAY_MS="2")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def stops_removed(client: DeskClient) -> int:
    """Runs finished: each ends by removing its Stop action."""
    return sum(1 for name, data in client.events if name == "remove_action" and data.get("name") == "stop_run")


def actions(client: DeskClient, name: str) -> list[dict]:
    return [data for n, data in client.events if n == "action" and data.get("name") == name]


def answering(client: DeskClient, reply: str, asked: list) -> None:
    """Answer the server's questions (AskUserMessage) as the browser does: the reply is the ack."""
    async def ask(data):
        asked.append(data["msg"]["output"])
        return {"id": str(uuid.uuid4()), "threadId": client.thread_id, "name": client.username,
                "type": "user_message", "output": reply, "createdAt": datetime.now(UTC).isoformat()}
    client.sio.on("ask", ask)


def desk_said(client: DeskClient, since: int) -> list[str]:
    return [client.messages[i].get("output", "") for i in client.order[since:]
            if client.messages[i].get("name") == "Desk"]


@pytest.mark.e2e
async def test_edit_the_bull_in_the_chat(server):
    client = DeskClient(server.base)
    await client.connect()
    try:
        await client.wait_for(lambda: client.by_author("Desk"), 15, "the mode notice")
        await client.send("Should I buy NVDA today?")
        await client.wait_for(lambda: stops_removed(client) >= 1, 120, "the decision")
        edits = await client.wait_for(lambda: len(actions(client, EDIT_ACTION)) >= 11 and actions(client, EDIT_ACTION),
                                      20, "the Edit buttons")
        # One Edit per finished contribution, on that persona's message.
        by_message = {a["forId"]: a for a in edits}
        assert len(by_message) == 11
        assert sorted(client.messages[m]["name"] for m in by_message) == sorted(
            [a.persona for a in ANALYSTS] + ["Bull Researcher", "Bear Researcher", "Research Manager", "Trader",
                                             "Risky Analyst", "Safe Analyst", "Neutral Analyst"])
        bull_id = client.by_author("Bull Researcher")[-1]["id"]
        bear_id = client.by_author("Bear Researcher")[-1]["id"]
        old_bull = client.messages[bull_id]["output"].strip()

        asked: list[str] = []
        answering(client, NEW_BULL, asked)
        start = len(client.order)
        await client.click(by_message[bull_id])
        await client.wait_for(lambda: stops_removed(client) >= 2, 120, "the re-run")
        # The question showed the words being replaced.
        assert asked and "Bull Researcher" in asked[0] and old_bull[:60] in asked[0]
        # Only what follows the Bull spoke again, after the edited words; no analyst ran.
        after = [a for a in client.authors(start) if a != "Desk"]
        assert after[0] == "Bull Researcher"
        assert after[1:] == ["Bear Researcher", "Research Manager", "Trader", "Risky Analyst", "Safe Analyst",
                             "Neutral Analyst", "Risk Judge"]
        new_bear = client.by_author("Bear Researcher")[-1]["output"]
        assert NEW_BULL[:40] in new_bear  # the Bear answered the edited words
        # The earlier branch's messages are collapsed in place, their words kept beside them.
        assert client.messages[bear_id]["output"].startswith(SUPERSEDED)
        assert client.messages[bull_id]["output"].startswith(SUPERSEDED)
        side = [d for n, d in client.events if n == "element" and d.get("forId") == bear_id]
        assert side and side[0]["display"] == "side"
        # The decision change is said, with a way back.
        change = await client.wait_for(lambda: [t for t in desk_said(client, start) if "changed:" in t], 20,
                                       "the change")
        assert re.search(r"(was \w+ .* → now \w+|unchanged: \w+)", change[0])
        back = await client.wait_for(lambda: actions(client, SWITCH_ACTION), 10, "the switch")
        # New Edit buttons for the new branch's turns.
        assert any(a["forId"] == client.by_author("Bear Researcher")[-1]["id"] for a in actions(client, EDIT_ACTION))

        # A stale button (the earlier Bear) is refused.
        before = len(client.order)
        await client.click(by_message[bear_id])
        refused = await client.wait_for(lambda: [t for t in desk_said(client, before) if "current branch" in t], 10,
                                        "the refusal")
        assert "cannot be edited" in refused[0]

        # Switch back: follow-ups answer from the earlier branch.
        before = len(client.order)
        await client.click(back[0])
        await client.wait_for(lambda: [t for t in desk_said(client, before) if "Follow-ups answer" in t], 10,
                              "the switch")
        before = len(client.order)
        await client.send("what did the bull say?")
        await client.wait_for(lambda: stops_removed(client) >= 3, 30, "the follow-up")
        answer = desk_said(client, before)[-1]
        assert "EDITED BULL" not in answer

        # An edit while a run is in flight is refused.
        current_bull = [a for a in actions(client, EDIT_ACTION)
                        if client.messages.get(a["forId"], {}).get("name") == "Trader"][-1]
        await client.send("Should I buy NVDA on 2024-05-01?")
        await client.wait_for(lambda: any(m.get("streaming") for m in client.by_author("Market Analyst")), 30,
                              "the next run")
        before = len(client.order)
        await client.click(current_bull)
        await client.wait_for(lambda: [t for t in desk_said(client, before) if "Stop the run first" in t], 10,
                              "the refusal while running")
        await client.wait_for(lambda: stops_removed(client) >= 4, 120, "the run's end")
    finally:
        await client.close()

    # Reopened (a new session on the thread): the current branch's turns get their Edit buttons back.
    reopened = DeskClient(server.base)
    await reopened.connect(thread_id=client.thread_id, cookie=client.cookie)
    try:
        resumed = await reopened.wait_for(lambda: [d for n, d in reopened.events if n == "resume_thread"], 20,
                                          "the thread")
        stored = {s["id"]: s for s in resumed[0]["steps"]}
        again = await reopened.wait_for(lambda: len(actions(reopened, EDIT_ACTION)) >= 11
                                        and actions(reopened, EDIT_ACTION), 20, "the Edit buttons")
        assert {stored[a["forId"]]["name"] for a in again} >= {"Market Analyst", "Bull Researcher", "Trader"}
        assert not any(stored[a["forId"]]["output"].startswith(SUPERSEDED) for a in again)
    finally:
        await reopened.close()


@pytest.mark.e2e
async def test_another_users_session_cannot_edit_this_thread(server):
    owner = DeskClient(server.base, username="owner-edit")
    await owner.connect()
    try:
        await owner.send("Should I buy NVDA today?")
        await owner.wait_for(lambda: stops_removed(owner) >= 1, 120, "the decision")
        edit = await owner.wait_for(lambda: actions(owner, EDIT_ACTION), 20, "an Edit button")
        other = DeskClient(server.base, username="someone-else")
        await other.connect()
        try:
            await other.send("hello")
            await other.wait_for(lambda: other.thread_id, 10, "the other thread")
            asked: list[str] = []
            answering(other, "hijacked words", asked)
            await other.click(edit[0])  # the owner's action, pressed in another user's session
            await other.wait_for(lambda: [t for t in desk_said(other, 0) if "another chat" in t], 10, "the refusal")
            assert not asked
        finally:
            await other.close()
        # Nor can a session of the other user press it in the owner's session.
        async with __import__("httpx").AsyncClient(base_url=server.base, headers={"Cookie": other.cookie}) as http:
            r = await http.post("/project/action", json={"sessionId": owner.session_id, "action": edit[0]})
            assert r.status_code in (401, 403)
    finally:
        await owner.close()
