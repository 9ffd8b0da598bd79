from datetime import date

import pytest

from graph.request import ParsedRequest, parse_request
from graph.request.companies import all_companies, company_name, normalize_ticker

SUNDAY = date(2026, 11, 22)  # default "today" in these tests
FRIDAY = date(2026, 11, 20)  # ...and the trading day it resolves to


def parse(text, today=SUNDAY, **kwargs) -> ParsedRequest:
    return parse_request(text, today, **kwargs)


# --------------------------------------------------------------------------
# Tickers
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, ticker",
    [
        # plain symbols, cashtags, lower case
        ("should I buy NVDA today?", "NVDA"),
        ("NVDA", "NVDA"),
        ("$TSLA", "TSLA"),
        ("$tsla", "TSLA"),
        ("thoughts on $nvda heading into earnings", "NVDA"),
        ("should i buy nvda", "NVDA"),
        ("aapl?", "AAPL"),
        ("amd", "AMD"),
        ("Nvda looks strong", "NVDA"),
        ("What's your take on MSFT?", "MSFT"),
        ("Would you buy AMD at these levels?", "AMD"),
        ("I'm thinking of shorting GME", "GME"),
        ("Is it too late to buy SMCI?", "SMCI"),
        ("Should I DCA into VOO?", "VOO"),
        ("$SPY puts?", "SPY"),
        ("qqq", "QQQ"),
        ("(AAPL) analysis please", "AAPL"),
        ("NVDA.", "NVDA"),
        ("NVDA-related risks?", "NVDA"),
        # possessives
        ("What about TSLA's margins?", "TSLA"),
        ("Apple's earnings look good, buy?", "AAPL"),
        ("nvidia's chart", "NVDA"),
        ("jpmorgan's results", "JPM"),
        # all-caps sentences: English words are not tickers
        ("CAN I BUY TSLA NOW", "TSLA"),
        ("WHAT ABOUT AMD", "AMD"),
        ("SHOULD I SELL MY NVDA BEFORE EARNINGS", "NVDA"),
        ("IS NOW A GOOD TIME TO BUY NVIDIA", "NVDA"),
        ("SHOULD I BUY HIMS", "HIMS"),
        ("WHAT IS GOING ON WITH CELH", "CELH"),
        # company names and aliases
        ("thoughts on Apple?", "AAPL"),
        ("Is it a good time to buy Amazon?", "AMZN"),
        ("Should I sell my Tesla shares?", "TSLA"),
        ("microsoft", "MSFT"),
        ("NVIDIA", "NVDA"),
        ("google", "GOOGL"),
        ("analyze Alphabet", "GOOGL"),
        ("facebook", "META"),
        ("meta", "META"),
        ("Coca Cola", "KO"),
        ("coca-cola", "KO"),
        ("is coke a buy?", "KO"),
        ("JP Morgan", "JPM"),
        ("JPMorgan Chase", "JPM"),
        ("what about chase?", "JPM"),
        ("walmart", "WMT"),
        ("Disney", "DIS"),
        ("BofA", "BAC"),
        ("Bank of America's stock", "BAC"),
        ("AT&T", "T"),
        ("P&G earnings", "PG"),
        ("Johnson & Johnson", "JNJ"),
        ("Taiwan Semi", "TSM"),
        ("Is Palantir overvalued?", "PLTR"),
        ("Evaluate Shopify for me", "SHOP"),
        ("should I buy target?", "TGT"),
        ("Is Target a buy?", "TGT"),
        ("How about 3M?", "MMM"),
        ("On Semi", "ON"),
        ("Is the S&P 500 overvalued?", "^GSPC"),  # an index is analysed as the index (issue 37)
        ("what about the nasdaq", "^IXIC"),
        ("bitcoin", "BTC-USD"),
        ("McDonald's", "MCD"),
        ("mcdonalds", "MCD"),
        ("Home Depot", "HD"),
        ("Eli Lilly", "LLY"),
        ("Is Ford a good investment?", "F"),
        ("What about GM?", "GM"),
        ("Thoughts on CAT?", "CAT"),
        ("Is Lucid a buy?", "LCID"),
        ("Nvidia stock price today", "NVDA"),
        ("how's the market treating AMD today", "AMD"),
        ("Should I trim my Apple position?", "AAPL"),
        ("Is Berkshire Hathaway Class B a buy?", "BRK-B"),
        # big non-US names map to their home listing
        ("tencent", "0700.HK"),
        ("Samsung", "005930.KS"),
        ("Nestlé", "NESN.SW"),
        # share classes -> Yahoo form
        ("is Berkshire B a sell?", "BRK-B"),
        ("is berkshire a buy?", "BRK-B"),
        ("Should I buy Berkshire Hathaway?", "BRK-B"),
        ("BRK.B", "BRK-B"),
        ("BRK/B", "BRK-B"),
        ("brk b", "BRK-B"),
        ("$BRK.B", "BRK-B"),
        ("BRK-B", "BRK-B"),
        ("brk.a", "BRK-A"),
        ("BRK-A", "BRK-A"),
        ("Berkshire class A", "BRK-A"),
        ("BF.B", "BF-B"),
        # explicit non-US Yahoo forms pass through
        ("0700.HK", "0700.HK"),
        ("700.HK", "0700.HK"),
        ("600519.SS", "600519.SS"),
        ("VOD.L", "VOD.L"),
        ("7203.T", "7203.T"),
        ("SHOP.TO", "SHOP.TO"),
        ("shop.to", "SHOP.TO"),
        ("SAP.DE today", "SAP.DE"),
        ("BTC-USD", "BTC-USD"),
        # single-letter tickers: $ or clearly standalone upper case
        ("Should I buy F?", "F"),
        ("$F", "F"),
        ("is T a good dividend play", "T"),
        ("plan B: buy V", "V"),
        ("$C today", "C"),
        # soft words that are tickers, with context
        ("Is COIN a buy?", "COIN"),
        ("should i buy coin", "COIN"),
        ("is ON a buy", "ON"),
        ("is arm a buy", "ARM"),
        ("What about Shop?", "SHOP"),
        # cashtag beats the stoplist
        ("$AI", "AI"),
        ("$NOW", "NOW"),
        # unknown but plausible symbols
        ("What do you think of CELH?", "CELH"),
        ("buy PLTR or not", "PLTR"),
        # noise that must not add a second ticker
        ("Should I buy NVDA before the FOMC meeting?", "NVDA"),
        ("Is AAPL a buy after WWDC?", "AAPL"),
        ("Should I buy NVDA NOW?", "NVDA"),
        ("I'm ALL in on NVDA", "NVDA"),
        ("I hurt my arm, buy NVDA?", "NVDA"),
        ("T-bills vs NVDA?", "NVDA"),
        ("M&A activity around NVDA", "NVDA"),
        ("buy 3m shares of NVDA", "NVDA"),
        ("whats the GDP print doing to SPY", "SPY"),
        ("Is NVDA's P/E too high?", "NVDA"),
        ("i may 2x my NVDA position", "NVDA"),
        ("What's NVDA's price target?", "NVDA"),
        ("Is NVDA a good buy given the AI hype and the CEO's comments at GTC?", "NVDA"),
        ("Should I buy AAPL? My RSI says oversold and the EPS beat", "AAPL"),
        ("hi, can you analyze Apple for me?", "AAPL"),
        ("what do u think abt coinbase", "COIN"),
        ("Should I buy NVDA after the RTX 5090 launch?", "NVDA"),
        ("RTX", "RTX"),
        ("Tell me about KO", "KO"),
        ("is ge a buy", "GE"),
    ],
)
def test_ticker_extraction(text, ticker):
    result = parse(text)
    assert result.intent == "analyze", result.reason
    assert result.ticker == ticker


