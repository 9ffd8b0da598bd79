"""The yfinance vendor, fully offline: ``yf.Ticker`` is replaced by a fake built
from recorded yfinance shapes (column names, tz-aware index, news item shapes)."""

from __future__ import annotations

import asyncio
import math
import re
import urllib.error
import urllib.parse
from datetime import date, datetime

import pandas as pd
import pytest
import requests
from curl_cffi.requests.exceptions import ConnectionError as CurlConnectionError
from langchain_core.messages import ToolMessage
from yfinance.exceptions import YFRateLimitError

from graph.data import yfinance_vendor as yv
from graph.data.vendor import FILED_ATTR, OHLCV_COLUMNS, NewsItem, Post, Vendor, VendorError
from graph.data.yfinance_vendor import RATE_LIMITED, YFinanceVendor, parse_reddit, parse_stocktwits
from graph.tools import make_toolkit
from tests.support.yahoo import NEW_SHAPE_NEWS, NY, STOCKTWITS, income_frame, price_frame

TRADE = date(2024, 5, 1)


def _reddit_post(post_id: str, created_utc: float, subreddit: str, title: str, selftext: str = "") -> dict:
    """One ``t3`` child as Reddit's search.json returns it (trimmed to the usual fields)."""
    return {
        "kind": "t3",
        "data": {
            "approved_at_utc": None,
            "subreddit": subreddit,
            "selftext": selftext,
            "author_fullname": "t2_abc123",
            "title": title,
            "subreddit_name_prefixed": f"r/{subreddit}",
            "name": f"t3_{post_id}",
            "score": 42,
            "over_18": False,
            "id": post_id,
            "author": "someone",
            "num_comments": 17,
            "permalink": f"/r/{subreddit}/comments/{post_id}/slug/",
            "url": f"https://www.reddit.com/r/{subreddit}/comments/{post_id}/slug/",
            "created_utc": created_utc,
        },
    }


# https://www.reddit.com/search.json?q=%24NVDA+OR+NVDA&sort=new&limit=100&t=month
REDDIT = {
    "kind": "Listing",
    "data": {
        "after": "t3_1cfzz00",
        "dist": 5,
        "modhash": "",
        "geo_filter": "",
        "children": [
            # 2024-05-02 13:00Z: after the trade date.
            _reddit_post("1ci0001", 1714654800.0, "wallstreetbets", "NVDA calls printing, stock surges premarket"),
            # 2024-05-01 18:30Z = 14:30 New York.
            _reddit_post("1chz002", 1714588200.0, "stocks", "NVDA earnings preview: strong data center demand?",
                         "Thinking about adding before the report.\n\nGuidance should beat."),
            # 2024-05-01 16:05Z.
            _reddit_post("1chz001", 1714579500.0, "wallstreetbets", "$NVDA puts, this selloff is just starting",
                         "[removed]"),
            # 2024-04-30 20:10Z.
            _reddit_post("1cgy003", 1714507800.0, "investing", "What is your NVDA position size?"),
            # 2024-04-12 15:00Z: before the window.
            _reddit_post("1c2a004", 1712934000.0, "stocks", "NVDA drops on export worries"),
        ],
        "before": None,
    },
}
STOCKTWITS_URL = "https://api.stocktwits.com/api/2/streams/symbol/NVDA.json"
REDDIT_URL = "https://www.reddit.com/search.json?q=%24NVDA+OR+NVDA&sort=new&limit=100&t=month"


def http_error(code: int, message: str) -> urllib.error.HTTPError:
    return urllib.error.HTTPError("https://example.invalid", code, message, None, None)


class Feeds:
    """An injectable ``fetch``: answers per host (a value, or an exception to raise)
    and records every (url, timeout)."""

    def __init__(self, stocktwits: object = STOCKTWITS, reddit: object = REDDIT) -> None:
        self.answers = {"api.stocktwits.com": stocktwits, "www.reddit.com": reddit}
        self.seen: list[tuple[str, float]] = []

    def __call__(self, url: str, timeout: float) -> object:
        self.seen.append((url, timeout))
        answer = self.answers[urllib.parse.urlsplit(url).hostname]
        if isinstance(answer, BaseException):
            raise answer
        return answer


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def vendor(sleeps) -> YFinanceVendor:
    return YFinanceVendor(sleep=sleeps, today=lambda: date(2024, 5, 3), fetch=Feeds())


