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

from ..core.chinese_script import is_chinese, to_simplified
from ..core.state import Intent
from ..core.trading_days import last_trading_day
from .call_words import call_languages
from .cjk_names import cjk_company_name
from .companies import company_name, normalize_ticker
from .dates import DateScan, scan_dates
from .guard import clean_message
from .instruments import refusal, refused_class
from .language import DEFAULT_LANGUAGE, detect_language
from .listing_codes import market_of
from .messages import has_catalogue, listed, say
from .scripts import CJK_LETTER, has_cjk
from .text import is_shouted, lower, prepare
from .tickers import TickerHit, scan_tickers
from .wordlists import load_words, read_entries

__all__ = ["Intent", "ParsedRequest", "parse_request"]


class ParsedRequest(BaseModel):
    intent: Intent
    ticker: str | None = None  # Yahoo form, e.g. "NVDA", "BRK-B", "0700.HK"
    company: str | None = None  # display name if known
    trade_date: date | None = None  # last session of the listing's exchange on or before asked_date
    asked_date: date | None = None  # the date the user asked about (today by default)
    question: str | None = None  # for clarify: what to ask the user back
    reason: str = ""  # short explanation of how it was parsed (logs / CLI)
    # ISO 639-1 code of the language the message is written in ("zh", "ja", "es", ...; see
    # graph/request/language.py); `question` is worded in it where a catalogue exists.
    language: str = DEFAULT_LANGUAGE
    # The asset class of a ticker the desk cannot serve (graph/core/assets.py: "option", "bond"): `question`
    # says why and what it can do instead (graph/request/instruments.py `refusal`).
    refused: str | None = None


ASK_TICKER = say("en", "ask_ticker")
NO_TICKER = say("en", "no_ticker")


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
        question = cleaned.problem or say("en", "empty")
        return ParsedRequest(intent="clarify", question=question, reason="empty message (nothing readable)")
    language = detect_language(msg)
    parsed = _read(msg, language, today, has_decision, current_ticker, current_date, analysed)
    parsed.language = language
    return parsed


def _read(
    msg: str,
    language: str,
    today: date,
    has_decision: bool,
    current_ticker: str | None,
    current_date: date | None,
    analysed: Mapping[str, date],
) -> ParsedRequest:
    shouted = is_shouted(msg)
    dates = scan_dates(msg, today, shouted, language)
    ignored: list[str] = []
    tickers = scan_tickers(dates.remaining, shouted, ignored, today)
    if current_ticker:
        current_ticker = normalize_ticker(current_ticker) or current_ticker.strip().upper()
    dates = _on_listings_exchange(dates, msg, today, shouted, language, _dated_symbol(tickers, current_ticker))

    if (early := _stretch_or_bad_date(msg, dates, tickers, has_decision, current_ticker, current_date,
                                      language)) is not None:
        return early

    # 2. Never guess between two symbols, nor between two listings of one company; but a question about the
    # analysis on screen that names another ticker on the way ("the bear said AMD would take NVDA's share:
    # fair?") is a follow-up on it.
    if len(tickers) > 1:
        shown = (current_ticker, current_date) if has_decision and not dates.explicit else None
        return _about_shown(msg, tickers, shown) or _clarify(
            _ask_which_ticker(tickers, language), f"several tickers: {_list(tickers)}", tickers)
    if tickers and tickers[0].listings:
        hit = tickers[0]
        return ParsedRequest(intent="clarify", question=_ask_which_listing(hit, language),
                             reason=f"'{hit.source}' is listed in several places: {', '.join(hit.listings)}")

    ticker = tickers[0] if tickers else None
    if ticker is not None and (kind := refused_class(ticker.symbol)) is not None:
        return ParsedRequest(intent="clarify", ticker=ticker.symbol, question=refusal(ticker.symbol, language),
                             refused=kind.value, reason=f"{ticker.symbol} is {kind.value}: the desk cannot serve it")
    # "analyze NVDA" typed again while NVDA is on screen is a request to rerun.
    rerun = bool(_RERUN.search(msg.lower()) or (ticker and _COMMAND.match(msg.lower())))

    if ticker is None and _is_chat(msg):
        return ParsedRequest(intent="chat", reason="greeting/thanks/help without a ticker")

    if ticker is not None and ticker.symbol != current_ticker and (earlier := analysed.get(ticker.symbol)):
        # A question about an analysis already in this thread is answered from it, not re-run;
        # "should I buy AAPL?", "analyze AAPL again" or another date ask for a new one.
        low = msg.lower()
        if not rerun and _ASKS_ABOUT.search(low) and not _wants_call(low) and not (
                dates.explicit and _differs(dates.value, earlier, today, ticker.symbol)):
            return ParsedRequest(intent="followup", ticker=ticker.symbol, company=company_name(ticker.symbol),
                                 asked_date=earlier, trade_date=earlier,
                                 reason=f"question about the earlier {ticker.symbol} analysis in this thread")

    if has_decision:
        return _with_decision(ticker, dates, rerun, today, current_ticker, current_date, ignored, language)
    return _without_decision(ticker, dates, rerun, today, current_ticker, current_date, ignored, language)


