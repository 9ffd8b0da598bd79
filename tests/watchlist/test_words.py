"""A watch asked in words (graph/watchlist/words.py), in English and Chinese, and what is refused with a reason:
more often than once a trading day, a weekend, a date already past, too many tickers, nothing named."""
from __future__ import annotations

from datetime import date, time

import pytest

from graph.watchlist.rules import AFTER_CLOSE, EVERY_TRADING_DAY, MORNING
from graph.watchlist.words import WatchCommand, read_command, read_watch

TODAY = date(2026, 11, 26)


@pytest.mark.parametrize(("text", "tickers", "book", "weekday", "at"), [
    ("watch NVDA and AMD every trading day after the close", ("NVDA", "AMD"), False, EVERY_TRADING_DAY, AFTER_CLOSE),
    ("check my whole book every Monday morning", (), True, 0, MORNING),
    ("watch TSLA every Friday at 5pm", ("TSLA",), False, 4, time(17, 0)),
    ("watch NVDA daily", ("NVDA",), False, EVERY_TRADING_DAY, AFTER_CLOSE),
    ("watch AAPL weekly", ("AAPL",), False, 0, AFTER_CLOSE),
    ("watch my portfolio daily", (), True, EVERY_TRADING_DAY, AFTER_CLOSE),
    ("/watch MSFT every Wednesday at 9:15", ("MSFT",), False, 2, time(9, 15)),
    ("每个交易日收盘后关注英伟达和AMD", ("NVDA", "AMD"), False, EVERY_TRADING_DAY, AFTER_CLOSE),
    ("每周一早上检查我的持仓", (), True, 0, MORNING),
    ("关注 特斯拉 每周五 收盘后", ("TSLA",), False, 4, AFTER_CLOSE),
    # a listing abroad is watched on its own exchange: after Hong Kong's close, in Hong Kong time
    ("watch 0700.HK daily", ("0700.HK",), False, EVERY_TRADING_DAY, time(16, 30)),
    ("关注 腾讯 每周五 收盘后", ("0700.HK",), False, 4, time(16, 30)),
    ("watch 600519.SS and 000001.SZ every Monday morning", ("600519.SS", "000001.SZ"), False, 0, time(9, 0)),
    ("watch 7203.T daily", ("7203.T",), False, EVERY_TRADING_DAY, time(16, 0)),
    # a class's calendar (issue 37): crypto every day, weekends included, after the UTC day's close
    ("watch BTC-USD daily", ("BTC-USD",), False, EVERY_TRADING_DAY, time(23, 30)),
    ("watch bitcoin every Saturday", ("BTC-USD",), False, 5, time(23, 30)),
    ("关注 比特币 每周日", ("BTC-USD",), False, 6, time(23, 30)),
    ("watch ETH-USD every weekend", ("ETH-USD",), False, 5, time(23, 30)),
    ("watch EURUSD=X every trading day after the close", ("EURUSD=X",), False, EVERY_TRADING_DAY, time(17, 30)),
    ("watch gold every Friday", ("GC=F",), False, 4, time(16, 30)),
])
def test_a_watch_is_read(text: str, tickers: tuple[str, ...], book: bool, weekday: int, at: time) -> None:
    ask = read_watch(text, TODAY)
    assert ask is not None and not ask.problem, ask
    assert (ask.tickers, ask.book, ask.rule.weekday, ask.rule.at) == (tickers, book, weekday, at)
    zones = {"0700.HK": "Asia/Hong_Kong", "600519.SS": "Asia/Shanghai", "7203.T": "Asia/Tokyo",
             "BTC-USD": "UTC", "ETH-USD": "UTC", "GC=F": "America/Chicago"}
    assert ask.rule.zone == zones.get(tickers[0] if tickers else "", "America/New_York")


@pytest.mark.parametrize(("text", "says"), [
    ("watch NVDA every hour", "at most once a trading day"),
    ("watch NVDA every 15 minutes", "at most once a trading day"),
    ("watch NVDA every Saturday", "closed on weekends"),
    ("watch EURUSD=X every Sunday", "closed on weekends"),  # Sunday evening's session is Monday's
    ("watch gold every Saturday", "closed on weekends"),
    ("watch NVDA on 2024-01-01", "2024-01-01 has passed"),
    ("watch every day after the close", "What should I watch?"),
    ("每小时关注英伟达", "最多运行一次"),
    ("每周六关注英伟达", "周末休市"),
    # a watch follows one exchange's days and hours: listings on two are refused with one watch per exchange
    ("watch NVDA and 0700.HK daily", "`watch NVDA every trading day after the close` and `watch 0700.HK every"),
    ("每个交易日收盘后关注英伟达和腾讯", "请按交易所分开关注"),
    # an exchange whose calendar the desk does not keep is refused, not run on the wrong days
    ("watch HSBA.L daily", "not yet of this listing's exchange"),
    ("关注 HSBA.L 每周五", "暂不支持这只股票的交易所"),
])
def test_what_should_not_run_is_refused_with_the_reason(text: str, says: str) -> None:
    ask = read_watch(text, TODAY)
    assert ask is not None and says in ask.problem, ask


def test_more_tickers_than_a_watch_holds_are_refused() -> None:
    ask = read_watch("watch NVDA AMD INTC TSLA daily", TODAY, max_tickers=3)
    assert ask is not None and "at most 3 tickers" in ask.problem and "names 4" in ask.problem


@pytest.mark.parametrize(("text", "command"), [
    ("/watch", WatchCommand("list")),
    ("/watch list", WatchCommand("list")),
    ("/watch pause 2", WatchCommand("pause", "2")),
    ("/watch resume 2", WatchCommand("resume", "2")),
    ("/watch remove a1b2c3d4", WatchCommand("remove", "a1b2c3d4")),
    ("/watch delete 1", WatchCommand("remove", "1")),
])
def test_the_watch_commands(text: str, command: WatchCommand) -> None:
    assert read_command(text) == command
    assert read_watch(text, TODAY) is None


@pytest.mark.parametrize("text", ["should I buy NVDA?", "watch out for NVDA?", "what's on my watchlist of ideas"])
def test_anything_else_is_no_watch(text: str) -> None:
    assert read_command(text) is None
    ask = read_watch(text, TODAY)
    assert ask is None or ask.problem
