"""The thread's name in the sidebar (chat/views/thread_names.py): what it analysed, its latest status and
when it ran, or its first question; then the names a chat's runs give it, in process."""
from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

import chat.views.thread_names
from chat.runs import ChatRun
from chat.views.thread_names import NAME_RUNNING, NAME_STOPPED, distinct, thread_tickers, thread_title
from graph.core.state import FinalDecision
from tests.support.waiting import wait_until

AT = datetime(2026, 11, 25, 17, 42, 9, tzinfo=UTC)
TODAY = AT.astimezone().date().isoformat()  # the desk's today is the server's date


def decision(ticker: str, signal: str = "SELL", trade_date: str = TODAY) -> FinalDecision:
    return FinalDecision(signal=signal, position_size="1%", entry="n/a", stop="n/a", horizon="2-6 weeks",
                         confidence=0.7, rationale="Trend is down.", ticker=ticker, trade_date=trade_date)


def analysis(ticker: str, trade_date: str = TODAY, **more: Any) -> dict[str, Any]:
    return {"intent": "analyze", "ticker": ticker, "trade_date": trade_date, "asked_date": trade_date, **more}


def past(ticker: str, trade_date: str = TODAY) -> dict[str, Any]:
    return {"ticker": ticker, "trade_date": trade_date, "decision": f"{ticker} {trade_date}: SELL"}


def test_a_decision_names_the_ticker_the_signal_and_the_time_of_the_run():
    state = analysis("NVDA", final_decision=decision("NVDA"))
    assert thread_title(state, at=AT) == "NVDA · SELL · 17:42 UTC"
    later = datetime(2026, 11, 25, 18, 5, tzinfo=UTC)
    assert thread_title(state, at=later) != thread_title(state, at=AT)  # the same analysis run again


def test_while_the_desk_works_and_after_a_stop():
    assert thread_title(analysis("NVDA"), status=NAME_RUNNING, at=AT) == "NVDA · running · 17:42 UTC"
    assert thread_title(analysis("NVDA"), status=NAME_STOPPED, at=AT) == "NVDA · stopped · 17:42 UTC"
    assert thread_title(analysis("NVDA"), at=AT) == ""  # no decision and no status: the name stands


def test_another_day_than_today_is_named():
    state = analysis("TSLA", "2024-05-01", final_decision=decision("TSLA", "HOLD", "2024-05-01"))
    assert thread_title(state, at=AT) == "TSLA 2024-05-01 · HOLD · 17:42 UTC"
    # Asked about a Sunday: the trade date the desk used (the Friday before) is the one named.
    sunday = analysis("TSLA", "2024-04-26", asked_date="2024-04-28")
    assert thread_title(sunday, status=NAME_RUNNING, at=AT) == "TSLA 2024-04-26 · running · 17:42 UTC"


def test_every_ticker_of_the_thread_the_latest_last_with_its_status():
    state = analysis("AAPL", final_decision=decision("AAPL", "BUY"), past_analyses=[past("NVDA")],
                     past_decisions=[decision("NVDA")])
    assert thread_title(state, at=AT) == "NVDA, AAPL · BUY · 17:42 UTC"
    again = analysis("NVDA", past_analyses=[past("NVDA"), past("AAPL")])
    assert thread_tickers(again) == ["AAPL", "NVDA"]  # analysed again: NVDA is the latest
    many = analysis("AMZN", past_analyses=[past(t) for t in ("NVDA", "AAPL", "MSFT")])
    assert thread_title(many, status=NAME_RUNNING, at=AT) == "…, AAPL, MSFT, AMZN · running · 17:42 UTC"


def test_decisions_kept_before_the_thread_kept_its_analyses_come_first():
    state = {"past_decisions": [decision("NVDA"), decision("AAPL")], "past_analyses": [past("AAPL")]}
    assert thread_tickers(state) == ["NVDA", "AAPL"]


def test_the_coordinators_update_may_be_newer_than_the_stored_state():
    stored = analysis("NVDA", final_decision=decision("NVDA"))  # read before the update was stored
    update = analysis("AAPL", final_decision=None, past_analyses=[past("NVDA")])
    assert thread_title(stored, update, status=NAME_RUNNING, at=AT) == "NVDA, AAPL · running · 17:42 UTC"
    stored_after = {**update, "past_analyses": [past("NVDA")]}
    assert thread_title(stored_after, update, status=NAME_RUNNING, at=AT) == "NVDA, AAPL · running · 17:42 UTC"


def test_a_follow_up_keeps_the_analysis_name():
    state = analysis("NVDA", final_decision=decision("NVDA"))
    assert thread_title(state, {"intent": "followup"}, status=NAME_RUNNING, asked="why?", at=AT) == ""
    assert thread_title(state, {"intent": "chat"}, status=NAME_RUNNING, asked="hello", at=AT) == ""


