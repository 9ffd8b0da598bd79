"""Deciding what a chat message wants: the last step of :func:`parse_request`.

The intent (analyze / followup / chat / clarify) is decided from the date and
tickers found (:mod:`graph.request.dates`, :mod:`graph.request.tickers`) plus
the conversation state passed in by the caller. Two tickers always mean a
question back, never a guess.

The message is cleaned first (:mod:`graph.request.guard`: truncated, invisible
and control characters removed), so a direct caller is as safe as the chat.

Intent rules, in order: nothing readable -> clarify; an unusable date
(impossible, unreadable, in the future, before 1990, or two different dates)
-> clarify; two or more tickers -> clarify; no
ticker and only greetings/thanks/help -> chat; a question ("why", "what", "compare"...) naming a
ticker analysed earlier in the thread, asking for no new call, rerun or date -> followup about
that analysis; with a decision (or a stopped run's words) on screen, a
message with no new ticker, no new explicit date and no rerun request ->
followup, otherwise analyze; without one, a ticker -> analyze, else clarify.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date

from pydantic import BaseModel

from ..core.state import Intent
from ..core.trading_days import last_trading_day
from .companies import company_name, normalize_ticker
from .dates import DateScan, scan_dates
from .guard import clean_message
from .text import is_shouted, lower, prepare
from .tickers import TickerHit, scan_tickers
from .wordlists import load_words, read_entries

__all__ = ["Intent", "ParsedRequest", "parse_request"]


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
NO_TICKER = "I couldn't find a ticker or a company name I know in your message."


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
    analysed: Mapping[str, date] | None = None,
) -> ParsedRequest:
    """Parse one user message. Never raises: on an internal error it asks back.

    `analysed`: the tickers of the thread's earlier analyses, each with its trade date; a
    question about one of them ("why was the bear worried about AAPL?") is a follow-up."""
    try:
        return _parse(text, today, has_decision, current_ticker, current_date, analysed or {})
    except Exception as exc:
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
    analysed: Mapping[str, date],
) -> ParsedRequest:
    cleaned = clean_message(text)
    msg = prepare(cleaned.text)
    if not msg.strip():
        question = cleaned.problem or "Your message held nothing the desk can read. Type a ticker like `NVDA`."
        return ParsedRequest(intent="clarify", question=question, reason="empty message (nothing readable)")

    shouted = is_shouted(msg)
    dates = scan_dates(msg, today, shouted)
    ignored: list[str] = []
    tickers = scan_tickers(dates.remaining, shouted, ignored)
    if current_ticker:
        current_ticker = normalize_ticker(current_ticker) or current_ticker.strip().upper()

    # 1. A date we can't use is always worth a question, whatever else was said.
    if dates.error:
        question = dates.error
        if not tickers and not current_ticker:
            question += " And which stock? Put its ticker in front, e.g. `NVDA 2024-05-01`."
        return _clarify(question, dates.reason, tickers)

    # 2. Never guess between two symbols.
    if len(tickers) > 1:
        return _clarify(_ask_which_ticker(tickers), f"several tickers: {_list(tickers)}", tickers)

    ticker = tickers[0] if tickers else None
    # "analyze NVDA" typed again while NVDA is on screen is a request to rerun.
    rerun = bool(_RERUN.search(msg.lower()) or (ticker and _COMMAND.match(msg.lower())))

    if ticker is None and _is_chat(msg):
        return ParsedRequest(intent="chat", reason="greeting/thanks/help without a ticker")

    if ticker is not None and ticker.symbol != current_ticker and (earlier := analysed.get(ticker.symbol)):
        # A question about an analysis already in this thread is answered from it, not re-run;
        # "should I buy AAPL?", "analyze AAPL again" or another date ask for a new one.
        low = msg.lower()
        if not rerun and _ASKS_ABOUT.search(low) and not _WANTS_CALL.search(low) and not (
                dates.explicit and _differs(dates.value, earlier, today)):
            return ParsedRequest(intent="followup", ticker=ticker.symbol, company=company_name(ticker.symbol),
                                 asked_date=earlier, trade_date=earlier,
                                 reason=f"question about the earlier {ticker.symbol} analysis in this thread")

    if has_decision:
        return _with_decision(ticker, dates, rerun, today, current_ticker, current_date, ignored)
    return _without_decision(ticker, dates, rerun, today, current_ticker, current_date, ignored)


def _with_decision(
    ticker: TickerHit | None,
    dates: DateScan,
    rerun: bool,
    today: date,
    current_ticker: str | None,
    current_date: date | None,
    ignored: list[str],
) -> ParsedRequest:
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
        return _ask_for_ticker(dates, today, "new analysis wanted but no ticker known", ignored)
    # A rerun of the same ticker without a date keeps the date on screen.
    keep_date = current_date if (rerun and not new_ticker and not dates.explicit) else None
    why = "new ticker" if new_ticker else "new date" if new_date else "re-analysis requested"
    return _analyze(symbol, ticker, dates, today, why, keep_date)


def _without_decision(
    ticker: TickerHit | None,
    dates: DateScan,
    rerun: bool,
    today: date,
    current_ticker: str | None,
    current_date: date | None,
    ignored: list[str],
) -> ParsedRequest:
    """Nothing on screen yet: a ticker starts an analysis, else ask for one."""
    if ticker is not None:
        return _analyze(ticker.symbol, ticker, dates, today, "ticker found")
    # "rerun" / "what about last Friday?" continue with the ticker in play.
    if current_ticker and (rerun or dates.explicit):
        keep = current_date if (rerun and not dates.explicit) else None
        return _analyze(current_ticker, None, dates, today, "continuing current ticker", keep)
    return _ask_for_ticker(dates, today, "no ticker or company found", ignored)


def _analyze(
    symbol: str,
    hit: TickerHit | None,
    dates: DateScan,
    today: date,
    why: str,
    keep_date: date | None = None,
) -> ParsedRequest:
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


def _ask_for_ticker(dates: DateScan, today: date, reason: str, ignored: list[str]) -> ParsedRequest:
    """No ticker, but the date is fine: keep it, so the coordinator's model
    fallback that names the company can reuse it. Upper-case words that were
    not taken for tickers are named, with the cashtag that would make them one."""
    asked = dates.value or today
    hint = ""
    if ignored:
        words = ignored[:3]
        listed = ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1]
        what = "they are ordinary words" if len(words) > 1 else "it is an ordinary word"
        hint = (f" I didn't take {listed} for a ticker: {what}."
                f" If you do mean a stock with that symbol, type it with a `$`, e.g. `${words[0]}`.")
        reason += f" (ordinary words not taken for tickers: {', '.join(words)})"
    return ParsedRequest(
        intent="clarify",
        asked_date=asked,
        trade_date=last_trading_day(asked),
        question=f"{NO_TICKER}{hint} {ASK_TICKER}",
        reason=f"{reason}; {dates.reason or 'no date given, using today'}",
    )


def _clarify(question: str, reason: str, tickers: list[TickerHit]) -> ParsedRequest:
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


def _ask_which_ticker(tickers: list[TickerHit]) -> str:
    names = [f"{t.symbol} ({company_name(t.symbol)})" if company_name(t.symbol) else t.symbol for t in tickers]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    return (
        f"You mentioned {listed}. I analyze one ticker at a time: which one should I "
        f"look at? Reply with just the ticker, e.g. `{tickers[0].symbol}`."
    )


def _list(tickers: list[TickerHit]) -> str:
    return ", ".join(f"{t.symbol} ({t.how} '{t.source}')" for t in tickers)


# --------------------------------------------------------------------------
# Intent cues
# --------------------------------------------------------------------------

_RERUN = re.compile(
    r"\b(?:re-?run|re-?do|re-?analy[sz]e|re-?check|refresh|start\s+over|new\s+analysis"
    r"|fresh\s+(?:analysis|look|run)|update\s+(?:it|this|that|the\s+analysis)"
    r"|(?:run|analy[sz]e|do|check|redo)\s+(?:it\s+|this\s+|that\s+|[$\w.\-]+\s+)?(?:again|once\s+more)"
    r"|run\s+(?:it|the\s+analysis|another\s+analysis))\b"
)

# A question about what was said ("why", "compare"), and a request for a call on the stock now.
_ASKS_ABOUT = re.compile(r"\b(?:why|what|how|which|who|when|compare[ds]?|comparison|versus|vs|differ\w*|explain\w*"
                         r"|remind|recap|summar\w+|did|was|were|said|say|tell\s+me)\b")
_WANTS_CALL = re.compile(r"\b(?:should|shall|could|would)\s+(?:i|we)\b|\bis\s+(?:it|now)\s+(?:a\s+)?(?:good\s+)?time\b"
                         r"|\bworth\s+(?:buying|selling|it)\b|\b(?:buy|sell|short)\s+(?:it\s+)?(?:now|today)\b")

_COMMAND = re.compile(r"^\W*(?:please\s+)?(?:can\s+you\s+)?(?:re-?)?(?:analy[sz]e|evaluate|run)\b")

# Longest first, so a phrase wins over a shorter one it starts with
# ("what can i ask you" over "what can i ask").
_CHAT_PHRASES = sorted(read_entries("chat_phrases.txt"), key=len, reverse=True)
_CHAT_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in _CHAT_PHRASES) + r")\b")
# Words that may surround a chat phrase: "thanks so much guys".
_CHAT_FILLER = load_words("chat_filler.txt")


def _is_chat(msg: str) -> bool:
    """Greetings, thanks, 'help', 'what can you do?', emoji: nothing to analyze."""
    low = lower(msg)
    if not re.search(r"[a-z0-9]", low):
        return "?" not in low  # emoji / punctuation only; a bare "?" is a question
    stripped, found = _CHAT_RE.subn(" ", low)
    rest = [w for w in re.findall(r"[a-z0-9']+", stripped) if w not in _CHAT_FILLER]
    return found > 0 and not rest