# --------------------------------------------------------------------------
# Prices
# --------------------------------------------------------------------------


def test_satisfies_vendor_protocol(vendor):
    assert isinstance(vendor, Vendor)
    assert (vendor.name, vendor.label) == ("yfinance", "Yahoo Finance (yfinance)")


def test_ohlcv_normalised_and_cut_at_end(vendor, yahoo):
    frame = vendor.ohlcv("NVDA", date(2024, 3, 1), TRADE)
    assert list(frame.columns) == list(OHLCV_COLUMNS)
    assert isinstance(frame.index, pd.DatetimeIndex) and frame.index.tz is None
    assert frame.index.is_monotonic_increasing
    assert frame.index.min() >= pd.Timestamp("2024-03-01")
    assert frame.index.max() == pd.Timestamp(TRADE)  # the fake returned rows up to May 10
    raw = price_frame()
    raw.index = raw.index.tz_localize(None)
    assert frame.loc["2024-05-01", "close"] == raw.loc["2024-05-01", "Close"]  # not "Adj Close"
    assert frame["volume"].dtype == "int64"
    # end is exclusive in yfinance: ask for the day after, unadjusted bars
    (_, _, kwargs), = [c for c in yahoo.calls if c[1] == "history"]
    assert kwargs["start"] == date(2024, 3, 1)
    assert kwargs["end"] == date(2024, 5, 2)
    assert kwargs["auto_adjust"] is False


def test_ohlcv_unknown_ticker_raises(vendor, yahoo):
    with pytest.raises(VendorError, match=re.escape("no price data for ZZZZQ (unknown or delisted ticker?)")):
        vendor.ohlcv("ZZZZQ", date(2024, 1, 1), TRADE)


def test_ohlcv_range_without_sessions_is_empty(vendor, yahoo):
    frame = vendor.ohlcv("NVDA", date(2024, 5, 4), date(2024, 5, 5))  # a weekend
    assert frame.empty and list(frame.columns) == list(OHLCV_COLUMNS)


def test_non_retryable_exception_becomes_vendor_error(vendor, yahoo, sleeps):
    yahoo.fail("NVDA", "history", KeyError("chart"))
    with pytest.raises(VendorError, match="Yahoo Finance error"):
        vendor.ohlcv("NVDA", date(2024, 1, 1), TRADE)
    assert yahoo.count("history") == 1 and sleeps == []


@pytest.mark.parametrize(
    "symbol, tz, expected",
    [("0700.HK", "Asia/Hong_Kong", "0700.HK"), ("600519.SS", "Asia/Shanghai", "600519.SS"),
     ("vod.l", "Europe/London", "VOD.L"), ("7203.T", "Asia/Tokyo", "7203.T"), ("^GSPC", NY, "^GSPC")],
)
def test_non_us_tickers_pass_through(vendor, yahoo, symbol, tz, expected):
    yahoo.set(expected, history=price_frame("2024-04-01", "2024-05-10", tz=tz))
    frame = vendor.ohlcv(symbol, date(2024, 4, 1), TRADE)
    assert [s for s, f, _ in yahoo.calls] == [expected]
    # exchange-local dates survive the tz drop (no shift to the previous day)
    assert frame.index.max() == pd.Timestamp(TRADE) and frame.index.tz is None


# --------------------------------------------------------------------------
# Retries
# --------------------------------------------------------------------------


def test_retry_succeeds_after_two_rate_limits(vendor, yahoo, sleeps):
    yahoo.fail("NVDA", "history", YFRateLimitError(), YFRateLimitError())
    frame = vendor.ohlcv("NVDA", date(2024, 4, 1), TRADE)
    assert not frame.empty
    assert yahoo.count("history") == 3
    assert sleeps == [1.0, 2.0]  # exponential backoff


