"""The analyst tools: artifact contract, no look-ahead, and the "no data" path."""

from __future__ import annotations

import asyncio
import json
import re
import time
from datetime import date, datetime, timedelta

import pandas as pd
import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool

from graph.data.indicators import compute_indicators
from graph.data.synthetic import SyntheticVendor
from graph.data.tone import headline_tone, news_tone
from graph.data.vendor import FILED_ATTR, NewsItem, Post, VendorError
from graph.tools import ANALYST_KINDS, guarded, make_toolkit

TRADE = date(2024, 5, 1)

EXPECTED_FIGURES = {
    "get_price_history": ["Close", "Change 1M %", "Change 3M %", "52W High", "52W Low", "Avg Volume 20D"],
    "get_indicators": ["SMA 50", "SMA 200", "EMA 10", "MACD", "MACD Signal", "MACD Hist", "RSI 14",
                       "Boll Upper", "Boll Lower", "ATR 14", "VWMA 20"],
    "get_social_sentiment": ["Posts", "Bullish %", "Bearish %", "Social Score"],
    "get_company_news": ["Headlines", "News Tone"],
    "get_macro_news": ["Headlines", "Macro Tone"],
    "get_fundamentals": ["Market Cap", "P/E", "Forward P/E", "P/B", "Profit Margin %", "Debt/Equity",
                         "Dividend Yield %", "Beta", "Revenue Growth YoY %"],
    "get_financial_statements": ["Revenue", "Net Income", "Period"],  # default statement: income
}
TOOL_NAMES = {
    "market": ["get_price_history", "get_indicators"],
    "social": ["get_social_sentiment", "get_options_positioning"],  # today's option chain (issue 38)
    "news": ["get_company_news", "get_macro_news", "get_scheduled_events"],  # the calendar (issue 38)
    "fundamentals": ["get_fundamentals", "get_financial_statements", "get_scheduled_events"],
    "macro": ["get_macro_indicators"],  # the Macro Analyst, chosen, not default (issue 38)
}


def call(tool: StructuredTool, **args) -> tuple[str, dict]:
    """Invoke a tool the way an agent does and return (content, artifact)."""
    message = asyncio.run(tool.ainvoke({"type": "tool_call", "name": tool.name, "args": args, "id": "call-1"}))
    assert isinstance(message, ToolMessage)
    return message.content, message.artifact


def tools_by_name(vendor, ticker: str = "NVDA", trade_date: date = TRADE) -> dict[str, StructuredTool]:
    kit = make_toolkit(vendor, ticker, trade_date)
    return {tool.name: tool for tools in kit.values() for tool in tools}


def all_outputs(vendor, trade_date: date = TRADE) -> dict[str, tuple[str, dict]]:
    outputs = {name: call(tool) for name, tool in tools_by_name(vendor, trade_date=trade_date).items()}
    for kind in ("balance", "cashflow"):
        statements = tools_by_name(vendor, trade_date=trade_date)["get_financial_statements"]
        outputs[f"get_financial_statements:{kind}"] = call(statements, statement=kind)
    return outputs


@pytest.fixture(scope="module")
def synthetic_outputs() -> dict[str, tuple[str, dict]]:
    return all_outputs(SyntheticVendor())


# ---- toolkit shape ----------------------------------------------------------------


def test_toolkit_keys_and_tool_names():
    kit = make_toolkit(SyntheticVendor(), "nvda", TRADE)
    assert tuple(kit) == ANALYST_KINDS == ("market", "social", "news", "fundamentals", "macro")
    assert {kind: [t.name for t in tools] for kind, tools in kit.items()} == TOOL_NAMES
    for tools in kit.values():
        for tool in tools:
            assert isinstance(tool, StructuredTool)
            assert tool.response_format == "content_and_artifact"
            assert tool.coroutine is not None
            # No tool lets the model pick a date or a ticker.
            fields = set(tool.args)
            assert fields <= {"lookback_days", "statement"}


def test_all_arguments_are_optional():
    for tool in tools_by_name(SyntheticVendor()).values():
        assert not tool.tool_call_schema.model_json_schema().get("required")


