"""The desk on LangGraph Server: `langgraph dev` (langgraph.json, graph id `desk`) on a loopback
port in demo mode, driven with langgraph-sdk as Studio or Agent Chat UI would drive it, as the
accounts alice and bob (HTTP Basic, graph/server_auth.py).

One analysis is run for the module (the server is slow to start); the tests read what it
streamed and what the thread kept. The server's auth is attacked here too (issue 20, point 4):
bob against alice's thread, and clients without an account.
"""
from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from langgraph.store.memory import InMemoryStore
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

from graph import note_item
from graph.core.personas import DEFAULT_ANALYSTS as ANALYSTS  # the default analysis' (no Macro Analyst)
from graph.notes.inbox import Inbox, Note
from tests.support.langgraph_dev import LangGraphDev

QUESTION = "should I buy NVDA today?"
NOTE = "what about the China export ban?"
ANALYST_PERSONAS = {a.persona for a in ANALYSTS}
# After the analysts, one speaker at a time (one round each by default).
SPEAKERS = ["Bull Researcher", "Bear Researcher", "Research Manager", "Trader",
            "Risky Analyst", "Safe Analyst", "Neutral Analyst", "Risk Judge"]
# The server's accounts (the chat's accounts file in its DESK_DATA_DIR). carol is for the throttle.
ACCOUNTS = {"alice": "alice's passphrase", "bob": "bob's passphrase", "carol": "carol's passphrase"}


def basic(name: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()}


def client_of(url: str, name: str) -> SyncLangGraphClient:
    return get_sync_client(url=url, headers=basic(name, ACCOUNTS[name]))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LangGraphDev]:
    dev = LangGraphDev(tmp_path_factory.mktemp("langgraph_dev"), ACCOUNTS)
    try:
        dev.start()
        yield dev
    finally:
        dev.stop()


@pytest.fixture(scope="module")
def client(server: LangGraphDev) -> SyncLangGraphClient:
    """alice's."""
    return client_of(server.url, "alice")


@pytest.fixture(scope="module")
def bob(server: LangGraphDev) -> SyncLangGraphClient:
    return client_of(server.url, "bob")


@dataclass
class Analysis:
    thread_id: str
    events: list[tuple[str, Any]] = field(default_factory=list)   # ("token", persona) etc., in order
    state: dict[str, Any] = field(default_factory=dict)
    errors: list[Any] = field(default_factory=list)

    def first_tokens(self) -> list[str]:
        """Personas in the order their first token arrived."""
        seen: list[str] = []
        for kind, what in self.events:
            if kind == "token" and what not in seen:
                seen.append(what)
        return seen

    def customs(self, event: str) -> list[dict[str, Any]]:
        return [what for kind, what in self.events if kind == "custom" and what.get("event") == event]


def post_note(client: SyncLangGraphClient, thread_id: str, text: str) -> None:
    """An interjection through the server's store API, into the inbox the next speaker reads."""
    client.store.put_item(*note_item(thread_id, text))  # a unique key: no need to read the inbox first


def stream(client: SyncLangGraphClient, thread_id: str, text: str, analysis: Analysis,
           note: str | None = None) -> None:
    """Run one message on the thread; post `note` once the first analyst speaks."""
    for part in client.runs.stream(thread_id, "desk", input={"messages": [{"role": "user", "content": text}]},
                                   stream_mode=["messages-tuple", "updates", "custom"]):
        if part.event == "messages":
            chunk, meta = part.data
            persona = meta.get("persona")
            if persona and chunk.get("content"):
                analysis.events.append(("token", persona))
                if note and persona in ANALYST_PERSONAS:
                    post_note(client, thread_id, note)
                    analysis.events.append(("posted", note))
                    note = None
        elif part.event == "custom":
            analysis.events.append(("custom", part.data))
        elif part.event == "updates":
            analysis.events.extend(("node", node) for node in part.data)
        elif part.event == "error":
            analysis.errors.append(part.data)
    analysis.state = client.threads.get_state(thread_id)["values"]


