"""The runner over days: each (ticker, day) of a plan a real deliberation of the desk, on that day's data only.

**One day, one thread.** A day is an analysis asked of `DeskRuntime` as the CLI asks one ("analyze $AAPL on
2024-01-02", a cashtag so no symbol reads as a word, and no "should I buy" to lean the desk one way), in its
own stored thread `bt-<backtest>-<TICKER>-<YYYYMMDD>` (graph/backtest/record.py), with the run's today set to
the day: the tools cut at the trade date (graph/tools/cutoff.py) and the vendor is asked for nothing after
it. The thread can be opened later like any analysis.

**Resuming.** The runner can be killed at any point and started again on the same backtest: a day whose
record says done, or whose thread holds its decision, is kept (counted, not run again); a day whose thread
stopped half-way continues from its last checkpoint (`turn(thread, None)`, as `python -m graph --resume`);
a day that failed is tried afresh. The backtest's own lease (one process per backtest) keeps two resumes
of it from running the same days.

**Point in time.** The desk recalls only calls settled on or before the trade date (graph/track/recall.py;
settling reads prices up to the run's today only, graph/track/settle.py), so it learns during the backtest
as it would have live, from the backtest's own record (record.memory_user). Days run `concurrency` at a
time, started in trading-day order (all tickers of a day before the next day), and a day starts only once
every day `concurrency` or more of the plan's dates before it is done: one ticker then has exactly
`concurrency` days in flight. What concurrency costs: a call from a day still running cannot be recalled,
so a day may miss a call made fewer than `concurrency` dates before it that settled by its date (a holding
window that short: the desk's horizons are usually weeks). It knows less than it could have, never more:
no look-ahead. Each day lists the calls it may have missed (`Day.unseen`, from each call's horizon), and
`--concurrency 1` has none.

**Failures.** A vendor failure during a day (graph/backtest/watch.py) would leave the desk deliberating on
"no data": the day is run afresh once, then marked failed with the reason, its signal not used and its call
taken out of the backtest's memory. A run that raised (a model timeout) continues from its checkpoint once,
then is marked failed. A failed day is listed with the result, never filled; a resume tries it again.

**Where a day runs.** All of the above (the order, the gate, resuming, retries, the records) is this runner's,
wherever a day's deliberation happens: `InProcess` (the default) runs it on the runner's own `DeskRuntime`;
graph/backtest/server_days.py submits it to a LangGraph Server as a background run. Both are a `Days`.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from ..core.errors import explain
from ..core.events import ToolFinished
from ..core.plan import RunPlan
from ..core.state import FinalDecision
from ..core.usage import run_total, tokens
from ..persistence.lease import LeaseHeld, hold_run
from ..runtime.desk import DeskRuntime
from ..track.horizon import due_date, sessions
from ..track.log import DecisionLog
from .plan import Plan
from .record import Backtest, Day, Records, failure
from .tokens import Estimate, estimate
from .watch import watching

RETRIES = 1  # a failed day is tried once more before it is marked failed


def request_text(ticker: str, day: date) -> str:
    return f"analyze ${ticker} on {day.isoformat()}"


@dataclass
class Progress:
    """What a progress display shows, updated as days land."""

    total: int
    kept: int = 0  # done before this session (resumed)
    ran: int = 0  # finished this session (done or failed)
    failed: int = 0
    tokens: int = 0  # every day's, kept ones included
    started: float = field(default_factory=time.monotonic)
    stopped: str = ""  # why days were left to run (the budget)

    @property
    def finished(self) -> int:
        return self.kept + self.ran

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def remaining_s(self) -> float | None:
        """This session's pace (days finished per second, concurrency included) over the days left."""
        left = self.total - self.finished
        if not self.ran:
            return None
        return self.elapsed / self.ran * left


OnDay = Callable[[Day, Progress], None]


@dataclass
class DayTask:
    ticker: str
    day: date
    thread: str
    step: int  # the day's index among all the plan's dates
    fresh: bool = False  # its thread is to be begun again (its last attempt failed)
    candidates: tuple[str, ...] = ()  # earlier days still running when it started (see _note_unseen)


def decided(state: dict[str, Any], day: date) -> FinalDecision | None:
    """The thread's decision for `day`, if its analysis of that day is over."""
    decision = state.get("final_decision")
    if state.get("intent") != "analyze" or not isinstance(decision, FinalDecision):
        return None
    return decision if decision.trade_date == day.isoformat() else None


def day_of(task: DayTask, state: dict[str, Any], decision: FinalDecision, wall_s: float | None) -> Day:
    spent = run_total(state.get("usage"))
    return Day(task.ticker, task.day.isoformat(), task.thread, "done", decision.signal, decision.position_size,
               decision.confidence, decision.horizon, tokens(spent), spent["calls"], wall_s)


def _last_words(state: dict[str, Any]) -> str:
    for message in reversed(state.get("messages") or []):
        if getattr(message, "type", "") == "ai" and (text := str(message.content).strip()):
            return " ".join(text.split())[:300]
    return "no answer"


