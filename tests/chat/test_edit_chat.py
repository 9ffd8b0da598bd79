"""Editing the past in the chat: which message shows which step, what an edit leaves behind, and
the whole path over the real server's socket (Edit, the question, the re-run, the collapsed
earlier branch, the decision change, switching back, refusals)."""
from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

import pytest

from chat.edits import (
    BRANCHES,
    CHANGED,
    EDIT_ACTION,
    EDIT_PROMPT_START,
    NOTE,
    OTHER_BRANCH,
    SUPERSEDED,
    SWITCH_ACTION,
    WORDS,
    branch_change,
    card_actions,
    card_change,
    match_messages,
    superseded_after,
)
from chat.kit.say import ASIDE
from chat.views.card import card_markdown
from graph.core.links import inert_links
from graph.core.personas import DEFAULT_ANALYSTS as ANALYSTS  # the default analysis' (no Macro Analyst)
from graph.core.state import FinalDecision
from graph.runtime.branches import ORIGINAL, Step
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, actions


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


def test_a_turn_whose_words_hold_a_link_matches_the_message_that_shows_them_inert():
    said = "See ![chart](https://evil.example/x.png) and https://evil.example/b first."
    steps = [step("news-1", "News Analyst", said)]
    messages = [msg("n1", "News Analyst", inert_links(said))]  # as chat/views/render.py showed it
    assert match_messages(steps, messages) == {"news-1": "n1"}


def test_an_edit_leaves_behind_the_edited_message_and_everything_after_it_but_earlier_turns():
    messages = [msg("d", "Desk", "Analyzing NVDA"), msg("m", "Market Analyst", "m"), msg("s", "Social Analyst", "s"),
                msg("b", "Bull Researcher", "b"), msg("ask", "Desk", f"{EDIT_PROMPT_START} the Bull"),
                msg("x", "Bear Researcher", f"{SUPERSEDED} of ..."), msg("c", "Desk", "card"),
                msg("q", "tester", "why?", "user_message")]
    left = superseded_after(messages, "m", kept=["s"])
    # The person's own question stays as they wrote it (issue 35, point 5): only the desk's words fold.
    assert [m["id"] for m in left] == ["m", "b", "c"]
    assert superseded_after(messages, "nope", kept=[]) == []


def test_the_persons_own_messages_are_on_every_branch_and_never_folded():
    stored = {**msg("s", "Desk", "Stored. Your book …"), "metadata": {ASIDE: True}}  # a feature's (the book's)
    messages = [msg("q1", "tester", "NVDA?", "user_message"), msg("b", "Bull Researcher", "b"),
                msg("c", "Desk", "card"), msg("q2", "tester", "why was the judge cautious?", "user_message"),
                msg("a", "Desk", "From the stored deliberation…"), stored]
    assert [m["id"] for m in superseded_after(messages, "b", kept=[])] == ["b", "c", "a"]
    switch(messages, ORIGINAL, "e1", superseded=["b", "c", "a"])
    assert shown(messages) == ["q1", "q2", "s"]
    messages += [msg("b2", "Bull Researcher", "b2"), msg("q3", "tester", "and now?", "user_message")]
    switch(messages, "e1", ORIGINAL)
    assert shown(messages) == ["q1", "b", "c", "q2", "a", "s", "q3"]
    assert all(BRANCHES not in (m.get("metadata") or {}) for m in messages if m["type"] == "user_message")
    # A question an earlier build folded comes back at the next change.
    folded = {**msg("q0", "tester", f"{SUPERSEDED} of the Bull", "user_message"), "metadata": {WORDS: "why?"}}
    switch([folded], ORIGINAL, "e2")
    assert WORDS not in folded["metadata"]


def shown(messages: list[dict]) -> list[str]:
    return [m["id"] for m in messages if WORDS not in (m.get("metadata") or {})]


