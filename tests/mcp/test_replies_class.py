"""The MCP server's ruling carries the ticker's class and the benchmark the card names (graph/mcp/replies.py,
issue 37): the structured field and the short text beside it, in the thread's language."""
from __future__ import annotations

from typing import Any

from graph.core.state import FinalDecision
from graph.mcp.replies import Ruling
from graph.mcp.service import desk_reply


def _decided(ticker: str, **state: Any) -> dict[str, Any]:
    decision = FinalDecision(ticker=ticker, trade_date="2026-11-28", signal="BUY", position_size="2% of portfolio",
                             entry="40000", stop="38000", horizon="2-6 weeks", confidence=0.6, rationale="Trend up.")
    return {"intent": "analyze", "final_decision": decision, **state}


def test_each_class_and_its_benchmark_in_the_ruling() -> None:
    cases = {"BTC-USD": ("crypto", ""), "ETH-USD": ("crypto", "BTC-USD"), "SPY": ("fund", ""),
             "QQQ": ("fund", "SPY"), "GC=F": ("future", "DBC"),
             "NVDA": ("equity", "SPY"), "EURUSD=X": ("currency", ""), "0700.HK": ("equity", "^HSI")}
    for ticker, (kind, benchmark) in cases.items():
        ruling = Ruling.of(_decided(ticker)["final_decision"])
        assert (ruling.asset_class, ruling.benchmark) == (kind, benchmark), ticker
    # the class the run read from the vendor wins over the symbol's reading
    assert Ruling.of(_decided("ARKB")["final_decision"], "fund").asset_class == "fund"


def test_the_short_text_says_the_class_and_the_benchmark_like_the_card() -> None:
    replied = desk_reply("t-1", _decided("ETH-USD", asset_class="crypto"))
    reply, text = replied.reply, replied.text
    assert reply.ruling is not None and reply.ruling.benchmark == "BTC-USD"
    assert "ETH-USD is a cryptocurrency. Benchmark: BTC-USD (the call is scored by its return against it)." in text
    text = desk_reply("t-2", _decided("EURUSD=X")).text
    assert "EURUSD=X is a currency pair. Benchmark: none: the call is scored on its own return." in text
    zh = desk_reply("t-3", _decided("BTC-USD", language="zh")).text
    assert "BTC-USD 是加密货币。基准： 无，按自身收益为这次判断计分。" in zh