@pytest.fixture(scope="module")
def analysis(client: SyncLangGraphClient) -> Analysis:
    """No context, no config: the defaults (the real today, the settings' models)."""
    done = Analysis(client.threads.create()["thread_id"])
    stream(client, done.thread_id, QUESTION, done, note=NOTE)
    return done


@pytest.fixture(scope="module")
def followup(client: SyncLangGraphClient, analysis: Analysis) -> Analysis:
    after = Analysis(analysis.thread_id)
    stream(client, analysis.thread_id, "why was the bear worried?", after)
    return after


def test_a_note_item_is_what_the_inbox_reads() -> None:
    """The store item the SDK puts is the one graph/notes/inbox.py reads, after the notes posted before it."""
    store = InMemoryStore()

    async def post_and_read() -> tuple[Note, list[Note]]:
        first = await Inbox(store).post("t1", "first")
        namespace, key, value = note_item("t1", "second", to="Bear Researcher")
        await store.aput(tuple(namespace), key, value)
        return first, await Inbox(store).unread("t1", [first.key])

    first, [second] = asyncio.run(post_and_read())
    assert (second.text, second.to) == ("second", "Bear Researcher")
    assert second.key != first.key and second.seq != first.seq


@pytest.mark.e2e
def test_the_desk_is_served_under_its_id(client: SyncLangGraphClient) -> None:
    (assistant,) = client.assistants.search(graph_id="desk")
    # Studio draws the graph and shows the run context (DeskContext) as a form.
    nodes = {n["id"] for n in client.assistants.get_graph(assistant["assistant_id"])["nodes"]}
    assert {"coordinator", "followup", "bull", "bear", "risk_judge"} <= nodes
    schemas = client.assistants.get_schemas(assistant["assistant_id"])
    assert {"today", "quick_model", "deep_model"} <= set(schemas["context_schema"]["properties"])


@pytest.mark.e2e
def test_every_persona_streams_in_turn(analysis: Analysis) -> None:
    assert analysis.errors == []
    order = analysis.first_tokens()
    assert set(order[:4]) == ANALYST_PERSONAS  # in parallel, in any order
    assert order[4:] == SPEAKERS
    tools = {e["persona"] for e in analysis.customs("tool_finished")}
    assert tools == ANALYST_PERSONAS


@pytest.mark.e2e
def test_the_run_reaches_a_decision(analysis: Analysis) -> None:
    decision = analysis.state["final_decision"]
    assert decision["signal"] in {"BUY", "SELL", "HOLD"}
    assert decision["ticker"] == "NVDA"
    # The thread keeps the conversation: Desk's reading of the request, then every turn.
    said = [m["name"] for m in analysis.state["messages"] if m["type"] == "ai"]
    assert said[0] == "Desk" and set(said[1:5]) == ANALYST_PERSONAS and said[5:] == SPEAKERS


@pytest.mark.e2e
def test_a_note_put_in_the_store_reaches_the_next_speaker(analysis: Analysis) -> None:
    (picked,) = analysis.customs("note_picked_up")
    assert picked["text"] == NOTE
    # Posted while the analysts spoke (they had read the inbox already): the first speaker after them.
    assert picked["persona"] == SPEAKERS[0]
    assert analysis.events.index(("posted", NOTE)) < analysis.events.index(("token", SPEAKERS[0]))
    (recorded,) = analysis.state["interventions"]
    assert recorded == {"seq": picked["seq"], "text": NOTE, "answered_by": [SPEAKERS[0]]}
    answer = next(m for m in analysis.state["messages"] if m.get("name") == SPEAKERS[0])
    assert NOTE in answer["content"]


@pytest.mark.e2e
def test_a_followup_is_answered_from_the_thread(analysis: Analysis, followup: Analysis) -> None:
    assert followup.errors == []
    assert [what for kind, what in followup.events if kind == "node"] == ["coordinator", "followup"]
    assert followup.first_tokens() == ["Desk"]
    answer = followup.state["messages"][-1]
    assert answer["name"] == "Desk" and "Bear" in answer["content"]
    assert followup.state["final_decision"] == analysis.state["final_decision"]


