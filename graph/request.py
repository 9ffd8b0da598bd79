"""Deterministic parsing of a chat message into an analysis request.

The chat coordinator calls :func:`parse_request` on every user message. It must
be fast, predictable and never raise, so it is plain rules and regular
expressions, no model:

1. Dates are found first ("2024-05-01", "last Friday", "3 days ago", ...) and
   blanked out of the text, so "Mar 15" can never be read as the ticker MAR.
2. Tickers are found in three passes over what is left: share-class forms
   (BRK.B, "Berkshire B"), company names/aliases from ``companies.csv``, then
   symbol-looking tokens ($TSLA, NVDA, nvda, 0700.HK).
3. The intent (analyze / followup / chat / clarify) is decided from what was
   found plus the conversation state passed in by the caller.

Every ticker hit gets a confidence tier so that ordinary words do not become
tickers: "CAN I BUY TSLA NOW" is TSLA (NOW is ServiceNow only as $NOW), "AI is
overhyped" has no ticker, and "should I chase this rally?" is not JPMorgan.
Only the best tier found is used, but a weaker hit joins when it is listed
with it ("V or MA?", "pepsi vs coke"), and two tickers always mean a question
back, never a guess.

Intent rules, in order: an unusable date (impossible, in the future, before
1990, or two different dates) -> clarify; two or more tickers -> clarify; no
ticker and only greetings/thanks/help -> chat; with a decision on screen, a
message with no new ticker, no new explicit date and no rerun request ->
followup, otherwise analyze; without one, a ticker -> analyze, else clarify.

Date conventions (documented here because they are choices, not facts):

* no date, "now", "right now", "currently" -> today;
* "last <weekday>" -> the most recent such day strictly before today;
  "<weekday>" / "on <weekday>" -> the most recent such day on or before today;
  "this <weekday>" -> that day of the current Monday-Sunday week (may be in
  the future, which is then refused);
* "last week" -> the Friday of the previous Monday-Sunday week;
  "last month" -> the last day of the previous month; "last year" -> Dec 31
  of the previous year;
* "N days/weeks/months/years ago" -> calendar arithmetic; "N trading days
  ago" steps over NYSE sessions;
* "July 4th" (no year) -> the most recent July 4th on or before today;
* "Dec 2023" (month and year) -> the last day of that month (today if it is
  the current month);
* numeric dates are US order (05/01/2024 = May 1) unless the first number is
  over 12 (15/03/2024 = March 15);
* "end of 2023" / "year-end 2023" -> December 31st;
* a future date right after an event word ("earnings next week") dates the
  event, not the analysis, and is ignored; any other future date is refused;
* the trade date is always the last NYSE session on or before the asked date.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel

from .calendar import last_trading_day, previous_trading_day
from .companies import (
    EXCHANGE_SUFFIXES,
    SHARE_CLASSES,
    alias_table,
    company_name,
    is_known_ticker,
    normalize_ticker,
)

__all__ = ["Intent", "ParsedRequest", "parse_request", "MIN_DATE"]

Intent = Literal["analyze", "followup", "chat", "clarify"]

# Market data before this is patchy for most symbols; refuse rather than
# produce an analysis on nothing.
MIN_DATE = date(1990, 1, 1)

# Long pastes are truncated: nobody hides the ticker after 2000 characters,
# and it bounds the regex work.
MAX_INPUT_CHARS = 2000


class ParsedRequest(BaseModel):
    intent: Intent
    ticker: str | None = None  # Yahoo form, e.g. "NVDA", "BRK-B", "0700.HK"
    company: str | None = None  # display name if known
    trade_date: date | None = None  # last NYSE trading day on or before asked_date
    asked_date: date | None = None  # the date the user asked about (today by default)
    question: str | None = None  # for clarify: what to ask the user back
    reason: str = ""  # short explanation of how it was parsed (logs / CLI)


ASK_TICKER = (
    "Which stock should I analyze? Type a ticker like `NVDA` (or `$NVDA`) or a "
    "company name like `Apple`, optionally with a date, e.g. `AAPL 2024-05-01`."
)


# --------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------


def parse_request(
    text: str,
    today: date,
    *,
    has_decision: bool = False,
    current_ticker: str | None = None,
    current_date: date | None = None,
) -> ParsedRequest:
    """Parse one user message. Never raises: on an internal error it asks back."""
    try:
        return _parse(text, today, has_decision, current_ticker, current_date)
    except Exception as exc:  # noqa: BLE001 - a chat turn must never crash
        return ParsedRequest(
            intent="clarify",
            question=ASK_TICKER,
            reason=f"parser error ({type(exc).__name__}); asking the user instead",
        )


def _parse(
    text: str,
    today: date,
    has_decision: bool,
    current_ticker: str | None,
    current_date: date | None,
) -> ParsedRequest:
    msg = _normalize(text)
    if not msg.strip():
        return ParsedRequest(intent="clarify", question=ASK_TICKER, reason="empty message")

    shouted = _is_shouted(msg)
    dates = _scan_dates(msg, today)
    tickers = _scan_tickers(dates.remaining, shouted)
    if current_ticker:
        current_ticker = normalize_ticker(current_ticker) or current_ticker.strip().upper()

    # 1. A date we can't use is always worth a question, whatever else was said.
    if dates.error:
        return _clarify(dates.error, dates.reason, tickers)

    # 2. Never guess between two symbols.
    if len(tickers) > 1:
        return _clarify(_ask_which_ticker(tickers), f"several tickers: {_list(tickers)}", tickers)

    ticker = tickers[0] if tickers else None
    # "analyze NVDA" typed again while NVDA is on screen is a request to rerun.
    rerun = bool(_RERUN.search(msg.lower()) or (ticker and _COMMAND.match(msg.lower())))

    if ticker is None and _is_chat(msg):
        return ParsedRequest(intent="chat", reason="greeting/thanks/help without a ticker")

    if has_decision:
        return _with_decision(ticker, dates, rerun, today, current_ticker, current_date)
    return _without_decision(ticker, dates, rerun, today, current_ticker, current_date)


def _with_decision(ticker, dates, rerun, today, current_ticker, current_date) -> ParsedRequest:
    """An analysis is on screen: questions about it are followups."""
    new_ticker = ticker is not None and ticker.symbol != current_ticker
    new_date = dates.explicit and _differs(dates.value, current_date, today)
    if not (new_ticker or new_date or rerun):
        asked = current_date
        return ParsedRequest(
            intent="followup",
            ticker=current_ticker,
            company=company_name(current_ticker),
            asked_date=asked,
            trade_date=last_trading_day(asked) if asked else None,
            reason="question about the finished analysis"
            + (f" (mentions {ticker.symbol} again)" if ticker else ""),
        )
    symbol = ticker.symbol if ticker else current_ticker
    if symbol is None:
        return _ask_for_ticker(dates, today, "new analysis wanted but no ticker known")
    # A rerun of the same ticker without a date keeps the date on screen.
    keep_date = current_date if (rerun and not new_ticker and not dates.explicit) else None
    why = "new ticker" if new_ticker else "new date" if new_date else "re-analysis requested"
    return _analyze(symbol, ticker, dates, today, why, keep_date)


def _without_decision(ticker, dates, rerun, today, current_ticker, current_date) -> ParsedRequest:
    if ticker is not None:
        return _analyze(ticker.symbol, ticker, dates, today, "ticker found")
    # "rerun" / "what about last Friday?" continue with the ticker in play.
    if current_ticker and (rerun or dates.explicit):
        keep = current_date if (rerun and not dates.explicit) else None
        return _analyze(current_ticker, None, dates, today, "continuing current ticker", keep)
    return _ask_for_ticker(dates, today, "no ticker or company found")


def _analyze(symbol, hit, dates, today, why, keep_date: date | None = None) -> ParsedRequest:
    asked = keep_date or (dates.value if dates.value else today)
    parts = [why]
    if hit is not None:
        parts.append(f"{symbol} from {hit.how} '{hit.source}'")
    else:
        parts.append(f"ticker {symbol} carried over")
    if keep_date:
        parts.append(f"date {asked} carried over")
    else:
        parts.append(dates.reason or f"no date given, using today {today}")
    trade = last_trading_day(asked)
    if trade != asked:
        parts.append(f"last NYSE session on or before {asked} is {trade}")
    return ParsedRequest(
        intent="analyze",
        ticker=symbol,
        company=company_name(symbol),
        asked_date=asked,
        trade_date=trade,
        reason="; ".join(parts),
    )


def _ask_for_ticker(dates: "_DateScan", today: date, reason: str) -> ParsedRequest:
    """No ticker, but the date is fine: keep it, so a model fallback (see
    graph/coordinator.py) that names the company can reuse it."""
    asked = dates.value or today
    return ParsedRequest(
        intent="clarify",
        asked_date=asked,
        trade_date=last_trading_day(asked),
        question=ASK_TICKER,
        reason=f"{reason}; {dates.reason or 'no date given, using today'}",
    )


def _clarify(question: str, reason: str, tickers: list["_Hit"]) -> ParsedRequest:
    """A question back; dates are left empty because the date or ticker is in doubt."""
    single = tickers[0].symbol if len(tickers) == 1 else None
    return ParsedRequest(
        intent="clarify",
        ticker=single,
        company=company_name(single),
        question=question,
        reason=reason,
    )


def _differs(value: date | None, current: date | None, today: date) -> bool:
    """Does an explicitly asked date mean a different session than the one shown?"""
    if value is None:
        return False
    reference = current or today
    return value != reference and last_trading_day(value) != last_trading_day(reference)


def _ask_which_ticker(tickers: list["_Hit"]) -> str:
    names = [f"{t.symbol} ({company_name(t.symbol)})" if company_name(t.symbol) else t.symbol for t in tickers]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    return (
        f"You mentioned {listed}. I analyze one ticker at a time: which one should I "
        f"look at? Reply with just the ticker, e.g. `{tickers[0].symbol}`."
    )


def _list(tickers: list["_Hit"]) -> str:
    return ", ".join(f"{t.symbol} ({t.how} '{t.source}')" for t in tickers)


# --------------------------------------------------------------------------
# Text helpers
# --------------------------------------------------------------------------

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})


def _normalize(text: object) -> str:
    """NFKC (full-width letters, odd spaces), ASCII quotes, bounded length."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return text[:MAX_INPUT_CHARS]


