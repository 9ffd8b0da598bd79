"""The decision card and the Plotly price chart (the thread's name: test_thread_names.py)."""
from __future__ import annotations

import json

from chat.card import card_markdown, price_chart
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