def test_retry_gives_up_after_max_tries(vendor, yahoo, sleeps):
    yahoo.fail("NVDA", "history", *(YFRateLimitError() for _ in range(5)))
    with pytest.raises(VendorError) as err:
        vendor.ohlcv("NVDA", date(2024, 4, 1), TRADE)
    assert str(err.value) == RATE_LIMITED
    assert yahoo.count("history") == 3 and sleeps == [1.0, 2.0]


@pytest.mark.parametrize(
    "error",
    [requests.exceptions.ConnectionError("connection reset"), TimeoutError("read timed out"),
     CurlConnectionError("Failed to perform, curl: (6) Could not resolve host: query2.finance.yahoo.com")],
)
def test_network_errors_are_retried_then_reported(yahoo, sleeps, error):
    vendor = YFinanceVendor(retries=4, backoff_s=0.5, sleep=sleeps)
    yahoo.fail("NVDA", "info", *(error for _ in range(4)))
    with pytest.raises(VendorError, match=r"^Yahoo Finance unreachable: "):
        vendor.profile("NVDA", date.today())
    assert yahoo.count("info") == 4 and sleeps == [0.5, 1.0, 2.0]


# --------------------------------------------------------------------------
# Profile
# --------------------------------------------------------------------------


def test_profile_near_today_has_current_ratios(vendor, yahoo):
    profile = vendor.profile("NVDA", date(2024, 5, 1))  # today() is 2024-05-03
    assert profile["name"] == "NVIDIA Corporation" and profile["sector"] == "Technology"
    assert profile["pe"] == 73.5 and profile["forward_pe"] == 35.2 and profile["pb"] == 51.0
    assert profile["market_cap"] == 2.2e12 and profile["beta"] == 1.7
    assert profile["debt_to_equity"] == pytest.approx(0.257)
    assert profile["profit_margin"] == 0.489 and profile["revenue_growth"] == 2.65
    assert profile["dividend_yield"] == pytest.approx(0.16 / 880.0)  # a fraction, not percent


def test_profile_for_old_date_has_no_current_ratios(vendor, yahoo):
    profile = vendor.profile("NVDA", date(2023, 1, 3))
    assert (profile["name"], profile["sector"], profile["industry"]) == (
        "NVIDIA Corporation", "Technology", "Semiconductors")
    for key in ("market_cap", "shares_outstanding", "pe", "forward_pe", "pb", "dividend_yield", "beta",
                "profit_margin", "debt_to_equity", "revenue_growth"):
        assert profile[key] is None, key


def test_profile_unknown_ticker(vendor, yahoo):
    with pytest.raises(VendorError, match="no profile for NOPE"):
        vendor.profile("NOPE", TRADE)


# --------------------------------------------------------------------------
# Statements
# --------------------------------------------------------------------------


def test_statements_drop_quarters_filed_after_as_of(vendor, yahoo):
    frame = vendor.statements("NVDA", TRADE, "income")
    # Q1 2024 (ends Mar 31) counts as filed May 15 > May 1: dropped.
    assert list(frame.columns) == list(pd.to_datetime(["2023-12-31", "2023-09-30", "2023-06-30", "2023-03-31"]))
    assert frame.attrs[FILED_ATTR][pd.Timestamp("2023-12-31")] == pd.Timestamp("2024-02-14")
    assert set(frame.attrs[FILED_ATTR]) == set(frame.columns)
    assert frame.loc["Total Revenue", pd.Timestamp("2023-12-31")] == 22.10e9
    later = vendor.statements("NVDA", date(2024, 5, 15), "income")
    assert later.columns[0] == pd.Timestamp("2024-03-31")


