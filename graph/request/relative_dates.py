"""Finders of dates said relative to today: 'yesterday', '3 days ago', 'in two weeks', 'last
Friday', 'end of the month', 'today', 'now'; and the calendar arithmetic behind them."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from ..core.trading_days import previous_trading_day
from .date_hits import MIN_DATE, RANK_NOW, RANK_RELATIVE, RANK_TODAY, Beyond, DateHit, quoted
from .date_words import LARGE_NUMBERS, MOVE_WORDS, MULTIPLIERS, NUMBER_WORD, SMALL_NUMBERS, WEEKDAY_NAMES
from .text import blank

_UNIT_DAYS = {"day": 1, "week": 7, "wk": 7, "fortnight": 14}
_UNIT_MONTHS = {"month": 1, "mo": 1, "quarter": 3, "year": 12, "yr": 12, "decade": 120, "century": 1200}
_UNIT = r"(days?|weeks?|wks?|fortnights?|months?|mos?|quarters?|years?|yrs?|decades?|century|centuries)"
_PAST = r"ago|back|earlier|before\s+today|in\s+the\s+past"
_FUTURE = r"from\s+now|from\s+today|later|hence|in\s+the\s+future"
_AMOUNT_DIGITS = re.compile(r"(?<!\S)([-+]?(?:\d[\d,._']*)?\d(?:e[-+]?\d+)?)\s+$")
_AMOUNT_WORDS = re.compile(rf"(?<![\w-])((?:(?:{NUMBER_WORD})[\s-]+)+)$")
# Numbers this large are all "too far" in any unit; capping keeps the arithmetic small.
_HUGE = 10**15


@dataclass
class _Amount:
    start: int  # in the window it was read from
    value: int | None
    why: str | None = None  # when value is None: why the number can't be used


def find_relative(low: str, today: date) -> Iterable[DateHit]:
    """yesterday, N days ago, last week/month/year, tomorrow, next week, in N days."""
    simple: tuple[tuple[str, Callable[[], date]], ...] = (
        (r"\b(?:the\s+)?day\s+before\s+yesterday\b", lambda: today - timedelta(days=2)),
        # Before "last year" and "last week": "this time last year" is a year ago today, not last year's end.
        (r"\b(?:(?:this|the\s+same)\s+(?:time|day|date)|same\s+(?:time|day|date))\s+(?:last|a)\s+year\b",
         lambda: shift_months(today, -12)),
        (r"\b(?:the\s+)?week\s+before\s+last\b", lambda: last_week_friday(today) - timedelta(days=7)),
        (r"\b(?:the\s+)?month\s+before\s+last\b",
         lambda: shift_months(today.replace(day=1), -1) - timedelta(days=1)),
        (r"\b(?:the\s+)?year\s+before\s+last\b", lambda: date(today.year - 2, 12, 31)),
        (r"\b(?:yesterday|yday|yest)\b(?:'s)?", lambda: today - timedelta(days=1)),
        (r"\b(?:last|previous|prior)\s+week(?:'s)?\b", lambda: last_week_friday(today)),
        (r"\b(?:last|previous|prior)\s+month(?:'s)?\b", lambda: today.replace(day=1) - timedelta(days=1)),
        (r"\b(?:last|previous|prior)\s+year(?:'s)?\b", lambda: date(today.year - 1, 12, 31)),
        (r"\b(?:the\s+)?(?:day\s+after\s+tomorrow|overmorrow)\b", lambda: today + timedelta(days=2)),
        (r"\b(?:tomorrow|tmrw|tmr|tomorow)\b", lambda: today + timedelta(days=1)),
        (r"\bnext\s+week\b", lambda: today + timedelta(days=7)),
        (r"\bnext\s+month\b", lambda: shift_months(today, 1)),
        (r"\bnext\s+quarter\b", lambda: shift_months(today, 3)),
        (r"\bnext\s+year\b", lambda: shift_months(today, 12)),
        (r"\bnext\s+decade\b", lambda: shift_months(today, 120)),
        (r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?week\b",
         lambda: today - timedelta(days=today.weekday()) + timedelta(days=4)),
        (r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?month\b",
         lambda: shift_months(today.replace(day=1), 1) - timedelta(days=1)),
        (r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?quarter\b",
         lambda: shift_months(today.replace(day=1), 3 - (today.month - 1) % 3) - timedelta(days=1)),
        (r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?year\b",
         lambda: date(today.year, 12, 31)),
    )
    for pattern, compute in simple:
        for m in re.finditer(pattern, low):
            yield DateHit(m.start(), m.end(), m.group(0).strip(), compute(), RANK_RELATIVE, "relative date")
            low = blank(low, m.start(), m.end())
    # "a while ago", "some time back": no day at all, so asked back (as "years ago").
    for m in re.finditer(r"\b(?:a\s+(?:little\s+|long\s+|short\s+)?while|some\s+time|a\s+bit)\s+(?:ago|back)\b", low):
        yield DateHit(m.start(), m.end(), m.group(0), None, RANK_RELATIVE, "relative date without a number",
                       ask="vague", vague=True)
        low = blank(low, m.start(), m.end())
    pattern = rf"\b(?:(trading|business|market)\s+)?{_UNIT}\b(?:\s+({_PAST}|{_FUTURE})\b)?"
    for m in re.finditer(pattern, low):
        hit = _counted(low, m, today)
        if hit:
            yield hit


def _counted(low: str, m: re.Match[str], today: date) -> DateHit | None:
    """'3 days ago', 'in 3 days', '3 days from now', 'years ago' (no number: asked back)."""
    direction = m.group(3)
    window_start = max(0, m.start() - 80)
    window = low[window_start : m.start()]
    amount = _read_amount(window)
    if direction is None:
        # Only "in 3 days" is a date; "50 day MA", "over the past 3 months" are not.
        if amount is None:
            return None
        before = re.search(r"\bin\s+$", window[: amount.start])
        if before is None:
            return None
        start = window_start + before.start()
        if _measures_a_move(low, start):
            return None  # "up 20% in 3 days"
        sign = 1
    else:
        sign = -1 if re.match(_PAST, direction) else 1
        start = window_start + amount.start if amount else m.start()
    text = low[start : m.end()]
    if amount is None:
        return DateHit(start, m.end(), text, None, RANK_RELATIVE, "relative date without a number",
                        ask="vague", vague=True)
    if amount.value is None:
        return DateHit(start, m.end(), text, None, RANK_RELATIVE, "relative date", ask="unreadable",
                        unclear=amount.why)
    unit = _singular(m.group(2))
    trading = bool(m.group(1)) and unit == "day"
    value, beyond = offset_date(today, amount.value, unit, sign, trading)
    return DateHit(start, m.end(), text, value, RANK_RELATIVE, "relative date", beyond=beyond)


def _read_amount(window: str) -> _Amount | None:
    """The count right before a unit: '3', '1,000', '1e9', 'twenty-one', 'a couple of'."""
    m = _AMOUNT_DIGITS.search(window)
    if m:
        value, why = _read_number(m.group(1))
        return _Amount(m.start(1), value, why)
    m = _AMOUNT_WORDS.search(window)
    if m:
        value = _words_value(re.split(r"[\s-]+", m.group(1).strip()))
        if value is not None:
            return _Amount(m.start(1), value)
    last = re.search(r"(\S+)\s+$", window)
    if last and re.search(r"\d", last.group(1)):  # "1,5", ".5", "1e9x": a number, but not one we can use
        return _Amount(last.start(1), None, f"I can't read '{quoted(last.group(1), 20)}' as a number")
    return None


def _read_number(token: str) -> tuple[int | None, str | None]:
    """A count typed in digits, or why it can't be one."""
    if token.startswith("-"):
        return None, "the number can't be negative"
    digits = token.lstrip("+")
    if re.fullmatch(r"\d{1,3}(?:([,_'])\d{3})(?:\1\d{3})*", digits):
        digits = re.sub(r"[,_']", "", digits)  # "1,000"
    if re.fullmatch(r"\d+", digits):
        return (int(digits) if len(digits) <= 15 else _HUGE), None
    try:
        number = float(digits)
    except ValueError:
        return None, f"I can't read '{quoted(token, 20)}' as a number"
    if math.isinf(number) or number >= _HUGE:
        return _HUGE, None  # "1e9 days ago": far, whatever the unit
    if not number.is_integer():
        return None, f"'{quoted(token, 20)}' isn't a whole number"
    return int(number), None


