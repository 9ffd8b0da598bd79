"""What a message is for (graph/routing.py): one reading per message, in the order ROUTES declares, the same for the
chat and the CLI. What each reader makes of the words is its own module's tests' (tests/book, tests/backtest,
tests/watchlist, tests/compare); here, which one takes a message, and that what it read travels with the route."""
from __future__ import annotations

from datetime import date

import pytest

from graph import (
    Ask,
    BookAsk,
    CompareAsk,
    PaperAsk,
    Purpose,
    ResumeBacktest,
    Situation,
    TokenAsk,
    WatchAsk,
    WatchCommand,
    route,
)
from graph.routing import ROUTES

TODAY = Situation(date(2026, 11, 25))


@pytest.mark.parametrize(("text", "purpose", "kind"), [
    ("/token", Purpose.TOKENS, TokenAsk),
    ("我的令牌", Purpose.TOKENS, TokenAsk),
    ("/book", Purpose.BOOK, BookAsk),
    ("/book clear NVDA", Purpose.BOOK, BookAsk),
    ("I hold 200 NVDA at 95", Purpose.BOOK, BookAsk),
    ("我持有200股英伟达，成本95", Purpose.BOOK, BookAsk),
    ("backtest NVDA from January to March 2024", Purpose.BACKTEST, Ask),
    ("回测英伟达 2024年1月到3月", Purpose.BACKTEST, Ask),
    ("resume backtest 1a2b3c4d", Purpose.BACKTEST, ResumeBacktest),
    ("Continue the backtest 1a2b3c4d.", Purpose.BACKTEST, ResumeBacktest),
    ("继续回测 1a2b3c4d", Purpose.BACKTEST, ResumeBacktest),
    ("/watch", Purpose.WATCH, WatchCommand),
    ("/watch pause 2", Purpose.WATCH, WatchCommand),
    ("watch NVDA and AMD every trading day after the close", Purpose.WATCH, WatchAsk),
    ("NVDA or AMD?", Purpose.COMPARE, CompareAsk),
    ("compare AAPL and MSFT", Purpose.COMPARE, CompareAsk),
    ("should I buy NVDA today?", Purpose.DESK, type(None)),
    ("why was the bear worried?", Purpose.DESK, type(None)),
    ("resume", Purpose.DESK, type(None)),
    ("resume backtest 1a2b", Purpose.DESK, type(None)),
    ("", Purpose.DESK, type(None)),
    ("   ", Purpose.DESK, type(None)),
])
def test_each_message_goes_where_its_words_say(text: str, purpose: Purpose, kind: type) -> None:
    routed = route(text, TODAY)
    assert routed.purpose is purpose, routed
    assert isinstance(routed.read, kind), routed.read


def test_what_was_read_travels_with_the_route() -> None:
    assert route("resume backtest 1a2b3c4d", TODAY).read == ResumeBacktest("1a2b3c4d")
    assert route("/book clear NVDA", TODAY).read == BookAsk("clear NVDA", command=True)
    compared = route("NVDA or AMD?", TODAY).read
    assert isinstance(compared, CompareAsk) and compared.tickers == ("NVDA", "AMD")
    watched = route("/watch pause 2", TODAY).read
    assert isinstance(watched, WatchCommand) and (watched.action, watched.which) == ("pause", "2")


def test_a_message_that_reads_two_ways_is_the_first_readings() -> None:
    # Two tickers in a backtest are the backtest's, not a comparison: the backtest is tried first.
    assert route("backtest NVDA and AMD from January to March 2024", TODAY).purpose is Purpose.BACKTEST
    assert [purpose for purpose, _ in ROUTES] == [Purpose.TOKENS, Purpose.PAPER, Purpose.BOOK, Purpose.BACKTEST,
                                                  Purpose.WATCH, Purpose.COMPARE]


def test_in_a_thread_that_holds_an_analysis_two_names_compare_only_when_asked_as_one() -> None:
    analysed = Situation(date(2026, 11, 25), in_analysis=True)
    assert route("what about Apple and Microsoft's earnings?", analysed).purpose is Purpose.DESK
    assert route("NVDA or AMD?", analysed).purpose is Purpose.COMPARE