@pytest.mark.e2e
def test_a_context_sent_as_json_sets_the_date(client: SyncLangGraphClient) -> None:
    thread_id = client.threads.create()["thread_id"]
    # Stopped after the coordinator: the request is all this test needs.
    client.runs.wait(thread_id, "desk", input={"messages": [{"role": "user", "content": QUESTION}]},
                     context={"today": "2024-05-04"}, interrupt_after=["coordinator"])
    values = client.threads.get_state(thread_id)["values"]
    assert (values["asked_date"], values["trade_date"]) == ("2024-05-04", "2024-05-03")  # a Saturday: Friday


# -- auth: the attack of issue 20, point 4 -------------------------------------------------------------
# Before, `langgraph.json` had no `auth`: any client listed, read, relabelled, posted a note into and
# deleted any thread. Now every request needs an account, and a user touches only their own threads.

def status_of(call: Any) -> int:
    """The HTTP status a refused SDK call got."""
    with pytest.raises(httpx.HTTPStatusError) as refused:
        call()
    return refused.value.response.status_code


def stopped_run(client: SyncLangGraphClient, thread_id: str) -> dict[str, Any]:
    """A run on the thread stopped after the coordinator (the request is all these tests need)."""
    return client.runs.wait(thread_id, "desk", input={"messages": [{"role": "user", "content": QUESTION}]},
                            interrupt_after=["coordinator"])


@pytest.mark.e2e
def test_without_an_account_nothing_is_served(server: LangGraphDev) -> None:
    thread = {"metadata": {}}
    note = {"namespace": ["inbox", "00000000-0000-4000-8000-000000000000"], "key": "k", "value": {"text": "x"}}
    for headers in ({}, basic("alice", "not her passphrase"), basic("nobody", "any password"),
                    {"Authorization": "Bearer alice's passphrase"}, {"Authorization": "Basic not-base64!"},
                    # `langgraph dev` takes this header as LangSmith Studio's, unchecked, unless
                    # langgraph.json disables Studio's auth
                    {"x-auth-scheme": "langsmith"}):
        with httpx.Client(base_url=server.url, headers=headers) as anyone:
            assert anyone.post("/threads/search", json={}).status_code == 401, headers
            assert anyone.post("/threads", json=thread).status_code == 401, headers
            assert anyone.post("/assistants/search", json={}).status_code == 401, headers
            assert anyone.put("/store/items", json=note).status_code == 401, headers
    # The desk's account names are case-insensitive, as in the chat.
    with httpx.Client(base_url=server.url, headers=basic(" ALICE", ACCOUNTS["alice"])) as alice:
        assert alice.post("/threads/search", json={}).status_code == 200


@pytest.mark.e2e
def test_guessing_a_password_is_throttled(server: LangGraphDev) -> None:
    """As the chat's logins: 5 wrong passwords for a name, then it is locked (1 s, 2 s, 4 s…), and
    while it is, the right password is refused too (the answer tells a guesser nothing)."""
    with httpx.Client(base_url=server.url) as http:
        def search(password: str) -> httpx.Response:
            return http.post("/threads/search", json={}, headers=basic("carol", password))
        assert [search(f"guess {i}").status_code for i in range(5)] == [401] * 5
        locked = search("guess 5")
        assert locked.status_code == 429 and int(locked.headers["Retry-After"]) >= 1
        assert search(ACCOUNTS["carol"]).status_code == 429
        time.sleep(int(locked.headers["Retry-After"]) + 0.2)
        assert search(ACCOUNTS["carol"]).status_code == 200