def test_statements_fall_back_to_annual_with_longer_lag(vendor, yahoo):
    annual = income_frame().iloc[:, :3]
    annual.columns = pd.to_datetime(["2024-01-28", "2023-01-29", "2022-01-30"])
    yahoo.set("NVDA", quarterly_balance_sheet=pd.DataFrame(), balance_sheet=annual)
    frame = vendor.statements("NVDA", date(2024, 4, 1), "balance")
    # FY ending 2024-01-28 counts as filed 2024-04-27: not yet on 2024-04-01.
    assert list(frame.columns) == list(pd.to_datetime(["2023-01-29", "2022-01-30"]))
    assert frame.attrs[FILED_ATTR][pd.Timestamp("2023-01-29")] == pd.Timestamp("2023-04-29")
    assert frame.attrs["period"] == "annual"


def test_statements_missing_everywhere(vendor, yahoo):
    with pytest.raises(VendorError, match="no cashflow statement"):
        vendor.statements("NVDA", TRADE, "cashflow")


# --------------------------------------------------------------------------
# News
# --------------------------------------------------------------------------


def test_news_both_shapes_and_date_filter(vendor, yahoo):
    items = vendor.news("NVDA", date(2024, 4, 30), TRADE)
    assert all(isinstance(n, NewsItem) for n in items)
    assert [n.title for n in items] == [
        "Late session: Nvidia slides after hours",           # new shape, 22:30 NY on May 1
        "Nvidia shares rally as AI demand stays strong",     # new shape
        "Is Nvidia stock a buy before earnings?",            # old flat shape
    ]
    late, rally, old = items
    assert late.published == datetime(2024, 5, 1, 22, 30)  # naive US/Eastern
    assert rally.publisher == "Reuters" and rally.summary == "Chip stocks climbed on Wednesday."
    assert rally.url == "https://finance.yahoo.com/news/nvidia-rally-120000.html"
    assert old.publisher == "Motley Fool" and old.published == datetime(2024, 4, 30, 9, 30)
    assert old.url.endswith("is-nvidia-a-buy.html")


def test_news_for_historical_window_is_empty(vendor, yahoo):
    assert vendor.news("NVDA", date(2022, 1, 1), date(2022, 1, 31)) == []


def test_macro_news_merges_and_dedupes(vendor, yahoo):
    shared = NEW_SHAPE_NEWS[0]
    yahoo.set("^GSPC", news=[shared, {"id": "m1", "content": {"title": "Stocks rise as inflation cools",
                                                             "pubDate": "2024-04-30T20:00:00Z",
                                                             "provider": {"displayName": "AP"}}}])
    yahoo.set("SPY", news=[shared])
    items = vendor.macro_news(date(2024, 4, 30), TRADE)
    assert [n.title for n in items] == ["Nvidia shares rally as AI demand stays strong",
                                        "Stocks rise as inflation cools"]
    yahoo.fail("SPY", "news", KeyError("boom"))
    assert len(vendor.macro_news(date(2024, 4, 30), TRADE)) == 2  # one source failing is fine


# --------------------------------------------------------------------------
# Social (StockTwits)
# --------------------------------------------------------------------------


def test_stocktwits_parser_on_recorded_shape():
    posts = parse_stocktwits(STOCKTWITS, date(2024, 4, 30), TRADE)
    assert all(isinstance(p, Post) and p.source == "stocktwits" for p in posts)
    assert [(p.created, p.sentiment) for p in posts] == [
        (datetime(2024, 5, 1, 15, 45, 12), "bullish"),
        (datetime(2024, 5, 1, 10, 2, 11), "bearish"),
        (datetime(2024, 4, 30, 11, 0), None),
    ]


def test_social_posts_uses_injected_fetch(yahoo):
    feeds = Feeds()
    posts = YFinanceVendor(fetch=feeds).social_posts("nvda", date(2024, 4, 30), TRADE)
    assert len(posts) == 6  # 3 from StockTwits + 3 from Reddit
    assert feeds.seen == [(STOCKTWITS_URL, 5.0), (REDDIT_URL, 5.0)]


