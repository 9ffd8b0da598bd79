"""A watch asked in words: "watch NVDA and AMD every trading day after the close", "check my whole book every
Monday morning", "每个交易日收盘后关注英伟达和AMD"; and the `/watch` commands (list, pause, resume, remove).

A watch is asked by name ("watch …", "/watch …", "check my book every …", 关注/盯/监控): anything else is a
question for the desk. What cannot be read, or should not run (more often than once a trading day, a
weekend, a date already past, more tickers than a watch may hold), is said back with an example.

A watch follows its listings' exchange (0700.HK: Hong Kong's trading days, "after the close" 16:30 Hong Kong
time; rules.EXCHANGE_HOURS), or its asset class's calendar (BTC-USD every day, Saturday and Sunday included,
"after the close" 23:30 UTC; EURUSD=X Monday to Friday, 17:30 New York; GC=F CME Globex's days, Chicago time):
a weekend is refused only for a market closed on weekends. Listings on different exchanges are refused with
one watch per exchange to copy: their days and hours differ, and one slot would be late for one market or
before the other's close. A watch of the whole book follows New York's.

What is said back is a `[watch]` text of prompts/words_<code>.md, in the language the watch is asked in (Traditional
Chinese included: "zh-Hant"); a watch keeps that language for its runs and notices (graph/watchlist/slots.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, time

from ..core.words import phrase
from ..request.language import detect_language
from ..request.listing_codes import market_of
from ..request.tickers import scan_tickers
from .rules import EVERY_TRADING_DAY, EXCHANGE_HOURS, WEEKDAYS, WEEKEND, Rule, RuleRefused

MAX_TICKERS = 20  # a watch's tickers; each is a whole deliberation at every slot

_ASKS = re.compile(r"^\W{0,3}(?:/?watch(?:list)?\b(?!\s+out\b)"
                   r"|(?:please\s+)?(?:check|re-?check|monitor|track)\s+(?:my\s+)?(?:whole\s+|entire\s+)?(?:book|portfolio|holdings|positions)\b.*\bevery\b)"
                   r"|(?:关注|關注|盯|监控|監控|盯着|盯著|盯住|每.{0,6}(?:检查|檢查|看一下|分析))", re.I)
_COMMAND = re.compile(r"^\s*/watch(?:list)?\s*(?:(list|pause|resume|remove|delete|stop)\s*(\S+)?)?\s*$", re.I)
_BOOK = re.compile(r"\b(?:my\s+)?(?:whole\s+|entire\s+)?(?:book|portfolio|holdings|positions)\b|持仓|持倉|组合|組合",
                   re.I)
_TOO_OFTEN = re.compile(r"\bevery\s+(?:\d+\s+)?(?:hour|minute|min|second)s?\b|\bhourly\b|每(?:\d+|[一二三四五六两])?\s*"
                        r"(?:个)?(?:小时|小時|分钟|分鐘)", re.I)
_WEEKEND = re.compile(r"\b(?:every\s+)?(saturday|sunday|weekend)s?\b|周六|周日|星期六|星期日|星期天|週六|週日", re.I)
_DAILY = re.compile(r"\bevery\s+(?:trading\s+|business\s+|week\s*)?day\b|\bdaily\b|\beach\s+(?:trading\s+)?day\b"
                    r"|每(?:个|個)?交易日|每天|每日", re.I)
# Saturday and Sunday are read too: a crypto watch may run on them (Rule refuses them for any other market).
_WEEKLY = re.compile(r"\b(?:every|each|on)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
                     r"|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s\b"
                     r"|(?:每周|每週|每星期|每个星期|每個星期|周|週|星期)([一二三四五六日天1-7])", re.I)
_WEEKLY_PLAIN = re.compile(r"\bweekly\b|\bevery\s+week\b|每周|每週", re.I)
_AT = re.compile(r"\bat\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b|(\d{1,2})[:点點](\d{2})?", re.I)
_MORNING = re.compile(r"\bmorning\b|\bbefore\s+the\s+open\b|\bpre-?market\b|早上|上午|开盘前|開盤前|早晨", re.I)
_CLOSE = re.compile(r"\bafter\s+(?:the\s+)?close\b|\bat\s+(?:the\s+)?close\b|\bevening\b"
                    r"|收盘后|收盤後|收盘|收盤|晚上", re.I)
_DATE = re.compile(r"\b(?:on\s+)?(\d{4}-\d{2}-\d{2})\b")
_CN_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6,
                "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6}


@dataclass(frozen=True)
class WatchAsk:
    """A watch asked in words: its tickers (or the whole book), its rule; or what could not be read."""

    tickers: tuple[str, ...] = ()
    book: bool = False
    rule: Rule = field(default_factory=Rule)
    language: str = "en"
    problem: str = ""


@dataclass(frozen=True)
class WatchCommand:
    """`/watch` (list), `/watch pause 2`, `/watch resume 2`, `/watch remove 2`: `which` is the watch's number
    in the list, or its id."""

    action: str = "list"
    which: str = ""


def asks_to_watch(text: str) -> bool:
    return _ASKS.search(text) is not None


def read_command(text: str) -> WatchCommand | None:
    """A `/watch` command, or None (a watch asked in words is `read_watch`'s)."""
    m = _COMMAND.match(text)
    if m is None:
        return None
    action = (m[1] or "list").lower()
    return WatchCommand({"delete": "remove", "stop": "pause"}.get(action, action), m[2] or "")


def read_watch(text: str, today: date, *, max_tickers: int = MAX_TICKERS) -> WatchAsk | None:
    """The watch the message asks for; None when it asks for none."""
    if not asks_to_watch(text) or read_command(text) is not None:
        return None
    language = detect_language(text)
    book = _BOOK.search(text) is not None
    tickers, listings = _tickers(text, today)
    shown = " ".join(tickers) or "NVDA"
    if listings:
        return _refused(language, "listing", shown, detail="; ".join(listings))
    if not tickers and not book:
        return _refused(language, "what", shown)
    if isinstance(market := _market(tickers, language, shown), WatchAsk):
        return market
    if len(tickers) > max_tickers:
        return _refused(language, "too_many", shown, limit=max_tickers, count=len(tickers))
    if _TOO_OFTEN.search(text):
        return _refused(language, "too_often", shown)
    if (m := _DATE.search(text)) and date.fromisoformat(m[1]) <= today:
        return _refused(language, "past", shown, detail=m[1])
    every_day = Rule(market=market).every_day
    if _WEEKEND.search(text) and not every_day:
        return _refused(language, "weekend", shown)
    try:
        rule = Rule(_weekday(text, every_day), _time(text, market), market)
    except RuleRefused:
        return _refused(language, "weekend", shown)
    return WatchAsk(tickers, book and not tickers, rule, language)


def _refused(language: str, key: str, tickers: str, **fields: object) -> WatchAsk:
    return WatchAsk(language=language, problem=phrase(language, "watch.ask_" + key, tickers=tickers, **fields))


def _tickers(text: str, today: date) -> tuple[tuple[str, ...], list[str]]:
    # The schedule's own words are blanked first: "every FRIDAY", "at 9" and "MONDAY" name no company.
    rest = text
    for pattern in (_ASKS, _DAILY, _WEEKLY, _WEEKLY_PLAIN, _AT, _MORNING, _CLOSE, _BOOK, _DATE, _TOO_OFTEN, _WEEKEND):
        rest = pattern.sub(" ", rest)
    tickers: list[str] = []
    listings: list[str] = []
    for hit in scan_tickers(rest, shouted=False, today=today):
        if hit.listings:
            listings.append(f"{hit.source} ({' / '.join(hit.listings)})")
        elif hit.symbol not in tickers:
            tickers.append(hit.symbol)
    return tuple(tickers), listings


def _weekday(text: str, every_day: bool = False) -> int:
    if (m := _WEEKLY.search(text)) is not None:
        if m[3]:
            return _CN_WEEKDAYS[m[3]]
        return (WEEKDAYS + WEEKEND).index((m[1] or m[2]).lower())
    if every_day and _WEEKEND.search(text) and not _DAILY.search(text):
        return WEEKEND.index("saturday") + len(WEEKDAYS)  # "every weekend" on a market open then: Saturday's
    if _DAILY.search(text) or not _WEEKLY_PLAIN.search(text):
        return EVERY_TRADING_DAY
    return 0  # "weekly": Monday's


def _market(tickers: tuple[str, ...], language: str, shown: str) -> str | WatchAsk:
    """The one exchange the tickers trade on (New York's for the whole book), or the refusal saying why not."""
    if abroad := [t for t in tickers if market_of(t) not in EXCHANGE_HOURS]:
        return _refused(language, "abroad", shown, detail=", ".join(abroad))
    markets = {t: market_of(t) for t in tickers}
    if len(set(markets.values())) > 1:
        return _refused(language, "mixed", shown, detail=", ".join(tickers),
                        examples=_one_per_exchange(markets, language))
    return next(iter(markets.values()), "US")


def _one_per_exchange(markets: dict[str, str], language: str) -> str:
    """`watch NVDA every trading day after the close` and `watch 0700.HK …`: one watch per exchange."""
    groups: dict[str, list[str]] = {}
    for ticker, market in markets.items():
        groups.setdefault(market, []).append(ticker)
    return phrase(language, "watch.exchanges_joiner").join(
        phrase(language, "watch.one_exchange", tickers=" ".join(g)) for g in groups.values())


def _time(text: str, market: str) -> time:
    """The time asked, in the exchange's own zone; "morning" and "after the close" are that exchange's."""
    if (m := _AT.search(text)) is not None:
        hour = int(m[1] or m[4])
        minute = int(m[2] or m[5] or 0)
        if (m[3] or "").lower() == "pm" and hour < 12:
            hour += 12
        if 0 <= hour <= 23 and 0 <= minute <= 59:
            return time(hour, minute)
    if _MORNING.search(text):
        return EXCHANGE_HOURS[market].morning
    return EXCHANGE_HOURS[market].after_close
