import asyncio

from langgraph.store.memory import InMemoryStore

from graph.core.settings import Settings
from graph.core.state import Intervention, merge_interventions
from graph.notes.inbox import Inbox
from graph.persistence.database import open_store


async def test_notes_are_kept_per_thread_in_order_and_reading_is_idempotent():
    inbox = Inbox(InMemoryStore())
    china = await inbox.post("t1", "what about China?")
    fed = await inbox.post("t1", "and the Fed?")
    await inbox.post("t2", "another chat")
    assert [n.text for n in await inbox.all("t1")] == ["what about China?", "and the Fed?"]
    assert await inbox.unread("t1") == await inbox.unread("t1"), "reading twice returns the same notes"
    assert [n.text for n in await inbox.unread("t1", [china.key])] == ["and the Fed?"]
    assert await inbox.unread("t1", [china.key, fed.key]) == []
    assert [n.text for n in await inbox.all("t2")] == ["another chat"]
    await inbox.delete("t1")
    assert await inbox.all("t1") == [] and len(await inbox.all("t2")) == 1


async def test_notes_posted_at_once_all_land_with_distinct_keys():
    inbox = Inbox(InMemoryStore())
    notes = await asyncio.gather(*(inbox.post("t", f"note {i}") for i in range(20)))
    assert len({n.key for n in notes}) == len({n.seq for n in notes}) == 20
    assert sorted(n.text for n in await inbox.all("t")) == sorted(f"note {i}" for i in range(20))


async def test_a_thread_checkpointed_before_keys_counts_its_old_numbers_as_read():
    store = InMemoryStore()
    await store.aput(("inbox", "t"), "00000001", {"seq": 1, "text": "old", "posted": "2026-01-01T00:00:00+00:00"})
    new = await Inbox(store).post("t", "new")
    assert [n.text for n in await Inbox(store).unread("t", [], seen=1)] == ["new"]
    assert await Inbox(store).unread("t", [new.key], seen=1) == []


async def test_notes_outlive_the_process_that_took_them(tmp_path):
    settings = Settings(DESK_DATA_DIR=tmp_path)
    async with open_store(settings) as store:
        first = await Inbox(store).post("t", "Bear, what about the export ban?", to="Bear Researcher")
    async with open_store(settings) as store:  # "after the restart"
        [kept] = await Inbox(store).all("t")
        assert kept == first and kept.to == "Bear Researcher"
        assert (await Inbox(store).post("t", "and rates?")).key > first.key, "keys grow with time"


def test_a_note_recorded_twice_is_kept_once_with_both_answerers():
    a = [Intervention(seq=1, text="x", answered_by=["Market Analyst"])]
    b = [Intervention(seq=1, text="x", answered_by=["News Analyst"]), Intervention(seq=2, text="y")]
    merged = merge_interventions(a, b)
    assert [i.seq for i in merged] == [1, 2]
    assert merged[0].answered_by == ["Market Analyst", "News Analyst"]
    assert merge_interventions(merged, b) == merged
