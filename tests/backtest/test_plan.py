"""A backtest's plan: its trading days, its statement and expected cost, the budget, and every bad input
refused with a sentence (PlanRefused, the desk's user-facing error)."""
from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from graph.backtest.plan import PlanRefused, _escaped, check_budget, clean_tickers, make_plan, statement
from graph.backtest.tokens import MEASURED_AFTER, RECALL_TOKENS, Shape, estimate
from graph.core.errors import DeskError, explain
from graph.core.settings import Settings
from graph.data.synthetic import SyntheticVendor
from graph.data.vendor import UnknownSymbol, VendorError

TODAY = date(2024, 6, 28)
PAPER = (date(2024, 1, 2), date(2024, 3, 28))


async def plan_of(settings: Settings, tickers=("AAPL",), start=PAPER[0], end=PAPER[1], vendor=None, **options):
    return await make_plan(vendor or SyntheticVendor(), settings, list(tickers), start, end,
                           today=options.pop("today", TODAY), **options)


async def test_the_papers_window_has_61_sessions_per_ticker(settings: Settings) -> None:
    plan = await plan_of(settings, ["aapl", "$GOOGL", "AMZN,AAPL"])
    assert plan.tickers == ("AAPL", "GOOGL", "AMZN")
    assert {len(days) for days in plan.days.values()} == {61} and plan.runs == 183
    assert plan.days["AAPL"][0] == date(2024, 1, 2) and plan.days["AAPL"][-1] == date(2024, 3, 28)
    assert date(2024, 1, 15) not in plan.days["AAPL"]  # Martin Luther King Day: no session
    assert plan.synthetic and plan.data == "synthetic demo data"


async def test_every_n_keeps_every_nth_session(settings: Settings) -> None:
    plan = await plan_of(settings, every=5)
    full = await plan_of(settings)
    assert plan.days["AAPL"] == full.days["AAPL"][::5] and plan.runs == 13


async def test_the_statement_says_what_runs_and_what_it_costs(settings: Settings) -> None:
    plan = await plan_of(settings, ["AAPL", "GOOGL", "AMZN"], debate_rounds=2)
    per_run = estimate(plan.shape, live=False)
    text = statement(plan, per_run, budget=5_000_000, concurrency=2)
    assert "AAPL, GOOGL, AMZN · 2024-01-02 … 2024-03-28" in text
    assert "183 deliberations" in text and "2 debate rounds" in text and "2 at a time" in text
    assert f"~{per_run.calls} model calls" in text and f"~{per_run.tokens * 183:,} tokens in all" in text
    assert "Budget: 5,000,000 tokens" in text and "labelled synthetic" in text


def test_the_estimate_follows_the_demo_models_measured_usage() -> None:
    # Measured on the demo model (`python -m benchmarks.plan_fit`, AAPL on 2024-02-01, since issue 41's shared
    # rules): 16,039 tokens and 17 calls at the defaults, 31,832 and 27 at three debate and three risk rounds,
    # 7,309 and 11 with the market analyst alone.
    defaults = ("market", "social", "news", "fundamentals")
    measured = ((Shape(4, 1, 1), 16_039, 17), (Shape(4, 3, 3), 31_832, 27), (Shape(1, 1, 1, ("market",)), 7_309, 11),
                (Shape(4, 1, 1, defaults), 16_039, 17), (Shape(4, 3, 3, defaults), 31_832, 27))
    for shape, tokens, calls in measured:
        assert shape.calls == calls
        assert abs(shape.fitted_tokens() / tokens - 1) < 0.06
        assert estimate(shape, live=False).tokens == shape.fitted_tokens() + RECALL_TOKENS
    # Live, each settled call's reflection is one more deep-model call.
    assert estimate(Shape(4, 1, 1), live=True).calls == 18
    # Once enough days have run, their own figure.
    days = [(10_000, 17)] * MEASURED_AFTER
    assert estimate(Shape(4, 1, 1), live=False, measured=days).tokens == 10_000
    assert "measured" in estimate(Shape(4, 1, 1), live=False, measured=days).source


async def test_a_plan_over_the_budget_is_refused(settings: Settings) -> None:
    plan = await plan_of(settings, ["AAPL", "GOOGL", "AMZN"])
    per_run = estimate(plan.shape, live=False)
    check_budget(plan, per_run, per_run.tokens * 183, to_run=183)  # exactly affordable
    check_budget(plan, per_run, None, to_run=183)  # no budget
    with pytest.raises(PlanRefused) as refused:
        check_budget(plan, per_run, 1_000_000, to_run=183)
    text = str(refused.value)
    assert "more than the budget of 1,000,000" in text and "183 deliberations" in text and "--budget" in text
    assert f"at most ~{1_000_000 // per_run.tokens} deliberations" in text


