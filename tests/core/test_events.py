"""Node events cross the stream as plain dicts (LangGraph Server can carry them) and come back typed."""
import json

from graph.core.events import NotePickedUp, Said, ToolFinished, ToolStarted, decode, emit


def test_every_node_event_round_trips_through_json():
    sent: list = []
    events = [ToolStarted("Market Analyst", "get_indicators", {"x": 1}, "c1"),
              ToolFinished("Market Analyst", "get_indicators", "c1", "no data: timeout"),
              NotePickedUp("Bear Researcher", 3, "what about China?"), Said("Desk", "Analyzing **NVDA**.")]
    for ev in events:
        emit(sent.append, ev)
    assert [decode(json.loads(json.dumps(p))) for p in sent] == events
    assert events[1].failed
    emit(None, events[0])  # nobody streams: nothing happens
    assert decode({"event": "something else"}) is None and decode("text") is None


async def test_a_calls_words_go_out_at_most_once_a_frame_and_a_first_word_at_once():
    """A turn's words reach desk_events' reader as Token events: a piece after a quiet frame in the
    next turn of the event loop, the pieces within a frame of it together at the frame's end;
    flush sends what waits at once (before a restart or the call's end), in order, nothing twice."""
    import asyncio

    from graph.core import events
    from graph.core.events import _WORDS_WRITTEN, Words
    sent: list = []
    token = _WORDS_WRITTEN.set(True)
    try:
        words = Words.for_run(sent.append, "Bull Researcher")
    finally:
        _WORDS_WRITTEN.reset(token)
    loop = asyncio.get_running_loop()
    words.add("Buy")
    words.add(" now")
    assert sent == []  # not before the loop turns
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    first_at = loop.time()
    assert [s["text"] for s in sent] == ["Buy now"]  # the first words at once
    words.add(",")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    words.add(" because")
    assert len(sent) == 1  # within the frame: they wait
    while len(sent) == 1:
        await asyncio.sleep(0.005)
    assert loop.time() - first_at >= events.WORDS_FRAME_S * 0.9
    assert sent[1]["text"] == ", because"  # the frame's words together, in order
    words.add(" it")
    words.add("")
    words.flush()  # the call ends: what waits goes now
    await asyncio.sleep(events.WORDS_FRAME_S * 1.5)  # the scheduled send finds nothing left
    assert [s["text"] for s in sent] == ["Buy now", ", because", " it"]
    assert {s["persona"] for s in sent} == {"Bull Researcher"}
    assert {s["event"] for s in sent} == {"token"}


def test_words_are_not_written_where_desk_events_does_not_read_the_run():
    """A LangGraph Server run (nobody set the flag): its words go by the "messages" stream only."""
    from graph.core.events import Words
    sent: list = []
    words = Words.for_run(sent.append, "Bear Researcher")
    words.add("Hold")
    words.flush()
    assert sent == []
