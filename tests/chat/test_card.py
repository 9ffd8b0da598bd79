"""The decision card and the SVG price chart."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from chat.card import card_markdown, price_chart
from graph.data.synthetic import SyntheticVendor
from graph.state import FinalDecision

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
