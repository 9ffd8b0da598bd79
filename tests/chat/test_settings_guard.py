"""Issue 20, point 6: the settings panel's values are checked on the server. A client sends the
`chat_settings_change` event with whatever it likes; before, Chainlit stored every value in the
session and the thread's metadata: debate rounds 1000 ran 198 turns into a GraphRecursionError, -3
skipped every debate, and "abc" made the thread fail each time it was reopened. Now a bad value is
refused with a message and never stored, and a thread that stored one before still opens and
answers. The real server, over its socket."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from chat.panel import check_settings, next_analysis
from graph.core.settings import Settings
from tests.chat.test_security import db, poll
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished

ATTACK = {"debate_rounds": 1000, "risk_rounds": -3, "analyst_market": "abc", "quick_model": "gpt-4o",
          "junk": "x" * 100_000}


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("desk-settings"), DESK_DEMO_DELAY_MS="1")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def stored_settings(server: Server, thread_id: str) -> dict | None:
    with db(server) as conn:
        row = conn.execute("SELECT metadata FROM threads WHERE id = ?", (thread_id,)).fetchone()
    return json.loads(row[0] or "{}").get("chat_settings") if row else None


def desk_says(client: DeskClient, since: int = 0) -> list[str]:
    return [m.get("output") or "" for m in client.by_author("Desk")[since:]]


async def a_thread(server: Server, user: str) -> DeskClient:
    client = DeskClient(server.base, user, "desk")
    await client.connect()
    await client.send("What can you do?")
    await client.wait_for(lambda: client.thread_id and len(client.by_author("Desk")) >= 1, 30, "the desk's answer")
    # ...and that run's end (on a loaded machine it can come after the answer, and a later count of
    # ended runs would take it for the next run's)
    await client.wait_for(lambda: runs_finished(client) >= 1, 30, "the answer's run ended")
    return client


@pytest.mark.e2e
async def test_bad_settings_are_refused_named_and_never_stored(server):
    alice = await a_thread(server, "alice")
    try:
        said = len(alice.by_author("Desk"))
        panels = sum(1 for name, _ in alice.events if name == "chat_settings")
        assert alice.sio is not None
        await alice.sio.emit("chat_settings_change", ATTACK)
        await alice.wait_for(lambda: len(alice.by_author("Desk")) >= said + 2, 20, "the refusal")
        refusal, described = desk_says(alice, said)[:2]
        assert refusal.startswith("Settings not changed")
        for named in ("debate rounds must be a whole number from 1 to 5, not 1000", "not -3",
                      "Market Analyst must be on or off, not 'abc'", "'quick_model'", "'junk'"):
            assert named in refusal, refusal
        assert len(refusal) < 1000  # the 100 kB value is not echoed
        assert "1 debate round(s), 1 risk round(s)" in described
        # The panel is set back to what the server keeps.
        [*_, (_, widgets)] = [e for e in alice.events if e[0] == "chat_settings"]
        assert sum(1 for name, _ in alice.events if name == "chat_settings") == panels + 1
        assert {w["id"]: w["initial"] for w in widgets}["debate_rounds"] == 1

        # A run goes by the defaults: one Bull turn, the risk debate held.
        runs = runs_finished(alice)
        await alice.send("$TSLA 2024-05-01")
        await alice.wait_for(lambda: runs_finished(alice) > runs and alice.by_author("Risk Judge"), 120,
                             "the analysis")
        assert len(alice.by_author("Bull Researcher")) == 1
        assert len(alice.by_author("Risky Analyst")) == 1 and alice.by_author("Risk Judge")

        # A good value is kept, a non-dict payload is refused, and nothing crashes the socket.
        said = len(alice.by_author("Desk"))
        await alice.sio.emit("chat_settings_change", {"debate_rounds": 2, "analyst_news": False})
        await alice.sio.emit("chat_settings_change", "abc")
        await alice.wait_for(lambda: len(alice.by_author("Desk")) >= said + 3, 20, "the answers")
        words = desk_says(alice, said)
        assert any("2 debate round(s)" in w and "News Analyst" not in w for w in words), words
        assert any(w.startswith("Settings not changed: the panel sends named values, not 'abc'") for w in words)
        thread_id = alice.thread_id
    finally:
        await alice.close()
    assert thread_id
    kept = await poll(lambda: _async(stored_settings(server, thread_id)),
                      lambda s: s is not None and s.get("debate_rounds") == 2, what="the settings stored")
    assert set(kept) <= {f"analyst_{k}" for k in ("market", "social", "news", "fundamentals", "macro")} | {
        "debate_rounds", "risk_rounds"}, kept
    assert kept["risk_rounds"] == 1 and kept["analyst_news"] is False and kept["analyst_market"] is True


async def _async(value):
    return value


@pytest.mark.e2e
async def test_a_thread_that_stored_bad_settings_reopens_and_answers(server):
    bob = await a_thread(server, "bob")
    thread_id = bob.thread_id
    await bob.close()
    assert thread_id
    await poll(lambda: _async(stored_settings(server, thread_id)), lambda s: s is not None,
               what="bob's thread stored")
    # As an earlier version let a client store them.
    bad = {"debate_rounds": "abc", "risk_rounds": 1000, "analyst_social": "yes", "analyst_news": False}
    with db(server) as conn:
        conn.execute("UPDATE threads SET metadata = ? WHERE id = ?",
                     (json.dumps({"chat_settings": bad}), thread_id))

    again = DeskClient(server.base, "bob", "desk")
    await again.connect(thread_id=thread_id, cookie=bob.cookie)
    try:
        await again.wait_for(lambda: any("stored settings" in w for w in desk_says(again)), 20, "the notice")
        [notice] = [w for w in desk_says(again) if "stored settings" in w]
        assert "not 'abc'" in notice and "not 1000" in notice and "not 'yes'" in notice
        [(_, widgets)] = [e for e in again.events if e[0] == "chat_settings"]
        initial = {w["id"]: w["initial"] for w in widgets}
        assert initial["debate_rounds"] == 1 and initial["risk_rounds"] == 1
        assert initial["analyst_social"] is True and initial["analyst_news"] is False  # the good one kept
        runs = runs_finished(again)
        await again.send("$TSLA 2024-05-01")
        await again.wait_for(lambda: runs_finished(again) > runs and again.by_author("Risk Judge"), 120,
                             "the analysis on the reopened thread")
        assert not again.by_author("News Analyst") and len(again.by_author("Bull Researcher")) == 1
    finally:
        await again.close()
    kept = await poll(lambda: _async(stored_settings(server, thread_id)),
                      lambda s: s is not None and s.get("debate_rounds") == 1, what="clean settings stored")
    assert kept["risk_rounds"] == 1 and "abc" not in json.dumps(kept)
    assert "Traceback" not in server.log_text()


def test_the_rules():
    live = Settings(DESK_MODE="live", OPENAI_API_KEY="k")
    demo = Settings(DESK_MODE="demo")
    ok = {"debate_rounds": 5, "risk_rounds": 1.0, "analyst_market": False, "quick_model": "llama3.1:8b",
          "deep_model": "meta-llama/Llama-3.1-70B-Instruct"}
    assert check_settings(ok, live).values == ok | {"risk_rounds": 1} and not check_settings(ok, live).refused
    assert set(check_settings(ok, demo).values) == {"debate_rounds", "risk_rounds", "analyst_market"}
    for key, value in (("debate_rounds", 0), ("debate_rounds", 6), ("debate_rounds", 2.5), ("debate_rounds", True),
                       ("risk_rounds", "3"), ("risk_rounds", None), ("risk_rounds", float("nan")),
                       ("analyst_news", 1), ("quick_model", "gpt 4o"), ("quick_model", "x" * 201),
                       ("deep_model", "gpt-4o\x00"), ("deep_model", 4)):
        checked = check_settings({key: value}, live)
        assert not checked.values and len(checked.refused) == 1, (key, value)
    assert check_settings({"quick_model": "  "}, live).values == {"quick_model": ""}  # the server's own model
    flood = check_settings({f"k{i}": i for i in range(10_000)}, live).refusal() or ""
    assert "and 9995 more" in flood and len(flood) < 1000
    # Stored before the check: the defaults stand.
    plan = next_analysis({"debate_rounds": "abc", "risk_rounds": -3, "quick_model": "a b"}, live)
    assert (plan.plan.debate_rounds, plan.plan.risk_rounds) == (1, 1) and plan.models == ("gpt-4o-mini", "gpt-4o")
