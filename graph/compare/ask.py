"""Whether a message asks to compare tickers, and which: "NVDA or AMD?", "compare AAPL and MSFT", "which of NVDA,
AMD and INTC should I buy?", "英伟达和AMD哪个好？", "比较苹果和微软".

Two or more different tickers, as the desk's request parser finds them (graph/request: dates first, blanked, then
symbols, names, Chinese names, listing codes), make a comparison; one is an ordinary analysis (None here). The trade
date is read the same way and is one for every desk: the last session on or before the date asked (today by
default). What cannot run is said back (`CompareAsk.problem`), never guessed: more than MAX_TICKERS, a date the
parser refuses, a company listed in several places.

A backtest is asked by name ("backtest NVDA and AMD …": graph/backtest/ask.py) and is not a comparison.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from ..backtest.ask import asks_for_backtest
from ..core.chinese_script import is_chinese, to_simplified
from ..core.trading_days import is_trading_day, last_trading_day
from ..core.words import phrase
from ..request.dates import scan_dates
from ..request.guard import clean_message
from ..request.language import detect_language
from ..request.listing_codes import market_of
from ..request.text import is_shouted, prepare
from ..request.tickers import scan_tickers

# Each desk is a whole deliberation (17 model calls in demo, ~15k tokens live): five at once is the most a
# person can follow in one chat and a model server serves without queueing most of them.
MAX_TICKERS = 5
# Words that ask to compare or to choose ("NVDA or AMD?", "compare …", "比较", "还是", "哪个"): in a thread that
# already holds an analysis, two tickers without one are a question about it ("the bear said AMD would take NVDA's
# share: fair?"), not a new comparison. Read in lower case and in Simplified characters.
_ASKS_TO_COMPARE = re.compile(
    r"\b(?:compare[sd]?|comparing|comparison|vs\.?|versus|or|which|side by side|head to head"  # English
    r"|o|cu[aá]l|compara\w*|ou|lequel|laquelle|lesquel\w*|compar\w*|oder|welche[rsn]?|vergleich\w*)\b"  # es fr de
    r"|比较|对比|比一比|还是|哪个|哪只|哪一个|哪一只|选哪|(?<![a-z])pk(?![a-z])|比較|どっち|どちら|それとも")  # zh, ja
_SHARED_SEARCH_DAYS = 60


@dataclass(frozen=True)
class CompareAsk:
    """A comparison asked in words: the tickers (in the order named), the trade date they share, and the
    message's language; or what stops it (`problem`, in that language)."""

    tickers: tuple[str, ...]
    trade_date: date | None
    asked_date: date | None
    language: str
    explicit_date: bool = False
    problem: str = ""


def shared_session(asked: date, tickers: tuple[str, ...]) -> date:
    """The last day on or before `asked` on which every ticker's exchange traded: the desks share one
    trade date, and a desk asked about its exchange's holiday would move to its own previous session
    ("NVDA or 0700.HK?" on Lunar New Year is the last day both traded). No two exchanges the desk
    knows are closed together for more than a few weeks; past that, the NYSE's last session."""
    markets = {market_of(t) for t in tickers}
    day = asked
    for _ in range(_SHARED_SEARCH_DAYS):
        if all(is_trading_day(day, m) for m in markets):
            return day
        day -= timedelta(days=1)
    return last_trading_day(asked)


def _language(msg: str, setting: str) -> str:
    """The comparison's language: DESK_LANGUAGE's when it fixes one, else the message's (its desks' personas
    speak it; the comparison's own texts are English where the language has no catalogue)."""
    return setting if setting != "auto" else detect_language(msg)


def mentions(text: str, today: date, language_setting: str = "auto") -> CompareAsk:
    """The tickers and the date `text` names, however many (a follow-up in a comparison's thread is told from a
    new request by them); `problem` is left to `read_comparison`."""
    msg = prepare(clean_message(text).text)
    language = _language(msg, language_setting)
    shouted = is_shouted(msg)
    dates = scan_dates(msg, today, shouted, detect_language(msg))
    tickers = tuple(dict.fromkeys(h.symbol for h in scan_tickers(dates.remaining, shouted, [], today)))
    asked = dates.value or today
    return CompareAsk(tickers, shared_session(asked, tickers), asked, language, dates.explicit, dates.error or "")


def read_comparison(text: str, today: date, *, in_analysis: bool = False,
                    language_setting: str = "auto") -> CompareAsk | None:
    """The comparison `text` asks for; None when it names fewer than two tickers (or asks for a backtest), or,
    in a thread that holds an analysis (`in_analysis`), when it does not ask to compare or to choose.
    `language_setting`: DESK_LANGUAGE ("auto": the message's language)."""
    msg = prepare(clean_message(text).text)
    if not msg.strip() or asks_for_backtest(msg):
        return None
    if in_analysis and not _ASKS_TO_COMPARE.search(to_simplified(msg).lower()):
        return None
    language = _language(msg, language_setting)
    shouted = is_shouted(msg)
    dates = scan_dates(msg, today, shouted, detect_language(msg))
    hits = scan_tickers(dates.remaining, shouted, [], today)
    tickers = tuple(dict.fromkeys(h.symbol for h in hits))
    if len(tickers) < 2:
        return None
    asked = dates.value or today
    ask = CompareAsk(tickers, shared_session(asked, tickers), asked, language, dates.explicit)
    if dates.error:
        return _refused(ask, dates.error)
    if several := [h for h in hits if h.listings]:
        places = "; ".join(f"{h.source} ({' / '.join(h.listings)})" for h in several)
        return _refused(ask, phrase(language, "compare.listing", places=places, example=several[0].listings[-1]))
    if len(tickers) > MAX_TICKERS:
        first = ("、" if is_chinese(language) else " ").join(tickers[:MAX_TICKERS])
        return _refused(ask, phrase(language, "compare.too_many", n=len(tickers), max=MAX_TICKERS,
                                    tickers=", ".join(tickers), first=first))
    return ask


def _refused(ask: CompareAsk, problem: str) -> CompareAsk:
    return CompareAsk(ask.tickers, None, ask.asked_date, ask.language, ask.explicit_date, problem)
