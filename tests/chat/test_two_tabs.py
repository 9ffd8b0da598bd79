"""One thread, one run (issue 20, point 2). Two tabs on the same idle thread sending "ORCL …" and
"INTC …" together both ran to the end, interleaved in the stored history, and a note typed in the
second tab seconds later started a third run: each page kept its own run, and the lease let the
same process take the thread again. Here two sessions of one user (two tabs) against the real
server, and the lease within one process."""
from __future__ import annotations

import asyncio

import pytest

from graph.persistence.lease import LeaseHeld, MemoryLeases
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient


async def test_a_second_run_of_a_thread_in_the_same_process_is_refused():
    leases = MemoryLeases()
    async with leases.hold("t1"):
        with pytest.raises(LeaseHeld):
            async with leases.hold("t1"):
                pass
    async with leases.hold("t1"):  # free again once the first run ends
        pass


@pytest.fixture(scope="module")
def server(shared_chat_server) -> Server:
    # Shared with the other modules on these settings (tests/conftest.py): each test is its own user, its own threads.
    # 10 ms a word: a run of seconds, long enough for what the test sends while it runs (within milliseconds).
    return shared_chat_server(DESK_DEMO_DELAY_MS="10")


def judges(client: DeskClient) -> int:
    return len(client.by_author("Risk Judge"))


def notes(*clients: DeskClient) -> dict[str, str]:
    """The Desk's acknowledgements of notes the pages were shown, by message id."""
    return {m["id"]: m.get("output") or "" for c in clients for m in c.by_author("Desk")
            if "Noted" in (m.get("output") or "")}


@pytest.mark.e2e
async def test_two_tabs_sending_at_once_start_one_run_and_the_other_message_is_a_note(server: Server):
    first = DeskClient(server.base, "carol", "desk")
    await first.connect()
    await first.send("hello")
    thread = await first.wait_for(lambda: first.thread_id, 10, "the thread")
    await first.wait_for(lambda: first.by_author("Desk"), 30, "the desk's answer")
    await first.close()

    tab1, tab2 = DeskClient(server.base, "carol", "desk"), DeskClient(server.base, "carol", "desk")
    await tab1.connect(thread_id=thread)
    await tab2.connect(thread_id=thread, cookie=tab1.cookie)
    await asyncio.gather(tab1.send("should I buy ORCL today?"), tab2.send("should I buy INTC today?"))

    # One run: one Risk Judge, for one ticker; the other message is a note the run answers.
    await tab1.wait_for(lambda: judges(tab1), 120, "the run's decision")
    await asyncio.sleep(2)
    both = [m.get("output") or "" for c in (tab1, tab2) for m in c.messages.values()]
    analysing = [text for text in both if text.startswith("Analyzing **")]
    assert len(set(analysing)) == 1, analysing
    for persona in ("Bull Researcher", "Risk Judge"):  # each spoke once: no second run interleaved
        assert len({m["id"] for c in (tab1, tab2) for m in c.by_author(persona)}) == 1, persona
    assert len(notes(tab1, tab2)) == 1, both
    # The second tab follows the run it joined: its words reach it too.
    assert judges(tab2) >= 1

    # A note from the second tab while a new run goes on is a note, not a third run.
    await tab1.send("should I buy AMD today?")
    await tab1.wait_for(lambda: [m for m in tab1.by_author("Desk") if "Analyzing **AMD**" in (m.get("output") or "")],
                        60, "the AMD run begun")
    await tab2.send("Bear, what about the margins?")  # this tab was idle when the AMD run began
    await tab2.wait_for(lambda: len(notes(tab1, tab2)) >= 2, 30, "the note")
    await tab1.wait_for(lambda: judges(tab1) >= 2, 120, "the AMD run's decision")
    await asyncio.sleep(2)
    runs = [t for c in (tab1, tab2) for t in (m.get("output") or "" for m in c.messages.values())
            if t.startswith("Analyzing **")]
    assert len(set(runs)) == 2, runs  # ORCL or INTC, then AMD: no third analysis
    await tab1.close()
    await tab2.close()
