"""The track record in the chat: the "Track record" step an analysis shows before its analysts, the
cumulative-alpha chart beside the /record table, the card's record line, and the run's user."""
from __future__ import annotations

import json
from typing import Any

import pytest
from chainlit.user import User
from langchain_core.messages import AIMessage

from chat.runs import signed_in
from chat.views.card import card_markdown, record_line
from chat.views.render import TRACK_RECORD_STEP, Renderer
from chat.views.track_view import TITLE, alpha_figure, curve_series, show_alpha_curve
from graph.core.events import AlphaCurve, NodeDone, Said, Token
from graph.core.plan import RunPlan as Plan
from graph.core.state import FinalDecision
from graph.track.calls import Call, Outcome
from graph.track.log import DecisionLog
from graph.track.recall import recall

SETTLED = Call(id="t1:0", user="alice", thread_id="t1", ticker="NVDA", trade_date="2024-05-01", signal="BUY",
               position_size="2.0% of the portfolio", horizon="2-6 weeks",
               outcome=Outcome(settle_date="2024-06-13", sessions=30, entry_close=100.0, exit_close=108.0,
                               raw_return=0.08, benchmark="SPY", benchmark_return=0.0316, alpha=0.0484,
                               verdict="right",
                               reflection="The trend held; see [the chart](https://evil.example/x)."))


def recalled(*calls: Call, ticker: str = "NVDA", day: str = "2024-06-14") -> dict[str, Any]:
    return recall([c.model_dump(mode="json") for c in calls], ticker, day)


def coordinator(track_record: dict[str, Any] | None) -> NodeDone:
    update: dict[str, Any] = {"intent": "analyze", "ticker": "NVDA", "trade_date": "2024-06-14"}
    if track_record is not None:
        update["track_record"] = track_record
    return NodeDone("coordinator", update)


def steps_under(emitter, parent_id: str) -> list[dict]:
    return [m for m in emitter.messages.values() if m.get("parentId") == parent_id and m["type"] != "tool"]


async def test_the_recalled_record_is_a_closed_step_under_the_desk_before_any_analyst(emitter):
    r = Renderer(Plan())
    await r.handle(Said("Desk", "Analyzing **NVDA** for the trade date **2024-06-14**."))
    await r.handle(coordinator(recalled(SETTLED)))
    await r.handle(Token("Market Analyst", "Pulling data."))
    await r.handle(NodeDone("market_analyst", {"messages": [AIMessage(content="Bullish.", name="Market Analyst")]}))

    desk, = emitter.by_author("Desk")
    step, = steps_under(emitter, desk["id"])
    assert step["name"] == TRACK_RECORD_STEP and step["type"] == "undefined"
    assert step["start"] and step["end"], "ended: the page shows it closed"
    text = step["output"]
    assert "2024-05-01 **NVDA BUY** → right" in text and "alpha +4.84 %" in text
    assert "On NVDA: 1 past call: 1 right, mean alpha +4.8 %." in text
    assert "](https://" not in text and "`https://evil.example/x`" in text, "the reflection's link is inert"
    order = [d["id"] for n, d in emitter.events if n in ("new_message", "stream_start")]
    market, = emitter.by_author("Market Analyst")
    assert order.index(step["id"]) < order.index(market["id"])
    assert step["id"] in {s["id"] for s in r.in_progress()}, "a page opening the thread now gets it too"


async def test_a_first_analysis_says_it_starts_from_nothing(emitter):
    r = Renderer(Plan())
    await r.handle(Said("Desk", "Analyzing **NVDA**."))
    await r.handle(coordinator(recalled()))
    step, = steps_under(emitter, emitter.by_author("Desk")[0]["id"])
    assert "No call on record was scored on or before 2024-06-14" in step["output"]


@pytest.mark.parametrize("track_record", [None, {}])
async def test_no_step_without_a_record(emitter, track_record):
    r = Renderer(Plan())
    await r.handle(Said("Desk", "Analyzing **NVDA**."))
    await r.handle(coordinator(track_record))
    await r.handle(NodeDone("coordinator", {"intent": "followup"}))
    desk, = emitter.by_author("Desk")
    assert steps_under(emitter, desk["id"]) == []


async def test_the_curve_is_a_chart_on_the_desk_message_with_the_table(emitter):
    r = Renderer(Plan(), on_curve=show_alpha_curve)
    await r.handle(Said("Desk", "**Your track record on NVDA**\n\n| Date | Ticker |\n|---|---|\n| 2024-05-01 | NVDA |"))
    # As decoded from a JSON stream: lists, not tuples.
    await r.handle(AlphaCurve([["2024-06-13", 0.0484], ["2024-07-02", 0.031]], "NVDA"))  # type: ignore[list-item]

    desk, = emitter.by_author("Desk")
    element, = emitter.named("element")
    assert element["forId"] == desk["id"] and element["type"] == "plotly" and element["display"] == "inline"


