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


async def test_words_of_one_loop_turn_go_as_one_token_and_each_turn_on_its_own():
    """A turn's words reach desk_events' reader as Token events: what arrived in one turn of the
    event loop (a busy loop's backlog) as one event, a loop that keeps up piece by piece; flush sends
    what waits at once (before a restart or the call's end), in order, nothing twice."""
    import asyncio

    from graph.core.events import _WORDS_WRITTEN, Words
    sent: list = []
    token = _WORDS_WRITTEN.set(True)
    try:
        words = Words.for_run(sent.append, "Bull Researcher")
    finally:
        _WORDS_WRITTEN.reset(token)
    words.add("Buy")
    words.add(" now")
    assert sent == []  # not before the loop turns
    await asyncio.sleep(0)
    words.add(",")
    await asyncio.sleep(0)
    words.add(" because")
    words.add("")
    words.flush()
    await asyncio.sleep(0)  # the scheduled send finds nothing left
    assert [(s["persona"], s["text"]) for s in sent] == [("Bull Researcher", "Buy now"), ("Bull Researcher", ","),
                                                          ("Bull Researcher", " because")]
    assert {s["event"] for s in sent} == {"token"}


def test_words_are_not_written_where_desk_events_does_not_read_the_run():
    """A LangGraph Server run (nobody set the flag): its words go by the "messages" stream only."""
    from graph.core.events import Words
    sent: list = []
    words = Words.for_run(sent.append, "Bear Researcher")
    words.add("Hold")
    words.flush()
    assert sent == []