@pytest.mark.parametrize(
    "text",
    [
        "AI is overhyped",
        "is the FED cutting?",
        "What about the USD",
        "US stocks",
        "SHOULD I BUY OR SELL",
        "BUY THE RUMOR SELL THE NEWS",
        "should I buy?",
        "is now a good time to buy?",
        "what's your price target?",
        "chase this rally?",
        "what is the market doing?",
        "IPO season is hot",
        "what's the YTD return of an ETF?",
        "what do you think?",
        "I'd sell at my target",
        "WHY IS THE MARKET DOWN TODAY",
    ],
)
def test_no_ticker_means_clarify(text):
    result = parse(text)
    assert result.ticker is None
    assert result.intent == "clarify"
    assert "ticker" in result.question.lower()


def test_no_ticker_clarify_keeps_a_valid_date():
    # The coordinator only asks a model to name the company when the date is usable.
    result = parse("should I buy something last Friday?")
    assert result.intent == "clarify" and result.ticker is None
    assert result.trade_date == FRIDAY
    bad = parse("should I buy something on 2024-02-30?")
    assert bad.intent == "clarify" and bad.asked_date is None


def test_multiple_tickers_leave_the_date_empty():
    result = parse("NVDA or AMD today?")
    assert result.intent == "clarify" and result.ticker is None and result.asked_date is None


