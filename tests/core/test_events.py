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