@pytest.mark.e2e
def test_another_user_cannot_touch_a_thread(client: SyncLangGraphClient, bob: SyncLangGraphClient) -> None:
    alice = client
    thread_id = alice.threads.create(metadata={"label": "alice's NVDA"})["thread_id"]
    run = stopped_run(alice, thread_id)
    run_id = alice.runs.list(thread_id)[0]["run_id"]
    assert run["ticker"] == "NVDA"
    post_note(alice, thread_id, "alice's own note")
    cron_id = alice.crons.create_for_thread(thread_id, "desk", schedule="0 0 1 1 *",
                                            input={"messages": [{"role": "user", "content": QUESTION}]})["cron_id"]

    # list
    assert thread_id not in {t["thread_id"] for t in bob.threads.search(limit=100)}
    assert bob.threads.search(metadata={"owner": "alice"}) == []
    assert bob.crons.search() == []
    # read
    assert status_of(lambda: bob.threads.get(thread_id)) == 404
    assert status_of(lambda: bob.threads.get_state(thread_id)) == 404
    assert status_of(lambda: bob.threads.get_history(thread_id)) == 404
    assert status_of(lambda: bob.runs.list(thread_id)) == 404
    assert status_of(lambda: bob.runs.get(thread_id, run_id)) == 404
    # relabel, or take it over by its id
    assert status_of(lambda: bob.threads.update(thread_id, metadata={"label": "bob's now"})) == 404
    assert status_of(lambda: bob.threads.update(thread_id, metadata={"owner": "bob"})) == 404
    assert status_of(lambda: bob.threads.create(thread_id=thread_id, if_exists="do_nothing")) == 409
    assert status_of(lambda: bob.threads.copy(thread_id)) in {403, 404, 409}
    # run on it, or schedule runs on it
    assert status_of(lambda: stopped_run(bob, thread_id)) == 404
    assert status_of(lambda: bob.runs.cancel(thread_id, run_id)) == 404
    assert status_of(lambda: bob.crons.create_for_thread(thread_id, "desk", schedule="0 0 1 1 *",
                                                         input={"messages": []})) == 404
    # post a note into its inbox (the next speaker would read it), or read or delete its notes
    assert status_of(lambda: bob.store.put_item(*note_item(thread_id, "bob's note"))) == 403
    assert status_of(lambda: bob.store.search_items(["inbox", thread_id])) == 403
    assert status_of(lambda: bob.store.get_item(["inbox", thread_id], "any")) == 403
    assert status_of(lambda: bob.store.delete_item(["inbox", thread_id], "any")) == 403
    assert status_of(lambda: bob.store.search_items(["inbox"])) == 403
    assert status_of(lambda: bob.store.list_namespaces()) == 403
    # delete it, or its cron
    assert status_of(lambda: bob.threads.delete(thread_id)) == 404
    assert status_of(lambda: bob.crons.delete(cron_id)) == 404

    # alice's thread is as she left it: her label, her one run, her note only, her cron
    metadata = alice.threads.get(thread_id)["metadata"]
    assert (metadata["label"], metadata["owner"]) == ("alice's NVDA", "alice")
    assert [r["run_id"] for r in alice.runs.list(thread_id)] == [run_id]
    notes = alice.store.search_items(["inbox", thread_id])["items"]
    assert [n["value"]["text"] for n in notes] == ["alice's own note"]
    assert [c["cron_id"] for c in alice.crons.search()] == [cron_id]
    alice.crons.delete(cron_id)


@pytest.mark.e2e
def test_a_user_does_all_of_it_on_their_own_thread(bob: SyncLangGraphClient) -> None:
    """bob on his own thread: everything alice's thread refused him. Claiming another owner does not stick."""
    thread_id = bob.threads.create(metadata={"owner": "alice", "label": "bob's"})["thread_id"]
    assert bob.threads.get(thread_id)["metadata"]["owner"] == "bob"
    assert thread_id in {t["thread_id"] for t in bob.threads.search(limit=100)}
    relabelled = bob.threads.update(thread_id, metadata={"label": "bob's AAPL", "owner": "alice"})["metadata"]
    assert (relabelled["label"], relabelled["owner"]) == ("bob's AAPL", "bob")
    bob.store.put_item(*note_item(thread_id, "bob's note"))
    notes = bob.store.search_items(["inbox", thread_id])["items"]
    assert [n["value"]["text"] for n in notes] == ["bob's note"]
    assert bob.store.get_item(["inbox", thread_id], notes[0]["key"])["value"]["text"] == "bob's note"
    assert stopped_run(bob, thread_id)["ticker"] == "NVDA"
    assert bob.threads.get_state(thread_id)["values"]["ticker"] == "NVDA"
    cron_id = bob.crons.create_for_thread(thread_id, "desk", schedule="0 0 1 1 *", input={"messages": []})["cron_id"]
    assert [c["cron_id"] for c in bob.crons.search()] == [cron_id]
    bob.crons.delete(cron_id)
    bob.store.delete_item(["inbox", thread_id], notes[0]["key"])
    bob.threads.delete(thread_id)
    assert status_of(lambda: bob.threads.get(thread_id)) == 404
    assert thread_id not in {t["thread_id"] for t in bob.threads.search(limit=100)}