def test_company_name_is_filled():
    result = parse("BRK.B")
    assert result.company == company_name("BRK-B") == "Berkshire Hathaway (Class B)"
    assert parse("0700.HK").company == "Tencent"
    assert parse("VOD.L").company is None  # explicit foreign symbol, not in our list


# --------------------------------------------------------------------------
# Several tickers -> never guess
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("NVDA or AMD?", {"NVDA", "AMD"}),
        ("Nvidia vs AMD", {"NVDA", "AMD"}),
        ("Is Microsoft a buy or should I go with Google?", {"MSFT", "GOOGL"}),
        ("GOOG vs GOOGL", {"GOOG", "GOOGL"}),
        ("Visa or Mastercard?", {"V", "MA"}),
        ("coca-cola vs pepsi", {"KO", "PEP"}),
        ("Which is better, AMD or Intel?", {"AMD", "INTC"}),
        ("NVDA or CELH?", {"NVDA", "CELH"}),
        ("$AAPL $MSFT", {"AAPL", "MSFT"}),
        ("NVDA/AMD", {"NVDA", "AMD"}),
        ("compare TSLA, RIVN and LCID", {"TSLA", "RIVN", "LCID"}),
        ("BRK.B vs BRK.A", {"BRK-B", "BRK-A"}),
        ("V or MA?", {"V", "MA"}),  # MA alone is a moving average; listed, it is Mastercard
        ("pepsi vs coke", {"PEP", "KO"}),
        ("should I buy coke or pepsi", {"KO", "PEP"}),
        ("WMT or TGT?", {"WMT", "TGT"}),
        ("Home Depot or Lowe's?", {"HD", "LOW"}),
    ],
)
def test_multiple_tickers_clarify(text, expected):
    result = parse(text)
    assert result.intent == "clarify"
    assert result.ticker is None
    for symbol in expected:
        assert symbol in result.question
    assert "one" in result.question


def test_same_company_twice_is_one_ticker():
    assert parse("Apple (AAPL) analysis please").ticker == "AAPL"
    assert parse("NVDA nvidia $NVDA").ticker == "NVDA"