@pytest.mark.parametrize(("text", "asked"), [
    ("/token", TokenAsk("list")),
    ("/tokens", TokenAsk("list")),
    ("/token new Cursor on my laptop", TokenAsk("new", label="Cursor on my laptop")),
    ("/token revoke AB12CD34", TokenAsk("revoke", token_id="ab12cd34")),
    ("/token revoke", TokenAsk("revoke")),
    ("make me an MCP token", TokenAsk("new")),
    ("Could you create a new personal token for Cursor?", TokenAsk("new", label="Cursor")),
    ("new token", TokenAsk("new")),
    ("my tokens", TokenAsk("list")),
    ("Show me my MCP tokens.", TokenAsk("list")),
    ("list access tokens", TokenAsk("list")),
    ("revoke token ab12cd34", TokenAsk("revoke", token_id="ab12cd34")),
    ("Please revoke the MCP token ab12cd34.", TokenAsk("revoke", token_id="ab12cd34")),
    ("创建令牌", TokenAsk("new")),
    ("帮我创建一个MCP令牌", TokenAsk("new")),
    ("新建令牌，给Cursor用", TokenAsk("new", label="Cursor")),
    ("我的令牌", TokenAsk("list")),
    ("查看我的令牌？", TokenAsk("list")),
    ("撤销令牌 ab12cd34", TokenAsk("revoke", token_id="ab12cd34")),
    ("撤销令牌ab12cd34。", TokenAsk("revoke", token_id="ab12cd34")),
])
def test_the_words_for_personal_tokens(text: str, asked: TokenAsk) -> None:
    routed = route(text, TODAY)
    assert routed.purpose is Purpose.TOKENS and routed.read == asked, routed


@pytest.mark.parametrize("text", [
    "how many tokens did that run use?", "what tokens did the bull spend?", "my tokens are crypto",
    "create a token economy analysis for COIN", "should I buy the token COIN?", "tokens", "令牌", "revoke token",
    "这次运行用了多少令牌？", "revoke token ab12cd34 and buy NVDA",
])
def test_other_words_about_tokens_are_not_the_tokens(text: str) -> None:
    assert route(text, TODAY).purpose is not Purpose.TOKENS


@pytest.mark.parametrize(("text", "action", "amount", "language"), [
    ("follow my calls on paper with 100,000", "start", "100000", "en"),
    ("Follow my calls on paper with 25k.", "start", "25000", "en"),
    ("start a paper book", "start", "", "en"),
    ("start paper trading with $50,000.50", "start", "50000.50", "en"),
    ("my paper book", "show", "", "en"),
    ("show me my paper book", "show", "", "en"),
    ("stop paper trading", "stop", "", "en"),
    ("用10万模拟跟单", "start", "100000", "zh"),
    ("用5万元模拟交易", "start", "50000", "zh"),
    ("开始模拟交易", "start", "", "zh"),
    ("我的模拟账户", "show", "", "zh"),
    ("停止模拟", "stop", "", "zh"),
    ("/paper", "show", "", ""),
    ("/paper start 100000", "start", "100000", ""),
    ("/paper 25000", "start", "25000", ""),
    ("/paper stop", "stop", "", ""),
])
def test_the_paper_books_words(text: str, action: str, amount: str, language: str) -> None:
    routed = route(text, TODAY)
    assert routed.purpose is Purpose.PAPER, routed
    assert routed.read == PaperAsk(action, amount)
    assert isinstance(routed.read, PaperAsk) and routed.read.language == language


@pytest.mark.parametrize("text", ["should I follow NVDA?", "what is a paper trade?", "buy NVDA on paper?",
                                  "模拟一下英伟达的走势", "I hold 200 NVDA at 95"])
def test_words_near_the_paper_books_are_not_its(text: str) -> None:
    assert route(text, TODAY).purpose is not Purpose.PAPER
