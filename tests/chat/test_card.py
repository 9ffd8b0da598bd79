"""The decision card and the Plotly price chart (the thread's name: test_thread_names.py)."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from chat.views.card import card_markdown, chart_figure, price_chart
from graph import price_in
from graph.core.state import FinalDecision
from graph.data.synthetic import SyntheticVendor

DECISION = FinalDecision(signal="SELL", position_size="1.8% of portfolio", entry="42.93", stop="49.49",
                         horizon="2-6 weeks", confidence=0.8, rationale="Trend is down.", ticker="NVDA",
                         trade_date="2024-05-03")


def test_card_shows_every_field():
    card = card_markdown(DECISION, "synthetic demo data")
    for text in ("SELL NVDA · 2024-05-03", "1.8% of portfolio", "42.93", "49.49", "2-6 weeks", "80%",
                 "Trend is down.", "synthetic demo data"):
        assert text in card


def test_a_field_the_judge_left_empty_says_so_rather_than_showing_a_blank():
    # SmolLM2 under the ruling's grammar filled entry and rationale with "" (CI, stop 31).
    # It also broke a line inside the position size, which split the table.
    empty = DECISION.model_copy(update={"entry": "", "rationale": "  ", "position_size": "3.5,\nRuling: {"})
    card = card_markdown(empty)
    assert "| **Entry** | — |" in card and "**Rationale.** _The judge gave none._" in card
    assert "| **Position size** | 3.5, Ruling: { |" in card
    assert "风险裁判没有给出理由" in card_markdown(empty, language="zh")


def test_the_judges_words_on_the_card_hold_no_live_image_or_link():
    judged = DECISION.model_copy(update={"rationale": "See ![x](https://evil.example/p.png) and [this](//evil.example)",
                                         "horizon": "until https://evil.example/h"})
    card = card_markdown(judged)
    assert "[image not shown: x]" in card and "this (`//evil.example`)" in card
    assert "`https://evil.example/h`" in card and "](" not in card


async def test_chart_draws_what_its_legend_lists_on_a_transparent_background(emitter):
    element = await price_chart(SyntheticVendor(), DECISION, lookback_days=90)
    assert element.type == "plotly" and element.display == "inline"
    figure = json.loads(element.content)
    traces = figure["data"]
    listed = [t["name"] for t in traces if t.get("showlegend", True)]
    assert listed == ["Bollinger 20", "SMA 200", "SMA 50", "Close", "RSI 14"]
    assert not any("MACD" in t["name"] for t in traces)
    for trace in traces:  # every series it lists has points to draw
        assert any(y is not None for y in trace["y"]), trace["name"]
    layout = figure["layout"]
    assert layout["paper_bgcolor"] == layout["plot_bgcolor"] == "rgba(0,0,0,0)"
    assert "NVDA · 90 days to 2024-05-03" in layout["title"]["text"]
    lines = {a["text"] for a in layout["annotations"]}
    assert {"entry 42.93", "stop 49.49"} <= lines
    assert figure["config"]["displaylogo"] is False



def _prices_around(level: float) -> pd.DataFrame:
    """Two years of daily bars swinging ±4 % around `level`."""
    days = pd.bdate_range("2024-06-03", periods=500)
    close = level * (1 + 0.04 * np.sin(np.arange(len(days)) / 9))
    return pd.DataFrame({"open": close, "high": close * 1.01, "low": close * 0.99, "close": close,
                         "volume": 1_000_000}, index=days)


def _read(label: str) -> float:
    return float(label.split()[-1].replace(",", ""))


@pytest.mark.parametrize("level", [0.0001, 0.001, 0.01, 0.1, 1.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0,
                                   1_000_000.0])
def test_the_chart_draws_and_labels_entry_and_stop_at_any_price(level: float) -> None:
    """BTC-USD's card said entry 2,950.39 and stop 2,638.95; the chart read both as 2, drew them at 0 and
    overprinted their labels (issue 35). Each order of magnitude from 0.0001 to 1,000,000."""
    entry, stop = level * 1.013, level * 0.9147
    figure = chart_figure(_prices_around(level), "X", "2026-05-15", entry=entry, stop=stop).to_plotly_json()
    layout = figure["layout"]
    lines = sorted(shape["y0"] for shape in layout["shapes"] if shape["yref"] == "y")  # the price panel's
    assert lines == sorted([entry, stop])  # drawn where they are
    labels = {a["text"].split()[0]: a for a in layout["annotations"] if a["text"].split()[0] in ("entry", "stop")}
    for name, value in (("entry", entry), ("stop", stop)):
        shown = _read(labels[name]["text"])
        assert math.isclose(shown, value, rel_tol=5e-4), (labels[name]["text"], value)  # 4 digits at least
    # the higher level's label above its line, the lower's below: they cannot overprint
    assert labels["entry"]["yanchor"] != labels["stop"]["yanchor"]
    # the axis: no range forced down to 0, and ticks a tenth of the span apart read apart
    axis = layout["yaxis"]
    assert "range" not in axis
    low, high = level * 0.9, level * 1.05
    ticks = [format(low + k * (high - low) / 10, axis["tickformat"]) for k in range(11)]  # d3's ",.Nf" is Python's
    assert len(set(ticks)) == 11, (axis["tickformat"], ticks)


def test_the_rsi_panel_sits_below_the_prices_on_the_same_dates() -> None:
    """Two panels sharing one date axis, as make_subplots(rows=2, shared_xaxes=True) lays them out: the prices
    above with entry and stop, the RSI below with its 30 and 70 lines; zooming one zooms both."""
    layout = chart_figure(_prices_around(50), "X", "2026-05-15", entry=52, stop=47).to_plotly_json()["layout"]
    assert layout["xaxis"]["matches"] == "x2" and layout["xaxis"]["showticklabels"] is False
    assert layout["yaxis"]["domain"][0] > layout["yaxis2"]["domain"][1]  # prices above, RSI below, a gap between
    assert list(layout["yaxis2"]["range"]) == [0, 100]
    rsi_lines = sorted(s["y0"] for s in layout["shapes"] if s["yref"] == "y2")
    assert rsi_lines == [30, 70] and all(s["xref"] == "x2 domain" for s in layout["shapes"] if s["yref"] == "y2")
    figure = chart_figure(_prices_around(50), "X", "2026-05-15", entry=52, stop=47).to_plotly_json()
    assert [t["yaxis"] for t in figure["data"]][-1] == "y2" and {t["yaxis"] for t in figure["data"][:-1]} == {"y"}


def test_entry_and_stop_are_read_with_their_thousands_separators() -> None:
    decision = DECISION.model_copy(update={"entry": "$2,950.39", "stop": "2,638.95 (-10.6%)"})
    assert (price_in(decision.entry), price_in(decision.stop)) == (2950.39, 2638.95)


async def test_a_chinese_thread_s_chart_is_chinese(emitter) -> None:
    """Its title, legend, levels and data source in the thread's language (issue 35, point 4)."""
    figure = json.loads((await price_chart(SyntheticVendor(), DECISION, lookback_days=90, language="zh")).content)
    listed = [t["name"] for t in figure["data"] if t.get("showlegend", True)]
    assert listed == ["布林带 20", "SMA 200", "SMA 50", "收盘价", "RSI 14"]
    layout = figure["layout"]
    assert "NVDA · 截至 2024-05-03 的 90 天" in layout["title"]["text"] and "合成演示数据" in layout["title"]["text"]
    assert {"入场 42.93", "止损 49.49"} <= {a["text"] for a in layout["annotations"]}
    drawn = json.dumps([figure["data"], layout], ensure_ascii=False)
    assert not any(word in drawn for word in ("days to", "Close", "entry ", "upper ", "synthetic"))


