import asyncio

from langgraph.store.memory import InMemoryStore

from graph.inbox import Inbox
from graph.settings import Settings
from graph.state import Intervention, merge_interventions
from graph.store import open_store


async def test_notes_are_numbered_per_thread_and_reading_is_idempotent():
    inbox = Inbox(InMemoryStore())
    await inbox.post("t1", "what about China?")
    await inbox.post("t1", "and the Fed?")
    await inbox.post("t2", "another chat")
    assert [n.seq for n in await inbox.since("t1", 0)] == [1, 2]
    assert [n.seq for n in await inbox.since("t1", 0)] == [1, 2], "reading twice returns the same notes"
    assert [n.text for n in await inbox.since("t1", 1)] == ["and the Fed?"]
    assert [n.seq for n in await inbox.since("t2", 0)] == [1]
    await inbox.delete("t1")
    assert await inbox.since("t1", 0) == [] and len(await inbox.since("t2", 0)) == 1


async def test_notes_posted_at_once_get_distinct_numbers():
    inbox = Inbox(InMemoryStore())
    notes = await asyncio.gather(*(inbox.post("t", f"note {i}") for i in range(20)))
    assert sorted(n.seq for n in notes) == list(range(1, 21))


async def test_notes_outlive_the_process_that_took_them(tmp_path):
    settings = Settings(DESK_DATA_DIR=tmp_path)
    async with open_store(settings) as store:
        await Inbox(store).post("t", "Bear, what about the export ban?")
    async with open_store(settings) as store:  # "after the restart"
        assert [n.text for n in await Inbox(store).since("t", 0)] == ["Bear, what about the export ban?"]
        assert (await Inbox(store).post("t", "and rates?")).seq == 2


def test_a_note_recorded_twice_is_kept_once_with_both_answerers():
    a = [Intervention(seq=1, text="x", answered_by=["Market Analyst"])]
    b = [Intervention(seq=1, text="x", answered_by=["News Analyst"]), Intervention(seq=2, text="y")]
    merged = merge_interventions(a, b)
    assert [i.seq for i in merged] == [1, 2]
    assert merged[0].answered_by == ["Market Analyst", "News Analyst"]
    assert merge_interventions(merged, b) == merged
