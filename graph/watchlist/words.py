"""A watch asked in words: "watch NVDA and AMD every trading day after the close", "check my whole book every
Monday morning", "每个交易日收盘后关注英伟达和AMD"; and the `/watch` commands (list, pause, resume, remove).

A watch is asked by name ("watch …", "/watch …", "check my book every …", 关注/盯/监控): anything else is a
question for the desk. What cannot be read, or should not run (more often than once a trading day, a
weekend, a date already past, more tickers than a watch may hold), is said back with an example.

A watch follows its listings' exchange (0700.HK: Hong Kong's trading days, "after the close" 16:30 Hong Kong
time; rules.EXCHANGE_HOURS). Listings on different exchanges are refused with one watch per exchange to copy:
their days and hours differ, and one slot would be late for one market or before the other's close. A watch
of the whole book follows New York's.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, time

from ..request.listing_codes import market_of
from ..request.scripts import has_cjk
from ..request.tickers import scan_tickers
from .rules import EVERY_TRADING_DAY, EXCHANGE_HOURS, WEEKDAYS, Rule, RuleRefused

MAX_TICKERS = 20  # a watch's tickers; each is a whole deliberation at every slot

_ASKS = re.compile(r"^\W{0,3}(?:/?watch(?:list)?\b(?!\s+out\b)"
                   r"|(?:please\s+)?(?:check|re-?check|monitor|track)\s+(?:my\s+)?(?:whole\s+|entire\s+)?(?:book|portfolio|holdings|positions)\b.*\bevery\b)"
                   r"|(?:关注|盯|监控|監控|盯着|盯住|每.{0,6}(?:检查|檢查|看一下|分析))", re.I)
_COMMAND = re.compile(r"^\s*/watch(?:list)?\s*(?:(list|pause|resume|remove|delete|stop)\s*(\S+)?)?\s*$", re.I)
_BOOK = re.compile(r"\b(?:my\s+)?(?:whole\s+|entire\s+)?(?:book|portfolio|holdings|positions)\b|持仓|持倉|组合|組合",
                   re.I)
_TOO_OFTEN = re.compile(r"\bevery\s+(?:\d+\s+)?(?:hour|minute|min|second)s?\b|\bhourly\b|每(?:\d+|[一二三四五六两])?\s*"
                        r"(?:个)?(?:小时|小時|分钟|分鐘)", re.I)
_WEEKEND = re.compile(r"\b(?:every\s+)?(saturday|sunday|weekend)s?\b|周六|周日|星期六|星期日|星期天|週六|週日", re.I)
_DAILY = re.compile(r"\bevery\s+(?:trading\s+|business\s+|week\s*)?day\b|\bdaily\b|\beach\s+(?:trading\s+)?day\b"
                    r"|每(?:个|個)?交易日|每天|每日", re.I)
_WEEKLY = re.compile(r"\b(?:every|each|on)\s+(monday|tuesday|wednesday|thursday|friday)s?\b"
                     r"|\b(monday|tuesday|wednesday|thursday|friday)s\b"
                     r"|(?:每周|每週|每星期|每个星期|每個星期|周|週|星期)([一二三四五1-5])", re.I)
_WEEKLY_PLAIN = re.compile(r"\bweekly\b|\bevery\s+week\b|每周|每週", re.I)
_AT = re.compile(r"\bat\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b|(\d{1,2})[:点點](\d{2})?", re.I)
_MORNING = re.compile(r"\bmorning\b|\bbefore\s+the\s+open\b|\bpre-?market\b|早上|上午|开盘前|開盤前|早晨", re.I)
_CLOSE = re.compile(r"\bafter\s+(?:the\s+)?close\b|\bat\s+(?:the\s+)?close\b|\bevening\b"
                    r"|收盘后|收盤後|收盘|收盤|晚上", re.I)
_DATE = re.compile(r"\b(?:on\s+)?(\d{4}-\d{2}-\d{2})\b")
_CN_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "1": 0, "2": 1, "3": 2, "4": 3, "5": 4}


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


_PROBLEMS = {
    "en": {
        "what": "What should I watch? Name tickers or your book with when, e.g. `watch NVDA and AMD every trading "
                "day after the close` or `check my whole book every Monday morning`.",
        "too_often": "A watch runs at most once a trading day: a call is judged over weeks, so more often would only "
                     "repeat it. Try `watch {tickers} every trading day after the close`.",
        "weekend": "The market is closed on weekends, so a watch runs on trading days only. Try `watch {tickers} "
                   "every Friday after the close` or `every Monday morning`.",
        "past": "{detail} has passed: a watch repeats from now on. Say how often, e.g. `watch {tickers} every trading "
                "day after the close`.",
        "too_many": "A watch holds at most {limit} tickers, and this one names {count}. Split them into several "
                    "watches, or watch your book.",
        "listing": "{detail}: listed in several places. Which listing should I watch? Write its code.",
        "abroad": "{detail}: a watch runs on the trading days and hours of New York, Hong Kong, mainland China, "
                  "Tokyo or Taiwan, not yet of this listing's exchange. Ask about {detail} whenever you like, e.g. "
                  "`should I buy {detail}?`.",
        "mixed": "{detail} trade on different exchanges, whose trading days and hours differ, and a watch follows "
                 "one exchange's. Make one watch per exchange: {examples}.",
    },
    "zh": {
        "what": "要关注什么？请写出股票或你的持仓，以及时间，例如 `每个交易日收盘后关注 英伟达 和 AMD` 或 "
                "`每周一早上检查我的持仓`。",
        "too_often": "关注每个交易日最多运行一次：一个判断要用几周来检验，更频繁只会重复它。请试试 "
                     "`每个交易日收盘后关注 {tickers}`。",
        "weekend": "周末休市，关注只在交易日运行。请试试 `每周五收盘后关注 {tickers}` 或 `每周一早上`。",
        "past": "{detail} 已经过去：关注从现在起重复运行。请说明频率，例如 `每个交易日收盘后关注 {tickers}`。",
        "too_many": "一个关注最多包含 {limit} 只股票，这里有 {count} 只。请分成几个关注，或关注你的持仓。",
        "listing": "{detail}：在多个市场上市。要关注哪一个？请写出它的代码。",
        "abroad": "{detail}：关注按纽约、香港、A股、东京或台湾市场的交易日和时间运行，暂不支持这只股票的交易所。"
                  "你随时可以直接问，例如 `{detail} 今天能买吗？`。",
        "mixed": "{detail} 在不同的交易所上市，交易日和时间不同，而一个关注只跟随一个交易所。"
                 "请按交易所分开关注：{examples}。",
    },
}


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
    language = "zh" if has_cjk(text) else "en"
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
    if _WEEKEND.search(text):
        return _refused(language, "weekend", shown)
    try:
        rule = Rule(_weekday(text), _time(text, market), market)
    except RuleRefused:
        return _refused(language, "weekend", shown)
    return WatchAsk(tickers, book and not tickers, rule, language)


def _refused(language: str, key: str, tickers: str, **fields: object) -> WatchAsk:
    words = _PROBLEMS.get(language, _PROBLEMS["en"])[key]
    return WatchAsk(language=language, problem=words.format(tickers=tickers, **fields))


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


def _weekday(text: str) -> int:
    if (m := _WEEKLY.search(text)) is not None:
        if m[3]:
            return _CN_WEEKDAYS[m[3]]
        return WEEKDAYS.index((m[1] or m[2]).lower())
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
    if language == "zh":
        return "、".join(f"`每个交易日收盘后关注 {' '.join(g)}`" for g in groups.values())
    return " and ".join(f"`watch {' '.join(g)} every trading day after the close`" for g in groups.values())


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
