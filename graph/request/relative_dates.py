"""Finders of dates said relative to today: 'yesterday', '3 days ago', 'in two weeks', 'last
Friday', 'end of the month', 'today', 'now'. They say what a phrase means; the calendar arithmetic
is :mod:`graph.request.resolve_dates`'."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .date_hits import RANK_RELATIVE, DateHit, found, quoted, relative_rank
from .date_meanings import Meaning, phrase_meaning
from .date_words import LARGE_NUMBERS, MOVE_WORDS, MULTIPLIERS, NUMBER_WORD, SMALL_NUMBERS, WEEKDAY_NAMES
from .text import blank
from .wordlists import DATA

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


def _phrase_table() -> tuple[tuple[re.Pattern[str], Meaning], ...]:
    """The English phrases said relative to today and what they mean (data/date_phrases_en.tsv), in order."""
    rows = []
    for line in (DATA / "date_phrases_en.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            pattern, tag = line.split("\t")
            meaning = phrase_meaning(tag)
            assert meaning is not None, f"date_phrases_en.tsv: no meaning {tag!r}"
            rows.append((re.compile(pattern), meaning))
    return tuple(rows)


_PHRASES = _phrase_table()
_NOW_KINDS = ("today", "now")


def find_relative(low: str) -> Iterable[DateHit]:
    """yesterday, N days ago, last week/month/year, tomorrow, next week, in N days."""
    for pattern, meaning in _PHRASES:
        if meaning.kind not in _NOW_KINDS:
            for m in pattern.finditer(low):
                yield found(m, meaning, "relative date", RANK_RELATIVE)
                low = blank(low, m.start(), m.end())
    # "a while ago", "some time back": no day at all, so asked back (as "years ago").
    for m in re.finditer(r"\b(?:a\s+(?:little\s+|long\s+|short\s+)?while|some\s+time|a\s+bit)\s+(?:ago|back)\b", low):
        yield found(m, Meaning("vague"), "relative date without a number", RANK_RELATIVE)
        low = blank(low, m.start(), m.end())
    counted = rf"\b(?:(trading|business|market)\s+)?{_UNIT}\b(?:\s+({_PAST}|{_FUTURE})\b)?"
    for m in re.finditer(counted, low):
        hit = _counted(low, m)
        if hit:
            yield hit


def _counted(low: str, m: re.Match[str]) -> DateHit | None:
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
                       meaning=Meaning("vague"))
    if amount.value is None:
        return DateHit(start, m.end(), text, None, RANK_RELATIVE, "relative date",
                       meaning=Meaning("ask", ask="unreadable", reason=amount.why or ""))
    unit = _singular(m.group(2))
    if m.group(1) and unit == "day":
        unit = "session"  # "3 trading days ago"
    return DateHit(start, m.end(), text, None, RANK_RELATIVE, "relative date",
                   meaning=Meaning("offset", n=sign * amount.value, unit=unit))


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


# How a weekday's word before it says which one: the most recent on or before today (none, "on"), strictly
# before it ("last"), that of this week ("this"), or the coming one ("next").
_WEEKDAY_MODES = {"": "", "on": "", "last": "last", "past": "last", "previous": "last", "prior": "last",
                  "this": "week", "next": "next", "coming": "next"}


def find_weekday(low: str) -> Iterable[DateHit]:
    """'last Friday', 'on Monday', 'this wed', "Friday's close", bare 'friday'."""
    names = "|".join(sorted(WEEKDAY_NAMES, key=len, reverse=True))
    pattern = rf"\b(?:(last|past|previous|prior|this|next|coming|on)\s+)?({names})\b(?:'s)?"
    for m in re.finditer(pattern, low):
        mode, name = m.group(1), m.group(2)
        if not mode and not name.endswith("day"):
            continue  # bare "sun", "sat", "wed" are too likely to be other words
        meaning = Meaning("weekday", which=WEEKDAY_NAMES[name], mode=_WEEKDAY_MODES[mode or ""])
        yield found(m, meaning, "weekday", RANK_RELATIVE)


def find_now(low: str) -> Iterable[DateHit]:
    """'today' is an explicit choice; 'now'/'currently' is just filler."""
    for pattern, meaning in _PHRASES:
        if meaning.kind in _NOW_KINDS:
            rank, how = relative_rank(meaning)
            for m in pattern.finditer(low):
                yield found(m, meaning, how, rank)
