"""The figure check: every number a persona cites is looked for in the run's data (graph/record/figures.py)."""
from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

from graph.core.events import NodeDone
from graph.record.case import report_markdown
from graph.record.figures import cited, unverified, unverified_note
from tests.support.models import ScriptedChatModel


def texts(text: str, ticker: str = "") -> list[str]:
    return [c.text for c in cited(text, ticker=ticker)]


# ------------------------------------------------------------------ the rules


@pytest.mark.parametrize(("said", "data"), [
    ("the close was 182.46", [182.456]),
    ("the close was 182.5", [182.456]),
    ("about 182", [182.456]),
    ("a yield of 1.23%", [0.0123]),
    ("a margin of 0.489", [48.9]),
    ("volume of 1.23M shares", [1_234_567]),
    ("volume of 1.2 million shares", [1_234_567]),
    ("a market cap of $2.2T", [2_213_456_789_012]),
    ("a market cap of 2,213 billion", [2_213_456_789_012]),
    ("it fell 3.58% last month", [-3.58]),
    ("it trades at 25.4x earnings", [25.36]),
])
def test_a_rounded_or_rescaled_figure_of_the_data_is_found(said, data):
    assert unverified(said, data) == []


@pytest.mark.parametrize(("said", "data", "flagged"), [
    ("the close was 182.4", [182.456], ["182.4"]),
    ("the close was 182.4567", [182.456], ["182.4567"]),  # more precise than the data is made up
    ("volume of 1.3M shares", [1_234_567], ["1.3M"]),
    ("revenue grew 47.3% while the close was 182.46", [182.456], ["47.3%"]),
    ("a market cap of $3.1B", [2.2e9], ["$3.1B"]),
    ("47 analysts rate it a buy", [45.0], ["47"]),
])
def test_a_figure_missing_from_the_data_is_flagged_as_written(said, data, flagged):
    assert unverified(said, data) == flagged


@pytest.mark.parametrize("said", [
    "On 2024-05-01, on 5/1 and on May 1, 2024 (the 3rd of May too)",
    "In 2023 and FY2024, Q3 and the 10-K filing",
    "at 10:30 and again at 4pm",
    "over the last 3 months, a 52-week high, horizon 2-6 weeks, 50-day average, 14 sessions",
    "1. first\n2. second\n12) twelfth",
    "RSI 14, RSI(14), SMA 50, SMA 200, EMA 10, VWMA 20 and the S&P 500",
    "2 signals for, 3 against; 2 × ATR",
    "a stop 1.5 ATR below the close",
    "| RSI 14 | n/a |\n| Change 3M % | n/a |",
    "Stop: 843.12\nEntry at 880.55\ntarget of $950.25, take-profit near 975.5",
    "a stop 3 ATR (n/a) from the close, at 86.32",
    "3.5% of the portfolio; Position size: 1.5%; Confidence: 0.66",
])
def test_dates_periods_names_counts_and_the_desks_own_proposals_are_not_citations(said):
    assert texts(said, ticker="NVDA") == []


def test_the_tickers_digits_are_not_a_figure():
    assert texts("0700.HK closed at 312.4", ticker="0700.HK") == ["312.4"]
    assert texts("600519.SS", ticker="600519.SS") == []


def test_the_note_counts_the_figures():
    assert unverified_note([]) == ""
    assert unverified_note(["47.3%"]) == "1 figure not found in the data: 47.3%"
    assert unverified_note(["47.3%", "$3.1B"]) == "2 figures not found in the data: 47.3%, $3.1B"


# ------------------------------------------------------------------ in the graph


def checks(events) -> dict[str, list[str]]:
    """Persona -> the figures flagged on its turn(s), from the events the chat sees."""
    out: dict[str, list[str]] = {}
    for ev in events:
        if isinstance(ev, NodeDone) and ev.spoken is not None and ev.node != "coordinator":
            out.setdefault(str(ev.spoken.name), []).extend(ev.unverified)
    return out