# ---- artifact contract --------------------------------------------------------------


@pytest.mark.parametrize("name", list(EXPECTED_FIGURES))
def test_figures_use_exact_labels(synthetic_outputs, name):
    content, artifact = synthetic_outputs[name]
    assert content.splitlines()[0] == "Source: synthetic demo data · as of 2024-05-01"
    assert artifact["tool"] == name
    assert artifact["source"] == "synthetic"
    assert artifact["as_of"] == "2024-05-01"
    assert "error" not in artifact
    assert list(artifact["figures"]) == EXPECTED_FIGURES[name]
    assert all(isinstance(item, str) for item in artifact["items"])
    for value in artifact["figures"].values():
        assert value is None or isinstance(value, (int, float, str))
        if isinstance(value, float):
            assert value == round(value, 2)
    json.dumps(artifact)  # plain data, safe for checkpoints


def test_statement_kinds_report_the_figures_that_apply(synthetic_outputs):
    assert list(synthetic_outputs["get_financial_statements:cashflow"][1]["figures"]) == ["Free Cash Flow", "Period"]
    assert list(synthetic_outputs["get_financial_statements:balance"][1]["figures"]) == ["Period"]
    period = synthetic_outputs["get_financial_statements"][1]["figures"]["Period"]
    assert period == "2023-12-31"  # Q1 2024 is not filed by 2024-05-01 in this data


def test_figures_are_consistent_with_vendor_data(synthetic_outputs):
    vendor = SyntheticVendor()
    frame = vendor.ohlcv("NVDA", TRADE - timedelta(days=400), TRADE)
    figures = synthetic_outputs["get_price_history"][1]["figures"]
    assert figures["Close"] == round(frame["close"].iloc[-1], 2)
    assert figures["Avg Volume 20D"] == round(frame["volume"].iloc[-20:].mean())
    social = synthetic_outputs["get_social_sentiment"][1]["figures"]
    assert -1 <= social["Social Score"] <= 1
    assert social["Bullish %"] + social["Bearish %"] <= 100
    assert -1 <= synthetic_outputs["get_company_news"][1]["figures"]["News Tone"] <= 1


def test_content_is_bounded():
    named = tools_by_name(SyntheticVendor())
    content, artifact = call(named["get_price_history"], lookback_days=720)
    table_rows = [line for line in content.splitlines() if re.match(r"^\d{4}-\d{2}-\d{2} \|", line)]
    assert 0 < len(table_rows) <= 15 and len(artifact["items"]) <= 15
    assert table_rows[-1].startswith("2024-05-01")  # the latest session is always shown
    _, news = call(named["get_company_news"], lookback_days=90)
    assert news["figures"]["Headlines"] > 10 and len(news["items"]) == 10
    assert re.match(r"^\d{4}-\d{2}-\d{2} \S.*: .+", news["items"][0])


def test_out_of_range_arguments_are_clamped_not_rejected():
    named = tools_by_name(SyntheticVendor())
    content, artifact = call(named["get_price_history"], lookback_days=-3)
    assert "error" not in artifact and "last 5 days" in content


# ---- no look-ahead -----------------------------------------------------------------


class LeakyVendor(SyntheticVendor):
    """A careless vendor: ignores the end date and adds items from the future."""

    FUTURE = date(2024, 9, 30)

    def ohlcv(self, ticker, start, end):
        return super().ohlcv(ticker, start, self.FUTURE)

    def news(self, ticker, start, end):
        return super().news(ticker, start, self.FUTURE)

    def macro_news(self, start, end):
        return super().macro_news(start, self.FUTURE)

    def social_posts(self, ticker, start, end):
        return super().social_posts(ticker, start, self.FUTURE)

    def statements(self, ticker, as_of, kind):
        return super().statements(ticker, self.FUTURE, kind)

    def recommendations(self, ticker, as_of):
        return super().recommendations(ticker, self.FUTURE)

    def events(self, ticker, as_of, until):
        # What the calendar held later (announced after the trade date) too.
        return super().events(ticker, as_of, until) + super().events(ticker, self.FUTURE, self.FUTURE + (until - as_of))