# -- the track record (issue 22): the server's graph logs and reads each user's own calls ---------------

def record_of(client: SyncLangGraphClient, **context: str) -> str:
    """What the Desk answers "/record" with, on a new thread of the client's user."""
    thread_id = client.threads.create()["thread_id"]
    values = client.runs.wait(thread_id, "desk", input={"messages": [{"role": "user", "content": "/record"}]},
                              context=context or None)
    return str(values["messages"][-1]["content"])


@pytest.mark.e2e
def test_each_user_reads_only_their_own_track_record(client: SyncLangGraphClient, bob: SyncLangGraphClient,
                                                      analysis: Analysis) -> None:
    assert analysis.state["final_decision"] is not None
    alices = record_of(client)
    assert "Your track record" in alices and "| NVDA |" in alices  # the module's analysis, logged as alice's
    bobs = record_of(bob)
    assert "| NVDA |" not in bobs and "No calls are logged yet" in bobs
    # The run's user is the authenticated one, whatever a client puts in the context.
    assert "| NVDA |" not in record_of(bob, user="alice")
    # Nobody reads the log through the store API, not even its own user: only the desk does.
    assert status_of(lambda: bob.store.search_items(["track", "alice"])) == 403
    assert status_of(lambda: client.store.search_items(["track", "alice"])) == 403
    assert status_of(lambda: client.store.get_item(["track", "alice"], "any")) == 403


@pytest.mark.e2e
def test_books_watches_and_notices_are_not_served_through_the_store(client: SyncLangGraphClient,
                                                                     bob: SyncLangGraphClient) -> None:
    """A user's book, watches and notices (graph/book, graph/watchlist) are the desk's to read, under the
    authenticated user: no client reads or writes them through the store API, not even their own."""
    for space in (["book", "alice"], ["watchlist", "alice"], ["notices", "alice"]):
        assert status_of(lambda s=space: bob.store.search_items(s)) == 403
        assert status_of(lambda s=space: client.store.get_item(s, "book")) == 403
        assert status_of(lambda s=space: bob.store.put_item(s, "book", {"positions": []})) == 403


# -- the paper book (issue 40): kept for the authenticated user, in the server's store ---------------------------

def said_to(client: SyncLangGraphClient, text: str, **context: str) -> str:
    """What the Desk answers `text` with, on a new thread of the client's user."""
    thread_id = client.threads.create()["thread_id"]
    values = client.runs.wait(thread_id, "desk", input={"messages": [{"role": "user", "content": text}]},
                              context=context or None)
    return str(values["messages"][-1]["content"])


@pytest.mark.e2e
def test_each_user_keeps_their_own_paper_book(client: SyncLangGraphClient, bob: SyncLangGraphClient) -> None:
    assert "From now on, each new call of yours" in said_to(client, "/paper start 100000")
    assert "**Your paper book**" in said_to(client, "/paper")
    # bob has none, whatever his client claims in the context; nor can he stop alice's.
    assert "You are not following your calls on paper" in said_to(bob, "/paper", user="alice")
    assert "There is no paper book to stop." in said_to(bob, "/paper stop", user="alice")
    assert "**Your paper book**" in said_to(client, "/paper")
    assert status_of(lambda: bob.store.search_items(["paper", "alice"])) == 403
    assert status_of(lambda: client.store.get_item(["paper", "alice"], "book")) == 403
