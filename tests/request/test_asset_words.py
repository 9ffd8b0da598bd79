"""The words people use for what is not a stock, in English and Chinese; each read as its class and dated on
its class's calendar; what the desk cannot serve refused with the reason (issue 37, points 1, 2 and 6).

Today is Saturday 2026-11-28: crypto trades, the NYSE, currencies and CME Globex do not (their last session
is Friday 2026-11-27)."""
from __future__ import annotations

from datetime import date

import pytest

from graph.compare.ask import shared_session
from graph.core.assets import AssetClass
from graph.data.synthetic import SyntheticVendor
from graph.nodes.coordinator import _analyzing, _served
from graph.request import parse_request

SATURDAY = date(2026, 11, 28)
FRIDAY = date(2026, 11, 27)


@pytest.mark.parametrize(("text", "symbol"), [
    ("should I buy bitcoin today?", "BTC-USD"), ("比特币今天能买吗？", "BTC-USD"), ("比特幣呢", "BTC-USD"),
    ("what about ether?", "ETH-USD"), ("以太坊怎么样", "ETH-USD"),
    ("how about gold?", "GC=F"), ("黄金能买吗", "GC=F"), ("is gold a buy?", "GC=F"), ("gold ETF?", "GLD"),
    ("what about oil?", "CL=F"), ("crude oil today", "CL=F"), ("原油今天怎么样", "CL=F"),
    ("EUR/USD today?", "EURUSD=X"), ("eurusd", "EURUSD=X"), ("欧元兑美元今天", "EURUSD=X"),
    ("what about the S&P 500?", "^GSPC"), ("标普500怎么样", "^GSPC"),
    ("the Nasdaq 100?", "^NDX"), ("how is the Dow doing?", "^DJI"),
    ("Hang Seng today", "^HSI"), ("恒生指数今天", "^HSI"),
    ("CSI 300?", "000300.SS"), ("沪深300怎么样", "000300.SS"),
    ("Nikkei?", "^N225"), ("日经225呢", "^N225"),
    ("^GSPC", "^GSPC"), ("EURUSD=X yesterday", "EURUSD=X"), ("GC=F", "GC=F"), ("cl=f today", "CL=F"),
    ("SPY", "SPY"), ("QQQ today", "QQQ"),  # the funds are still themselves
])
def test_the_words_for_each_instrument(text: str, symbol: str) -> None:
    parsed = parse_request(text, SATURDAY)
    assert parsed.intent == "analyze", parsed.reason
    assert parsed.ticker == symbol


def test_an_ordinary_word_for_a_commodity_needs_context() -> None:
    # "oil" and "gold" are weak names: beside a ticker they do not make a second one
    assert parse_request("should I buy XOM with oil at 80?", SATURDAY).ticker == "XOM"
    assert parse_request("is NEM a buy now that gold is up?", SATURDAY).ticker == "NEM"


@pytest.mark.parametrize(("text", "trade_date"), [
    ("should I buy BTC-USD today?", SATURDAY),       # crypto traded on Saturday: analysed as Saturday
    ("比特币昨天", FRIDAY),
    ("should I buy NVDA today?", FRIDAY),            # the NYSE's last session
    ("EUR/USD today?", FRIDAY),                      # currencies closed from Friday 17:00 New York
    ("how about gold?", FRIDAY),
    ("S&P 500 today", FRIDAY),
])
def test_today_follows_the_class(text: str, trade_date: date) -> None:
    parsed = parse_request(text, SATURDAY)
    assert (parsed.asked_date, parsed.trade_date) == (SATURDAY if "昨天" not in text else FRIDAY, trade_date)


def test_a_saturday_crypto_analysis_is_not_told_markets_were_closed() -> None:
    said = _analyzing(parse_request("should I buy BTC-USD today?", SATURDAY), "en")
    assert "2026-11-28" in said and "closed" not in said
    said = _analyzing(parse_request("should I buy NVDA today?", SATURDAY), "en")
    assert "markets were closed" in said and "**2026-11-27**" in said