def switch(messages: list[dict], leaving: str, entering: str, superseded=None) -> list[dict]:
    """branch_change, applied as chat/edits.py stores it (the words aside while collapsed)."""
    by_id = {m["id"]: m for m in messages}
    for change in branch_change(messages, leaving, entering, superseded):
        meta = change.message["metadata"]
        if change.show is False:
            meta[WORDS] = change.message["output"]
        elif change.show is True:
            meta.pop(WORDS)
        by_id[change.message["id"]]["metadata"] = meta
    return messages


def test_a_fork_then_switches_show_each_branch_and_only_it():
    notice = msg("n", "Desk", "Demo mode", "system_message")
    messages = [notice, msg("m", "Market Analyst", "m"), msg("b", "Bull Researcher", "b"),
                msg("ask", "Desk", f"{EDIT_PROMPT_START} the Bull"), msg("x", "Bear Researcher", "x"),
                msg("c", "Desk", "card")]
    # The edit of the Bull leaves the Bull, the Bear and the card behind.
    switch(messages, ORIGINAL, "e1", superseded=["b", "x", "c"])
    assert shown(messages) == ["n", "m", "ask"]
    assert messages[1]["metadata"][BRANCHES] == [ORIGINAL, "e1"] and messages[2]["metadata"][BRANCHES] == [ORIGINAL]
    assert BRANCHES not in (messages[3].get("metadata") or {})  # the question is a note: on every branch
    # The fork's run, then a Desk note about it.
    messages += [msg("b2", "Bull Researcher", "b2"), msg("x2", "Bear Researcher", "x2"), msg("c2", "Desk", "card2"),
                 {**msg("note", "Desk", "Now on…"), "metadata": {NOTE: True}}]
    assert shown(messages) == ["n", "m", "ask", "b2", "x2", "c2", "note"]
    # Back to the original: the fork's messages fold away, the original's come back.
    switch(messages, "e1", ORIGINAL)
    assert shown(messages) == ["n", "m", "b", "ask", "x", "c", "note"]
    # A follow-up there, then forward again: its answer is the original's; the person's question stays as they
    # asked it (issue 35, point 5), on every branch.
    messages += [msg("q", "tester", "why?", "user_message"), msg("a", "Desk", "because")]
    switch(messages, ORIGINAL, "e1")
    assert shown(messages) == ["n", "m", "ask", "b2", "x2", "c2", "note", "q"]
    # Nothing left to change when the branch is already shown.
    assert branch_change(messages, "e1", "e1") == []
    # An edit of the fork's Bear: the new fork keeps what the fork shares, not the original's turns.
    switch(messages, "e1", "e2", superseded=["x2", "c2"])
    assert shown(messages) == ["n", "m", "ask", "b2", "note", "q"]
    switch(messages, "e2", ORIGINAL)
    assert shown(messages) == ["n", "m", "b", "ask", "x", "c", "note", "q", "a"]


def test_the_card_says_what_the_edit_changed():
    decision = FinalDecision(ticker="NVDA", trade_date="2024-05-01", signal="HOLD", position_size="0%",
                             entry="n/a", stop="n/a", horizon="2w", confidence=0.55, rationale="Wait.")
    was = decision.model_copy(update={"signal": "SELL", "position_size": "1.8% of portfolio", "confidence": 0.8})
    state = {"final_decision": decision,
             "forked": {"label": "Bull Researcher, round 1", "parent_head": "cp-1", "parent_decision": was}}
    change = card_change(state)
    assert change and change.startswith(CHANGED) and "was SELL 1.8% at 0.80 → now HOLD at 0.55" in change
    card = card_markdown(decision, "demo data", change).splitlines()
    assert card[0].startswith("## ") and card[2] == f"> {change}" and card[4].startswith("| **Signal**")
    assert [a.payload["to"] for a in card_actions("t", state, register=False)] == ["cp-1"]
    # An unedited branch, or a fork still running: no line, no button.
    assert card_change({"final_decision": decision}) is None and card_actions("t", {}, register=False) == []
    assert card_change({**state, "final_decision": None}) is None
    assert f"> {CHANGED}" not in card_markdown(decision, "demo data")


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