def _words_value(words: list[str]) -> int | None:
    """'twenty one' -> 21, 'a couple of' -> 2, 'ten thousand' -> 10000, 'a' -> 1."""
    total = current = 0
    article = counted = False
    for word in words:
        if word in ("and", "of", ""):
            continue
        if word in ("a", "an"):
            if not counted and current == 0:
                current, article = 1, True
            continue
        counted = True
        if word in SMALL_NUMBERS:
            current = (0 if article else current) + SMALL_NUMBERS[word]
        elif word in MULTIPLIERS:
            current = max(current, 1) * MULTIPLIERS[word]
        elif word in LARGE_NUMBERS:
            total += max(current, 1) * LARGE_NUMBERS[word]
            current = 0
        article = False
    if not counted and not article:
        return None
    return total + current


def _singular(unit: str) -> str:
    if unit == "centuries":
        return "century"
    return unit[:-1] if unit.endswith("s") else unit


def _measures_a_move(low: str, start: int) -> bool:
    """Is 'in N days' the span of a move ('up 20% in 3 days', 'doubled in 2 years')?"""
    before = low[max(0, start - 40) : start]
    words = re.findall(r"[a-z%']+|%", before)[-3:]
    return "%" in before or any(w in MOVE_WORDS for w in words)


def offset_date(today: date, n: int, unit: str, sign: int, trading: bool) -> tuple[date | None, Beyond | None]:
    """``today`` moved by ``n`` units (sign -1: back), or which side of the calendar it falls off."""
    off: Beyond = "past" if sign < 0 else "future"
    if unit in _UNIT_DAYS:
        if trading and sign < 0:
            return _trading_days_back(today, n)
        days = n * _UNIT_DAYS[unit]
        room = (today - date.min).days if sign < 0 else (date.max - today).days
        if days > room:
            return None, off
        return today + timedelta(days=sign * days), None
    months = n * _UNIT_MONTHS[unit]
    index = today.year * 12 + today.month - 1 + sign * months
    if not 12 <= index < 9999 * 12:  # years 1 to 9998
        return None, off
    return shift_months(today, sign * months), None