def _lower(s: str) -> str:
    """Lower-case without changing length (some characters lower to two)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in s)


def _blank(s: str, start: int, end: int) -> str:
    """Replace a span with spaces, keeping every other index where it was."""
    return s[:start] + " " * (end - start) + s[end:]


def _is_shouted(msg: str) -> bool:
    """All-caps messages carry no case signal: 'CAN I BUY TSLA NOW'."""
    words = re.findall(r"[A-Za-z]{2,}", msg)
    if len(words) < 3:
        return False
    upper = sum(1 for w in words if w.isupper())
    return upper / len(words) >= 0.7


def _prev_word(low: str, start: int) -> str:
    match = re.search(r"([a-z']+)[^a-z']*$", low[:start])
    return match.group(1) if match else ""


def _next_words(low: str, end: int, n: int = 2) -> list[str]:
    return re.findall(r"[a-z']+", low[end : end + 60])[:n]


def _sentence_start(s: str, start: int) -> bool:
    before = s[:start].rstrip(" \t\"'(*")
    return not before or before[-1] in ".!?\n:"


# --------------------------------------------------------------------------
# Dates
# --------------------------------------------------------------------------

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ORD_WORDS = "st|nd|rd|th"
_ORD = rf"(?:{_ORD_WORDS})?"
_WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4,
    "saturday": 5, "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "couple": 2, "couple of": 2, "few": 3, "several": 3,
}  # fmt: skip
# Words that introduce a date; a bare "5/1" only counts as a date after one.
_DATE_PREPS = {"on", "for", "from", "since", "as", "of", "at", "by", "before", "after", "until", "about", "around"}

RANK_NOW, RANK_TODAY, RANK_RELATIVE, RANK_ABSOLUTE = 0, 1, 2, 3


@dataclass
class _DateHit:
    start: int
    end: int
    text: str
    value: date | None
    rank: int
    how: str
    error: str | None = None  # why the date is impossible, e.g. "there is no month 13"


@dataclass
class _DateScan:
    remaining: str  # the message with date phrases blanked out
    value: date | None = None
    explicit: bool = False  # the user named a date (not just "now")
    reason: str = ""
    error: str | None = None  # a clarifying question if the date is unusable


def _scan_dates(msg: str, today: date) -> _DateScan:
    low = _lower(msg)
    hits: list[_DateHit] = []
    for finder in _DATE_FINDERS:
        for hit in finder(low, today):
            hits.append(hit)
            low = _blank(low, hit.start, hit.end)
    remaining = msg
    for hit in hits:
        hit.text = msg[hit.start : hit.end].strip()  # quote it back as typed
        remaining = _blank(remaining, hit.start, hit.end)
    # "buy NVDA before earnings next week?" - a future date that only dates an
    # event is context, not the day to analyze.
    low = _lower(msg)
    hits = [h for h in hits if not (h.value and h.value > today and _dates_an_event(low, h.start))]
    return _choose_date(hits, remaining, today)


_EVENT_WORDS = frozenset(
    """
    earnings report reports reporting results fomc fed cpi ppi jobs nfp payrolls meeting call
    announcement event events print data split dividend expiry expiration expires opex launch
    release conference keynote guidance ipo vote election deadline er due before ahead until
    till by into catalyst decision hearing
    """.split()
)


def _dates_an_event(low: str, start: int) -> bool:
    words = re.findall(r"[a-z']+", low[max(0, start - 60) : start])[-4:]
    return any(w in _EVENT_WORDS for w in words)


def _choose_date(hits: list[_DateHit], remaining: str, today: date) -> _DateScan:
    scan = _DateScan(remaining=remaining)
    errors = [h for h in hits if h.error]
    if errors:
        bad = errors[0]
        scan.error = (
            f"'{bad.text}' isn't a real date ({bad.error}), so that date doesn't exist. "
            f"Which date did you mean? Type it like `2024-05-01`."
        )
        scan.reason = f"impossible date '{bad.text}': {bad.error}"
        return scan
    if not hits:
        return scan
    best = max(h.rank for h in hits)
    top = [h for h in hits if h.rank == best]
    distinct = sorted({h.value for h in top if h.value})
    if len(distinct) > 1:
        shown = " or ".join(d.isoformat() for d in distinct[:3])
        scan.error = (
            f"You mentioned more than one date ({shown}). Which one should I use? "
            f"Reply with a single date like `{distinct[-1].isoformat()}`."
        )
        scan.reason = "several dates: " + ", ".join(f"'{h.text}'" for h in top)
        return scan
    chosen = top[0]
    scan.value, scan.explicit = chosen.value, chosen.rank >= RANK_TODAY
    scan.reason = f"date {chosen.value} from {chosen.how} '{chosen.text}'"
    if chosen.value and chosen.value > today:
        scan.error = (
            f"I can't analyze the future: {chosen.value.isoformat()} is after today "
            f"({today.isoformat()}). Ask about today or an earlier date, "
            f"e.g. `{last_trading_day(today).isoformat()}`."
        )
        scan.reason = f"future date '{chosen.text}' ({chosen.value})"
    elif chosen.value and chosen.value < MIN_DATE:
        scan.error = (
            f"{chosen.value.isoformat()} is too far back: I only have market data from "
            f"{MIN_DATE.year} on. Pick a date on or after {MIN_DATE.isoformat()}, e.g. `2024-05-01`."
        )
        scan.reason = f"date before {MIN_DATE.year} '{chosen.text}'"
    return scan


def _make_date(year: int, month: int, day: int, m: re.Match, how: str, rank=RANK_ABSOLUTE) -> _DateHit:
    """A date hit, or an 'impossible date' hit when the calendar disagrees."""
    text = m.group(0).strip()
    try:
        return _DateHit(m.start(), m.end(), text, date(year, month, day), rank, how)
    except ValueError:
        return _DateHit(m.start(), m.end(), text, None, rank, how, error=_impossible(year, month, day))


def _impossible(year: int, month: int, day: int) -> str:
    """Why a year/month/day triple is not on the calendar (shown to the user)."""
    if 1 <= month <= 12 and day >= 1:
        first_next = date(year + (month == 12), month % 12 + 1, 1) if 1 <= year < 9999 else None
        if first_next:
            last = (first_next - timedelta(days=1)).day
            detail = f"{date(year, month, 1):%B %Y} only has {last} days"
        else:
            detail = "that year is out of range"
    elif not 1 <= month <= 12:
        detail = f"there is no month {month}"
    else:
        detail = "there is no day 0"
    return detail


def _year(text: str, today: date) -> int:
    """Four-digit years as written; two-digit years in the most recent century."""
    year = int(text)
    if len(text) == 2:
        year += 2000 if 2000 + year <= today.year else 1900
    return year


def _month(text: str) -> int:
    return _MONTHS[text[:3].lower()]


def _find_iso(low: str, today: date) -> Iterable[_DateHit]:
    """2024-05-01, 2024/05/01, 2024.05.01 and compact 20240501."""
    for m in re.finditer(r"(?<![\d.$/-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d/]|[.-]\d)", low):
        yield _make_date(int(m.group(1)), int(m.group(3)), int(m.group(4)), m, "ISO date")
    for m in re.finditer(r"(?<![\d$.])((?:19|20)\d{2})(\d{2})(\d{2})(?![\d])", low):
        month, day = int(m.group(2)), int(m.group(3))
        if 1 <= month <= 12 and 1 <= day <= 31:
            yield _make_date(int(m.group(1)), month, day, m, "compact date")


def _find_numeric(low: str, today: date) -> Iterable[_DateHit]:
    """05/01/2024 (US order), 15/03/2024 (day first when unambiguous), 5-1-24."""
    pattern = r"(?<![\d.$/-])(\d{1,2})([-/.])(\d{1,2})\2(\d{4}|\d{2})(?![\d/]|[.-]\d)"
    for m in re.finditer(pattern, low):
        first, second = int(m.group(1)), int(m.group(3))
        month, day = (second, first) if first > 12 and second <= 12 else (first, second)
        how = "day-first date" if first > 12 and second <= 12 else "US date"
        yield _make_date(_year(m.group(4), today), month, day, m, how)


def _find_named(low: str, today: date) -> Iterable[_DateHit]:
    """Month names with a year: 'March 15, 2024', '15 March 2024', 'Dec 2023'."""
    patterns = (
        (rf"\b{_MONTH}\s*(\d{{1,2}}){_ORD}(?:\s*,\s*|\s+|-)(\d{{4}})\b", "md"),
        (rf"\b(\d{{1,2}}){_ORD}(?:\s+of)?[\s-]+{_MONTH},?[\s-]+(\d{{4}})\b", "dm"),
    )
    for pattern, order in patterns:
        for m in re.finditer(pattern, low):
            if order == "md":
                month, day, year = _month(m.group(1)), int(m.group(2)), int(m.group(3))
            else:
                day, month, year = int(m.group(1)), _month(m.group(2)), int(m.group(3))
            yield _make_date(year, month, day, m, "date")
            low = _blank(low, m.start(), m.end())
    # "end of 2023", "year-end 2023", "2023 year end": December 31st.
    for m in re.finditer(r"\b(?:(?:the\s+)?end\s+of|year[\s-]?end)\s+(\d{4})\b|\b(\d{4})\s+year[\s-]?end\b", low):
        yield _make_date(int(m.group(1) or m.group(2)), 12, 31, m, "year end")
        low = _blank(low, m.start(), m.end())
    # Month and year only: the last day of that month (or today if current).
    for m in re.finditer(rf"\b{_MONTH},?\s+(\d{{4}})\b", low):
        year, month = int(m.group(2)), _month(m.group(1))
        if not 1 <= year <= 9998:
            continue
        end = date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)
        if (year, month) == (today.year, today.month):
            end = today
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), end, RANK_ABSOLUTE, "month and year")


def _find_named_no_year(low: str, today: date) -> Iterable[_DateHit]:
    """'July 4th', 'the 4th of July', 'on 15 March': the most recent such day.

    Without a year these collide with option-speak ("10 march calls") and
    "may" the verb, so the day-first form needs an ordinal, "of" or a
    preposition, and "may 5" needs a preposition or a very short message.
    """
    not_quantity = r"(?!\s*(?:%|\$|x\b|k\b|m\b|shares|calls|puts|contracts|dollars|percent|bucks|strike|dma|day))"
    short = len(re.findall(r"\S+", low)) <= 3
    month_day = rf"\b{_MONTH}\s*(\d{{1,2}})({_ORD_WORDS})?\b(?![.,:/]\d){not_quantity}"
    for m in re.finditer(month_day, low):
        if m.group(1) == "may" and not (m.group(3) or short or _prev_word(low, m.start()) in _DATE_PREPS):
            continue  # "I may 2x my position"
        hit = _recent_occurrence(m, _month(m.group(1)), int(m.group(2)), today)
        if hit:
            yield hit
            low = _blank(low, m.start(), m.end())
    day_month = rf"\b(\d{{1,2}})({_ORD_WORDS})?(\s+of)?\s+{_MONTH}(?![a-z]){not_quantity}"
    for m in re.finditer(day_month, low):
        marked = m.group(2) or m.group(3) or _prev_word(low, m.start()) in _DATE_PREPS
        if not marked:
            continue
        hit = _recent_occurrence(m, _month(m.group(4)), int(m.group(1)), today)
        if hit:
            yield hit


def _find_numeric_no_year(low: str, today: date) -> Iterable[_DateHit]:
    """'on 5/1': only after a preposition, or in very short messages ('NVDA 5/1')."""
    short = len(re.findall(r"\S+", low)) <= 3
    for m in re.finditer(r"(?<![\d.$/-])(\d{1,2})/(\d{1,2})(?![\d/%]|\.\d)", low):
        if not (short or _prev_word(low, m.start()) in _DATE_PREPS):
            continue
        month, day = int(m.group(1)), int(m.group(2))
        if 1 <= month <= 12 and 1 <= day <= 31:
            hit = _recent_occurrence(m, month, day, today)
            if hit:
                yield hit


def _recent_occurrence(m: re.Match, month: int, day: int, today: date) -> _DateHit | None:
    """Most recent month/day on or before today (looks back far enough for Feb 29)."""
    text = m.group(0).strip()
    if not 1 <= month <= 12 or day < 1:
        return None
    for year in range(today.year, today.year - 9, -1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue
        if candidate <= today:
            return _DateHit(m.start(), m.end(), text, candidate, RANK_ABSOLUTE, "date without year")
    return _DateHit(m.start(), m.end(), text, None, RANK_ABSOLUTE, "date", error=_impossible(2024, month, day))


def _find_relative(low: str, today: date) -> Iterable[_DateHit]:
    """yesterday, N days ago, last week/month/year, tomorrow, next week."""
    simple = (
        (r"\b(?:the\s+)?day\s+before\s+yesterday\b", lambda: today - timedelta(days=2)),
        (r"\b(?:yesterday|yday|yest)\b(?:'s)?", lambda: today - timedelta(days=1)),
        (r"\b(?:last|previous|prior)\s+week(?:'s)?\b", lambda: _last_week_friday(today)),
        (r"\b(?:last|previous|prior)\s+month(?:'s)?\b", lambda: today.replace(day=1) - timedelta(days=1)),
        (r"\b(?:last|previous|prior)\s+year(?:'s)?\b", lambda: date(today.year - 1, 12, 31)),
        (r"\b(?:tomorrow|tmrw|tmr|tomorow)\b", lambda: today + timedelta(days=1)),
        (r"\bnext\s+week\b", lambda: today + timedelta(days=7)),
        (r"\bnext\s+month\b", lambda: _shift_months(today, 1)),
        (r"\bnext\s+year\b", lambda: _shift_months(today, 12)),
    )
    for pattern, compute in simple:
        for m in re.finditer(pattern, low):
            yield _DateHit(m.start(), m.end(), m.group(0).strip(), compute(), RANK_RELATIVE, "relative date")
            low = _blank(low, m.start(), m.end())
    amount = r"(\d{1,4}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|couple(?:\s+of)?|few|several)"
    pattern = rf"\b{amount}\s+(trading\s+|business\s+|market\s+)?(day|week|month|year)s?\s+(ago|back|earlier)\b"
    for m in re.finditer(pattern, low):
        n = int(m.group(1)) if m.group(1).isdigit() else _NUMBER_WORDS[" ".join(m.group(1).split())]
        value = _ago(today, n, m.group(3), trading=bool(m.group(2)))
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), value, RANK_RELATIVE, "relative date")


def _find_weekday(low: str, today: date) -> Iterable[_DateHit]:
    """'last Friday', 'on Monday', 'this wed', "Friday's close", bare 'friday'."""
    names = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
    pattern = rf"\b(?:(last|past|previous|prior|this|next|coming|on)\s+)?({names})\b(?:'s)?"
    for m in re.finditer(pattern, low):
        mode, name = m.group(1), m.group(2)
        if not mode and not name.endswith("day"):
            continue  # bare "sun", "sat", "wed" are too likely to be other words
        value = _weekday_date(today, _WEEKDAYS[name], mode or "")
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), value, RANK_RELATIVE, "weekday")


def _find_now(low: str, today: date) -> Iterable[_DateHit]:
    """'today' is an explicit choice; 'now'/'currently' is just filler."""
    for m in re.finditer(r"(?<!\$)\b(?:today|todays|this\s+(?:morning|afternoon|evening)|tonight)\b", low):
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), today, RANK_TODAY, "today")
    filler = r"(?<!\$)\b(?:right\s+now|now|currently|at\s+the\s+moment|this\s+week|this\s+month|this\s+year|eod)\b"
    for m in re.finditer(filler, low):
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), today, RANK_NOW, "now")


_DATE_FINDERS = (
    _find_iso,
    _find_numeric,
    _find_named,
    _find_named_no_year,
    _find_numeric_no_year,
    _find_relative,
    _find_weekday,
    _find_now,
)


def _last_week_friday(today: date) -> date:
    monday_this_week = today - timedelta(days=today.weekday())
    return monday_this_week - timedelta(days=3)


def _weekday_date(today: date, weekday: int, mode: str) -> date:
    if mode in ("next", "coming"):
        ahead = (weekday - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    if mode == "this":
        return today - timedelta(days=today.weekday()) + timedelta(days=weekday)
    back = (today.weekday() - weekday) % 7
    if mode in ("last", "past", "previous", "prior") and back == 0:
        back = 7  # "last Friday" said on a Friday means a week ago
    return today - timedelta(days=back)


def _shift_months(d: date, months: int) -> date:
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    for day in (d.day, 30, 29, 28):  # clamp Jan 31 - 1 month -> Dec 31, Mar 31 -> Feb 28/29
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return date(year, month, 28)


def _ago(today: date, n: int, unit: str, trading: bool) -> date:
    n = min(n, 100 * 365)  # "9999 days ago" should be refused as too early, not overflow
    if trading and unit == "day":
        d = today
        for _ in range(n):
            d = previous_trading_day(d)
        return d
    if unit == "day":
        return today - timedelta(days=n)
    if unit == "week":
        return today - timedelta(weeks=n)
    return _shift_months(today, -n * (12 if unit == "year" else 1))


# --------------------------------------------------------------------------
# Tickers
# --------------------------------------------------------------------------

# How sure we are that a hit is meant as a ticker. Only the best tier present
# is used; lower tiers join only when listed with it ("pepsi vs coke").
TIER_LISTED_ONLY = -1  # an ordinary word: a ticker only in a list of tickers
TIER_UNKNOWN = 0  # upper-case, not a word we know, not in companies.csv
TIER_WEAK = 1  # a known ticker/name that is also a word, with supporting context
TIER_STRONG = 2  # a cashtag, a known symbol or company name


@dataclass
class _Hit:
    symbol: str
    start: int
    end: int
    source: str  # as typed
    tier: int  # how sure we are this is meant as a ticker
    how: str


# Never tickers unless written as $CASHTAG: pronouns, function words, time
# words, trading vocabulary, finance/tech acronyms, chat slang. Upper case,
# five letters or fewer (longer tokens are never taken for symbols anyway).
HARD_STOP = frozenset(
    """
    I A AN THE ME MY MINE WE US OUR OURS YOU YOUR YOURS U UR HE HIM HIS SHE HER HERS IT ITS
    THEY THEM THEIR WHO WHOM WHOSE WHAT WHEN WHERE WHY HOW WHICH THIS THAT THESE THOSE
    AND OR BUT NOR SO IF THEN THAN AS AT BY FOR FROM IN INTO OF OFF ON ONTO OUT OVER TO UP
    DOWN WITH VIA PER VS VS. ABOUT AFTER SINCE UNTIL TILL UPON AMID AMONG ABOVE BELOW UNDER
    NEAR PAST IS AM ARE WAS WERE BE BEEN DO DOES DID DONE HAVE HAS HAD CAN COULD WILL WOULD
    SHALL MAY MIGHT MUST NOT NO YES YEAH YEP YUP NOPE NAH ALL ANY SOME EACH EVERY BOTH FEW
    MANY MUCH MORE MOST LESS LEAST VERY TOO ALSO JUST ONLY EVEN STILL YET AGAIN EVER NEVER
    NOW HERE THERE TODAY DAY DAYS WEEK WEEKS MONTH YEAR YEARS TIME TIMES SOON LATER LATE
    EARLY NEXT LAST FIRST ONCE TWICE ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE TEN
    IM IVE ILL ID DONT CANT WONT ISNT ARENT DIDNT DOESN WASNT WHATS THATS LETS YOURE
    OK OKAY HI HEY HELLO YO SUP THX TY PLS PLZ LOL LMAO ROFL OMG WTF FYI BTW IDK TBH NGL
    IMO IMHO TLDR AFAIK ASAP TBD TBA NA FAQ RIP GG GL WOW YAY
    BUY BUYS SELL SELLS HOLD HOLDS SHORT LONG PUT PUTS CALL CALLS TRADE STOCK SHARE PRICE
    BULL BEAR BULLS BEARS MOON DIP DIPS DUMP PUMP CRASH DROP RALLY GAIN GAINS LOSS RISK STOP
    LIMIT ORDER ENTRY EXIT SWING SCALP HODL BAG BAGS YOLO FOMO FUD ATH ATL DD TA FA CASH
    FUND FUNDS BOND BONDS TRADE BEST WORST GOOD BAD GREAT HIGH LOW TOP BIG HUGE SAFE NEW OLD
    FAST SLOW RED GREEN HOT COLD REAL FAKE MEGA ULTRA SUPER HELP PLEASE FREE RICH POOR
    CHEAP DEAR MAX MIN AVG SURE BACK WAIT WANT NEED LIKE LOVE HATE KNOW THINK FEEL LOOK
    LOOKS SEE SAY SAID TELL TOLD GIVE TAKE MAKE GET GETS GOT GO GOES GOING GONE GONNA WANNA
    KEEP LET PUT SET RUN RAN USE TRY TEST DEAL WELL WORTH WRONG RIGHT LEFT WIN WON LOSE LOST
    ETF ETFS IPO IPOS CEO CFO CTO COO EPS PE PEG PB PS ROE ROI ROA ROIC EBIT FCF DCF NAV AUM
    RSI MACD SMA EMA VWAP ATR ADX OBV BB MA DMA SMA EMA USD EUR GBP JPY CNY CAD AUD CHF HKD
    USA UK EU UN GDP CPI PPI PCE NFP FED FOMC ECB BOJ BOE SEC FINRA IRS FDA DOJ FTC NYSE OTC
    YTD QTD MTD YOY QOQ MOM TTM EOD EOW EOM EOY AH PM PT SL TP RR IV OI DTE ITM OTM ATM LEAP
    LEAPS CSP CC ETA FY AI AGI ML LLM LLMS GPU GPUS CPU TPU API APIS SAAS IT EV EVS AR VR
    IOT HBM DRAM NAND SSD PC PCS OS WWDC GTC CES SPAC LBO VC HF REIT REITS ADR ADRS ESG CAGR
    WACC IRR NPV TAM SAM KPI OKR UX UI HR PR IR QA TV PDF URL ET EST EDT PST PDT CST UTC GMT
    NY NYC SF LA DC CA TX FL NJ BOD AGM GAAP IFRS BPS PCT QE QT FX CFD OPEX VIX RUT DXY WTI
    OPEC NFT NFTS DEFI WSB CNBC WSJ FT CNN BBC NYT GPT MOASS APE APES STONK TENDY BTFD BTD
    DCA ROTH IRA HSA TFSA RRSP ISA SIPP LLC INC CORP LTD PLC CO AG GMBH FANG FAANG MAANG
    MAG MEGA JAN FEB MAR APR JUN JUL AUG SEP SEPT OCT NOV DEC MON TUE TUES WED THU THUR
    FRI SAT SUN COST RACE NEWS INFO DATA CHART TREND LEVEL ZONE RANGE BASE RATE RATES
    YIELD DEBT BANK BANKS TECH CHIP CHIPS SEMIS MEME MEMES COMPS PEERS INDEX SIZE
    Q1 Q2 Q3 Q4 H1 H2 ER PEAD GUIDE ALPHA BETA GAMMA THETA VEGA RHO DELTA HEDGE HEDGED
    MARGIN FLOAT SQUEEZE GAP OPEN CLOSE NAH HMM UM UH AH OH EH OI HA HAHA LOLZ
    ABLE ACT ADD ADDED ADDS AGO AGREE AHEAD AIM ALERT ALONE ALONG ALWAYS ANGRY APART ASK
    ASKED ASKS AVOID AWAY AWFUL BASED BASIC BEGIN BELOW BIGGER BLOW BOOM BOTH BOUGHT BREAK
    BRING BUSY BUT CARE CASE CAUSE CHEAP CHECK CHILL CLEAR COME COMES CRAZY CUT CUTS DEAD
    DOING DUMB EASY EITHER ELSE END ENDS ENTER EVERY EXACT FAIL FAIR FALL FALLS FAR FEAR
    FELL FILL FIND FINE FIX FLAT FLIP FLOW FOLD FORM FULL FUN GAVE GLAD GOAL GOD GONE
    GRAB GROW GUESS GUY GUYS HALF HAPPY HARD HEAD HEAR HEARD HEAVY HELD HOLY HOPE HOUR IDEA
    INTO ITEM JOB JUMP KIND KNEW LARGE LEAD LEARN LIKE LINE LIST LITTLE LIVE LONG LOOK LOT
    LOTS LOVE LUCK MAD MAJOR MAKES MEAN MEANS MISS MIXED MONEY MOVE MOVED MOVES MOVING NEAR
    NEEDS NICE NONE NOTE ODD OFTEN OKAY OPEN OTHER OUGHT OWN OWNED PAID PAIN PANIC PART
    PAY PEAK PICK PLAN PLAY PLUS POINT PROBE PROFIT PROOF PULL PUSH QUICK QUIET QUITE RAN
    RATHER READ READY REAL REST RIDE RISE RISES ROSE ROUGH RULE RUMOR RUN RUSH SAFE SAVE
    SAW SCARY SEEM SEEMS SELF SEND SENSE SERIOUS SHAKY SHOW SHUT SIDE SIGN SINCE SINK SMALL
    SMART SOLD SOLID SORRY SORT SOUND SPEND SPLIT START STAY STEP STEAL STUCK SUCH SURE
    TALK TANK TANKS TAX TAXES TELL TERM THAN THANK THEIRS THING THINGS THO THOUGH TIRED
    TOOK TOTAL TOUGH TRAP TRIED TRUE TRUST TURN UNTIL UPSET USED USING USUAL VALUE VIEW
    VOTE WAIT WALK WATCH WAY WAYS WEAK WHILE WHOLE WIDE WISE WISH WORD WORK WORRY WOULD
    WRITE YOLO ZERO THATS HERES THERES WHERES HOWS WHOS GOOD NEWS DOOM BOOM BUST HYPE
    BUBBLE SCAM FRAUD SPIKE SURGE PLUNGE SLIDE SLUMP SOAR DROP DROPS
    """.split()
)

# Ordinary English words that are also tickers in companies.csv. Written in
# upper case inside a normal sentence ("Is COIN a buy?") they count, weakly;
# lower case or in an all-caps message they need a trading cue ("buy coin").
SOFT_WORDS = frozenset(
    """
    CAT COIN SHOP SNOW HOOD ARM SPOT NET TEAM MET DIS UPS ICE PEP LUV HUM YUM DASH PINS
    SNAP APP SAP RIO LIN AMT PSA CNC DAL HAL XYZ DIA TM EL ED MO LI NU SE BP UL TD RY
    KR DG EA EW GD CB CI CL DE BK GS HD KO MS PG ON LEN APO AON ABT AMP DOW HON NEE USB
    RTX CRM EMR MSI NOC PSX SRE URI GIS AFL ADM COP
    """.split()
)

# A weak (ordinary-word) name counts when one of these sits next to it.
_CUE_BEFORE = frozenset(
    """
    buy buying bought sell selling sold short shorting shorted long hold holding own
    owning trade trading analyze analyse analyzing analysing analysis on about into
    accumulate add adding trim trimming dump dumping invest investing in bullish bearish
    regarding re ticker stock shares check research
    """.split()
)
_CUE_AFTER = frozenset(
    "stock stocks shares share inc corp corporation company earnings calls puts options ticker".split()
)
_VERDICT_WORDS = frozenset("buy sell hold short long steal bargain trap keeper".split())
# "Class C shares", "plan B", "grade A": single letters after these are labels.
_LABEL_WORDS = frozenset("class plan grade type series option tier step part vitamin section point".split())
# Separators that put two tickers in one question ("NVDA or CELH?").
_LISTED = re.compile(
    r"\s*(?:(?:,|/|&|\+|\bor\b|\band\b|\bvs\.?|\bversus\b|\bover\b|\bthan\b|\binstead\s+of\b"
    r"|\bcompared\s+(?:to|with)\b|\bor\s+maybe\b)\s*)+",
    re.IGNORECASE,
)


def _scan_tickers(remaining: str, shouted: bool) -> list[_Hit]:
    """All ticker mentions worth acting on, one per symbol, in order of appearance."""
    hits: list[_Hit] = []
    text = remaining
    for finder in (_share_class_hits, _alias_hits, _symbol_hits):
        for hit in finder(text, shouted):
            hits.append(hit)
            text = _blank(text, hit.start, hit.end)
    if not hits:
        return []
    best = max(h.tier for h in hits)
    if best == TIER_LISTED_ONLY:
        return []  # only ordinary words: "chase this rally", "50 day MA"
    chosen = [h for h in hits if h.tier == best]
    # Lower-confidence hits still count when listed alongside a confident one.
    for hit in sorted(hits, key=lambda h: h.start):
        if hit.tier < best and any(_listed_together(hit, c, remaining) for c in chosen):
            chosen.append(hit)
    chosen.sort(key=lambda h: h.start)
    unique: dict[str, _Hit] = {}
    for hit in chosen:
        unique.setdefault(hit.symbol, hit)
    return list(unique.values())


def _listed_together(a: _Hit, b: _Hit, text: str) -> bool:
    first, second = (a, b) if a.start < b.start else (b, a)
    between = text[first.end : second.start]
    return bool(between.strip()) and bool(_LISTED.fullmatch(between))


def _cue(low: str, start: int, end: int, remaining: str) -> bool:
    """Does the context say an ordinary word is meant as a company/ticker?"""
    before = _prev_word(low, start)
    after = _next_words(low, end)
    if before in _CUE_BEFORE or (after and after[0] in _CUE_AFTER):
        return True
    if low[end : end + 2] == "'s":
        return True
    if len(after) == 2 and after[0] in ("a", "an") and after[1] in _VERDICT_WORDS:
        return True  # "is target a buy"
    return len(re.findall(r"[A-Za-z0-9$]+", remaining)) <= 2  # "coin?", "buy target"


def _share_class_hits(text: str, shouted: bool) -> Iterable[_Hit]:
    """BRK.B, BRK/B, brk b, BRKB, 'Berkshire B', 'Berkshire Hathaway class A', BF.B."""
    low = _lower(text)
    brk = r"(?<![\w$])\$?(brk|berkshire(?:\s+hathaway)?)(\s*[.\-/]\s*|\s+class\s+|\s+|)([ab])(?![\w&])"
    for m in re.finditer(brk, low):
        base, separator, letter = m.group(1), m.group(2), m.group(3).upper()
        if not separator and base != "brk":
            continue  # "berkshireb" is not a thing
        if letter == "A" and separator.strip() == "":
            # "is berkshire a buy?": the article, unless "A shares" or the end.
            nxt = _next_words(low, m.end(), 1)
            if nxt and nxt[0] not in ("shares", "share", "stock", "stocks", "class"):
                continue
        yield _Hit(f"BRK-{letter}", m.start(), m.end(), text[m.start() : m.end()], TIER_STRONG, "share class")
    for m in re.finditer(r"(?<![\w$])\$?bf\s*[.\-/]\s*([ab])(?![\w&])", low):
        yield _Hit(f"BF-{m.group(1).upper()}", m.start(), m.end(), text[m.start() : m.end()], TIER_STRONG, "share class")


def _alias_key(name: str) -> str:
    """'Coca-Cola', 'coca cola', 'cocacola', 'AT & T' all share one key."""
    return re.sub(r"[\s\-]+", "", name.lower())


@lru_cache(maxsize=1)
def _alias_index() -> tuple[re.Pattern, dict[str, tuple[str, bool]]]:
    """One regex over every alias (longest first) plus key -> (ticker, weak)."""
    by_key: dict[str, tuple[str, bool]] = {}
    parts = []
    for alias, entry in sorted(alias_table().items(), key=lambda kv: len(kv[0]), reverse=True):
        by_key.setdefault(_alias_key(alias), entry)
        # Spaces and hyphens are optional/interchangeable; "&" may have spaces.
        tokens = [t for t in re.split(r"[\s\-]+", alias) if t]
        parts.append(r"[\s\-]*".join(r"\s*&\s*".join(map(re.escape, t.split("&"))) for t in tokens))
    pattern = re.compile(r"(?<![\w&$])(?:" + "|".join(parts) + r")(?![\w&])")
    return pattern, by_key


def _alias_hits(text: str, shouted: bool) -> Iterable[_Hit]:
    """Company names and nicknames: 'Apple', "nvidia's", 'Coca-Cola', 'JP Morgan'."""
    pattern, by_key = _alias_index()
    low = _lower(text)
    for m in pattern.finditer(low):
        entry = by_key.get(_alias_key(m.group(0)))
        if entry is None:
            continue
        symbol, weak = entry
        typed = text[m.start() : m.end()]
        if not weak:
            yield _Hit(symbol, m.start(), m.end(), typed, TIER_STRONG, "company name")
        elif not shouted and any(c.isupper() for c in typed) and not _sentence_start(text, m.start()):
            yield _Hit(symbol, m.start(), m.end(), typed, TIER_STRONG, "capitalised name")
        elif _cue(low, m.start(), m.end(), text):
            yield _Hit(symbol, m.start(), m.end(), typed, TIER_WEAK, "name in context")
        else:
            yield _Hit(symbol, m.start(), m.end(), typed, TIER_LISTED_ONLY, "name-like word")


def _symbol_hits(text: str, shouted: bool) -> Iterable[_Hit]:
    """Symbol-looking tokens: $TSLA, NVDA, nvda, 0700.HK, VOD.L, SHOP.TO, BTC-USD."""
    low = _lower(text)
    for m in re.finditer(r"\S+", text):
        for start, token in _split_chunk(m.group(0), m.start()):
            hit = _classify_token(token, start, text, low, shouted)
            if hit:
                yield hit


def _split_chunk(chunk: str, offset: int) -> Iterable[tuple[int, str]]:
    """Strip punctuation and possessives; split 'NVDA/AMD' and 'NVDA,AMD' lists."""
    lead = len(chunk) - len(chunk.lstrip("([{\"'#*<"))
    chunk = chunk[lead:].rstrip(".,!?;:)]}\"'*>…")
    offset += lead
    if chunk.lower().endswith("'s"):
        chunk = chunk[:-2]
    pieces = re.split(r"(,|/)", chunk)
    # "BRK/B" and "P/E" stay whole (a one-letter right side is a class or a ratio).
    if len(pieces) == 3 and pieces[1] == "/" and len(pieces[2]) == 1:
        pieces = [chunk]
    position = offset
    for piece in pieces:
        if piece and piece not in (",", "/"):
            yield position, piece
        position += len(piece)


def _classify_token(token: str, start: int, text: str, low: str, shouted: bool) -> _Hit | None:
    cashtag = token.startswith("$")
    body = token[1:] if cashtag else token
    end = start + len(token)
    if not body or re.search(r"[&+'@:=%#]", body):
        return None  # M&A, T+1, don't, 10%, ...
    if re.fullmatch(r"[A-Za-z]{2,6}-usd", body, re.IGNORECASE):
        return _Hit(body.upper(), start, end, token, TIER_STRONG, "crypto pair")
    if re.search(r"[.\-/]", body):
        return _classify_suffixed(token, body, cashtag, start, end, text, low, shouted)
    if not re.fullmatch(r"[A-Za-z]{1,6}", body):
        return None  # numbers, prices, Q3, 10K ...
    upper = body.upper()
    if cashtag:
        return _Hit(upper, start, end, token, TIER_STRONG, "cashtag")
    if body.isupper():
        return _classify_upper(upper, token, start, end, text, low, shouted)
    return _classify_lower(upper, token, start, end, text, low)


def _classify_suffixed(token, body, cashtag, start, end, text, low, shouted) -> _Hit | None:
    """Exchange suffixes (0700.HK), share classes (XYZ.B), 'NVDA-related'."""
    m = re.fullmatch(r"([A-Za-z0-9]{1,8})([.\-/])([A-Za-z]{1,3})", body)
    if m:
        base, sep, suffix = m.group(1), m.group(2), m.group(3).upper()
        explicit = cashtag or base.isupper() or base.isdigit()
        # "shop.to" is clearly a symbol; "e.g" or "a.m" (one letter, lower case) are not.
        plausible = base.isdigit() or (base[0].isalpha() and (len(base) >= 2 or cashtag))
        if sep == "." and suffix in EXCHANGE_SUFFIXES and plausible and (explicit or len(suffix) >= 2):
            symbol = normalize_ticker(body)
            if symbol:
                return _Hit(symbol, start, end, token, TIER_STRONG, "exchange symbol")
        if suffix in SHARE_CLASSES and base.isalpha() and 2 <= len(base) <= 5:
            symbol = f"{base.upper()}-{suffix}"
            if explicit or is_known_ticker(symbol):
                return _Hit(symbol, start, end, token, TIER_STRONG, "share class")
    # "NVDA-related", "TSLA-style": judge the symbol before the hyphen.
    first, _, rest = body.partition("-")
    if rest and rest.isalpha() and rest.islower() and len(first) >= 2 and first.isupper():
        return _classify_token(("$" if cashtag else "") + first, start, text, low, shouted)
    return None


def _classify_upper(upper, token, start, end, text, low, shouted) -> _Hit | None:
    known = is_known_ticker(upper)
    if upper in SOFT_WORDS and known:
        if not shouted:
            return _Hit(upper, start, end, token, TIER_WEAK, "upper-case word")
        if _cue(low, start, end, text):
            return _Hit(upper, start, end, token, TIER_WEAK, "word in context")
        return _Hit(upper, start, end, token, TIER_LISTED_ONLY, "upper-case word")
    if upper in HARD_STOP or upper in SOFT_WORDS:
        if known and not shouted and len(upper) > 1:  # "V or MA?" still names two
            return _Hit(upper, start, end, token, TIER_LISTED_ONLY, "upper-case word")
        return None
    if len(upper) == 1:
        if not known or _prev_word(low, start) in _LABEL_WORDS:
            return None
        return _Hit(upper, start, end, token, TIER_WEAK if shouted else TIER_STRONG, "one-letter symbol")
    if known:
        return _Hit(upper, start, end, token, TIER_STRONG, "known symbol")
    if len(upper) <= 5:
        return _Hit(upper, start, end, token, TIER_UNKNOWN, "unlisted symbol")
    return None


def _classify_lower(upper, token, start, end, text, low) -> _Hit | None:
    """Lower/mixed case only counts for tickers we know ('nvda', 'Tsla')."""
    if not is_known_ticker(upper) or len(upper) == 1 or upper in HARD_STOP:
        return None
    if len(upper) <= 2 or upper in SOFT_WORDS:
        if _cue(low, start, end, text):
            return _Hit(upper, start, end, token, TIER_WEAK, "lower-case symbol in context")
        return _Hit(upper, start, end, token, TIER_LISTED_ONLY, "lower-case word")
    return _Hit(upper, start, end, token, TIER_STRONG, "lower-case symbol")


# --------------------------------------------------------------------------
# Intent cues
# --------------------------------------------------------------------------

_RERUN = re.compile(
    r"\b(?:re-?run|re-?do|re-?analy[sz]e|re-?check|refresh|start\s+over|new\s+analysis"
    r"|fresh\s+(?:analysis|look|run)|update\s+(?:it|this|that|the\s+analysis)"
    r"|(?:run|analy[sz]e|do|check|redo)\s+(?:it\s+|this\s+|that\s+|[$\w.\-]+\s+)?(?:again|once\s+more)"
    r"|run\s+(?:it|the\s+analysis|another\s+analysis))\b"
)

_COMMAND = re.compile(r"^\W*(?:please\s+)?(?:can\s+you\s+)?(?:re-?)?(?:analy[sz]e|evaluate|run)\b")

_CHAT_PHRASES = sorted(
    """
    hi|hii|hiii|hello|helo|hey|heyy|heya|hiya|howdy|yo|sup|what's up|whats up|wassup|
    good morning|good afternoon|good evening|good night|morning|evening|greetings|hola|
    thanks|thank you|thank u|thanks a lot|thanks so much|many thanks|thx|ty|tysm|cheers|
    appreciate it|much appreciated|appreciated|great|awesome|cool|nice|perfect|ok|okay|k|kk|
    got it|gotcha|understood|sounds good|makes sense|that helps|helpful|that's helpful|
    love it|amazing|lol|haha|hahaha|lmao|bye|goodbye|see you|see ya|cya|later|good job|
    well done|nice work|great job|wow|no worries|np|sure|alright|all right|yes|no|yep|nope|
    fine|done|help|help me|what can you do|what do you do|what can i ask|what can i ask you|
    what should i ask|how does this work|how does it work|how do i use this|how do i use you|
    how to use|how do you work|who are you|what are you|what is this|what's this|commands|
    menu|usage|instructions|what are your capabilities|what are you capable of|
    can you help|are you there|you there|test|testing|start|get started|getting started|
    how are you|how's it going|hows it going|introduce yourself|tell me about yourself|
    what do you know|what can this do|how can you help|what can you help with|
    what can you help me with|how do i start|what do i type|what should i type|examples|
    show me examples|good bot|great work|thanks again|nevermind|never mind|nvm|
    i need help|need help|what are you able to do|what can you analyze|who made you|
    who built you|what's this bot|what is this bot|how do you work|what do you offer|
    thank you very much|thanks for the help|thanks for your help|that's great|that's cool|
    awesome thanks|great thanks|ok thanks|okay thanks|cool thanks|good to know|noted|
    how does this bot work|how does the bot work|how does the desk work|how do you do this|
    what stocks can you analyze|what can you analyse|what do you need from me
    """.replace("\n", "").split("|"),
    key=len,
    reverse=True,
)
_CHAT_PHRASES = [p.strip() for p in _CHAT_PHRASES if p.strip()]
_CHAT_PHRASES.sort(key=len, reverse=True)
_CHAT_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in _CHAT_PHRASES) + r")\b")
_CHAT_FILLER = frozenset(
    """
    there you so much very again all guys man mate buddy bot friend a lot just really the
    for that this please pls plz oh ah hmm um and then me my i am it is was yeah well hey
    dude sir team folks everyone y'all again too as always
    """.split()
)


def _is_chat(msg: str) -> bool:
    """Greetings, thanks, 'help', 'what can you do?', emoji: nothing to analyze."""
    low = _lower(msg)
    if not re.search(r"[a-z0-9]", low):
        return "?" not in low  # emoji / punctuation only; a bare "?" is a question
    stripped, found = _CHAT_RE.subn(" ", low)
    rest = [w for w in re.findall(r"[a-z0-9']+", stripped) if w not in _CHAT_FILLER]
    return found > 0 and not rest
