"""The coordinator node: reads the user's sentence into a request (graph/request/) and
decides what happens next: an analysis, a follow-up, an answer, or a question back."""
from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, date, timedelta
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graph.core import clock

from ..core.assets import SERVED, AssetClass, classify, market_of, tracking_funds
from ..core.context import DeskContext, user_of
from ..core.events import AlphaCurve, Said, emit
from ..core.personas import DESK, REPORT_KEYS
from ..core.plan import RunPlan
from ..core.prompts import render_in
from ..core.settings import Settings, bounded
from ..core.state import Debate, DeskState
from ..core.words import DEFAULT_LANGUAGE, phrase, word_list
from ..data.vendor import UnknownSymbol, Vendor, VendorError, asset_class_of
from ..models.registry import ModelRegistry
from ..paper.ask import read_paper
from ..paper.words import Score
from ..record.case import entries, past_analysis
from ..request.cjk_names import cjk_company_name
from ..request.companies import all_companies, company_name, is_known_ticker
from ..request.instruments import refusal
from ..request.intent import ParsedRequest, parse_request
from ..request.record_ask import asks_for_record
from ..request.resolve import Shape, TickerGuess, resolve
from ..tools.cutoff import cut_prices
from ..tools.guarded import call_vendor
from ..tools.market import INDICATOR_HISTORY_DAYS
from ..track.calibration import calibration, calibration_payload
from ..track.horizon import benchmark_for
from ..track.keeper import TrackRecord
from ..track.summary import cumulative_alpha
from ..track.words import record_answer
from .holdings import book_for
from .paper import paper_in_run
from .speaking import spoken
from .thread_language import thread_language

logger = logging.getLogger(__name__)


def fresh_run(state: DeskState) -> dict[str, Any]:
    """What a new analysis clears; the previous decision moves to the thread's past decisions."""
    update: dict[str, Any] = {key: "" for key in (*REPORT_KEYS, "investment_plan", "trader_plan")}
    update |= {"investment_debate": Debate(), "risk_debate": Debate(), "final_decision": None, "forked": None,
               "track_record": None, "book": None, "sizing": None}
    if state.get("final_decision") is not None:
        update["past_decisions"] = [state["final_decision"]]
    if (past := past_analysis(state)) is not None:
        update["past_analyses"] = [past]
    # The figure check and the plan's calls are per run.
    update |= {"tool_figures": Overwrite({}), "unverified": Overwrite({}), "plan_calls": Overwrite({}),
               "events": Overwrite({})}
    return update


def analysed(state: DeskState) -> dict[str, date]:
    """The tickers of the thread's earlier analyses (and decisions), each with its latest trade date."""
    earlier = [(p["ticker"], p["trade_date"]) for p in state.get("past_analyses") or []]
    earlier += [(d.ticker, d.trade_date) for d in state.get("past_decisions") or []]
    return {ticker: date.fromisoformat(day) for ticker, day in sorted(earlier, key=lambda e: e[1]) if ticker and day}


# Replies that confirm a pending demo request ("yes", "go ahead", "ok, run it").
_YES = re.compile(r"^\W*(?:yes|yeah|yep|y|ok(?:ay)?|sure|go(?:\s+ahead)?|proceed|confirm(?:ed)?|do\s+it|run\s+it"
                  r"|please\s+do)\b", re.I)


def _confirmed(text: str, parsed: ParsedRequest, pending: dict[str, str], today: date) -> ParsedRequest | None:
    """The pending demo request when this message confirms it (the symbol again, or "yes"); the
    date first asked is kept unless the message names another."""
    ticker, asked = pending["ticker"], pending["asked_date"]
    again = parse_request(f"${ticker} {asked}", today)
    if parsed.intent == "analyze" and parsed.ticker == ticker:
        return again if parsed.asked_date == today and asked != today.isoformat() else parsed
    if parsed.intent != "analyze" and _YES.match(text) and len(text.split()) <= 6:
        return again
    return None