def _trading_days_back(today: date, n: int) -> tuple[date | None, Beyond | None]:
    if n > (today - MIN_DATE).days:  # more sessions than calendar days since MIN_DATE
        return None, "past"
    d = today
    for _ in range(n):
        d = previous_trading_day(d)
        if d < MIN_DATE:
            return None, "past"
    return d, None


def find_weekday(low: str, today: date) -> Iterable[DateHit]:
    """'last Friday', 'on Monday', 'this wed', "Friday's close", bare 'friday'."""
    names = "|".join(sorted(WEEKDAY_NAMES, key=len, reverse=True))
    pattern = rf"\b(?:(last|past|previous|prior|this|next|coming|on)\s+)?({names})\b(?:'s)?"
    for m in re.finditer(pattern, low):
        mode, name = m.group(1), m.group(2)
        if not mode and not name.endswith("day"):
            continue  # bare "sun", "sat", "wed" are too likely to be other words
        value = weekday_date(today, WEEKDAY_NAMES[name], mode or "")
        yield DateHit(m.start(), m.end(), m.group(0).strip(), value, RANK_RELATIVE, "weekday")


def find_now(low: str, today: date) -> Iterable[DateHit]:
    """'today' is an explicit choice; 'now'/'currently' is just filler."""
    for m in re.finditer(r"(?<!\$)\b(?:today|todays|this\s+(?:morning|afternoon|evening)|tonight)\b", low):
        yield DateHit(m.start(), m.end(), m.group(0).strip(), today, RANK_TODAY, "today")
    filler = r"(?<!\$)\b(?:right\s+now|now|currently|at\s+the\s+moment|this\s+week|this\s+month|this\s+year|eod)\b"
    for m in re.finditer(filler, low):
        yield DateHit(m.start(), m.end(), m.group(0).strip(), today, RANK_NOW, "now")


def last_week_friday(today: date) -> date:
    monday_this_week = today - timedelta(days=today.weekday())
    return monday_this_week - timedelta(days=3)


def weekday_date(today: date, weekday: int, mode: str) -> date:
    if mode in ("next", "coming"):
        ahead = (weekday - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    if mode == "this":
        return today - timedelta(days=today.weekday()) + timedelta(days=weekday)
    back = (today.weekday() - weekday) % 7
    if mode in ("last", "past", "previous", "prior") and back == 0:
        back = 7  # "last Friday" said on a Friday means a week ago
    return today - timedelta(days=back)


def shift_months(d: date, months: int) -> date:
    """``d`` moved by whole months, the day clamped to the month's length (Mar 31 - 1 month
    -> Feb 28/29). Callers keep the result within years 1-9999."""
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    for day in (d.day, 30, 29, 28):
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return date(year, month, 28)