@pytest.mark.parametrize("request_text", ["should I buy NVDA today?", "AAPL 2024-05-01", "TSLA on 2023-03-15",
                                          "BTC-USD 2022-06-01", "is Berkshire B a sell?"])
async def test_the_demo_cites_no_figure_that_is_not_in_the_data(desk_factory, request_text):
    desk = desk_factory()
    events = await desk.ask(request_text)
    found = checks(events)
    assert len(found) == 12, "every persona's turn was checked"
    assert found == {persona: [] for persona in found}
    state = await desk.state()
    assert state["final_decision"] is not None
    assert set(state["unverified"]) >= {"Market Analyst#0", "Bull Researcher#0", "Risk Judge#0"}
    assert not any(state["unverified"].values())
    assert "not found in the data" not in report_markdown(state)
    for question in ("what was the RSI and the P/E?", "why was the bear worried?"):
        assert checks(await desk.ask(question)) == {"Desk": []}


def _weekly_close(model: ScriptedChatModel) -> str:
    """The oldest close of the price table the market analyst's tool returned (its report quotes
    only the latest): a figure of the run that only a tool result holds."""
    market = [c for c in model.calls if c["persona"] == "Market Analyst"][-1]
    prices = next(str(m.content) for m in market["messages"] if isinstance(m, ToolMessage)
                  and m.name == "get_price_history")
    row = next(line for line in prices.splitlines() if line[:4].isdigit())
    return row.split(" | ")[4]


async def test_an_invented_figure_is_flagged_exactly_and_a_rounded_real_one_is_not(desk_factory):
    def script(persona, messages, tools):
        if persona == "Bull Researcher":
            case = next(str(m.content) for m in messages if isinstance(m, SystemMessage))
            close = float(case.split("| Close | ")[1].split(" |")[0])
            weekly = _weekly_close(model)
            assert weekly not in case, "the weekly close is in no report"
            # a real close rounded to one decimal, a figure only a tool result holds, and one made up
            return AIMessage(content=f"The close of {close:.1f} holds above the {weekly} it closed at weeks ago; "
                                     "revenue jumped 47.3% last quarter.")
        if persona == "Bear Researcher":
            return AIMessage(content="Even the bull's 47.3% growth would not save it.")
        return None

    model = ScriptedChatModel(script=script)
    desk = desk_factory(model)
    events = await desk.ask("should I buy NVDA today?", analysts=["market"])
    found = checks(events)
    assert found["Bull Researcher"] == ["47.3%"]
    assert found["Bear Researcher"] == ["47.3%"], "a figure repeated from a flagged turn is still not data"
    assert all(not figures for persona, figures in found.items()
               if persona not in ("Bull Researcher", "Bear Researcher"))
    state = await desk.state()
    assert state["unverified"]["Bull Researcher#0"] == ["47.3%"]
    report = report_markdown(state)
    assert "## Figures not found in the data" in report
    assert "- Bull Researcher: 47.3%" in report and "- Bear Researcher: 47.3%" in report
    assert report.count("> ⚠ 1 figure not found in the data") == 2


async def test_a_new_analysis_starts_a_fresh_check(desk_factory):
    def invent(persona, messages, tools):
        if persona == "Trader":
            system = next(str(m.content) for m in messages if isinstance(m, SystemMessage))
            if "**NVDA**" in system:
                return AIMessage(content="Sell at 991.23, the 52-week peak. FINAL TRANSACTION PROPOSAL: **SELL**")
        return None

    desk = desk_factory(ScriptedChatModel(script=invent))
    await desk.ask("should I buy NVDA today?", analysts=["market"])
    assert (await desk.state())["unverified"]["Trader#0"] == ["991.23"]
    await desk.ask("what about AAPL?", analysts=["market"])
    state = await desk.state()
    assert state["ticker"] == "AAPL"
    assert state["unverified"]["Trader#0"] == [] and not any(state["unverified"].values())
    assert set(state["tool_figures"]) == {"Market Analyst"}