def test_an_index_is_analysed_as_the_index_naming_its_funds() -> None:
    said = _analyzing(parse_request("what about the S&P 500?", SATURDAY), "en")
    assert "**^GSPC** (S&P 500)" in said and "SPY, VOO, IVV" in said
    said = _analyzing(parse_request("纳斯达克100呢", SATURDAY), "zh")
    assert "^NDX" in said and "跟踪它的基金有 QQQ, QQQM" in said
    assert "track" not in _analyzing(parse_request("SPY today", SATURDAY), "en")


def test_a_comparison_of_bitcoin_and_a_stock_shares_the_last_day_both_traded() -> None:
    assert shared_session(SATURDAY, ("BTC-USD", "NVDA")) == FRIDAY
    assert shared_session(date(2026, 11, 26), ("BTC-USD", "NVDA")) == date(2026, 11, 25)  # Thanksgiving
    assert shared_session(SATURDAY, ("BTC-USD", "ETH-USD")) == SATURDAY


# --- what the desk cannot serve ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "language", "words"), [
    ("should I buy AAPL240119C00150000?", "en", ["option contract", "“should I buy AAPL today?”"]),
    ("AAPL240119C00150000 值得买吗？", "zh", ["期权合约", "“今天该买 AAPL 吗？”"]),
    ("is 912828XX1 a buy?", "en", ["CUSIP", "bond", "TLT"]),
    ("912828XX1 能买吗", "zh", ["CUSIP", "债券", "TLT"]),
    ("dois-je acheter AAPL240119C00150000 ?", "fr", ["contrat d'option", "« dois-je acheter AAPL aujourd'hui ? »"]),
    ("Soll ich 912828XX1 kaufen?", "de", ["CUSIP", "Anleihe", "„Soll ich TLT heute kaufen?“"]),
])
def test_what_the_desk_cannot_serve_is_refused_with_the_reason(text: str, language: str, words: list[str]) -> None:
    parsed = parse_request(text, SATURDAY)
    assert parsed.intent == "clarify" and parsed.refused in {"option", "bond"}
    assert parsed.language == language
    assert all(w in (parsed.question or "") for w in words), parsed.question


def test_a_nine_digit_amount_is_no_cusip() -> None:
    assert parse_request("I have 100000000 to invest in NVDA", SATURDAY).ticker == "NVDA"


async def test_the_refusal_speaks_the_threads_language() -> None:
    parsed = parse_request("should I buy AAPL240119C00150000?", SATURDAY)
    refused, kind = await _served(parsed, SyntheticVendor(), "zh")
    assert kind is None and "期权合约" in (refused.question or "")


async def test_the_vendors_class_is_kept_and_an_option_it_names_is_refused() -> None:
    class Quoted(SyntheticVendor):
        def asset_class(self, ticker: str) -> AssetClass:
            return AssetClass.OPTION if ticker == "WEIRD" else super().asset_class(ticker)

    served, kind = await _served(parse_request("should I buy BTC-USD today?", SATURDAY), Quoted(), "en")
    assert served.intent == "analyze" and kind is AssetClass.CRYPTO
    refused, kind = await _served(parse_request("$WEIRD today", SATURDAY), Quoted(), "en")
    assert refused.intent == "clarify" and refused.refused == "option" and kind is None
    assert "option contract" in (refused.question or "")


async def test_crypto_today_is_the_utc_day() -> None:
    # Friday 21:00 in New York is Saturday 02:00 UTC: bitcoin's "today" is Saturday, NVDA's stays Friday
    from graph.nodes.coordinator import on_crypto_day

    async def read(text: str, day: date):
        return parse_request(text, day)

    btc = await on_crypto_day(parse_request("BTC-USD today", FRIDAY), FRIDAY, SATURDAY,
                              lambda day: read("BTC-USD today", day))
    assert (btc.asked_date, btc.trade_date) == (SATURDAY, SATURDAY)
    given = await on_crypto_day(parse_request("BTC-USD 2026-11-20", FRIDAY), FRIDAY, SATURDAY,
                                lambda day: read("BTC-USD 2026-11-20", day))
    assert given.trade_date == date(2026, 11, 20)
    nvda = await on_crypto_day(parse_request("NVDA today", FRIDAY), FRIDAY, SATURDAY,
                               lambda day: read("NVDA today", day))
    assert nvda.trade_date == FRIDAY