def _dates_in(text: str) -> list[date]:
    return [date.fromisoformat(d) for d in re.findall(r"\b\d{4}-\d{2}-\d{2}\b", text)]


def test_a_leaky_vendor_cannot_leak_the_future(synthetic_outputs):
    """Tools filter every row/item to <= trade date themselves; the calendar's events are dated after it by
    design (what is scheduled), and only those announced by the trade date are kept."""
    leaky = all_outputs(LeakyVendor())
    assert leaky == synthetic_outputs
    for name, (content, artifact) in leaky.items():
        if name == "get_scheduled_events":
            assert artifact["events"] and all(r["announced"] <= TRADE.isoformat() <= r["day"]
                                              for r in artifact["events"])
            continue
        dates = _dates_in(content) + _dates_in(json.dumps(artifact))
        assert dates and max(dates) <= TRADE


def test_indicators_use_only_rows_up_to_trade_date():
    vendor = SyntheticVendor()
    honest = vendor.ohlcv("NVDA", TRADE - timedelta(days=730), TRADE)
    extended = LeakyVendor().ohlcv("NVDA", TRADE - timedelta(days=730), TRADE)
    assert extended.index.max() > pd.Timestamp(TRADE)
    # Sanity: later rows would change the result if they got in.
    assert compute_indicators(extended)["SMA 50"].value != compute_indicators(honest)["SMA 50"].value

    expected = {label: round(ind.value, 2) for label, ind in compute_indicators(honest).items()
                if label in EXPECTED_FIGURES["get_indicators"]}
    _, artifact = call(tools_by_name(LeakyVendor())["get_indicators"])
    assert artifact["figures"] == expected


def test_statements_without_filing_dates_assume_a_safe_lag():
    class NoFilingDates(SyntheticVendor):
        def statements(self, ticker, as_of, kind):
            frame = super().statements(ticker, date(2024, 9, 30), kind)
            frame.attrs.pop(FILED_ATTR)
            return frame

    _, artifact = call(tools_by_name(NoFilingDates())["get_financial_statements"])
    # Q1 2024 (ended 2024-03-31) is only 31 days old on the trade date: too fresh to trust.
    assert artifact["figures"]["Period"] == "2023-12-31"


def test_short_history_reports_not_enough_history():
    class YoungListing(SyntheticVendor):
        def ohlcv(self, ticker, start, end):
            return super().ohlcv(ticker, max(start, date(2024, 2, 1)), end)

    content, artifact = call(tools_by_name(YoungListing())["get_indicators"])
    assert artifact["figures"]["SMA 200"] is None
    assert artifact["figures"]["SMA 50"] is not None
    assert any(item.startswith("SMA 200: not enough history") for item in artifact["items"])
    assert "not enough history" in content


def test_live_style_frames_are_normalised():
    """Capitalised columns and a tz-aware index, as yfinance returns them."""

    class LiveLike(SyntheticVendor):
        def ohlcv(self, ticker, start, end):
            frame = super().ohlcv(ticker, start, date(2024, 6, 30))
            frame.index = frame.index.tz_localize("America/New_York")
            return frame.rename(columns=str.title)

    _, live = call(tools_by_name(LiveLike())["get_price_history"])
    _, honest = call(tools_by_name(SyntheticVendor())["get_price_history"])
    assert live == honest


# ---- no data ---------------------------------------------------------------------


class FailingVendor:
    name = "stub"
    label = "stub data"

    def __init__(self, error: Exception):
        self.error = error

    def _fail(self, *args):
        raise self.error

    ohlcv = profile = statements = news = social_posts = recommendations = events = _fail

    def macro_news(self, start, end):
        raise self.error


class EmptyVendor:
    name = "stub"
    label = "stub data"

    def ohlcv(self, ticker, start, end):
        return pd.DataFrame(columns=["open", "high", "low", "close", "volume"])

    def profile(self, ticker, as_of):
        return {}

    def statements(self, ticker, as_of, kind):
        return pd.DataFrame()

    def news(self, ticker, start, end):
        return []

    def macro_news(self, start, end):
        return []

    def social_posts(self, ticker, start, end):
        return []

    def recommendations(self, ticker, as_of):
        return []