def _stretch_or_bad_date(msg: str, dates: DateScan, tickers: list[TickerHit], has_decision: bool,
                         current_ticker: str | None, current_date: date | None, language: str) -> ParsedRequest | None:
    """A question about the analysis on screen that talks of a stretch of time ("why was the bear worried
    about last quarter?", "熊方怎么看三季度？") is a follow-up on it, not a new date nor a question back.
    Otherwise a date we can't use is always worth a question, whatever else was said."""
    only_shown = all(t.symbol == current_ticker for t in tickers)
    if has_decision and current_ticker and dates.period and only_shown and _asks_about(msg):
        return ParsedRequest(intent="followup", ticker=current_ticker, company=company_name(current_ticker),
                             asked_date=current_date,
                             trade_date=_session(current_date, current_ticker) if current_date else None,
                             reason="question about the finished analysis (talks of a stretch of time)")
    if not dates.error:
        return None
    question = dates.error
    if not tickers and not current_ticker:
        question += say(language, "and_which_stock")
    return _clarify(question, dates.reason, tickers)


def _with_decision(
    ticker: TickerHit | None,
    dates: DateScan,
    rerun: bool,
    today: date,
    current_ticker: str | None,
    current_date: date | None,
    ignored: list[str],
    language: str,
) -> ParsedRequest:
    """An analysis is on screen: questions about it are followups."""
    new_ticker = ticker is not None and ticker.symbol != current_ticker
    new_date = dates.explicit and _differs(dates.value, current_date, today, current_ticker)
    if not (new_ticker or new_date or rerun):
        asked = current_date
        return ParsedRequest(
            intent="followup",
            ticker=current_ticker,
            company=company_name(current_ticker),
            asked_date=asked,
            trade_date=_session(asked, current_ticker) if asked else None,
            reason="question about the finished analysis"
            + (f" (mentions {ticker.symbol} again)" if ticker else ""),
        )
    symbol = ticker.symbol if ticker else current_ticker
    if symbol is None:
        return _ask_for_ticker(dates, today, "new analysis wanted but no ticker known", ignored, language)
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
    language: str,
) -> ParsedRequest:
    """Nothing on screen yet: a ticker starts an analysis, else ask for one."""
    if ticker is not None:
        return _analyze(ticker.symbol, ticker, dates, today, "ticker found")
    # "rerun" / "what about last Friday?" continue with the ticker in play.
    if current_ticker and (rerun or dates.explicit):
        keep = current_date if (rerun and not dates.explicit) else None
        return _analyze(current_ticker, None, dates, today, "continuing current ticker", keep)
    return _ask_for_ticker(dates, today, "no ticker or company found", ignored, language)


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
    trade = _session(asked, symbol)
    if trade != asked:
        exchange = "NYSE" if market_of(symbol) == "US" else market_of(symbol)
        parts.append(f"last {exchange} session on or before {asked} is {trade}")
    return ParsedRequest(
        intent="analyze",
        ticker=symbol,
        company=company_name(symbol),
        asked_date=asked,
        trade_date=trade,
        reason="; ".join(parts),
    )


