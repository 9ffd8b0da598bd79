"""One slot of a watch run exactly once: a deliberation per ticker, each an ordinary stored thread, and a
notice when its call differs from the one before on that ticker.

**Exactly once, across processes.** A slot's thread id is fixed by the slot (`watch-<id>-<TICKER>-<YYYYMMDDHHMM>`),
so every process that wakes for it names the same thread. The run takes the thread's lease
(graph/persistence/lease.py) as every run does: a second process is refused while the first runs (LeaseHeld:
it lets it be); after it, the thread holds its decision and is kept, not run again; a process that crashed
mid-run left a checkpoint, and the next one continues it. The notice is keyed by the thread, so it is kept once;
a run found kept whose process stopped before its notice was made or posted gets it made and posted then
(graph/watchlist/scheduler.py, under a lease of the notice's own).

**In the watch's language.** The request a slot runs is the `[watch]` text `request` of prompts/words_<code>.md in
the watch's language (the language it was asked in), so the desk deliberates in it; the notice's reason is worded
in it too (it is kept, and posted to the webhook, as words).

**The previous call** is the track record's latest other call on the ticker for the user (graph/track/): a
scheduled run writes its call there too (source "scheduled"), so the next slot compares with it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from ..core.state import FinalDecision
from ..core.words import DEFAULT_LANGUAGE, phrase
from ..persistence.lease import LeaseHeld
from ..runtime.desk import DeskRuntime
from ..track.calls import Call
from ..track.log import DecisionLog
from .store import Notice, Watch, WatchStore

SOURCE = "scheduled"


def thread_id(watch: Watch, ticker: str, slot: datetime) -> str:
    return f"watch-{watch.id}-{re.sub(r'[^A-Za-z0-9-]', '_', ticker)}-{slot:%Y%m%d%H%M}"


def request_text(ticker: str, language: str = DEFAULT_LANGUAGE) -> str:
    """The request in the watch's language, so the desk answers in it: a cashtag, so no symbol reads as a word;
    no "should I buy", which would lean the desk one way."""
    return phrase(language, "watch.request", ticker=ticker)


@dataclass(frozen=True)
class Ran:
    """A ticker's run at a slot: its thread, its decision (None: another process runs it now), and whether it
    had run before (kept, not run again)."""

    ticker: str
    thread: str
    decision: FinalDecision | None
    kept: bool = False
    notice: Notice | None = None


def decided(state: dict[str, Any]) -> FinalDecision | None:
    decision = state.get("final_decision")
    return decision if state.get("intent") == "analyze" and isinstance(decision, FinalDecision) else None


async def run_ticker(desk: DeskRuntime, watch: Watch, ticker: str, slot: datetime) -> Ran:
    thread = thread_id(watch, ticker, slot)
    day = slot.astimezone(watch.rule.tz).date()
    if await desk.has_thread(thread):
        if (done := decided(await desk.state(thread))) is not None:
            return Ran(ticker, thread, done, kept=True)
        text = None if await desk.interrupted(thread) is not None else request_text(ticker, watch.language)
    else:
        text = request_text(ticker, watch.language)
    context = desk.context(today=day, user=watch.user, source=SOURCE)
    try:
        async with desk.turn(thread, text) as turn:
            # Looked at again under the lease: another process may have run the whole slot between the look
            # above and the lease (CI saw AMD deliberated twice).
            if (done := decided(await desk.state(thread))) is not None:
                return Ran(ticker, thread, done, kept=True)
            async for _ in turn.events(context):
                pass
    except LeaseHeld:
        return Ran(ticker, thread, None)  # another process runs this slot now: it is that process's
    return Ran(ticker, thread, decided(await desk.state(thread)))


async def previous_call(desk: DeskRuntime, user: str, ticker: str, thread: str) -> Call | None:
    """The user's latest call on the ticker before this thread's own."""
    calls = [c for c in await DecisionLog(desk.store).calls(user, ticker=ticker) if c.thread_id != thread]
    return max(calls, key=lambda c: (c.trade_date, c.recorded_at), default=None)


_PRICE = re.compile(r"(\d+(?:,\d{3})*(?:\.\d+)?)")


def stop_level(stop: str) -> float | None:
    """The first price in a stop as the judge wrote it ("865.00", "close below 120"); None for "n/a"."""
    m = _PRICE.search(stop or "")
    return float(m[1].replace(",", "")) if m else None


def stop_crossed(desk: DeskRuntime, call: Call, day: date, language: str = DEFAULT_LANGUAGE) -> str:
    """Whether a close since the call crossed its stop (below it for a BUY, above it for a SELL), in words of
    `language` ("" when not)."""
    level = stop_level(call.stop)
    if level is None or call.signal == "HOLD":
        return ""
    try:
        frame = desk.vendor.ohlcv(call.ticker, date.fromisoformat(call.trade_date), day)
    except Exception:  # a vendor failure means no notice of a crossing, never a wrong one
        return ""
    for when, close in frame["close"].dropna().items():
        crossed = close < level if call.signal == "BUY" else close > level
        if crossed and str(when)[:10] > call.trade_date:
            return phrase(language, "watch.stop_crossed", stop=call.stop, trade_date=call.trade_date,
                          signal=call.signal, close=f"{close:.2f}", day=str(when)[:10])
    return ""


async def notice_of(desk: DeskRuntime, watch: Watch, ran: Ran, slot: datetime) -> Notice | None:
    """The notice a run gives, kept once: its signal differs from the call before it, or that call's stop was
    crossed; None otherwise (and for a first call on the ticker: nothing changed). Made again for the same run
    (a process stopped before its notice), the one kept first is given."""
    if ran.decision is None:
        return None
    before = await previous_call(desk, watch.user, ran.ticker, ran.thread)
    if before is None:
        return None
    language = watch.language
    reasons = []
    if before.signal != ran.decision.signal:
        reasons.append(phrase(language, "watch.signal_changed", before=before.signal, after=ran.decision.signal))
    if crossed := stop_crossed(desk, before, slot.astimezone(watch.rule.tz).date(), language):
        reasons.append(crossed)
    if not reasons:
        return None
    notice = Notice(ran.thread, watch.user, watch.id, ran.ticker, slot.isoformat(), ran.decision.signal,
                    before.signal, before.thread_id, phrase(language, "watch.reasons_joiner").join(reasons))
    return await WatchStore(desk.store).notice(notice)
