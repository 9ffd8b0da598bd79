"""The desks of a comparison: one ordinary analysis thread per ticker, run side by side on the same trade date.

**One ticker, one thread.** Each desk is asked as the backtest asks a day ("analyze $NVDA on 2024-05-03", a cashtag so
no symbol reads as a word, the date written out so every desk has the same one), in its own thread, whose id is
derived from the parent thread and the ticker (`desk_thread`): whoever holds the parent (the chat's thread, the CLI's
--thread) finds the desks again to stop, resume or open them. Nothing about a desk is special: the coordinator,
the point-in-time tools, the figure check on every persona, the track record, edit-the-past all apply as to any
analysis, because it is one (`DeskRuntime.turn`, the thread's lease included).

**Side by side.** The desks run concurrently; each one's events go to a consumer of the caller's (the CLI prints,
the chat renders), so they interleave the way the four analysts of one desk do. A desk that fails does not stop
the others: it is reported (`DeskRun.error`) and its ticker shown without a decision.

**Resuming.** A desk whose thread holds its decision for the trade date is kept, not asked again; one stopped
half-way continues from its last checkpoint (`turn(thread, None)`: LangGraph re-runs only the pending step, so no
finished speaker speaks twice); one never started is asked afresh. A desk forked by an edit of one of its turns
is one stopped half-way: it goes on from the fork, only the speakers after the edited turn speaking again.
"""
from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..core.context import DeskContext
from ..core.errors import explain
from ..core.events import Event
from ..core.plan import RunPlan
from ..core.state import FinalDecision
from ..core.words import phrase
from ..runtime.desk import DeskRuntime

RESUME_LEASE_WAIT_S = 5.0  # how long a resumed desk waits for its stopped run to let the thread go

# Thread ids of a comparison's desks: a UUID (the chat's door takes only those) derived from parent and ticker.
_NAMESPACE = uuid.UUID("6f1d2c1e-4a8b-5d7e-9c3a-2b1e0f4d6a5c")

Consume = Callable[[str, AsyncIterator[Event]], Awaitable[None]]


def desk_thread(parent: str, ticker: str) -> str:
    """The thread of `ticker`'s desk in the comparison held by thread `parent`."""
    return str(uuid.uuid5(_NAMESPACE, f"{parent}/{ticker}"))


def request_text(ticker: str, trade_date: date, language: str = "en") -> str:
    """What a desk is asked: its ticker and the comparison's trade date, in the user's language (the desk's
    coordinator then speaks it)."""
    return phrase(language, "compare.request", ticker=ticker, date=trade_date.isoformat())


def decided(state: Mapping[str, Any], trade_date: date) -> FinalDecision | None:
    """The desk's decision for the trade date, if its analysis of that day is over."""
    decision = state.get("final_decision")
    if state.get("intent") != "analyze" or not isinstance(decision, FinalDecision):
        return None
    return decision if decision.trade_date == trade_date.isoformat() else None


@dataclass
class DeskRun:
    """One ticker's desk: its thread, how it was started this time, and what became of it."""

    ticker: str
    thread: str
    how: str = "new"          # "new", "resumed" (from its last checkpoint) or "kept" (decided before)
    error: str = ""           # why it ended without a decision, when it failed
    state: dict[str, Any] | None = None
    # Once it runs: its plan, and the state it continues from when resumed (or forked by an edit), so a consumer
    # labels its rounds and stages from who already spoke, as a resumed analysis does (chat/runs.py).
    plan: RunPlan | None = None
    resumed: dict[str, Any] | None = None

    @property
    def decision(self) -> FinalDecision | None:
        d = (self.state or {}).get("final_decision")
        return d if isinstance(d, FinalDecision) else None


class CompareRunner:
    """The desks of one comparison on a desk runtime: `run` them side by side, each one's events to `consume`."""

    def __init__(self, desk: DeskRuntime, parent: str, tickers: tuple[str, ...], trade_date: date, *,
                 language: str = "en", plan: RunPlan | None = None, context: DeskContext | None = None) -> None:
        self.desk = desk
        self.parent = parent
        self.trade_date = trade_date
        self.language = language
        self.plan = plan
        self.context = context or desk.context()
        self.desks = {t: DeskRun(t, desk_thread(parent, t)) for t in tickers}

    @property
    def tickers(self) -> tuple[str, ...]:
        return tuple(self.desks)

    async def survey(self) -> dict[str, str]:
        """How each desk will start: "kept" (its decision is in), "resumed" (stopped half-way), "new"."""
        for run in self.desks.values():
            state = await self.desk.state(run.thread) if await self.desk.has_thread(run.thread) else {}
            if decided(state, self.trade_date):
                run.how, run.state = "kept", state
            elif state and await self.desk.interrupted(run.thread) is not None:
                run.how = "resumed"
            else:
                run.how = "new"
        return {t: r.how for t, r in self.desks.items()}

    async def run(self, consume: Consume) -> dict[str, DeskRun]:
        """Every desk not decided yet, side by side; each desk's state after it. Cancelled (a stop), every desk
        stops at its last checkpoint; `run` again resumes them."""
        await self.survey()
        await asyncio.gather(*(self._one(r, consume) for r in self.desks.values() if r.how != "kept"))
        return self.desks

    async def _one(self, run: DeskRun, consume: Consume) -> None:
        text = None if run.how == "resumed" else request_text(run.ticker, self.trade_date, self.language)
        try:
            # A desk resumed right after a stop may find the stopped run still letting its lease go: waited for a
            # moment, as the MCP server waits (a loaded machine once gave "runs elsewhere" here).
            async with self.desk.turn(run.thread, text, None if text is None else self.plan,
                                      wait_s=RESUME_LEASE_WAIT_S if text is None else 0.0) as turn:
                if turn.graph_input is not None:  # the comparison's language, whatever the request's words read as
                    turn.graph_input["language"] = self.language
                run.plan, run.resumed = turn.plan, turn.resumed
                await consume(run.ticker, turn.events(self.context))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # this desk stopped at a checkpoint; the others go on
            run.error = explain(exc, self.language)
        run.state = await self.desk.state(run.thread)
        if not run.error and decided(run.state, self.trade_date) is None:
            run.error = phrase(self.language, "compare.no_decision_reached")
