from graph.inbox import Inbox
from graph.state import Intervention, merge_interventions


def test_notes_are_numbered_and_reading_is_idempotent():
    inbox = Inbox()
    inbox.post("what about China?")
    inbox.post("and the Fed?")
    assert [n.seq for n in inbox.since(0)] == [1, 2]
    assert [n.seq for n in inbox.since(0)] == [1, 2], "reading twice returns the same notes"
    assert [n.text for n in inbox.since(1)] == ["and the Fed?"]


def test_inbox_for_a_stored_thread_continues_numbering():
    inbox = Inbox(next_seq=4)
    assert inbox.post("hi").seq == 4
    assert inbox.since(3)[0].text == "hi"


def test_a_note_recorded_twice_is_kept_once_with_both_answerers():
    a = [Intervention(seq=1, text="x", answered_by=["Market Analyst"])]
    b = [Intervention(seq=1, text="x", answered_by=["News Analyst"]), Intervention(seq=2, text="y")]
    merged = merge_interventions(a, b)
    assert [i.seq for i in merged] == [1, 2]
    assert merged[0].answered_by == ["Market Analyst", "News Analyst"]
    assert merge_interventions(merged, b) == merged