def _assert_no_data(outputs: dict, reason_pattern: str):
    for name, (content, artifact) in outputs.items():
        if name == "get_options_positioning":  # a past trade date: it says why without asking the vendor
            assert "not historical" in content and artifact["not_today"] and artifact["figures"] == {}
            continue
        assert content.startswith("no data: "), name
        assert re.search(reason_pattern, content), (name, content)
        assert artifact["error"] == content.removeprefix("no data: ")
        assert artifact["figures"] == {} and artifact["items"] == []
        assert artifact["source"] == "stub" and artifact["as_of"] == "2024-05-01"
        assert artifact["tool"] == name.split(":")[0]


def test_vendor_error_becomes_no_data():
    outputs = all_outputs(FailingVendor(VendorError("rate limited")))
    social = {"get_social_sentiment": outputs.pop("get_social_sentiment")}
    _assert_no_data(outputs, r"^no data: rate limited$")
    # The social tool tried the headlines too, and says why both failed.
    _assert_no_data(social, r"^no data: no social feed answered \(rate limited\) and no news headlines"
                            r" to fall back on \(rate limited\)$")


def test_unexpected_exception_becomes_no_data():
    _assert_no_data(all_outputs(FailingVendor(RuntimeError("boom"))), r"unexpected RuntimeError: boom")


def test_empty_data_becomes_no_data():
    _assert_no_data(all_outputs(EmptyVendor()), r"^no data: no ")


def test_slow_vendor_times_out(monkeypatch):
    class SlowVendor(EmptyVendor):
        def ohlcv(self, ticker, start, end):
            time.sleep(0.5)
            return super().ohlcv(ticker, start, end)

    monkeypatch.setattr(guarded, "VENDOR_TIMEOUT_S", 0.05)
    content, artifact = call(tools_by_name(SlowVendor())["get_price_history"])
    assert content.startswith("no data: timeout") and artifact["error"].startswith("timeout")
    assert artifact["failed"] is True


def test_only_future_items_means_no_data():
    class FutureOnly(EmptyVendor):
        def news(self, ticker, start, end):
            return [NewsItem(datetime(2024, 5, 2, 9, 0), "NVDA jumps", "Wire")]

        def social_posts(self, ticker, start, end):
            return [Post(datetime(2024, 5, 3, 9, 0), "$NVDA up", "bullish", "x")]

    named = tools_by_name(FutureOnly())
    assert call(named["get_company_news"])[0].startswith("no data: ")
    assert call(named["get_social_sentiment"])[0].startswith("no data: ")


# ---- social: the news-headline proxy ----------------------------------------------


class NoSocialFeed(SyntheticVendor):
    """Social feeds down, news fine (and leaky: it also returns tomorrow's headlines)."""

    def social_posts(self, ticker, start, end):
        raise VendorError("social feeds unreachable: stocktwits: HTTPError: 403; reddit: HTTPError: 429")

    def news(self, ticker, start, end):
        return super().news(ticker, start, date(2024, 9, 30))


def test_social_tool_falls_back_to_headline_tone():
    content, artifact = call(tools_by_name(NoSocialFeed())["get_social_sentiment"], lookback_days=14)
    start = TRADE - timedelta(days=13)
    headlines = [n for n in SyntheticVendor().news("NVDA", start, TRADE)]
    assert headlines  # the proxy has something to read
    assert "error" not in artifact
    assert artifact["tool"] == "get_social_sentiment" and artifact["source"] == "synthetic"
    assert artifact["as_of"] == "2024-05-01"
    assert artifact["figures"] == {
        "Posts": 0,
        "Bullish %": None,
        "Bearish %": None,
        "Social Score": news_tone(n.title for n in headlines),
        "Proxy": "news headlines",
    }
    assert artifact["items"] == [f"{n.published:%Y-%m-%d} {n.publisher}: {n.title}" for n in headlines[:10]]
    lines = content.splitlines()
    assert lines[0] == "Source: synthetic demo data · as of 2024-05-01"
    assert lines[1] == ("no social feed answered (social feeds unreachable: stocktwits: HTTPError: 403; "
                        "reddit: HTTPError: 429); using news-headline tone as a proxy.")
    # The leaky news vendor's later headlines never reach the proxy.
    assert max(_dates_in(content) + _dates_in(json.dumps(artifact))) <= TRADE
    json.dumps(artifact)