def test_the_book_line_is_in_the_thread_s_language() -> None:
    """"你的持仓： sell 6 of 200 NVDA at 45.71 for 274.26…" in a 中文 thread (issue 35, point 4)."""
    from decimal import Decimal

    from chat.views.card import position_lines
    from graph.book.brief import sizing_state
    from graph.book.holdings import Book, Position
    from graph.book.sizing import size_against

    book = Book((Position("NVDA", Decimal(200), Decimal(95)),), Decimal(20000))
    sizing = sizing_state(size_against(book, "NVDA", "45.71", "SELL", "1.0% of the portfolio"))
    assert sizing["summary"].startswith("sell 6 of 200 NVDA at 45.71 for 274.26")  # the English the record keeps
    [line, *_] = position_lines(sizing, "zh")
    assert "卖出所持 200 股 NVDA 中的 6 股，价格 45.71，所得 274.26" in line and "sell" not in line
    assert "sell 6 of 200 NVDA at 45.71 for 274.26" in position_lines(sizing, "en")[0]
    # a thread stored before the summary had its catalogue key reads as it was
    old = {k: v for k, v in sizing.items() if k != "said"}
    assert "sell 6 of 200 NVDA" in position_lines(old, "zh")[0]


@pytest.mark.parametrize("language", ["zh", "zh-Hant"])
def test_the_chart_s_dates_are_chinese_in_a_chinese_thread(language: str) -> None:
    """Issue 35, point 4: Plotly wrote the date axis with English months ("Sep 6 2026"); a Chinese thread's chart
    writes 9月6日, and its hover a whole date, in Chinese; English keeps Plotly's own ticks."""
    chinese = chart_figure(_prices_around(50), "X", "2026-05-15", entry=50, stop=45, language=language).layout
    assert chinese.xaxis.tickformat == "%-m月%-d日" and chinese.xaxis.hoverformat == "%Y年%-m月%-d日"
    english = chart_figure(_prices_around(50), "X", "2026-05-15", entry=50, stop=45).layout
    assert english.xaxis.tickformat is None and english.xaxis.hoverformat == "%b %-d, %Y"