def _typos(a: str, b: str) -> int:
    """Edits between two symbols, a swap of neighbours counting as one (APPL -> AAPL is one)."""
    d = [[i + j if not i * j else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def _did_you_mean(symbol: str) -> str:
    """Up to two known tickers one typo away; a symbol of the same length first (a swapped or a
    mistyped letter is likelier than a missing one), then the bigger company (the file's order)."""
    known = list(all_companies())
    near = [t for t in known if _typos(symbol, t) == 1]
    close = sorted(near, key=lambda t: (len(t) != len(symbol), known.index(t)))[:2]
    named = [f"**{t}** ({company_name(t)})" for t in close]
    return f" Did you mean {' or '.join(named)}?" if named else ""


async def _unknown_ticker(parsed: ParsedRequest, vendor: Vendor) -> str | None:
    """A question back when the desk would analyse a ticker nobody can vouch for, else None.

    Demo data: a symbol outside the companies the desk knows (graph/request/data/companies.csv)
    would get synthetic numbers made up for it, so the user confirms first. Live data: no prices
    at all means a typo or a dead symbol, and four analysts would deliberate on nothing. A vendor
    outage is not that: the analysts then say "no data", as everywhere else."""
    symbol = parsed.ticker or ""
    if vendor.name == "synthetic":
        if is_known_ticker(symbol):
            return None
        return (f"I don't know **{symbol}**: it is not among the {len(all_companies())} companies this demo desk "
                f"knows.{_did_you_mean(symbol)} Demo mode makes up synthetic market data for any symbol, so an "
                f"analysis of {symbol} would be invented from start to finish. To run it anyway on synthetic demo "
                f"data, reply `{symbol}` again (or “yes”); otherwise type the ticker you meant.")
    assert parsed.trade_date is not None, "an analysis always has its dates"
    as_of = parsed.trade_date
    try:  # the indicators tool's own window, so the market analyst finds this answer in the cache
        frame = await call_vendor(vendor.ohlcv, symbol, as_of - timedelta(days=INDICATOR_HISTORY_DAYS), as_of)
    except UnknownSymbol:
        frame = None
    except VendorError:
        return None
    if not cut_prices(frame, as_of).empty:
        return None
    source = vendor.label.split(" (")[0]
    return (f"I found no market data for {symbol} on {source} — check the symbol.{_did_you_mean(symbol)} "
            f"(A stock listed after {as_of} has no prices on that date yet.)")


def make_coordinator(settings: Settings, models: ModelRegistry, vendor: Vendor,
                     score: Score | None = None) -> Callable[..., Any]:
    """`score`: Table 1's figures for a paper book asked for in a run (graph/nodes/paper.py), where one is given."""

    async def coordinator(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        # Only a live model may name a company the rules don't know; the demo never guesses.
        model = models.quick(runtime.context) if models.live else None
        text = next((str(m.content) for m in reversed(state.get("messages", [])) if isinstance(m, HumanMessage)), "")
        given = runtime.context.today if runtime.context else None
        today = given or clock.today()
        if (aside := await answered_aside(runtime, vendor, models, text, today, score,
                                          lambda: thread_language(settings.language, state.get("language"), text))):
            return aside
        # A stopped run's reports and turns are on screen too: questions about them are follow-ups.
        decided = (state.get("final_decision") is not None or bool(entries(state))
                   or bool(state.get("record_shown")))  # the record shown: a question may be about it
        current = date.fromisoformat(trade_date) if (trade_date := state.get("trade_date")) else None
        read = _reader(text, state, decided, current, _shaper(models, model) if model is not None else None)
        # On the real clock crypto's today is the UTC day; a day the run was given stays.
        parsed = await on_crypto_day(await read(today), today, given or clock.today_in(UTC), read)
        pending = state.get("pending_ticker")
        confirmed = _confirmed(text, parsed, pending, today) if pending else None
        parsed = confirmed or parsed
        # Set on every message, so a follow-up, an edit or a resume speaks the thread's language.
        language = thread_language(settings.language, state.get("language"), text, parsed.language)
        parsed, kind = await _served(parsed, vendor, language)
        update: dict[str, Any] = {"intent": parsed.intent, "pending_ticker": None, "language": language}
        if parsed.intent == "analyze" and confirmed is None and (
                question := await _unknown_ticker(parsed, vendor)) is not None:
            # Nothing of the analysis on screen is cleared: follow-ups about it still work.
            if vendor.name == "synthetic":
                assert parsed.asked_date is not None, "an analysis always has its dates"
                update["pending_ticker"] = {"ticker": parsed.ticker or "", "asked_date": parsed.asked_date.isoformat()}
            update["intent"] = "clarify"
            emit(runtime.stream_writer, Said(DESK, question, language))
            return update | {"messages": [spoken(DESK, question)]}
        if parsed.intent == "analyze":
            assert parsed.trade_date and parsed.asked_date, "an analysis always has its dates"
            asked = parsed.asked_date
            say = _analyzing(parsed, language, kind)
            if confirmed is not None:
                say += f" As you asked: every figure about {parsed.ticker} is synthetic demo data, made up for it."
            if not models.live and language != DEFAULT_LANGUAGE:
                # The demo model writes English only: the user is told so in their own language.
                say += "\n\n" + phrase(language, "desk.demo_speaks_english")
            update |= fresh_run(state) | {
                "ticker": parsed.ticker, "company": parsed.company or parsed.ticker,
                "trade_date": parsed.trade_date.isoformat(), "asked_date": asked.isoformat(),
                "asset_class": kind.value if kind else None,
                "analysts": list(RunPlan.of(settings, analysts=_names(state.get("analysts"))).analysts),
                "debate_rounds": bounded("debate_rounds", state.get("debate_rounds"), settings.debate_rounds),
                "risk_rounds": bounded("risk_rounds", state.get("risk_rounds"), settings.risk_rounds),
            }
            # After fresh_run, which clears the last analysis's record. The record and the book are read side by
            # side: each is a read of the store (and the book a price), and the Desk's opening waits for both.
            update["track_record"], update["book"] = await asyncio.gather(
                _recalled(runtime, vendor, models, parsed.ticker or "", parsed.trade_date.isoformat(), today),
                book_for(runtime, vendor, parsed.ticker or "", parsed.trade_date.isoformat(),
                         allow_short=settings.allow_short))
        elif parsed.intent == "chat":
            say = render_in(language, "desk_help", mode_line=models.notice_in(language))
        elif parsed.intent == "clarify":
            say = parsed.question or "Which stock should the desk look at? Try “should I buy NVDA today?”."
        else:  # a follow-up: Desk answers in its own node, from the record
            return update
        emit(runtime.stream_writer, Said(DESK, say, language))
        return update | {"messages": [spoken(DESK, say)]}

    return coordinator


def _reader(text: str, state: DeskState, decided: bool, current: date | None,
            shape: Shape | None) -> Callable[[date], Awaitable[ParsedRequest]]:
    """The message read into a request as of a given today."""
    def read(day: date) -> Awaitable[ParsedRequest]:
        return resolve(text, day, has_decision=decided, current_ticker=state.get("ticker"), current_date=current,
                       analysed=analysed(state), shape=shape)
    return read


async def on_crypto_day(parsed: ParsedRequest, today: date, utc_today: date,
                        read: Callable[[date], Awaitable[ParsedRequest]]) -> ParsedRequest:
    """Crypto's days are UTC days: a crypto analysis read against the server's `today` is read again against
    the UTC day when the two differ ("today", "yesterday" counted from it; a date given is the same)."""
    if parsed.intent != "analyze" or utc_today == today or market_of(parsed.ticker or "") != "CRYPTO":
        return parsed
    again = await read(utc_today)
    return again if again.intent == "analyze" and again.ticker == parsed.ticker else parsed


def _analyzing(parsed: ParsedRequest, language: str, kind: AssetClass | None = None) -> str:
    """The Desk's acknowledgement of an analysis, in the thread's language (prompts/words_<code>.md)."""
    assert parsed.trade_date and parsed.asked_date, "an analysis always has its dates"
    asked = parsed.asked_date
    closed = "" if asked == parsed.trade_date else phrase(
        language, "desk.closed", asked=asked.isoformat(), weekday=word_list(language, "desk.weekdays")[asked.weekday()])
    company = cjk_company_name(parsed.ticker, language) or parsed.company
    said = phrase(language, "desk.analyzing", ticker=parsed.ticker, trade_date=parsed.trade_date.isoformat(),
                  closed=closed, company=phrase(language, "desk.company", company=company) if company else "")
    if funds := tracking_funds(parsed.ticker or ""):  # an index is analysed as itself; its funds are named
        said += phrase(language, "desk.tracked_by", index=parsed.ticker, funds=", ".join(funds))
    return said + asset_lines(parsed.ticker or "", kind, language)


def asset_lines(ticker: str, kind: AssetClass | None, language: str) -> str:
    """What the opening says of a ticker that is not a company's share: what its Fundamentals Analyst reads
    or that it has nothing for it (graph/tools/fundamentals.py), and the benchmark its calls are scored
    against (graph/track/horizon.py)."""
    kind = kind or classify(ticker)
    if kind is AssetClass.EQUITY:
        return ""
    said = phrase(language, f"desk.class_{kind.value}", ticker=ticker)
    if benchmark := benchmark_for(ticker, kind):
        return said + phrase(language, "desk.scored_against", benchmark=benchmark)
    why = phrase(language, "desk.alone_currency" if kind is AssetClass.CURRENCY else "desk.alone_itself")
    return said + phrase(language, "desk.scored_alone", why=why)


async def _served(parsed: ParsedRequest, vendor: Vendor, language: str) -> tuple[ParsedRequest, AssetClass | None]:
    """The request, and what its ticker is when it is to be analysed: the vendor's own metadata (Yahoo's
    quoteType) when live, the symbol's reading in demo or when the vendor cannot say. A class the desk
    cannot serve (an option, a bond: the rules' reading or the vendor's) is a refusal, in the thread's
    `language`, saying why and what the desk can do instead."""
    symbol = parsed.ticker or ""
    if parsed.refused:
        return parsed.model_copy(update={"question": refusal(symbol, language, parsed.refused)}), None
    if parsed.intent != "analyze":
        return parsed, None
    try:
        kind = await call_vendor(asset_class_of, vendor, symbol)
    except VendorError:  # a timeout: the symbol's reading
        kind = classify(symbol)
    if kind in SERVED:
        return parsed, kind
    return parsed.model_copy(update={"intent": "clarify", "refused": kind.value, "ticker": symbol,
                                     "question": refusal(symbol, language, kind.value)}), None


def _shaper(models: ModelRegistry, model: BaseChatModel) -> Shape:
    """The coordinator's one structured call (a company the rules do not know), asked as every shape
    the desk reads is: under its schema where the server can (graph/models/shaped.py)."""
    async def shape(schema: type[TickerGuess], prompt: list[BaseMessage]) -> TickerGuess | None:
        got = await models.shapes.ask(models.capped(model, "turn"), schema, prompt,
                                      config={"tags": ["nostream"], "metadata": {"persona": DESK}})
        return got.value if got is not None else None
    return shape


async def answered_aside(runtime: Runtime[DeskContext], vendor: Vendor, models: ModelRegistry, text: str, today: date,
                         score: Score | None, language_of: Callable[[], str]) -> dict[str, Any] | None:
    """The track record (a table, and its chart) or the paper book (on LangGraph Server: nobody routed it before the
    graph) asked for, not an analysis: answered here in the thread's language (`language_of`); None for any other
    message."""
    if asks_for_record(text):
        language = language_of()
        return await _record_answer(runtime, vendor, models, text, today, language) | {"language": language}
    if (paper := read_paper(text)) is not None:
        language = language_of()
        return await paper_in_run(runtime, vendor, models, paper, today, language, score) | {"language": language}
    return None


async def _record_answer(runtime: Runtime[DeskContext], vendor: Vendor, models: ModelRegistry, text: str,
                         today: date, language: str) -> dict[str, Any]:
    """The user's calls as a table (one ticker's when the message names one), settled first where
    due, with the cumulative alpha for the chat's chart; its words in the thread's `language`."""
    ticker = parse_request(text, today).ticker
    if runtime.store is None:
        say = phrase(language, "track.no_store")
        points: list[tuple[str, float]] = []
        calibrated = None
    else:
        user, _ = user_of(get_config(), runtime.context)
        calls = await TrackRecord(runtime.store, vendor, models).calls(user, today, ticker=ticker)
        say, points = record_answer(calls, ticker, today, language), cumulative_alpha(calls)
        calibrated = calibration_payload(calibration(calls))
    emit(runtime.stream_writer, Said(DESK, say, language))
    if points:
        emit(runtime.stream_writer, AlphaCurve([(day, alpha) for day, alpha in points], ticker or "", calibrated))
    return {"intent": "record", "pending_ticker": None, "record_shown": say, "messages": [spoken(DESK, say)]}


async def _recalled(runtime: Runtime[DeskContext], vendor: Vendor, models: ModelRegistry, ticker: str,
                    trade_date: str, today: date) -> dict[str, Any] | None:
    """The user's track record as this analysis may know it (settled on or before its trade date),
    after settling what is due. The record is advice, not data: if it cannot be read, the analysis
    goes on without it (and the log says why)."""
    if runtime.store is None:
        return None
    user, _ = user_of(get_config(), runtime.context)
    try:
        return await TrackRecord(runtime.store, vendor, models).recall(user, ticker, trade_date, today,
                                                                         runtime.context)
    except Exception:
        logger.exception("the track record could not be recalled for %s", ticker)
        return None


def _names(value: object) -> list[str] | None:
    """The analysts a run's input asks for, as names (RunPlan.of keeps the known ones, once each):
    a client's input (LangGraph Server) is not taken as sent."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, (list, tuple)) else None