def test_reddit_parser_on_recorded_shape():
    posts = parse_reddit(REDDIT, date(2024, 4, 30), TRADE)
    assert [(p.created, p.sentiment, p.source, p.text) for p in posts] == [
        (datetime(2024, 5, 1, 14, 30), "bullish", "reddit r/stocks",
         "NVDA earnings preview: strong data center demand? -- Thinking about adding before the report. "
         "Guidance should beat."),
        (datetime(2024, 5, 1, 12, 5), "bearish", "reddit r/wallstreetbets",
         "$NVDA puts, this selloff is just starting"),  # "[removed]" bodies are dropped
        (datetime(2024, 4, 30, 16, 10), None, "reddit r/investing", "What is your NVDA position size?"),
    ]
    assert all(isinstance(p, Post) for p in posts)


def test_reddit_parser_caps_long_bodies_and_skips_junk():
    listing = {"kind": "Listing", "data": {"children": [
        _reddit_post("a1", 1714588200.0, "stocks", "NVDA deep dive", "word " * 500),
        {"kind": "t3", "data": {"title": "no timestamp"}},
        {"kind": "t3", "data": {"title": "", "created_utc": 1714588200.0}},
        "not a child",
    ]}}
    [post] = parse_reddit(listing, date(2024, 5, 1), TRADE)
    assert len(post.text) <= 280 and post.text.startswith("NVDA deep dive -- word word") and post.text.endswith("...")


@pytest.mark.parametrize(
    "payload, reason",
    [
        ({"message": "Too Many Requests", "error": 429}, "Too Many Requests (429)"),
        ({"kind": "t3", "data": {}}, "no listing in response"),
        ("<html>blocked</html>", "unexpected response"),
    ],
)
def test_reddit_parser_errors(payload, reason):
    with pytest.raises(VendorError, match=re.escape(f"social feed unreachable: {reason}")):
        parse_reddit(payload, date(2024, 4, 30), TRADE)


def test_social_posts_merge_both_feeds_newest_first_and_never_after_end():
    posts = YFinanceVendor(fetch=Feeds()).social_posts("NVDA", date(2024, 4, 30), TRADE)
    assert [(p.created, p.source) for p in posts] == [
        (datetime(2024, 5, 1, 15, 45, 12), "stocktwits"),
        (datetime(2024, 5, 1, 14, 30), "reddit r/stocks"),
        (datetime(2024, 5, 1, 12, 5), "reddit r/wallstreetbets"),
        (datetime(2024, 5, 1, 10, 2, 11), "stocktwits"),
        (datetime(2024, 4, 30, 16, 10), "reddit r/investing"),
        (datetime(2024, 4, 30, 11, 0), "stocktwits"),
    ]
    assert max(p.created.date() for p in posts) <= TRADE  # the 05-02 and 05-03 posts stay out


@pytest.mark.parametrize(
    "stocktwits",
    [http_error(403, "Forbidden"), urllib.error.URLError("timed out"),
     {"response": {"status": 200}, "messages": []}],  # fails, or answers with nothing in range
)
def test_stocktwits_fails_reddit_answers(stocktwits):
    posts = YFinanceVendor(fetch=Feeds(stocktwits=stocktwits)).social_posts("NVDA", date(2024, 4, 30), TRADE)
    assert [p.source for p in posts] == ["reddit r/stocks", "reddit r/wallstreetbets", "reddit r/investing"]


def test_reddit_fails_stocktwits_answers():
    posts = YFinanceVendor(fetch=Feeds(reddit=http_error(429, "Too Many Requests"))).social_posts(
        "NVDA", date(2024, 4, 30), TRADE)
    assert [p.source for p in posts] == ["stocktwits"] * 3


@pytest.mark.parametrize(
    "failure",
    [urllib.error.URLError("timed out"), TimeoutError("timed out"), ValueError("Expecting value: line 1")],
)
def test_social_posts_failure_is_vendor_error(failure):
    def broken(url, timeout):
        raise failure

    with pytest.raises(VendorError, match=r"^social feeds unreachable: stocktwits: .+; reddit: .+"):
        YFinanceVendor(fetch=broken).social_posts("NVDA", date(2024, 4, 30), TRADE)