# --------------------------------------------------------------------------
# Dates
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, asked, trade",
    [
        ("NVDA", SUNDAY, FRIDAY),  # no date -> today -> last session
        ("NVDA today", SUNDAY, FRIDAY),
        ("NVDA now", SUNDAY, FRIDAY),
        ("NVDA right now", SUNDAY, FRIDAY),
        ("NVDA yesterday", date(2026, 11, 21), FRIDAY),
        ("NVDA day before yesterday", FRIDAY, FRIDAY),
        ("thoughts on Apple last Friday?", FRIDAY, FRIDAY),
        ("NVDA on Friday", FRIDAY, FRIDAY),
        ("NVDA friday's close", FRIDAY, FRIDAY),
        ("NVDA this monday", date(2026, 11, 16), date(2026, 11, 16)),
        ("NVDA on Monday", date(2026, 11, 16), date(2026, 11, 16)),
        ("NVDA last thurs", date(2026, 11, 19), date(2026, 11, 19)),
        ("AAPL on sat", date(2026, 11, 21), FRIDAY),
        ("NVDA last week", date(2026, 11, 13), date(2026, 11, 13)),
        ("NVDA 3 days ago", date(2026, 11, 19), date(2026, 11, 19)),
        ("NVDA three days ago", date(2026, 11, 19), date(2026, 11, 19)),
        ("NVDA a week ago", date(2026, 11, 15), date(2026, 11, 13)),
        ("NVDA 2 weeks ago", date(2026, 11, 8), date(2026, 11, 6)),
        ("NVDA a month ago", date(2026, 10, 22), date(2026, 10, 22)),
        ("NVDA 5 trading days ago", date(2026, 11, 16), date(2026, 11, 16)),
        ("NVDA last month", date(2026, 10, 31), date(2026, 10, 30)),
        ("NVDA last year", date(2025, 12, 31), date(2025, 12, 31)),
        ("$TSLA 2024-05-01", date(2024, 5, 1), date(2024, 5, 1)),
        ("walmart 2024/05/01", date(2024, 5, 1), date(2024, 5, 1)),
        ("JP Morgan on 05/01/2024", date(2024, 5, 1), date(2024, 5, 1)),
        ("NVDA 5/1/24", date(2024, 5, 1), date(2024, 5, 1)),
        ("NVDA 15/03/2024", date(2024, 3, 15), date(2024, 3, 15)),  # day first when unambiguous
        ("NVDA 20240501", date(2024, 5, 1), date(2024, 5, 1)),
        ("disney March 15, 2024", date(2024, 3, 15), date(2024, 3, 15)),
        ("amzn Mar 15 2024", date(2024, 3, 15), date(2024, 3, 15)),
        ("amzn Mar. 15th, 2024", date(2024, 3, 15), date(2024, 3, 15)),
        ("msft 15 March 2024", date(2024, 3, 15), date(2024, 3, 15)),
        ("msft 15th of March 2024", date(2024, 3, 15), date(2024, 3, 15)),
        ("tsla july 4th 2024", date(2024, 7, 4), date(2024, 7, 3)),
        ("tsla July 4th", date(2026, 7, 4), date(2026, 7, 2)),  # most recent past July 4th
        ("NVDA the 4th of July", date(2026, 7, 4), date(2026, 7, 2)),
        ("Microsoft, as of March 1st", date(2026, 3, 1), date(2026, 2, 27)),
        ("what happened to NVDA on August 5?", date(2026, 8, 5), date(2026, 8, 5)),
        ("NVDA Dec 25", date(2025, 12, 25), date(2025, 12, 24)),  # Dec 25 2026 is still ahead
        ("TSLA on 5/1", date(2026, 5, 1), date(2026, 5, 1)),
        ("AAPL Dec 2023", date(2023, 12, 31), date(2023, 12, 29)),
        ("Should I buy NVDA in May 2024?", date(2024, 5, 31), date(2024, 5, 31)),
        ("Should I buy NVDA on 1st May 2024", date(2024, 5, 1), date(2024, 5, 1)),
        ("NVDA 01-May-2024", date(2024, 5, 1), date(2024, 5, 1)),
        ("NVDA, May 1", date(2026, 5, 1), date(2026, 5, 1)),
        ("what about may 1st for NVDA", date(2026, 5, 1), date(2026, 5, 1)),
        ("Could you look at Tesla for March 3rd?", date(2026, 3, 3), date(2026, 3, 3)),
        ("$AMD 3/8", date(2026, 3, 8), date(2026, 3, 6)),
        ("AAPL at the end of 2023", date(2023, 12, 31), date(2023, 12, 29)),
        ("AAPL year-end 2023", date(2023, 12, 31), date(2023, 12, 29)),
        ("NVDA 2024-5-1", date(2024, 5, 1), date(2024, 5, 1)),
        ("NVDA 2024.05.01", date(2024, 5, 1), date(2024, 5, 1)),
        ("NVDA Sept 3 2024", date(2024, 9, 3), date(2024, 9, 3)),
        ("NVDA on January 2nd, 2025", date(2025, 1, 2), date(2025, 1, 2)),
        # weekends and holidays fall back to the previous session
        ("AAPL 2024-05-04", date(2024, 5, 4), date(2024, 5, 3)),
        ("AAPL 2024-07-04", date(2024, 7, 4), date(2024, 7, 3)),
        ("AAPL on Good Friday 2024-03-29", date(2024, 3, 29), date(2024, 3, 28)),
        ("AAPL 2024-12-25", date(2024, 12, 25), date(2024, 12, 24)),
        ("AAPL 2025-01-09", date(2025, 1, 9), date(2025, 1, 8)),
        ("AAPL 2024-01-01", date(2024, 1, 1), date(2023, 12, 29)),
        ("Tesla on Thanksgiving 2024-11-28", date(2024, 11, 28), date(2024, 11, 27)),
        ("AAPL 1990-01-02", date(1990, 1, 2), date(1990, 1, 2)),
    ],
)
def test_dates(text, asked, trade):
    result = parse(text)
    assert result.intent == "analyze", result.reason
    assert result.asked_date == asked
    assert result.trade_date == trade


