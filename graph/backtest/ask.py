"""Whether a chat message asks for a backtest, and what it asks: "backtest NVDA from January to March 2024",
"backtest AAPL, GOOGL and AMZN on the paper's window", "回测英伟达 2024年1月到3月".

A backtest is asked by name: the message starts with "backtest" (or "/backtest", "back-test", 回测/回測).
Anything else is a question for the desk ("how would NVDA have done?" is an analysis, not 183 of them). What
it reads:

- tickers, as the desk's request parser finds them (graph/request/tickers.py: symbols, names, Chinese
  names, mainland and Hong Kong codes), each once, in order;
- the window: two dates ("2024-01-02 to 2024-03-28"), months ("from January to March 2024", "Jan–Mar
  2024", "2024年1月到3月"), one month ("March 2024"), a quarter ("Q1 2024", "2024年第一季度"), a year
  ("2023"), the paper's window ("the paper's window": 2024-01-01 … 2024-03-29), or a span back from today
  ("the last 3 months", "year to date", "过去三个月"). A span reaching today ends at the last close: a
  backtest replays days that have closed;
- a step: "every 5 days", "weekly" (every 5th trading day), "每5天";
- a token budget: "budget 2M tokens", "with a budget of 500k tokens", "预算50万token" (the plan is refused
  when what it expects to spend is over it, and the runner stops before passing it).

What it cannot read is said back (`Ask.problem`, a `[backtest]` text of prompts/words_<code>.md in the ask's
language) with an example to type; whether the window is in the
future, the tickers known, the runs too many is the plan's to say (graph/backtest/plan.py), in the same words
as the CLI's.
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from ..core.words import phrase
from ..request.language import detect_language
from ..request.scripts import cjk_number
from ..request.tickers import scan_tickers
from ..track.settle import last_close_day
from .table import PAPER_ENDS, PAPER_STARTS

_ASKS = re.compile(r"^\W{0,3}(?:/?back[\s-]?test(?:ing)?|回测|回測)\b\W*|^\W{0,3}(?:回测|回測)", re.I)

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_CN_NUMBER = r"[0-9一二三四五六七八九十两兩]+"

_ISO = r"(\d{4})-(\d{1,2})-(\d{1,2})"
_TO = r"\s*(?:to|until|till|through|thru|-|–|—|…|\.\.\.?|~|至|到)\s*"
_ISO_RANGE = re.compile(rf"(?:from\s+)?{_ISO}{_TO}{_ISO}", re.I)
# "from January to March 2024", "Jan-Mar 2024", "January 2024 to March 2024", "Nov 2023 – Feb 2024"
_MONTH_RANGE = re.compile(rf"(?:from\s+)?\b({_MONTH})\.?(?:\s+(\d{{4}}))?{_TO}({_MONTH})\.?\s*,?\s+(\d{{4}})\b", re.I)
_CN_MONTH_RANGE = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月份?" + _TO + r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月")
_ONE_MONTH = re.compile(rf"\b({_MONTH})\.?\s*,?\s+(\d{{4}})\b", re.I)
_CN_ONE_MONTH = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月")
_QUARTER = re.compile(r"\bq([1-4])\s*,?\s*(\d{4})\b|\b(\d{4})\s*-?\s*q([1-4])\b", re.I)
_CN_QUARTER = re.compile(rf"(\d{{4}})\s*年\s*第?({_CN_NUMBER})季度?")
_YEAR = re.compile(r"(?<![\d-])(20\d\d|19\d\d)(?:\s*年)?(?![\d-])")
_PAPER = re.compile(r"\bpaper'?s?\s+(?:own\s+)?(?:window|period|dates|range)\b|\bthe\s+paper\b|论文|論文", re.I)
_SPAN_BACK = re.compile(r"\b(?:last|past|previous)\s+(\d+|two|three|four|five|six|twelve)\s+(day|week|month|year)s?\b",
                        re.I)
_CN_SPAN_BACK = re.compile(rf"(?:过去|過去|最近|近)\s*({_CN_NUMBER})\s*个?個?\s*(天|日|周|週|星期|月|年)")
_LAST_ONE = re.compile(r"\b(?:last|past|previous)\s+(week|month|year|quarter)\b", re.I)
_TO_DATE = re.compile(r"\b(?:year[\s-]to[\s-]date|ytd|this\s+year)\b|今年", re.I)
_EVERY = re.compile(r"\bevery\s+(\d+)(?:st|nd|rd|th)?\s+(?:trading\s+)?days?\b|\bevery\s+(other)\s+(?:trading\s+)?day\b"
                    r"|\b(weekly|every\s+week)\b", re.I)
_CN_EVERY = re.compile(rf"每\s*(?:隔\s*)?({_CN_NUMBER})\s*个?個?\s*(?:交易)?[天日]|(每周|每週|每星期)")
_BUDGET = re.compile(r"\b(?:with\s+)?(?:a\s+)?(?:token\s+)?budget\s+(?:of\s+)?([\d.,]+)\s*([km]|million|thousand)?"
                     r"\s*(?:tokens?)?\b|预算\s*([\d.]+)\s*(万|亿|[km])?\s*(?:个)?\s*(?:tokens?|词元)?", re.I)
_SCALES = {"k": 1_000, "thousand": 1_000, "m": 1_000_000, "million": 1_000_000, "万": 10_000, "亿": 100_000_000}
_WORD_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "twelve": 12}
_TRADING_WEEK = 5  # "weekly": every fifth trading day


@dataclass(frozen=True)
class Ask:
    """A backtest asked in words: what to run, or what could not be read (`problem`, in the asker's language)."""

    tickers: tuple[str, ...] = ()
    start: date | None = None
    end: date | None = None
    every: int = 1
    language: str = "en"
    problem: str = ""
    budget: int | None = None  # tokens


def asks_for_backtest(text: str) -> bool:
    return _ASKS.search(text) is not None


def read_ask(text: str, today: date) -> Ask | None:
    """The backtest the message asks for; None when it asks for no backtest."""
    m = _ASKS.search(text)
    if m is None:
        return None
    language = detect_language(text)  # "zh-Hant" for an ask in Traditional: it is answered so
    rest = text[m.end():]
    every, rest = _every(rest)
    budget, rest = _budget(rest)
    try:
        window, rest = _window(rest, today)
    except _NoSuchDate as exc:
        return _with_problem(Ask(every=every, language=language), "impossible", str(exc))
    listings: list[str] = []
    tickers: list[str] = []
    example = ""
    for hit in scan_tickers(rest, shouted=False, today=today):
        if hit.listings:
            listings.append(f"{hit.source} ({' / '.join(hit.listings)})")
            example = example or hit.listings[-1]
        elif hit.symbol not in tickers:
            tickers.append(hit.symbol)
    start, end = window if window else (None, None)
    ask = Ask(tuple(tickers), start, end, every, language, budget=budget)
    if listings:
        return _with_problem(ask, "listing", "; ".join(listings), example)
    if not tickers:
        return _with_problem(ask, "tickers")
    if window is None:
        return _with_problem(ask, "window")
    return ask


def _with_problem(ask: Ask, key: str, detail: str = "", example: str = "") -> Ask:
    tickers = " ".join(ask.tickers) or "NVDA"
    text = phrase(ask.language, "backtest.ask_" + key, tickers=tickers, detail=detail, example=example)
    return Ask(ask.tickers, ask.start, ask.end, ask.every, ask.language, text, ask.budget)


def _number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    return _WORD_NUMBERS.get(text.lower()) or cjk_number(text)


def _every(text: str) -> tuple[int, str]:
    for pattern in (_EVERY, _CN_EVERY):
        if m := pattern.search(text):
            groups = [g for g in m.groups() if g]
            word = groups[0]
            if word.lower() == "other":
                step = 2
            elif word.isdigit() or _number(word) is not None:
                step = _number(word) or 1
            else:  # weekly, 每周
                step = _TRADING_WEEK
            return step, text[:m.start()] + " " + text[m.end():]
    return 1, text


def _budget(text: str) -> tuple[int | None, str]:
    m = _BUDGET.search(text)
    if m is None:
        return None, text
    figure, scale = (m[1], m[2]) if m[1] else (m[3], m[4])
    try:
        amount = float(figure.replace(",", ""))
    except ValueError:
        return None, text
    tokens = int(amount * _SCALES.get((scale or "").lower(), 1))
    return (tokens or None), text[:m.start()] + " " + text[m.end():]


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _to_date(start: date, end: date, today: date) -> tuple[date, date]:
    """A month, quarter or year still going ends at the last close: today's session has not closed. One not
    begun yet is left as asked, for the plan to refuse as in the future."""
    closed = last_close_day(today)
    return (start, min(end, closed)) if start <= closed else (start, end)


def _back(today: date, n: int, unit: str) -> date:
    unit = unit.lower()
    if unit in ("day", "天", "日"):
        return today - timedelta(days=n)
    if unit in ("week", "周", "週", "星期"):
        return today - timedelta(weeks=n)
    months = n * 12 if unit in ("year", "年") else n
    year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
    return date(year, month + 1, min(today.day, calendar.monthrange(year, month + 1)[1]))


def _valid(year: int, month: int, day: int = 1) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def _window(text: str, today: date) -> tuple[tuple[date, date] | None, str]:
    """The window the text names, and the text with it blanked (so its numbers are no tickers)."""
    for find in (_iso_range, _month_range, _cn_month_range, _quarter, _one_month, _paper, _span_back, _last_one,
                 _year_to_date, _year):
        found = find(text, today)
        if found is not None:
            window, m = found
            if window is not None:
                return window, text[:m.start()] + " " + text[m.end():]
    return None, text


class _NoSuchDate(ValueError):
    """A window with a date that does not exist (2024-02-30): said back, not guessed."""


Found = tuple[tuple[date, date] | None, re.Match[str]] | None


def _iso_range(text: str, today: date) -> Found:
    m = _ISO_RANGE.search(text)
    if m is None:
        return None
    y1, m1, d1, y2, m2, d2 = (int(g) for g in m.groups())
    if not (_valid(y1, m1, d1) and _valid(y2, m2, d2)):
        raise _NoSuchDate(m[0])
    return (date(y1, m1, d1), date(y2, m2, d2)), m


def _month_range(text: str, today: date) -> Found:
    m = _MONTH_RANGE.search(text)
    if m is None:
        return None
    first, first_year, last, year = m.groups()
    end_year = int(year)
    start_month, end_month = _MONTHS[first.lower()], _MONTHS[last.lower()]
    start_year = int(first_year) if first_year else end_year - (start_month > end_month)
    return _to_date(date(start_year, start_month, 1), _month_end(end_year, end_month), today), m


def _cn_month_range(text: str, today: date) -> Found:
    m = _CN_MONTH_RANGE.search(text)
    if m is None:
        return None
    first_year, first, last_year, last = m.groups()
    year = int(last_year or first_year or today.year)
    start_month, end_month = int(first), int(last)
    if not (1 <= start_month <= 12 and 1 <= end_month <= 12):
        return None, m
    start_year = int(first_year) if first_year else year - (start_month > end_month)
    return _to_date(date(start_year, start_month, 1), _month_end(year, end_month), today), m


def _quarter(text: str, today: date) -> Found:
    m = _QUARTER.search(text)
    if m is not None:
        quarter, year = (int(m[1]), int(m[2])) if m[1] else (int(m[4]), int(m[3]))
    elif (m := _CN_QUARTER.search(text)) is not None:
        year, quarter = int(m[1]), cjk_number(m[2]) or 0
        if not 1 <= quarter <= 4:
            return None, m
    else:
        return None
    first = 3 * quarter - 2
    return _to_date(date(year, first, 1), _month_end(year, first + 2), today), m


def _one_month(text: str, today: date) -> Found:
    if (m := _ONE_MONTH.search(text)) is not None:
        year, month = int(m[2]), _MONTHS[m[1].lower()]
    elif (m := _CN_ONE_MONTH.search(text)) is not None:
        year, month = int(m[1]), int(m[2])
        if not 1 <= month <= 12:
            return None, m
    else:
        return None
    return _to_date(date(year, month, 1), _month_end(year, month), today), m


def _paper(text: str, today: date) -> Found:
    m = _PAPER.search(text)
    return ((PAPER_STARTS[0], PAPER_ENDS[-1]), m) if m else None


def _span_back(text: str, today: date) -> Found:
    if (m := _SPAN_BACK.search(text) or _CN_SPAN_BACK.search(text)) is None:
        return None
    n = _number(m[1])
    if not n:
        return None, m
    end = last_close_day(today)
    return (_back(end, n, m[2]) + timedelta(days=1), end), m


def _last_one(text: str, today: date) -> Found:
    m = _LAST_ONE.search(text)
    if m is None:
        return None
    unit = m[1].lower()
    end = last_close_day(today)
    if unit == "month":  # the last calendar month: "last month" in March is February
        first = (today.replace(day=1) - timedelta(days=1)).replace(day=1)
        return (first, _month_end(first.year, first.month)), m
    if unit == "year":
        return (date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)), m
    back = {"week": (1, "week"), "quarter": (3, "month")}[unit]
    return (_back(end, *back) + timedelta(days=1), end), m


def _year_to_date(text: str, today: date) -> Found:
    m = _TO_DATE.search(text)
    return ((date(today.year, 1, 1), last_close_day(today)), m) if m else None


def _year(text: str, today: date) -> Found:
    m = _YEAR.search(text)
    if m is None:
        return None
    year = int(m[1])
    return _to_date(date(year, 1, 1), date(year, 12, 31), today), m