def test_both_feeds_failing_names_both_reasons():
    feeds = Feeds(stocktwits={"response": {"status": 404}, "errors": [{"message": "Symbol not found"}]},
                  reddit=http_error(429, "Too Many Requests"))
    with pytest.raises(VendorError) as caught:
        YFinanceVendor(fetch=feeds).social_posts("ZZZZQ", date(2024, 4, 30), TRADE)
    assert str(caught.value) == ("social feeds unreachable: stocktwits: Symbol not found; "
                                 "reddit: HTTPError: HTTP Error 429: Too Many Requests")


def test_one_feed_empty_and_the_other_down_is_an_error_not_an_empty_answer():
    """An outage must not look like "no posts" (a cache would keep that for good)."""
    feeds = Feeds(stocktwits={"response": {"status": 200}, "messages": []}, reddit=TimeoutError("timed out"))
    with pytest.raises(VendorError) as caught:
        YFinanceVendor(fetch=feeds).social_posts("NVDA", date(2024, 4, 30), TRADE)
    assert str(caught.value) == ("social feeds unreachable: stocktwits: no posts from 2024-04-30 to 2024-05-01; "
                                 "reddit: TimeoutError: timed out")


def test_both_feeds_answering_with_nothing_is_empty():
    feeds = Feeds(stocktwits={"response": {"status": 200}, "messages": []},
                  reddit={"kind": "Listing", "data": {"children": []}})
    assert YFinanceVendor(fetch=feeds).social_posts("NVDA", date(2024, 4, 30), TRADE) == []


def test_fetch_json_sends_a_descriptive_user_agent(monkeypatch):
    sent = []

    class Response:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return b'{"kind": "Listing", "data": {"children": []}}'

    def fake_urlopen(request, timeout):
        sent.append((request.full_url, request.get_header("User-agent"), timeout))
        return Response()

    monkeypatch.setattr(yv.urllib.request, "urlopen", fake_urlopen)
    assert yv.fetch_json(REDDIT_URL, 5.0) == {"kind": "Listing", "data": {"children": []}}
    [(url, agent, timeout)] = sent
    assert url == REDDIT_URL and timeout == 5.0
    assert agent.startswith("trading-desk/0.1") and "Mozilla" not in agent


# --------------------------------------------------------------------------
# Analyst grades
# --------------------------------------------------------------------------


def test_recommendations_cut_at_as_of(vendor, yahoo):
    grades = vendor.recommendations("NVDA", TRADE)
    assert [g["date"] for g in grades] == [date(2024, 4, 24), date(2024, 3, 18), date(2024, 1, 30)]
    assert grades[1] == {"date": date(2024, 3, 18), "firm": "Loop Capital", "to_grade": "Buy",
                         "from_grade": "Hold", "action": "up", "source": "yfinance"}


def test_recommendations_missing_is_empty_but_outage_raises(vendor, yahoo):
    assert vendor.recommendations("AAAA", TRADE) == []
    yahoo.fail("NVDA", "upgrades_downgrades", *(YFRateLimitError() for _ in range(3)))
    with pytest.raises(VendorError, match="rate limited"):
        vendor.recommendations("NVDA", TRADE)


# --------------------------------------------------------------------------
# Through the real analyst tools
# --------------------------------------------------------------------------


def call(tool, **args) -> tuple[str, dict]:
    message = asyncio.run(tool.ainvoke({"type": "tool_call", "name": tool.name, "args": args, "id": "c1"}))
    assert isinstance(message, ToolMessage)
    return message.content, message.artifact


def tools(vendor) -> dict:
    kit = make_toolkit(vendor, "NVDA", TRADE)
    return {t.name: t for group in kit.values() for t in group}


def _dates_in(text: str) -> list[date]:
    return [date.fromisoformat(d) for d in re.findall(r"\d{4}-\d{2}-\d{2}", text)]