class Days(Protocol):
    """Where a backtest's days are deliberated: in this process, or on a LangGraph Server."""

    def thread(self, backtest: Backtest, ticker: str, day: date) -> str:
        """The id of the day's thread where it runs."""
        ...

    async def state(self, thread: str) -> dict[str, Any]:
        """The thread's values as `DeskRuntime.state` gives them ({} when it has none)."""
        ...

    async def deliberate(self, backtest: Backtest, task: DayTask, plan: RunPlan, *,
                         fresh: bool) -> tuple[dict[str, Any], list[str]]:
        """Run the day (begun again when `fresh`, else continued where its thread stopped): the thread's
        values after it, and the vendor failures seen during it."""
        ...

    async def forget(self, backtest: Backtest, thread: str) -> None:
        """Take the thread's call out of the backtest's memory."""
        ...


class InProcess:
    """Days run on the runner's own desk: one `DeskRuntime.turn` each, its vendor watched."""

    def __init__(self, desk: DeskRuntime):
        self.desk = desk

    def thread(self, backtest: Backtest, ticker: str, day: date) -> str:
        return backtest.thread(ticker, day)

    async def state(self, thread: str) -> dict[str, Any]:
        return await self.desk.state(thread)

    async def deliberate(self, backtest: Backtest, task: DayTask, plan: RunPlan, *,
                         fresh: bool) -> tuple[dict[str, Any], list[str]]:
        desk = self.desk
        if fresh:
            await self.forget(backtest, task.thread)
            await desk.delete_thread(task.thread)
        stopped = await desk.interrupted(task.thread) if await desk.has_thread(task.thread) else None
        text = None if stopped is not None else request_text(task.ticker, task.day)
        context = desk.context(today=task.day, user=backtest.memory_user, source="backtest")
        with watching(task.ticker, task.day) as watch:
            async with desk.turn(task.thread, text, None if text is None else plan) as turn:
                async for event in turn.events(context):
                    # A vendor call that outlived the tools' time limit never raised in the vendor.
                    if isinstance(event, ToolFinished) and event.result.startswith("no data: timeout"):
                        watch.failures.append(f"{event.tool}: timeout")
        return await desk.state(task.thread), watch.failures

    async def forget(self, backtest: Backtest, thread: str) -> None:
        log = DecisionLog(self.desk.store)
        space = log.namespace(backtest.memory_user)
        for value in await log.values(backtest.memory_user):
            if value.get("thread_id") == thread:
                await self.desk.store.adelete(space, str(value["id"]))


