"""The decision card, the SVG price chart and the markdown report."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from graph.data.synthetic import SyntheticVendor
from graph.state import Debate, FinalDecision, Intervention, Turn

from chat.decision import card_markdown, price_chart, report_markdown

DECISION = FinalDecision(signal="SELL", position_size="1.8% of portfolio", entry="42.93", stop="49.49",
                         horizon="2-6 weeks", confidence=0.8, rationale="Trend is down.", ticker="NVDA",
                         trade_date="2024-05-03")


def test_card_shows_every_field():
    card = card_markdown(DECISION, "synthetic demo data")
    for text in ("SELL NVDA · 2024-05-03", "1.8% of portfolio", "42.93", "49.49", "2-6 weeks", "80%",
                 "Trend is down.", "synthetic demo data"):
        assert text in card


async def test_chart_is_valid_svg_with_the_cited_indicators_and_levels():
    svg = await price_chart(SyntheticVendor(), DECISION, lookback_days=90)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    for text in ("NVDA · 90 days to 2024-05-03", "SMA 50:", "SMA 200:", "RSI 14", "entry 42.93"):
        assert text in svg
    assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) >= 4


def test_report_covers_the_whole_deliberation():
    state = {
        "ticker": "NVDA", "company": "NVIDIA", "trade_date": "2024-05-03", "final_decision": DECISION,
        "market_report": "RSI 14 at 55.", "news_report": "Tone positive.",
        "investment_debate": Debate(turns=[Turn(side="bull", persona="Bull Researcher", text="Up."),
                                           Turn(side="bear", persona="Bear Researcher", text="Down.")]),
        "investment_plan": "Sell.", "trader_plan": "Sell at 42.93.",
        "risk_debate": Debate(turns=[Turn(side="safe", persona="Safe Analyst", text="Small.")],
                              judge_decision="Signal: SELL"),
        "interventions": [Intervention(seq=1, text="what about China?", answered_by=["Bear Researcher"])],
    }
    report = report_markdown(state, "synthetic demo data")
    order = ["# Trading Desk report: NVDA (NVIDIA)", "## Final decision", "### Market Analyst", "### News Analyst",
             "### Bull Researcher", "### Bear Researcher", "### Research Manager", "## Trader", "### Safe Analyst",
             "### Risk Judge", "“what about China?” (answered by Bear Researcher)"]
    positions = [report.index(text) for text in order]
    assert positions == sorted(positions)