def test_price_tools_use_mocked_numbers_and_no_future_rows(vendor, yahoo):
    raw = price_frame()
    raw.index = raw.index.tz_localize(None)
    closes = raw.loc[: pd.Timestamp(TRADE), "Close"]
    by_name = tools(vendor)

    content, artifact = call(by_name["get_price_history"])
    assert content.startswith("Source: Yahoo Finance (yfinance)")
    assert artifact["source"] == "yfinance" and "error" not in artifact
    assert artifact["figures"]["Close"] == round(float(closes.iloc[-1]), 2)
    assert artifact["figures"]["52W High"] == round(float(raw.loc["2023-05-02":"2024-05-01", "High"].max()), 2)
    assert max(_dates_in(content)) == TRADE

    content, artifact = call(by_name["get_indicators"])
    assert artifact["figures"]["SMA 50"] == round(float(closes.iloc[-50:].mean()), 2)
    assert artifact["figures"]["SMA 200"] == round(float(closes.iloc[-200:].mean()), 2)
    assert max(_dates_in(content)) == TRADE
    assert all(not math.isnan(v) for v in artifact["figures"].values() if isinstance(v, float))


def test_fundamental_and_news_tools_with_mocked_yahoo(vendor, yahoo):
    by_name = tools(vendor)
    content, artifact = call(by_name["get_financial_statements"])
    assert artifact["figures"]["Period"] == "2023-12-31"
    assert artifact["figures"]["Revenue"] == 22_100_000_000
    content, artifact = call(by_name["get_fundamentals"])
    assert artifact["figures"]["P/E"] == 73.5  # trade date within 5 days of the injected today
    assert "Grade 2024-04-24 Morgan Stanley" in content and "2024-05-29" not in content
    content, artifact = call(by_name["get_company_news"], lookback_days=2)
    assert artifact["figures"]["Headlines"] == 3
    content, artifact = call(by_name["get_social_sentiment"], lookback_days=2)
    assert artifact["figures"]["Posts"] == 6  # StockTwits and Reddit merged
    assert "stocktwits [bullish]" in content and "reddit r/stocks [bullish]" in content
    assert max(_dates_in(content)) == TRADE


def test_social_tool_uses_headline_tone_when_no_feed_answers(yahoo):
    feeds = Feeds(stocktwits=http_error(403, "Forbidden"), reddit=http_error(429, "Too Many Requests"))
    vendor = YFinanceVendor(today=lambda: date(2024, 5, 3), fetch=feeds)
    content, artifact = call(tools(vendor)["get_social_sentiment"], lookback_days=2)
    _, news = call(tools(vendor)["get_company_news"], lookback_days=2)
    assert "error" not in artifact and artifact["source"] == "yfinance"
    assert artifact["figures"] == {"Posts": 0, "Bullish %": None, "Bearish %": None,
                                   "Social Score": news["figures"]["News Tone"], "Proxy": "news headlines"}
    assert artifact["items"] == news["items"]
    assert ("no social feed answered (social feeds unreachable: stocktwits: HTTPError: HTTP Error 403: Forbidden; "
            "reddit: HTTPError: HTTP Error 429: Too Many Requests); using news-headline tone as a proxy") in content


def test_social_tool_no_data_when_feeds_and_news_fail(yahoo, sleeps):
    feeds = Feeds(stocktwits=http_error(403, "Forbidden"), reddit=http_error(429, "Too Many Requests"))
    vendor = YFinanceVendor(sleep=sleeps, fetch=feeds)
    yahoo.fail("NVDA", "news", *(YFRateLimitError() for _ in range(3)))
    content, artifact = call(tools(vendor)["get_social_sentiment"])
    assert content.startswith("no data: no social feed answered (social feeds unreachable: stocktwits: ")
    assert content.endswith(f"and no news headlines to fall back on ({RATE_LIMITED})")
    assert artifact["figures"] == {} and artifact["items"] == [] and artifact["error"] == content[len("no data: "):]


def test_rate_limited_vendor_gives_no_data(yahoo, sleeps):
    vendor = YFinanceVendor(sleep=sleeps)
    yahoo.fail("NVDA", "history", *(YFRateLimitError() for _ in range(10)))
    content, artifact = call(tools(vendor)["get_price_history"])
    assert content.startswith("no data: ")
    assert content == f"no data: {RATE_LIMITED}"
    assert artifact["error"] == RATE_LIMITED and artifact["figures"] == {}
    assert sleeps == [1.0, 2.0]  # backoff went through the injected sleep, not time.sleep