@pytest.mark.parametrize(
    "today, text, asked, trade",
    [
        (date(2024, 7, 5), "NVDA last Friday", date(2024, 6, 28), date(2024, 6, 28)),  # a week ago
        (date(2024, 7, 5), "NVDA Friday", date(2024, 7, 5), date(2024, 7, 5)),
        (date(2024, 7, 5), "NVDA yesterday", date(2024, 7, 4), date(2024, 7, 3)),
        (date(2025, 1, 10), "NVDA yesterday", date(2025, 1, 9), date(2025, 1, 8)),
        (date(2024, 4, 1), "NVDA", date(2024, 4, 1), date(2024, 4, 1)),
        (date(2024, 4, 1), "NVDA last Friday", date(2024, 3, 29), date(2024, 3, 28)),
        (date(2024, 4, 1), "NVDA 1 trading day ago", date(2024, 3, 28), date(2024, 3, 28)),
        (date(2024, 12, 26), "NVDA yesterday", date(2024, 12, 25), date(2024, 12, 24)),
        (date(2024, 3, 31), "NVDA", date(2024, 3, 31), date(2024, 3, 28)),  # Easter Sunday
        (date(2025, 3, 1), "NVDA Feb 29", date(2024, 2, 29), date(2024, 2, 29)),  # last leap day
        (date(2024, 5, 15), "NVDA March 15", date(2024, 3, 15), date(2024, 3, 15)),
        (date(2024, 1, 10), "NVDA March 15", date(2023, 3, 15), date(2023, 3, 15)),
        (date(2024, 3, 31), "NVDA last month", date(2024, 2, 29), date(2024, 2, 29)),
        (date(2024, 3, 31), "NVDA a month ago", date(2024, 2, 29), date(2024, 2, 29)),
    ],
)
def test_dates_relative_to_other_days(today, text, asked, trade):
    result = parse(text, today=today)
    assert result.intent == "analyze", result.reason
    assert (result.asked_date, result.trade_date) == (asked, trade)


@pytest.mark.parametrize(
    "text",
    [
        "AAPL 2024-02-30",
        "AAPL February 30, 2024",
        "NVDA 02/30/2024",
        "AAPL 2023-02-29",
        "AAPL 2024-13-01",
        "NVDA 13/13/2024",
        "NVDA April 31 2024",
        "NVDA feb 30",
    ],
)
def test_impossible_dates_clarify(text):
    result = parse(text)
    assert result.intent == "clarify"
    assert "doesn't exist" in result.question
    assert result.trade_date is None


@pytest.mark.parametrize(
    "text",
    [
        "AAPL 2027-01-01",
        "NVDA December 1, 2026",
        "tomorrow NVDA",
        "NVDA next friday",
        "NVDA next week",
        "NVDA 12/31/2026",
    ],
)
def test_future_dates_clarify(text):
    result = parse(text)
    assert result.intent == "clarify"
    assert "future" in result.question
    assert result.trade_date is None


def test_this_weekday_later_in_the_week_is_future():
    result = parse("NVDA this friday", today=date(2026, 11, 18))  # a Wednesday
    assert result.intent == "clarify" and "future" in result.question


@pytest.mark.parametrize("text", ["AAPL 1985-06-01", "IBM on March 3, 1975", "IBM 1/2/1989"])
def test_dates_before_1990_clarify(text):
    result = parse(text)
    assert result.intent == "clarify"
    assert "1990" in result.question


def test_two_dates_clarify():
    result = parse("NVDA 2024-05-01 or 2024-06-03?")
    assert result.intent == "clarify"
    assert "2024-05-01" in result.question and "2024-06-03" in result.question