@pytest.mark.parametrize("kwargs,words", [
    ({"start": date(2024, 3, 28), "end": date(2024, 1, 2)}, "reversed"),
    ({"start": date(2024, 7, 1), "end": date(2024, 7, 31)}, "in the future"),
    ({"start": date(2024, 6, 3), "end": date(2024, 7, 31)}, "after the last close known today"),
    ({"start": date(2024, 1, 6), "end": date(2024, 1, 7)}, "no trading day"),  # a weekend
    ({"tickers": ["ZZZQ"]}, "Unknown ticker ZZZQ"),
    ({"tickers": []}, "at least one ticker"),
    ({"tickers": ["AAPL", "GOOGL"], "max_runs": 100}, "more than a backtest may run (100"),
    ({"every": 0}, "1 or more"),
    ({"debate_rounds": 9}, "between 1 and 5"),
    ({"analysts": ["market", "astrology"]}, "astrology"),
])
async def test_bad_input_is_refused_with_a_sentence(settings: Settings, kwargs, words) -> None:
    with pytest.raises(PlanRefused) as refused:
        await plan_of(settings, **kwargs)
    assert isinstance(refused.value, DeskError)
    assert words in explain(refused.value), explain(refused.value)


async def test_the_real_today_has_no_close_yet(settings: Settings) -> None:
    today = date.today()
    with pytest.raises(PlanRefused, match="last close known today"):
        await plan_of(settings, start=date(2024, 1, 2), end=today, today=today)


class LiveLike(SyntheticVendor):
    """A live vendor's behaviour for symbols it does not have."""

    name = "yfinance"
    label = "Yahoo Finance (test)"

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        if ticker == "GONE":
            raise UnknownSymbol("no such symbol")
        if ticker == "LATER":  # listed after the window: no rows in it
            return super().ohlcv(ticker, start, end).iloc[0:0]
        if ticker == "DOWN":
            raise VendorError("rate limited")
        return super().ohlcv(ticker, start, end)


@pytest.mark.parametrize("ticker,words", [
    ("GONE", "GONE: Yahoo Finance (test) has no prices for it"),
    ("LATER", "LATER: Yahoo Finance (test) has no prices for it"),
    ("DOWN", "Could not read DOWN's trading days from Yahoo Finance (test): rate limited"),
])
async def test_a_live_vendors_unknown_ticker_or_failure_is_refused(settings: Settings, ticker, words) -> None:
    with pytest.raises(PlanRefused) as refused:
        await plan_of(settings, ["AAPL", ticker], vendor=LiveLike(), live=True)
    assert words in str(refused.value)


async def test_a_live_plan_is_not_labelled_synthetic(settings: Settings) -> None:
    plan = await plan_of(settings, vendor=LiveLike(), live=True)
    assert not plan.synthetic and plan.runs == 61


def test_tickers_are_cleaned() -> None:
    assert clean_tickers(["aapl,msft", " $nvda ", "AAPL"]) == ("AAPL", "MSFT", "NVDA")


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_the_statement_for_the_chat_is_a_list_that_wraps(settings: Settings, language: str) -> None:
    """A code block keeps its lines whole and cuts them off at the right of a narrow page (the total went with
    them): the chat's statement is a title and a list, the same words as the terminal's."""
    plan = await plan_of(settings, ["AAPL", "GOOGL"], every=2)
    per_run = estimate(plan.shape, live=False)
    terminal = statement(plan, per_run, concurrency=2, language=language)
    chat = statement(plan, per_run, concurrency=2, language=language, markdown=True)
    title, blank, *items = chat.split("\n")
    assert title == f"**{terminal.splitlines()[0]}**" and blank == ""
    assert all(item.startswith("- ") for item in items) and "```" not in chat
    assert items[0].startswith("- **AAPL** · ") and items[0].endswith("2024-01-02 … 2024-03-28")
    total = f"{per_run.tokens * plan.runs:,}"
    assert sum(total in item for item in items) == 1 and total in terminal
    # Every line of the terminal's is in the chat's, its columns' padding aside.
    words = " ".join(chat.replace("**", "").replace("\\", "").split())
    for line in terminal.splitlines()[1:]:
        if not line.strip().startswith(("AAPL", "GOOGL")):
            assert " ".join(line.split()) in words


def test_the_chat_statement_shows_markdown_characters_as_they_are() -> None:
    assert _escaped("a*b_c [x](y) <z> |") == r"a\*b\_c \[x\](y) \<z\> \|"