@pytest.mark.parametrize(("asked", "update", "name"), [
    ("?", {"intent": "chat"}, "Question · 17:42 UTC"),
    ("  ?!  ", {"intent": "chat"}, "Question · 17:42 UTC"),
    ("what can you do?", {"intent": "chat"}, "What can you do?"),
    ("**hello**   there", {"intent": "chat"}, "Hello there"),
    ("is there anything worth buying in this market at all, honestly?", {"intent": "clarify"},
     "Is there anything worth…"),
    ("XYZQ", {"intent": "clarify", "pending_ticker": {"ticker": "XYZQ", "asked_date": TODAY}},
     "XYZQ · unknown symbol?"),
    ("$XYZQ", {"intent": "clarify"}, "XYZQ · unknown symbol?"),  # live: no prices for it, nothing pending
    ("HELLO", {"intent": "chat"}, "HELLO"),
])
def test_a_chat_without_an_analysis_is_named_after_its_first_question(asked, update, name):
    assert thread_title({}, update, status=NAME_RUNNING, asked=asked, at=AT) == name
    stored = {"messages": [HumanMessage(asked), AIMessage("…", name="Desk")]}
    assert thread_title(stored, update, status=NAME_RUNNING, asked=asked, at=AT) == name


def test_a_later_question_or_a_stop_does_not_rename_a_question_chat():
    stored = {"intent": "chat", "messages": [HumanMessage("what can you do?"), AIMessage("…"), HumanMessage("?")]}
    assert thread_title(stored, {"intent": "chat"}, status=NAME_RUNNING, asked="?", at=AT) == ""
    assert thread_title(stored, stored, status=NAME_STOPPED, at=AT) == ""


def test_the_time_is_utc_whatever_zone_it_is_given_in():
    karachi = AT.astimezone(timezone(timedelta(hours=5)))  # 22:42 there
    assert thread_title(analysis("NVDA", final_decision=decision("NVDA")), at=karachi) == "NVDA · SELL · 17:42 UTC"


# -- in process: the names a chat's runs give its thread ------------------------------------------


class NamingLayer:
    """Chainlit's data layer as far as naming goes: the names given, in order."""

    def __init__(self) -> None:
        self.names: list[str] = []

    async def update_thread(self, thread_id: str, name: str | None = None, **_: Any) -> None:
        if name is not None:
            self.names.append(name)


@pytest.fixture
def layer(monkeypatch: pytest.MonkeyPatch) -> NamingLayer:
    layer = NamingLayer()
    monkeypatch.setattr(chat.views.thread_names, "get_data_layer", lambda: layer)
    return layer


async def new_chat(service, emitter) -> ChatRun:
    return await service.chat(emitter.session.thread_id)


async def test_an_analysis_then_another_names_both_tickers(service, emitter, layer):
    chat = await new_chat(service, emitter)
    await chat.start("Should I buy NVDA today?")
    first = layer.names[-1]
    assert re.fullmatch(r"NVDA · (BUY|SELL|HOLD) · \d\d:\d\d UTC", first), layer.names
    assert re.fullmatch(r"NVDA · running · \d\d:\d\d UTC", layer.names[0])
    assert first.endswith(layer.names[0][-9:])  # the time the run began, kept by its decision
    await chat.start("why was the bear worried?")  # a follow-up: the name stands
    assert layer.names[-1] == first
    await chat.start("$AAPL 2024-05-01")
    assert re.fullmatch(r"NVDA, AAPL 2024-05-01 · (BUY|SELL|HOLD) · \d\d:\d\d UTC", layer.names[-1]), layer.names
    sidebar = [e for e in emitter.named("first_interaction") if e["interaction"] == layer.names[-1]]
    assert sidebar, "the page is told to fetch the thread list again"


async def test_a_stop_names_the_thread_stopped(service, emitter, layer):
    service.models.get('').delay_ms = 3
    chat = await new_chat(service, emitter)
    chat.start("$TSLA 2024-05-01")
    await wait_until(lambda: emitter.by_author("Bull Researcher"), what="the bull")
    assert await chat.stop()
    assert re.fullmatch(r"TSLA 2024-05-01 · stopped · \d\d:\d\d UTC", layer.names[-1]), layer.names


async def test_a_question_and_an_unknown_symbol_are_named_sensibly(service, emitter, layer):
    chat = await new_chat(service, emitter)
    await chat.start("?")
    assert re.fullmatch(r"Question · \d\d:\d\d UTC", layer.names[-1]), layer.names
    other = await service.chat(str(uuid.uuid4()))
    emitter.session.thread_id = other.thread_id
    await other.start("XYZQ")
    assert layer.names[-1] == "XYZQ · unknown symbol?"
    await other.start("yes")  # run it on synthetic data, as the desk offered
    assert re.fullmatch(r"XYZQ · (BUY|SELL|HOLD) · \d\d:\d\d UTC", layer.names[-1]), layer.names


def test_a_name_another_thread_has_gets_the_next_number():
    """Two threads of one user never read the same in the sidebar (issue 35, point 8)."""
    assert distinct("NVDA · SELL · 13:15 UTC", set()) == "NVDA · SELL · 13:15 UTC"
    assert distinct("NVDA · SELL · 13:15 UTC", {"NVDA · SELL · 13:15 UTC"}) == "NVDA · SELL · 13:15 UTC (2)"
    taken = {"NVDA · SELL · 13:15 UTC", "NVDA · SELL · 13:15 UTC (2)", "AMD · BUY · 13:15 UTC"}
    assert distinct("NVDA · SELL · 13:15 UTC", taken) == "NVDA · SELL · 13:15 UTC (3)"