@pytest.mark.parametrize(
    "text",
    [
        "PLTR earnings next week, buy now?",
        "should I buy NVDA before earnings on 2026-12-01?",
        "buy NVDA ahead of the FOMC meeting next week?",
    ],
)
def test_future_event_dates_are_context(text):
    result = parse(text)
    assert result.intent == "analyze"
    assert result.trade_date == FRIDAY


@pytest.mark.parametrize(
    "text",
    ["buy 1/2 position in NVDA", "NVDA 24/7 coverage", "NVDA 10 march calls", "NVDA at $140.50", "NVDA Q3 2024 beat"],
)
def test_numbers_that_are_not_dates(text):
    result = parse(text)
    assert result.intent == "analyze"
    assert result.asked_date == SUNDAY


# --------------------------------------------------------------------------
# Followups, reruns and new analyses once a decision is on screen
# --------------------------------------------------------------------------

SHOWN = {"has_decision": True, "current_ticker": "NVDA", "current_date": date(2024, 5, 1)}


@pytest.mark.parametrize(
    "text",
    [
        "why was the bear worried?",
        "what was the RSI?",
        "what about the stop loss?",
        "explain NVDA's risk again",
        "so what now?",
        "what is delta?",
        "what's the 50 day MA?",
        "what does the P/E look like?",
        "is the MACD bullish?",
        "why not sell?",
        "what did the trader say",
        "should I buy NVDA on 2024-05-01?",  # same ticker, same date
        "How confident is the risk judge?",
        "ELI5 please",
        "Why did you say hold?",
        "What's the target price?",
        "What are the main risks?",
        "Can you explain the bull case?",
        "How much should I buy?",
        "What if I already own it?",
        "Why?",
    ],
)
def test_followups(text):
    result = parse(text, **SHOWN)
    assert result.intent == "followup", result.reason
    assert result.ticker == "NVDA"
    assert result.trade_date == date(2024, 5, 1)


@pytest.mark.parametrize(
    "text, ticker, asked",
    [
        ("analyze NVDA again", "NVDA", date(2024, 5, 1)),
        ("rerun", "NVDA", date(2024, 5, 1)),
        ("re-run it please", "NVDA", date(2024, 5, 1)),
        ("run it again for today", "NVDA", SUNDAY),
        ("what about AMD?", "AMD", SUNDAY),
        ("How does this compare to AMD?", "AMD", SUNDAY),
        ("what about yesterday?", "NVDA", date(2026, 11, 21)),
        ("NVDA last Friday", "NVDA", FRIDAY),
        ("and on 2024-06-03?", "NVDA", date(2024, 6, 3)),
        ("TSLA 2024-05-01", "TSLA", date(2024, 5, 1)),
        ("analyze NVDA", "NVDA", date(2024, 5, 1)),  # typed again: a rerun
        ("What about Microsoft?", "MSFT", SUNDAY),
        ("and for Monday?", "NVDA", date(2026, 11, 16)),
    ],
)
def test_new_analysis_with_decision(text, ticker, asked):
    result = parse(text, **SHOWN)
    assert result.intent == "analyze", result.reason
    assert result.ticker == ticker
    assert result.asked_date == asked


def test_same_session_date_is_still_a_followup():
    # Saturday and Sunday resolve to the Friday already on screen.
    shown = {"has_decision": True, "current_ticker": "NVDA", "current_date": FRIDAY}
    assert parse("what about yesterday?", **shown).intent == "followup"
    assert parse("should I buy NVDA today?", **shown).intent == "followup"


def test_followup_needs_a_decision():
    result = parse("why was the bear worried?")
    assert result.intent == "clarify"


def test_rerun_without_decision_uses_current_ticker():
    result = parse("rerun", current_ticker="AAPL", current_date=date(2024, 5, 1))
    assert (result.intent, result.ticker, result.asked_date) == ("analyze", "AAPL", date(2024, 5, 1))
    assert parse("rerun").intent == "clarify"


def test_date_only_continues_current_ticker():
    result = parse("what about last Friday?", current_ticker="AAPL")
    assert (result.intent, result.ticker, result.trade_date) == ("analyze", "AAPL", FRIDAY)


def test_bad_date_with_decision_clarifies():
    result = parse("what about 2024-02-30?", **SHOWN)
    assert result.intent == "clarify" and "doesn't exist" in result.question