def test_social_tool_falls_back_when_feeds_answer_with_nothing():
    class QuietFeeds(SyntheticVendor):
        def social_posts(self, ticker, start, end):
            # Only a post from after the trade date: it must not count as a post.
            return [Post(datetime(2024, 5, 2, 9, 30), "$NVDA to the moon", "bullish", "reddit r/stocks")]

    content, artifact = call(tools_by_name(QuietFeeds())["get_social_sentiment"])
    assert artifact["figures"]["Posts"] == 0 and artifact["figures"]["Proxy"] == "news headlines"
    assert "no social feed answered (no social posts about NVDA from 2024-04-25 to 2024-05-01)" in content
    assert "moon" not in content and "2024-05-02" not in content


def test_social_tool_no_data_when_feeds_and_news_all_fail():
    class NothingAnswers(NoSocialFeed):
        def news(self, ticker, start, end):
            raise VendorError("rate limited by Yahoo Finance; try again in a minute")

    content, artifact = call(tools_by_name(NothingAnswers())["get_social_sentiment"])
    reason = ("no social feed answered (social feeds unreachable: stocktwits: HTTPError: 403; reddit: HTTPError: 429)"
              " and no news headlines to fall back on (rate limited by Yahoo Finance; try again in a minute)")
    assert content == f"no data: {reason}"
    assert artifact == {"tool": "get_social_sentiment", "source": "synthetic", "as_of": "2024-05-01",
                        "error": reason, "figures": {}, "items": []}

    class NoHeadlinesEither(NoSocialFeed):
        def news(self, ticker, start, end):
            return [NewsItem(datetime(2024, 5, 2, 9, 0), "NVDA jumps", "Wire")]  # after the trade date only

    content, artifact = call(tools_by_name(NoHeadlinesEither())["get_social_sentiment"])
    assert content.endswith("and no news headlines to fall back on (no NVDA headlines from 2024-04-25 to 2024-05-01)")
    assert artifact["figures"] == {} and artifact["items"] == []


def test_real_posts_win_over_the_proxy(synthetic_outputs):
    _, artifact = synthetic_outputs["get_social_sentiment"]
    assert "Proxy" not in artifact["figures"] and artifact["figures"]["Posts"] > 0


def test_secondary_failures_do_not_sink_fundamentals():
    class NoStatements(SyntheticVendor):
        def statements(self, ticker, as_of, kind):
            raise VendorError("rate limited")

        def recommendations(self, ticker, as_of):
            raise VendorError("rate limited")

    _, artifact = call(tools_by_name(NoStatements())["get_fundamentals"])
    assert "error" not in artifact
    # Growth falls back to the profile's figure.
    profile = SyntheticVendor().profile("NVDA", TRADE)
    assert artifact["figures"]["Revenue Growth YoY %"] == round(profile["revenue_growth"] * 100, 2)


# ---- tone scorer ---------------------------------------------------------------------


def test_tone_scorer_is_shared_with_the_data_layer():
    from graph.data import tone

    assert headline_tone is tone.headline_tone and news_tone is tone.news_tone


def test_headline_tone():
    assert headline_tone("Shares rally on strong demand") == 1.0
    assert headline_tone("Stock falls amid weak guidance fears") == -1.0
    assert headline_tone("Company announces executive appointment") == 0.0
    assert headline_tone("Stock jumps, then falls") == 0.0
    assert news_tone([]) == 0.0
    assert news_tone(["Shares rally", "Shares slump", "Quiet day"]) == 0.0


def test_statement_argument_accepts_common_spellings():
    tool = tools_by_name(SyntheticVendor())["get_financial_statements"]
    _, cash = call(tool, statement="Cash Flow")
    _, balance = call(tool, statement="balance_sheet")
    assert "Free Cash Flow" in cash["figures"]
    assert list(balance["figures"]) == ["Period"]