def test_the_chart_draws_cumulative_alpha_in_percent_against_zero():
    assert curve_series([("2024-06-13", 0.0484), ["2024-07-02", -0.0125]]) == (
        ["2024-06-13", "2024-07-02"], [4.84, -1.25])
    figure = json.loads(alpha_figure([["2024-06-13", 0.0484], ["2024-07-02", 0.031]], "NVDA").to_json())
    trace, = figure["data"]
    assert trace["x"] == ["2024-06-13", "2024-07-02"] and trace["y"] == [4.84, 3.1]
    layout = figure["layout"]
    assert layout["title"]["text"] == f"{TITLE} · NVDA"
    zero, = layout["shapes"]
    assert zero["y0"] == zero["y1"] == 0
    assert layout["paper_bgcolor"] == layout["plot_bgcolor"] == "rgba(0,0,0,0)"
    assert json.loads(alpha_figure([("2024-06-13", 0.01)]).to_json())["layout"]["title"]["text"] == TITLE
    # in the thread's language (the Renderer passes its own)
    chinese = json.loads(alpha_figure([("2024-06-13", 0.01)], "NVDA", "zh").to_json())["layout"]["title"]["text"]
    assert chinese == "相对基准的累计超额收益（alpha） · NVDA"
    traditional = json.loads(alpha_figure([("2024-06-13", 0.01)], "", "zh-Hant").to_json())["layout"]["title"]["text"]
    assert traditional.startswith("相對基準的累計超額收益")


async def test_no_chart_without_a_curve_or_a_handler(emitter):
    r = Renderer(Plan())
    await r.handle(Said("Desk", "table"))
    await r.handle(AlphaCurve([("2024-06-13", 0.01)], ""))
    r.on_curve = show_alpha_curve
    await r.handle(AlphaCurve([], ""))
    assert emitter.named("element") == []


DECISION = FinalDecision(signal="BUY", position_size="2%", entry="100", stop="90", horizon="2-6 weeks",
                         confidence=0.7, rationale="Trend up.", ticker="NVDA", trade_date="2024-06-14")


def test_the_card_carries_the_desks_record_on_the_ticker():
    line = record_line({"track_record": recalled(SETTLED)})
    assert line == "1 past call: 1 right, mean alpha +4.8 %"
    card = card_markdown(DECISION, "synthetic demo data", record=line)
    assert "**Track record:** 1 past call: 1 right, mean alpha +4.8 %." in card
    assert card.index("Track record") < card.index("Rationale")
    for state in ({}, {"track_record": None}, {"track_record": recalled()}):
        assert record_line(state) == ""
        assert "Track record" not in card_markdown(DECISION, record=record_line(state))


async def test_a_run_reads_and_writes_the_record_of_its_pages_signed_in_user(emitter, service):
    assert signed_in(emitter.session) is None  # no login: the desk's local user
    emitter.session.user = User(identifier="alice")
    chat = await service.chat(emitter.session.thread_id)
    await chat.start("should I buy NVDA on 2024-05-01?")
    assert chat.user == "alice"
    log = DecisionLog((await service.runtime()).store)
    [call] = await log.calls("alice")
    assert (call.ticker, call.trade_date, call.source) == ("NVDA", "2024-05-01", "chat")
    assert await log.calls("local") == []

    # Later in the same chat: the first call is settled (its 30 sessions ended 2024-06-13).
    await chat.start("should I buy NVDA on 2024-06-14?")
    desk = emitter.by_author("Desk")
    analyzing = [m for m in desk if m["output"].startswith("Analyzing") and "2024-06-14" in m["output"]][-1]
    step, = steps_under(emitter, analyzing["id"])
    assert step["name"] == TRACK_RECORD_STEP and "2024-05-01 **NVDA" in step["output"]
    card = [m for m in desk if "**Signal**" in m["output"]][-1]
    assert "**Track record:** 1 past call: " in card["output"]

    await chat.start("/record")
    table = emitter.by_author("Desk")[-1]
    assert table["output"].startswith("**Your track record**") and "| 2024-05-01 | NVDA |" in table["output"]
    assert len([m for m in emitter.by_author("Desk") if "**Signal**" in m["output"]]) == 2, "no card for it"
    chart, calibrated = [e for e in emitter.named("element") if e["forId"] == table["id"]]
    assert chart["type"] == "plotly" and chart["name"] == "cumulative-alpha-all"
    assert calibrated["type"] == "plotly" and calibrated["name"] == "calibration-all"  # the same calls' calibration