def test_two_tickers_with_decision_clarify():
    assert parse("NVDA or AMD?", **SHOWN).intent == "clarify"


@pytest.mark.parametrize("text", [
    "Why did the bear think NVDA would lose share to AMD?", "空头说英伟达会被AMD抢走份额，有道理吗？",
    "多頭為什麼不擔心AMD搶走輝達的份額？", "What did the trader say about AMD's pricing vs NVDA?",
])
def test_a_question_about_the_analysis_naming_another_ticker_is_a_followup(text):
    parsed = parse(text, **SHOWN)
    assert (parsed.intent, parsed.ticker) == ("followup", SHOWN["current_ticker"]), parsed.reason
    assert parse(text).intent == "clarify"  # nothing on screen: which one?
    assert parse("should I buy AMD or NVDA?", **SHOWN).intent == "clarify"  # a call asked for: which one?


# --------------------------------------------------------------------------
# Chat
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "hi",
        "Hi there!",
        "hello",
        "hey",
        "good morning!",
        "What's up",
        "thanks!",
        "thank you so much",
        "ty",
        "Thanks, that was helpful",
        "help",
        "I need help",
        "what can you do?",
        "How does this work?",
        "how do I use this?",
        "who are you?",
        "How does this bot work?",
        "Can you help me?",
        "ok",
        "cool, thanks",
        "bye!",
        "👍",
        "🚀🚀",
    ],
)
def test_chat(text):
    result = parse(text)
    assert result.intent == "chat", result.reason
    assert result.ticker is None and result.trade_date is None


@pytest.mark.parametrize("text", ["thanks!", "got it, thanks", "what can you do?"])
def test_chat_with_decision(text):
    assert parse(text, **SHOWN).intent == "chat"


@pytest.mark.parametrize("text", ["hi, what do you think of NVDA?", "thanks! now do AMD"])
def test_greeting_with_ticker_is_analysis(text):
    result = parse(text)
    assert result.intent == "analyze"


# --------------------------------------------------------------------------
# Robustness
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "\n\t",
        "?",
        "$",
        "0",
        "\x00",
        "💥💥💥",
        "İstanbul ßtraße",
        "a" * 100_000,
        "NVDA " * 20_000,
        "9999-99-99",
        "0000-01-01",
        "9999 days ago NVDA",
        "NVDA 31/31/31",
        "$$$ ... ///",
        "ＮＶＤＡ",  # full-width letters
    ],
)
def test_never_raises(text):
    result = parse(text)
    assert isinstance(result, ParsedRequest)
    assert result.reason
    if result.intent == "clarify":
        assert result.question


def test_empty_message_asks():
    result = parse("")
    assert result.intent == "clarify" and result.question


def test_full_width_and_curly_quotes_are_normalized():
    assert parse("ＮＶＤＡ").ticker == "NVDA"
    assert parse("what about Apple\u2019s margins?").ticker == "AAPL"


def test_reason_explains_the_parse():
    result = parse("AAPL 2024-07-04")
    assert "AAPL" in result.reason and "2024-07-03" in result.reason


# --------------------------------------------------------------------------
# Company data
# --------------------------------------------------------------------------


def test_company_list_is_large_and_well_formed():
    companies = all_companies()
    assert len(companies) >= 200
    for must in ["AAPL", "BRK-B", "BRK-A", "GOOGL", "PLTR", "COIN", "UBER", "SHOP", "SNOW",
                 "ARM", "TSM", "BABA", "ASML", "NIO", "RIVN", "GME", "AMC", "SPY", "QQQ"]:
        assert must in companies
    for ticker, company in companies.items():
        assert normalize_ticker(ticker) == ticker, ticker
        assert company.name


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("nvda", "NVDA"),
        ("$TSLA", "TSLA"),
        ("brk.b", "BRK-B"),
        ("BRK/B", "BRK-B"),
        ("brk b", "BRK-B"),
        ("700.hk", "0700.HK"),
        ("600519.ss", "600519.SS"),
        ("vod.l", "VOD.L"),
        ("btc-usd", "BTC-USD"),
        ("e.g", None),
        ("", None),
    ],
)
def test_normalize_ticker(raw, expected):
    assert normalize_ticker(raw) == expected