class Runner:
    def __init__(self, desk: DeskRuntime, backtest: Backtest, *, concurrency: int = 2, budget: int | None = None,
                 on_day: OnDay | None = None, on_start: Callable[[str, date], None] | None = None,
                 days: Days | None = None):
        self.desk = desk  # its Store keeps the records, its settings and models shape the plan and its cost
        self.where: Days = days or InProcess(desk)
        self.backtest = backtest
        self.plan: Plan = backtest.plan
        self.concurrency = max(1, concurrency)
        self.budget = budget
        self.on_day = on_day
        self.on_start = on_start
        self.records = Records(desk.store)
        self.run_plan = self.plan.run_plan(desk.settings)
        self.days: dict[str, Day] = {}
        self.progress = Progress(self.plan.runs)
        self._candidates: dict[str, tuple[str, ...]] = {}  # a day → the earlier days running when it started
        self._settles: dict[str, date] = {}  # a done day → when its call settles

    # -- what is done already --------------------------------------------------------------------------

    async def survey(self) -> list[DayTask]:
        """The days still to run, in order; the finished ones read into `self.days` (kept)."""
        recorded = await self.records.days(self.backtest)
        dates = sorted({d for days in self.plan.days.values() for d in days})
        step = {d: i for i, d in enumerate(dates)}
        tasks: list[DayTask] = []
        for day in dates:
            for ticker in self.plan.tickers:
                if day not in self.plan.days[ticker]:
                    continue
                thread = self.where.thread(self.backtest, ticker, day)
                task = DayTask(ticker, day, thread, step[day])
                known = recorded.get(f"{ticker}:{day.isoformat()}")
                if known is not None and known.status == "done":
                    self.days[known.key] = known
                    continue
                if known is None and (decision := decided(state := await self.where.state(thread), day)):
                    # Finished, but killed before its record was written: read it from its thread.
                    found = day_of(task, state, decision, None)
                    await self.records.save_day(self.backtest, found)
                    self.days[found.key] = found
                    continue
                task.fresh = known is not None  # failed before: begin it again
                tasks.append(task)
        self.progress.kept = len(self.days)
        self.progress.tokens = sum(d.tokens for d in self.days.values())
        return tasks

    def per_run(self) -> Estimate:
        measured = [(d.tokens, d.calls) for d in self.days.values() if d.status == "done" and d.calls]
        return estimate(self.plan.shape, live=self.desk.models.live, measured=measured)

    # -- the run ---------------------------------------------------------------------------------------

    async def run(self) -> dict[str, Day]:
        """Run every day not done yet; every day's record, the plan's order. Raises LeaseHeld when the
        backtest runs in another process."""
        async with hold_run(self.desk.leases, f"bt-{self.backtest.id}"):
            tasks = await self.survey()
            self.progress.started = time.monotonic()  # not the time spent confirming the plan
            await self._schedule(tasks)
        return self.ordered()

    def ordered(self) -> dict[str, Day]:
        keys = [f"{t}:{d.isoformat()}" for t in self.plan.tickers for d in self.plan.days[t]]
        return {k: self.days[k] for k in keys if k in self.days}

    async def _schedule(self, tasks: list[DayTask]) -> None:
        pending = list(tasks)
        running: dict[asyncio.Task[Day], DayTask] = {}
        try:
            while pending or running:
                while pending and len(running) < self.concurrency and self._may_start(pending[0], pending, running):
                    if not self._affordable(len(running)):
                        self.progress.stopped = (f"the budget of {self.budget:,} tokens: {len(pending)} days "
                                                 "left to run (resume with a larger --budget)")
                        pending.clear()
                        break
                    task = pending.pop(0)
                    task.candidates = tuple(f"{t.ticker}:{t.day.isoformat()}" for t in running.values()
                                                   if t.day < task.day)
                    if self.on_start is not None:
                        self.on_start(task.ticker, task.day)
                    running[asyncio.create_task(self._day(task), name=task.thread)] = task
                if not running:
                    break
                finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for job in finished:
                    task = running.pop(job)
                    await self._landed(task, job.result())
        finally:
            for job in running:
                job.cancel()
            await asyncio.gather(*running, return_exceptions=True)

    def _may_start(self, task: DayTask, pending: Sequence[DayTask], running: dict[asyncio.Task[Day], DayTask]) -> bool:
        """The point-in-time gate: every day `concurrency` or more dates before this one is done."""
        unfinished = [t.step for t in running.values()] + [t.step for t in pending]
        return task.step < min(unfinished) + self.concurrency

    def _affordable(self, in_flight: int) -> bool:
        if self.budget is None:
            return True
        per = self.per_run().tokens
        return self.progress.tokens + per * (in_flight + 1) <= self.budget

    async def _landed(self, task: DayTask, day: Day) -> None:
        self.days[day.key] = day
        self.progress.ran += 1
        self.progress.failed += day.status == "failed"
        self.progress.tokens += day.tokens
        for other in self._note_unseen(task, day):
            await self.records.save_day(self.backtest, other)
        await self.records.save_day(self.backtest, day)
        if self.on_day is not None:
            self.on_day(day, self.progress)

    def _note_unseen(self, task: DayTask, day: Day) -> list[Day]:
        """Mark the calls a day could have recalled but did not see, because the day that made them was
        still running when it started and they had settled by its date (the call's holding window counted on
        the ticker's own exchange calendar, graph/track/horizon.py: 0700.HK's in Hong Kong's sessions).
        Checked both ways as days land, in whatever order. The days already recorded that gain an entry are
        returned, to be written again."""
        self._candidates[day.key] = task.candidates
        if day.status == "done":
            self._settles[day.key] = due_date(task.day, sessions(day.horizon), task.ticker)
        day.unseen += [j for j in task.candidates if self._missed(day, j)]
        changed: list[Day] = []
        for other in self.days.values():
            if other is not day and day.key in self._candidates.get(other.key, ()) and self._missed(other, day.key):
                other.unseen.append(day.key)
                changed.append(other)
        return changed

    def _missed(self, day: Day, earlier: str) -> bool:
        settles = self._settles.get(earlier)
        return settles is not None and date.fromisoformat(day.day) >= settles

    # -- one day ---------------------------------------------------------------------------------------

    async def _day(self, task: DayTask) -> Day:
        started = time.monotonic()
        reason = ""
        fresh = task.fresh
        for _attempt in range(1 + RETRIES):
            try:
                state, failures = await self.where.deliberate(self.backtest, task, self.run_plan, fresh=fresh)
            except LeaseHeld:
                reason = failure("lease")
                break
            except Exception as exc:  # a model or storage failure: the thread stopped at a checkpoint
                reason = failure("run", detail=explain(exc))
                fresh = False
                continue
            if failures:
                reason = failure("vendor", detail="; ".join(dict.fromkeys(failures)))
                fresh = True  # its decision rests on missing data: begin the day again
                continue
            if (decision := decided(state, task.day)) is None:
                reason = failure("undecided", detail=_last_words(state))
                break
            return day_of(task, state, decision, time.monotonic() - started)
        await self.where.forget(self.backtest, task.thread)  # a decision made on missing data is not learnt from
        return Day(task.ticker, task.day.isoformat(), task.thread, "failed", reason=reason,
                   wall_s=time.monotonic() - started)