async def test_the_chart_s_last_bar_holds_the_figures_the_market_analyst_cited(emitter) -> None:
    """The chart's lines come from the rows the analyst's get_indicators used: its last RSI, SMA and
    Bollinger points are the cited values to the last digit (an RSI from a shorter history was not)."""
    import base64
    from datetime import date

    from graph.data.indicators import compute_indicators
    from graph.tools.market import indicator_rows
    vendor = SyntheticVendor()
    cited = compute_indicators(indicator_rows(vendor, "NVDA", date(2024, 5, 3)))
    figure = json.loads((await price_chart(vendor, DECISION, lookback_days=90)).content)
    def values(y):  # Plotly writes a float array as base64 of its bytes
        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"]) if isinstance(y, dict) else y
    last = {t["name"]: float(values(t["y"])[-1]) for t in figure["data"] if t.get("y")}
    assert last["RSI 14"] == cited["RSI 14"].value
    assert last["SMA 50"] == cited["SMA 50"].value and last["SMA 200"] == cited["SMA 200"].value


async def test_the_decision_chart_written_without_plotly_is_what_plotly_writes(emitter) -> None:
    """The decision's chart is written straight to JSON (spec_element): the page gets what Chainlit's element
    of the checked go.Figure holds, for prices of any size, a short history (no SMA 200, an RSI that starts
    late), both languages and every entry/stop combination."""
    import itertools

    import plotly.graph_objects as go

    from chat.views.card import chart_element, chart_spec, spec_element

    short = _prices_around(50).iloc[:120]
    cases = itertools.product(
        [(_prices_around(0.0012), 0.00125, 0.00118), (_prices_around(50), 52.0, 47.0),
         (_prices_around(2950.39), 3000.0, 2800.0), (short, 51.0, 48.0)],
        ["en", "zh", "zh-Hant"], [(True, True), (True, False), (False, True), (False, False)])
    checked = 0
    for (frame, entry, stop), language, (with_entry, with_stop) in cases:
        spec = chart_spec(frame, "X", str(frame.index[-1].date()), entry=entry if with_entry else None,
                          stop=stop if with_stop else float("nan") if not with_entry else None,
                          label="synthetic", language=language)
        written = json.loads(spec_element(spec, "x").content)
        assert written == json.loads(chart_element(go.Figure(**spec), "x").content), (language, entry, stop)
        checked += 1
    assert checked == 48
