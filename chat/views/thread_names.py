"""The thread's name in the sidebar, read from the desk's state: what the thread analysed, how the
latest analysis stands and when it ran, so that threads tell apart at a glance:

    NVDA · SELL · 17:42 UTC              a decision
    NVDA · running · 17:42 UTC           the desk at work ("· stopped" after a stop or a crash)
    NVDA, AAPL · HOLD · 18:05 UTC        every ticker of the thread, the latest last, its status
    TSLA 2024-05-01 · SELL · 17:42 UTC   the trade date, when the user asked about another day
    What can you do?                     no analysis: the first question, cleaned and shortened
    XYZQ · unknown symbol?               the desk asked back about a symbol it does not know

The time is when the latest analysis began, in UTC: Chainlit's page tells the server no time zone
(its socket sends the session, the thread and the chat profile; the request only a language),
so the name says UTC rather than pass a server's clock for the reader's. The day is the sidebar's:
it lists threads under Today, Yesterday, Previous 7 days... The sidebar is narrow (about 27
characters at 1366 px): the common names fit whole, a long one loses its end, never its ticker.

Chainlit names a thread after its first message ("?", "XYZQ"); the desk renames it when the
coordinator has read that message (chat/runs.py), again when a decision is made, and after a stop.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import chainlit as cl
from chainlit.data import get_data_layer

from graph import clean_message, clock, language_of, phrase

# The status in a name while the desk works, and after a stop (or a crash) without a decision: the
# thread's language words them (`chat.name_<status>` of prompts/words_<code>.md).
NAME_RUNNING, NAME_STOPPED = "running", "stopped"
SHOWN_TICKERS = 3   # more are "…, MSFT, AAPL, NVDA"
QUESTION_CHARS = 28
# A message that is a lone symbol ("XYZQ", "$XYZQ"): when the desk asks back about it, it did not know it.
_SYMBOL = re.compile(r"^\$?([A-Z][A-Z0-9]{0,5}(?:[.-][A-Z]{1,2})?)$")
_MARKUP = re.compile(r"[*_`#>|~\[\]]+")


def run_time(at: datetime | None = None) -> str:
    """When a run began, as the name shows it: "17:42 UTC"."""
    return f"{(at or clock.now()).astimezone(UTC):%H:%M} UTC"


def thread_tickers(state: Mapping[str, Any], update: Mapping[str, Any] | None = None) -> list[str]:
    """The tickers the thread analysed, each once, oldest first and the latest last: its earlier
    analyses (graph/record/case.py past_analysis; decisions of threads kept before those), then the
    analysis in the state and the one `update` starts (the coordinator's update may be newer than
    the stored state: then the state's ticker is the analysis before it)."""
    past = list(state.get("past_analyses") or [])
    covered = {(p.get("ticker"), p.get("trade_date")) for p in past}
    older = [d.ticker for d in state.get("past_decisions") or [] if (d.ticker, d.trade_date) not in covered]
    seen = [*older, *(p.get("ticker") for p in past), state.get("ticker"), (update or {}).get("ticker")]
    ordered: list[str] = []
    for ticker in filter(None, seen):
        if ticker in ordered:
            ordered.remove(ticker)  # analysed again: it is the later one
        ordered.append(str(ticker))
    return ordered


def _subject(tickers: list[str], now: Mapping[str, Any], at: datetime) -> str:
    """The tickers, with the trade date beside the latest when the user asked about another day
    than the run's (the desk's "today" is the server's date, as in graph/nodes/coordinator.py)."""
    shown = ", ".join(tickers[-SHOWN_TICKERS:])
    if len(tickers) > SHOWN_TICKERS:
        shown = "…, " + shown
    asked = str(now.get("asked_date") or now.get("trade_date") or "")
    trade_date = str(now.get("trade_date") or "")
    if trade_date and asked != at.astimezone().date().isoformat():
        shown += f" {trade_date}"
    return shown


def analysis_title(tickers: list[str], now: Mapping[str, Any], status: str, at: datetime) -> str:
    """"NVDA, AAPL · SELL · 17:42 UTC": the latest decision's signal, else `status`."""
    decision = now.get("final_decision")
    if decision is not None and decision.ticker == now.get("ticker"):
        status = decision.signal
    if not status:
        return ""
    if status in (NAME_RUNNING, NAME_STOPPED):
        status = phrase(language_of(now), f"chat.name_{status}")
    return " · ".join((_subject(tickers, now, at), status, run_time(at)))


def question_title(text: str, now: Mapping[str, Any], at: datetime) -> str:
    """A chat without an analysis, named after its first message: shortened and cleaned of markup,
    "XYZQ · unknown symbol?" when the desk asked back about a symbol, "Question · 17:42 UTC" for a
    message without a word ("?")."""
    pending = now.get("pending_ticker") or {}
    words = " ".join(_MARKUP.sub(" ", clean_message(text).text).split())
    symbol = _SYMBOL.match(words) if now.get("intent") == "clarify" else None
    if unknown := pending.get("ticker") or (symbol[1] if symbol else ""):
        return phrase(language_of(now), "chat.name_unknown_symbol", ticker=unknown)
    if not any(c.isalnum() for c in words):
        return phrase(language_of(now), "chat.name_question", time=run_time(at))
    if len(words) > QUESTION_CHARS:
        words = words[:QUESTION_CHARS].rsplit(" ", 1)[0].rstrip(",.;:!?-–— ") + "…"
    return words[0].upper() + words[1:]


def _first_message(state: Mapping[str, Any]) -> str | None:
    return next((str(m.content) for m in state.get("messages") or [] if getattr(m, "type", "") == "human"), None)


def thread_title(state: Mapping[str, Any], update: Mapping[str, Any] | None = None, *, status: str = "",
                 asked: str = "", at: datetime | None = None) -> str:
    """The thread's name, or "" to keep the one it has.

    `state` is the thread's stored state; `update` what the run changed since, when that may not be
    stored yet (the coordinator's update); `status` the latest analysis' when it has no decision
    (NAME_RUNNING, NAME_STOPPED); `asked` the message this run answers; `at` when the latest
    analysis began (now if not given). A thread that analysed something is named after it; one that did not, after
    its first message, once (a later question does not rename it)."""
    at = at or clock.now()
    now = {**state, **(update or {})}
    tickers = thread_tickers(state, update)
    if tickers:
        if now.get("intent", "analyze") != "analyze":
            return ""  # a follow-up or a question about the analyses: the name stands
        return analysis_title(tickers, now, status, at)
    first = _first_message(state)
    if (first is not None and first != asked) or not asked:
        return ""  # not the thread's first message (a stop, a resume or a later question)
    return question_title(asked, now, at)


def distinct(title: str, taken: set[str]) -> str:
    """`title`, or "title (2)", "(3)"…: no two of a user's threads read the same in the sidebar (the same analysis
    run twice in a minute was "NVDA · SELL · 13:15 UTC" twice)."""
    n = 1
    shown = title
    while shown in taken:
        n += 1
        shown = f"{title} ({n})"
    return shown


async def name_thread(thread_id: str, state: Mapping[str, Any], update: Mapping[str, Any] | None = None, *,
                      status: str = "", asked: str = "", at: datetime | None = None) -> None:
    """Rename the thread (thread_title) and have the page's sidebar fetch the list again: it does so
    when a "first_interaction" event brings a new value (Chainlit sends one when a chat starts, with
    the first message, the thread's name until the desk renames it)."""
    layer = get_data_layer()
    if layer is None:
        return
    title = thread_title(state, update, status=status, asked=asked, at=at)
    if not title:
        return
    if (names := getattr(layer, "names_beside", None)) is not None:  # the desk's own history layer
        title = distinct(title, await names(thread_id))
    await layer.update_thread(thread_id, name=title)
    await cl.context.emitter.emit("first_interaction", {"interaction": title, "thread_id": thread_id})


async def rename_thread(thread_id: str, title: str, *, keeps: Callable[[str], bool] = lambda name: False) -> bool:
    """Name the thread `title` in the sidebar, unless `keeps` its present name; False when it was not renamed (or
    there is no history)."""
    layer = get_data_layer()
    if layer is None:
        return False
    thread = await layer.get_thread(thread_id)
    if thread is not None and keeps(str(thread.get("name") or "")):
        return False
    await layer.update_thread(thread_id, name=title)
    return True


async def name_if_untitled(thread_id: str, title: str) -> None:
    """Name a thread that has no name yet (a chat that began with a file and no words was "Untitled
    Conversation"); a thread with a name keeps it."""
    if await rename_thread(thread_id, title, keeps=lambda name: bool(name.strip())):
        await cl.context.emitter.emit("first_interaction", {"interaction": title, "thread_id": thread_id})
