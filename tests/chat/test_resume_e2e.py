"""kill -9 of the real chat server mid-run: the reopened thread offers Resume, the run goes on
from the speaker that was cut off, and the note acknowledged before the crash is answered."""
from __future__ import annotations

import contextlib

import pytest

from graph.core.personas import DEFAULT_ANALYSTS as ANALYSTS  # the default analysis' (no Macro Analyst)
from graph.core.personas import PERSONAS
from tests.support.attacks import list_threads
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished

pytestmark = pytest.mark.e2e


def desk_texts(client: DeskClient, since: int = 0) -> list[str]:
    return [client.messages[i].get("output", "") for i in client.order[since:]
            if client.messages[i].get("name") == "Desk" and client.messages[i].get("type") == "assistant_message"]


@pytest.mark.parametrize("kill_at", ["Bull Researcher", "Risky Analyst"])
async def test_a_killed_server_resumes_the_run_and_answers_the_pending_note(tmp_path, kill_at):
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="30")
    server.start()
    note = "what about the China export ban?"
    client = DeskClient(server.base)
    try:
        await client.connect()
        await client.send("Should I buy NVDA today?")
        await client.wait_for(lambda: any(m.get("streaming") for m in client.by_author(kill_at)), 90,
                              f"the {kill_at} speaking")
        await client.send(note)
        await client.wait_for(lambda: [t for t in desk_texts(client) if note in t], 10, "the acknowledgement")
        thread = client.thread_id
        assert thread
        server.kill()  # the note was acknowledged, nobody has read it yet
    finally:
        with contextlib.suppress(Exception):
            await client.close()

    server.extra_env["DESK_DEMO_DELAY_MS"] = "0"  # back at no pace: the resumed run is waited for whole
    server.start()
    client = DeskClient(server.base)
    try:
        await client.connect(thread_id=thread)
        offer = await client.wait_for(lambda: [t for t in desk_texts(client) if "interrupted" in t], 20,
                                      "the offer to resume")
        assert kill_at in offer[0]
    except BaseException:
        server.stop()  # a failed wait must not leave the restarted server running
        raise
    finally:
        await client.close()
    client = DeskClient(server.base)  # reopened once more: the offer is not repeated
    try:
        await client.connect(thread_id=thread)
        await client.wait_for(lambda: [d for n, d in client.events if n == "resume_thread"], 20, "the thread")
        # Chainlit stores no actions: the stored offer gets its Resume button back.
        await client.wait_for(lambda: [d for n, d in client.events if n == "action" and d["name"] == "resume_run"],
                              10, "the Resume button")
        start = len(client.order)
        await client.send("resume")  # typed, as the offer says (the button does the same)
        await client.wait_for(lambda: runs_finished(client) >= 1, 120, "the resumed run to end")
        authors = [a for a in client.authors(start) if a != "Desk"]
        order = list(PERSONAS)
        assert authors == order[order.index(kill_at):], "finished speakers are not asked again"
        assert not set(authors) & {a.persona for a in ANALYSTS}
        # The resumed run reads the note at the start of the next turn it runs (the cut-off one, again).
        answers = [m for p in authors for m in client.by_author(p) if f"“{note}”" in m.get("output", "")]
        assert answers, "the note acknowledged before the crash is answered"
        assert [t for t in desk_texts(client, start) if "**Signal**" in t], "the decision card"
        # What is stored: one offer, and no blank persona message (the cut-off turn says so).
        threads = (await list_threads(server.base, client.cookie)).json()["data"]
        steps = next(t for t in threads if t["id"] == thread)["steps"]
        said = [s for s in steps if s["type"] == "assistant_message"]
        assert len([s for s in said if "interrupted" in (s.get("output") or "")]) == 1
        assert not [s["name"] for s in said if s["name"] in PERSONAS and not (s.get("output") or "").strip()]
        assert [s for s in said if s["name"] == kill_at and "cut off" in (s.get("output") or "")], \
            [(s.get("output") or "")[-80:] for s in said if s["name"] == kill_at]
    finally:
        await client.close()
        server.stop()
    assert "Traceback" not in server.log_text()