def removed(client: DeskClient, name: str) -> set[str]:
    """The messages whose `name` action was taken away."""
    return {d["forId"] for n, d in client.events if n == "remove_action" and d.get("name") == name}


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
        market_id = client.by_author("Market Analyst")[-1]["id"]
        old_bull = client.messages[bull_id]["output"].strip()
        old_bear = client.messages[bear_id]["output"]
        old_card = [m for m in client.by_author("Desk") if "**Signal**" in m.get("output", "")][-1]

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
        new_bear_id = client.by_author("Bear Researcher")[-1]["id"]
        # The Bear answered the edited words (the demo quotes the turn it answers briefly).
        assert "EDITED BULL" in client.messages[new_bear_id]["output"]
        # The earlier branch's messages are collapsed in place, their first words left; the
        # analysts' reports before the edit are shared by both branches and stay.
        for gone in (bull_id, bear_id, old_card["id"]):
            await client.wait_for(lambda gone=gone: client.messages[gone]["output"].startswith(SUPERSEDED), 30,
                                  "the collapse")
        assert not client.messages[market_id]["output"].startswith(SUPERSEDED)
        assert old_bear.split()[0] in client.messages[bear_id]["output"]  # its first words
        # ... and lose their Edit buttons.
        assert {bull_id, bear_id} <= removed(client, EDIT_ACTION) and market_id not in removed(client, EDIT_ACTION)
        # The new card says what changed, and offers the way back.
        card = [m for m in client.by_author("Desk") if "**Signal**" in m.get("output", "")][-1]
        assert card["id"] != old_card["id"] and CHANGED in card["output"]
        assert re.search(r"(was \w+ .* → now \w+|the decision stands, \w+)", card["output"])
        assert not [t for t in desk_said(client, start) if "changed:" in t and "**Signal**" not in t]  # not said twice
        back = await client.wait_for(lambda: [a for a in actions(client, SWITCH_ACTION) if a["forId"] == card["id"]],
                                     30, "the way back")
        # New Edit buttons for the new branch's turns.
        await client.wait_for(lambda: any(a["forId"] == new_bear_id for a in actions(client, EDIT_ACTION)), 30,
                              "the new Bear's Edit")

        # A stale button (the earlier Bear's, taken off the page) pressed anyway is refused.
        before = len(client.order)
        await client.click(by_message[bear_id])
        refused = await client.wait_for(lambda: [t for t in desk_said(client, before) if "current branch" in t], 30,
                                        "the refusal")
        assert "cannot be edited" in refused[0]

        # Switch back: the original's messages come back in place, the fork's fold away.
        before = len(client.order)
        await client.click(back[0])
        notice = await client.wait_for(lambda: [m for m in client.by_author("Desk")[-3:]
                                                if "Follow-ups answer" in m.get("output", "")], 10, "the switch")
        await client.wait_for(lambda: client.messages[bear_id]["output"] == old_bear, 30, "the Bear's words back")
        assert client.messages[old_card["id"]]["output"] == old_card["output"]
        assert client.messages[new_bear_id]["output"].startswith(OTHER_BRANCH)
        assert client.messages[card["id"]]["output"].startswith(OTHER_BRANCH)
        assert {new_bear_id, card["id"]} <= removed(client, EDIT_ACTION) | removed(client, SWITCH_ACTION)
        assert card["id"] in removed(client, SWITCH_ACTION)
        # The original's turns can be edited again.
        await client.wait_for(lambda: [a for a in actions(client, EDIT_ACTION)[len(edits):] if a["forId"] == bear_id],
                              30, "the Bear's Edit back")
        before = len(client.order)
        await client.send("what did the bull say?")
        await client.wait_for(lambda: stops_removed(client) >= 3, 30, "the follow-up")
        answer = desk_said(client, before)[-1]
        assert "EDITED BULL" not in answer
        follow_up = [i for i in client.order[before:] if client.messages[i].get("type") == "assistant_message"][-1]

        # And forward again: the fork's messages back, the original's (and its follow-up) folded.
        forward = [a for a in actions(client, SWITCH_ACTION) if a["forId"] == notice[0]["id"]]
        await client.click(forward[0])
        await client.wait_for(lambda: CHANGED in client.messages[card["id"]]["output"], 30, "the fork's card back")
        assert "EDITED BULL" in client.messages[new_bear_id]["output"]
        assert client.messages[bear_id]["output"].startswith(OTHER_BRANCH)
        await client.wait_for(lambda: client.messages[follow_up]["output"].startswith(OTHER_BRANCH), 30,
                              "the follow-up folded")
        await client.wait_for(lambda: [a for a in actions(client, SWITCH_ACTION)[2:] if a["forId"] == card["id"]],
                              30, "the card's way back again")

        # An edit while a run is in flight is refused.
        current_trader = [a for a in actions(client, EDIT_ACTION)
                          if client.messages.get(a["forId"], {}).get("name") == "Trader"][-1]
        await client.send("Should I buy NVDA on 2024-05-01?")
        await client.wait_for(lambda: any(m.get("streaming") for m in client.by_author("Market Analyst")), 30,
                              "the next run")
        before = len(client.order)
        await client.click(current_trader)
        await client.wait_for(lambda: [t for t in desk_said(client, before) if "Stop the run first" in t], 30,
                              "the refusal while running")
        await client.wait_for(lambda: stops_removed(client) >= 4, 120, "the run's end")
    finally:
        await client.close()

    # Reopened (a new session on the thread): the page shows what was stored, the fork current;
    # the current branch's turns get their Edit buttons back, collapsed ones none.
    reopened = DeskClient(server.base)
    await reopened.connect(thread_id=client.thread_id, cookie=client.cookie)
    try:
        resumed = await reopened.wait_for(lambda: [d for n, d in reopened.events if n == "resume_thread"], 20,
                                          "the thread")
        stored = {s["id"]: s for s in resumed[0]["steps"]}
        assert "EDITED BULL" in stored[new_bear_id]["output"] and CHANGED in stored[card["id"]]["output"]
        assert stored[bear_id]["output"].startswith(OTHER_BRANCH) and stored[bull_id]["output"].startswith(OTHER_BRANCH)
        assert stored[follow_up]["output"].startswith(OTHER_BRANCH)
        assert stored[market_id]["output"] == client.messages[market_id]["output"]
        again = await reopened.wait_for(lambda: len(actions(reopened, EDIT_ACTION)) >= 11
                                        and actions(reopened, EDIT_ACTION), 20, "the Edit buttons")
        assert {stored[a["forId"]]["name"] for a in again} >= {"Market Analyst", "Bull Researcher", "Trader"}
        assert not any(stored[a["forId"]]["output"].startswith((SUPERSEDED, OTHER_BRANCH)) for a in again)
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
            await other.wait_for(lambda: other.thread_id, 30, "the other thread")
            asked: list[str] = []
            answering(other, "hijacked words", asked)
            await other.click(edit[0])  # the owner's action, pressed in another user's session
            await other.wait_for(lambda: [t for t in desk_said(other, 0) if "another chat" in t], 30, "the refusal")
            assert not asked
        finally:
            await other.close()
        # Nor can a session of the other user press it in the owner's session.
        async with __import__("httpx").AsyncClient(base_url=server.base, headers={"Cookie": other.cookie}) as http:
            r = await http.post("/project/action", json={"sessionId": owner.session_id, "action": edit[0]})
            assert r.status_code in (401, 403)
    finally:
        await owner.close()