def _ask_for_ticker(dates: DateScan, today: date, reason: str, ignored: list[str], language: str) -> ParsedRequest:
    """No ticker, but the date is fine: keep it, so the coordinator's model
    fallback that names the company can reuse it. Upper-case words that were
    not taken for tickers are named, with the cashtag that would make them one."""
    asked = dates.value or today
    hint = ""
    if ignored:
        words = ignored[:3]
        hint = say(language, "ignored_many" if len(words) > 1 else "ignored_one",
                   listed=listed(language, words, "or"), first=words[0])
        reason += f" (ordinary words not taken for tickers: {', '.join(words)})"
    return ParsedRequest(
        intent="clarify",
        asked_date=asked,
        trade_date=last_trading_day(asked),
        question=_join_sentences(language, say(language, "no_ticker") + hint, say(language, "ask_ticker")),
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


def _differs(value: date | None, current: date | None, today: date, symbol: str | None = None) -> bool:
    """Does an explicitly asked date mean a different session than the one shown?"""
    if value is None:
        return False
    reference = current or today
    return value != reference and _session(value, symbol) != _session(reference, symbol)


def _on_listings_exchange(dates: DateScan, msg: str, today: date, shouted: bool, language: str,
                          symbol: str | None) -> DateScan:
    """The scan with "N trading days ago" counted in ``symbol``'s own exchange's sessions ("0700.HK
    3个交易日前": Hong Kong's). The first scan counted the NYSE's, before the ticker was known; it is
    only done again for a session count and a listing abroad, so a US request is read once, as before."""
    if not dates.counts_sessions or symbol is None or market_of(symbol) == "US":
        return dates
    return scan_dates(msg, today, shouted, language, market_of(symbol))


def _dated_symbol(tickers: list[TickerHit], current_ticker: str | None) -> str | None:
    """The listing whose exchange a session count in the message ("3 trading days ago") is counted on:
    the one ticker named, else the one in play; None when several are named (asked back anyway)."""
    if not tickers:
        return current_ticker
    return tickers[0].symbol if len(tickers) == 1 and not tickers[0].listings else None


def _session(asked: date, symbol: str | None) -> date:
    """The trade date: the last session on or before `asked` of the listing's own exchange (600519.SS asked
    on a mainland holiday is the mainland's last session, not the NYSE's); the NYSE's when no ticker is known."""
    return last_trading_day(asked, market_of(symbol) if symbol else "US")


def _ask_which_ticker(tickers: list[TickerHit], language: str) -> str:
    names = [_named(t.symbol, language) for t in tickers]
    return say(language, "which_ticker", listed=listed(language, names), first=tickers[0].symbol)


def _ask_which_listing(hit: TickerHit, language: str) -> str:
    """阿里巴巴: BABA (US) or 9988.HK (Hong Kong)?"""
    places = [say(language, "labelled", symbol=s, label=say(language, "market_" + market_of(s))) for s in hit.listings]
    company = cjk_company_name(hit.symbol, language) or company_name(hit.symbol) or hit.source
    return say(language, "which_listing", company=company, listed=listed(language, places, "or"),
               first=hit.listings[0])


def _named(symbol: str, language: str) -> str:
    """'NVDA (NVIDIA)', in Chinese 'NVDA（英伟达）'."""
    name = cjk_company_name(symbol, language) or company_name(symbol)
    return say(language, "labelled", symbol=symbol, label=name) if name else symbol


def _join_sentences(language: str, first: str, second: str) -> str:
    """English sentences take a space between them; Chinese and Japanese ones do not."""
    unspaced = is_chinese(language) or language == "ja"
    return first + second if unspaced and has_catalogue(language) else f"{first} {second}"


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



# The same in Chinese (read in Simplified): why, what did … say, is that right, the personas by name.
_ASKS_ABOUT_ZH = re.compile(r"为什么|为何|怎么看|怎么说|如何看|说的|说了|认为|觉得|提到|有道理|对吗|对不对|解释"
                            r"|总结|回顾|多头|空头|研究经理|交易员|风险裁判|理由|依据")


def _about_shown(msg: str, tickers: list[TickerHit],
                 shown: tuple[str | None, date | None] | None) -> ParsedRequest | None:
    """A follow-up on the analysis on screen (`shown`: its ticker and date), for a question that names its
    ticker and another."""
    current_ticker, current_date = shown or (None, None)
    if current_ticker is None or current_ticker not in {t.symbol for t in tickers} or not _asks_about(msg):
        return None
    return ParsedRequest(intent="followup", ticker=current_ticker, company=company_name(current_ticker),
                         asked_date=current_date,
                         trade_date=_session(current_date, current_ticker) if current_date else None,
                         reason=f"question about the finished analysis (mentions {_list(tickers)})")


def _asks_about(msg: str) -> bool:
    """A question about what was said, not a request for a new call."""
    low = msg.lower()
    return bool(_ASKS_ABOUT.search(low) or _ASKS_ABOUT_ZH.search(to_simplified(msg))) and not _wants_call(low)


def _wants_call(low: str) -> bool:
    """'should I buy', or a buy/sell word of another language (comprar, kaufen, 买 ...)."""
    return bool(_WANTS_CALL.search(low) or call_languages(low))


_COMMAND = re.compile(r"^\W*(?:please\s+)?(?:can\s+you\s+)?(?:re-?)?(?:analy[sz]e|evaluate|run)\b")

# Longest first, so a phrase wins over a shorter one it starts with
# ("what can i ask you" over "what can i ask").
_CHAT_PHRASES = sorted(read_entries("chat_phrases.txt"), key=len, reverse=True)
_CHAT_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in _CHAT_PHRASES) + r")\b")
# Words that may surround a chat phrase: "thanks so much guys".
_CHAT_FILLER = load_words("chat_filler.txt")


# The same in Chinese and Japanese, matched anywhere: they are written without spaces.
def _anywhere(name: str) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, sorted(read_entries(name), key=len, reverse=True))))


_CJK_CHAT_RE = _anywhere("chat_phrases_cjk.txt")
_CJK_FILLER_RE = _anywhere("chat_filler_cjk.txt")


def _is_chat(msg: str) -> bool:
    """Greetings, thanks, 'help', 'what can you do?', 你好, emoji: nothing to analyze."""
    low = lower(msg)
    found = 0
    if has_cjk(low):
        low, found = _CJK_CHAT_RE.subn(" ", low)
        low = _CJK_FILLER_RE.sub(" ", low)
        if CJK_LETTER.search(low):
            return False  # Chinese or Japanese words beyond a greeting: a request, unread
    if not re.search(r"[a-z0-9]", low):
        return found > 0 or "?" not in low  # emoji / punctuation only; a bare "?" is a question
    stripped, more = _CHAT_RE.subn(" ", low)
    rest = [w for w in re.findall(r"[a-z0-9']+", stripped) if w not in _CHAT_FILLER]
    return found + more > 0 and not rest
