"""Backtests asked in the chat: "backtest NVDA from January to March 2024", "回测英伟达 2024年1月到3月".

The flow is the CLI's (graph's `prepare_new` / `prepare_resume`, `confirmed`, `scored`: graph/backtest/flow.py),
shown the chat's way:

1. The ask is read (graph's `read_ask`); what cannot be read, or a plan refused (a reversed window, one in the
   future, an unknown ticker, more runs than DESK_BACKTEST_MAX_RUNS), is said back. Otherwise the plan is stated
   with Run and Cancel: nothing runs, and nothing is stored, before a person has seen the plan and pressed Run.
   The plan is a list, which wraps to the page (a code block's fixed lines were cut off at the right, its total
   with them).
2. Run starts the runner in a task of its own (like a desk run, chat/runs.py: never inside a socket handler),
   with a context whose emitter is every page showing the thread (chat/pages.py), so a reloaded page gets the
   rest. Its progress is one message updated in place, at most twice a second: days done / total, elapsed and
   remaining time, tokens so far, the days running, the last signals as they land.
3. /stop (or Stop) stops it; finished days are kept, and "resume backtest <id>" (or the CLI's --resume) goes on.
4. At the end: Table 1 (with the paper's published row on its window, "synthetic" in demo), beside a row whose
   figures its simulation explains the reason (it bought on the window's first day and never sold: buy-and-hold's
   row to the cent), the baselines' rules, an equity and drawdown chart per ticker (chat/views/backtest_chart.py), the
   CSV and Markdown exports, and a link to each day's thread (opened by chat/features/backtest_days.py), by ticker and
   month, each link a day of the month and its signal's mark.
"""
from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import date
from typing import Any
from urllib.parse import quote

import chainlit as cl
from chainlit.logger import logger

from graph import (
    DESK,
    DESK_STRATEGY,
    Ask,
    Day,
    Days,
    DeskRuntime,
    PlanRefused,
    Prepared,
    Progress,
    Purpose,
    Result,
    ResumeBacktest,
    Runner,
    Simulation,
    backtest_desk,
    confirmed,
    explain,
    landed,
    persona_label,
    phrase,
    prepare_new,
    prepare_resume,
    scored,
    settings_days,
    stopwatch,
    word_list,
)

from ..kit.feature import Message
from ..kit.offers import Answer, Button, Offers
from ..kit.say import desk_message, page_user, said, speaking, thread_language
from ..kit.tasks import ThreadTask, ThreadTasks, quietly
from ..runs import DeskService
from ..speakers import label_metadata
from ..views.backtest_chart import equity_chart
from ..views.card import SIGNAL_MARK
from ..views.thread_names import rename_thread

RUN_ACTION = "backtest_run"
CANCEL_ACTION = "backtest_cancel"
STOP_ACTION = "backtest_stop"
UPDATE_EVERY_S = 0.5  # the progress message at most twice a second: 183 days must not flood the socket
LATEST = 6            # signals listed under the progress
DAY_ROUTE = "/backtest"  # /backtest/<id>/<TICKER>/<YYYY-MM-DD>: chat/features/backtest_days.py


def day_link(backtest_id: str, ticker: str, day: str) -> str:
    return f"{DAY_ROUTE}/{backtest_id}/{quote(ticker, safe='')}/{day}"



class Backtests:
    """The server's backtests: the plans offered, the runs in flight (by the chat thread that started them) and
    the desk they run on (the chat's stores, the backtest's settings: graph's `backtest_desk`)."""

    def __init__(self, service: DeskService) -> None:
        self.service = service
        self.offers = Offers("backtest", service.runtime, (
            Button(RUN_ACTION, "chat.backtest_run", "play", "chat.backtest_run_tooltip"),
            Button(CANCEL_ACTION, "chat.backtest_cancel", "x", "chat.backtest_cancel_tooltip")),
            gone="backtest_offer_gone", not_yours="backtest_not_yours")
        self.runs: ThreadTasks[BacktestRun] = ThreadTasks()
        self.running = self.runs.running  # chat thread id → its backtest in flight
        self._desk: DeskRuntime | None = None
        self._where = AsyncExitStack()  # the LangGraph Server's client, when the days run there
        self._days: Days | None = None
        self._days_open = False

    async def desk(self) -> DeskRuntime:
        if self._desk is None:
            self._desk = backtest_desk(await self.service.runtime())
        return self._desk

    async def days(self) -> Days | None:
        """Where the days run: on the LangGraph Server of DESK_BACKTEST_SERVER, as its DESK_SERVER_USER (the
        server knows no other user: graph's settings_days), else None, in this process."""
        if not self._days_open:
            self._days = await self._where.enter_async_context(settings_days(self.service.settings))
            self._days_open = True
        return self._days

    # -- what the user types ------------------------------------------------------------------------

    async def answer(self, said: Message) -> bool:
        """Answer a message that asks for a backtest, or to resume one; False for any other message."""
        asked, thread_id = said.route.read, said.thread_id
        if isinstance(asked, ResumeBacktest):
            await self._offer_resume(asked.backtest_id, thread_id)
            return True
        if said.route.purpose is not Purpose.BACKTEST or not isinstance(asked, Ask):
            return False
        with speaking(asked.language):  # answered in the words' own language
            await self._offer_new(asked, thread_id)
        return True

    async def _offer_new(self, ask: Ask, thread_id: str) -> None:
        if ask.problem:
            await desk_message(ask.problem).send()
            return
        assert ask.start is not None and ask.end is not None  # read_ask says a problem otherwise
        try:
            prepared = await prepare_new(await self.desk(), ask.tickers, ask.start, ask.end, every=ask.every,
                                         budget=ask.budget)
            prepared.check_budget()
        except PlanRefused as refused:
            await said("backtest_refused", reason=refused.told(ask.language)).send()
            return
        await self._offer(prepared, thread_id)

    async def _offer_resume(self, backtest_id: str, thread_id: str) -> None:
        if (run := self._run_of(backtest_id)) is not None:
            await said("backtest_running", id=run.id).send()
            return
        prepared = await prepare_resume(await self.desk(), page_user(), backtest_id, days=await self.days())
        if prepared is None:
            await said("backtest_unknown", id=backtest_id).send()
            return
        if prepared.to_run == 0:  # every day is done: nothing to confirm, the result is shown again
            runner = await confirmed(await self.desk(), page_user(), prepared, await self.days())
            self._start(prepared, page_user(), thread_id, runner)
            return
        await self._offer(prepared, thread_id)

    async def _offer(self, prepared: Prepared, thread_id: str) -> None:
        """The plan as a list (it wraps to the page, where a code block's lines would be cut off), with Run and
        Cancel, in the language spoken here."""
        language = thread_language()
        text = f"{phrase(language, 'chat.backtest_plan')}\n\n{prepared.statement(language, markdown=True)}"
        await (await self.offers.message(text, prepared.to_json(), thread_id=thread_id)).send()

    # -- the buttons --------------------------------------------------------------------------------

    def install(self) -> None:
        self.offers.install({RUN_ACTION: self.run_pressed, CANCEL_ACTION: self.cancel_pressed})
        cl.action_callback(STOP_ACTION)(self.runs.stop_pressed)

    async def run_pressed(self, answer: Answer) -> None:
        if (busy := self.running.get(answer.thread_id)) is not None and busy.active:
            await said("backtest_busy", id=busy.id).send()
            return
        desk = await self.desk()
        prepared = await Prepared.from_json(desk, answer.user, answer.body)
        if prepared is None:  # the backtest it resumes was deleted meanwhile
            await said("backtest_offer_gone").send()
            return
        runner = await confirmed(desk, answer.user, prepared, await self.days())  # stored only now
        self._start(prepared, answer.user, answer.thread_id, runner)

    async def cancel_pressed(self, answer: Answer) -> None:
        await said("backtest_cancelled").send()

    def _start(self, prepared: Prepared, user: str, thread_id: str, runner: Runner) -> None:
        """The backtest runs in the language spoken here (an offer's own, when its Run was pressed)."""
        self.runs.begin(BacktestRun(self, runner, prepared, thread_id, thread_language()))

    def _run_of(self, backtest_id: str) -> BacktestRun | None:
        return next((r for r in self.running.values() if r.id == backtest_id and r.active), None)

    # -- stop, and a page that opens the thread mid-run ---------------------------------------------

    async def stop(self, thread_id: str) -> bool:
        """Stop the thread's backtest; False when none runs."""
        return await self.runs.stop(thread_id)

    async def reopened(self, thread_id: str, steps: list[Any]) -> None:
        """A page opened the thread: a plan still on offer there gets its Run and Cancel back; a backtest running
        from it, its progress from the stored message on, and Stop."""
        await self.offers.reopened(thread_id, steps)
        await self.runs.reattach(thread_id, steps)

    async def close(self) -> None:
        await self.runs.close()
        await self._where.aclose()


class BacktestRun(ThreadTask):
    """One backtest running for a chat thread: the runner in a task, its progress message kept up to date."""

    kind = "backtest"

    def __init__(self, backtests: Backtests, runner: Runner, prepared: Prepared, thread_id: str,
                 language: str) -> None:
        super().__init__(backtests.runs, thread_id, language)
        self.backtests = backtests
        self.runner = runner
        self.prepared = prepared
        self.id = runner.backtest.id
        self.message: cl.Message | None = None
        self.latest: deque[str] = deque(maxlen=LATEST)
        self.in_flight: dict[str, str] = {}  # "TICKER:day" → "TICKER day", the days running now
        self.changed = asyncio.Event()

    # -- the runner's callbacks (sync: they only note what changed) -------------------------------------

    def _started(self, ticker: str, day: date) -> None:
        self.in_flight[f"{ticker}:{day.isoformat()}"] = f"{ticker} {day.isoformat()}"
        self.changed.set()

    def _landed(self, day: Day, progress: Progress) -> None:
        self.in_flight.pop(day.key, None)
        mark = SIGNAL_MARK.get(day.signal or "", "⚠️")
        self.latest.appendleft(f"{mark} {landed(day)}")
        self.changed.set()

    # -- the run ------------------------------------------------------------------------------------------

    async def run(self) -> None:
        lang = self.language
        runner = self.runner
        runner.on_day, runner.on_start = self._landed, self._started
        self.stop_action = cl.Action(name=STOP_ACTION, payload={"thread_id": self.thread_id},
                                     label=phrase(lang, "chat.stop"),
                                     icon="square", tooltip=phrase(lang, "chat.backtest_stop_tooltip"))
        self.message = cl.Message(content=self._progress_text(), author=DESK, actions=[self.stop_action],
                                  metadata=label_metadata(DESK, language=lang))
        await self.message.send()
        await quietly(self._name_thread())
        job = asyncio.create_task(runner.run(), name=f"backtest-{self.id}-days")
        try:
            while not job.done():
                await asyncio.wait({job}, timeout=UPDATE_EVERY_S)
                if self.changed.is_set():
                    self.changed.clear()
                    await self._show_progress()
            days = job.result()
        finally:  # stopped: the days running now stop too (the finished ones are kept)
            if not job.done():
                job.cancel()
                await asyncio.gather(job, return_exceptions=True)
        await self._show_progress()
        await self._show_result(await scored(runner, days))

    async def stopped(self) -> None:
        await quietly(self._show_progress())
        progress = self.runner.progress
        await said("backtest_stopped", language=self.language, id=self.id, done=progress.finished,
                   total=progress.total).send()

    async def elsewhere(self) -> None:
        await said("backtest_elsewhere", language=self.language, id=self.id).send()

    async def failed(self, exc: Exception) -> None:
        await quietly(self._show_progress())
        await said("backtest_failed", language=self.language, id=self.id, reason=explain(exc, self.language)).send()

    async def _name_thread(self) -> None:
        """A thread whose first message asked for a backtest is named after it in the sidebar (one named after
        something else keeps its name)."""
        plan = self.runner.plan
        asked = tuple(phrase(lang, "chat.backtest_word").lower() for lang in (self.language, "en"))
        name = phrase(self.language, "chat.backtest_thread_name", tickers=", ".join(plan.tickers),
                      start=plan.start.isoformat(), end=plan.end.isoformat())
        await rename_thread(self.thread_id, name, keeps=lambda now: bool(now) and not now.lower().startswith(asked))

    def _progress_text(self) -> str:
        lang, progress, plan = self.language, self.runner.progress, self.runner.plan
        say = lambda key, **f: phrase(lang, "chat." + key, **f)  # noqa: E731 - one line per part below
        filled = round(24 * progress.finished / progress.total) if progress.total else 24
        failed = say("backtest_failed_count", n=progress.failed) if progress.failed else ""
        counts = say("backtest_counts", done=progress.finished, total=progress.total, failed=failed,
                     elapsed=stopwatch(progress.elapsed), left=stopwatch(progress.remaining_s()),
                     tokens=f"{progress.tokens:,}")
        lines = [say("backtest_title", id=self.id, tickers=", ".join(plan.tickers), start=plan.start.isoformat(),
                     end=plan.end.isoformat()),
                 "", f"`[{'█' * filled}{'░' * (24 - filled)}]` {counts}"]
        if progress.kept:
            lines += ["", say("backtest_kept", n=progress.kept)]
        if self.in_flight:
            lines += ["", say("backtest_running_now", days=", ".join(self.in_flight.values()))]
        elif not progress.ran and self.active:
            lines += ["", say("backtest_waiting")]
        if self.latest:
            lines += ["", say("backtest_latest"), *(f"- {line}" for line in self.latest)]
        return "\n".join(lines)

    async def _show_progress(self) -> None:
        if self.message is not None:
            self.message.content = self._progress_text()
            await self.message.update()

    async def _show_result(self, result: Result) -> None:
        """Table 1 with its notes and the reasons its simulations give, the baselines' rules, a chart per ticker,
        the two exports, then the links to each day's thread."""
        lang, progress, plan = self.language, self.runner.progress, self.runner.plan
        summary = phrase(lang, "chat.backtest_done", id=self.id, done=progress.finished, total=progress.total,
                         kept=progress.kept, ran=progress.ran, failed=progress.failed,
                         tokens=f"{progress.tokens:,}", elapsed=stopwatch(progress.elapsed))
        why = progress.stopped or (phrase(lang, "chat.backtest_failed_why", n=len(result.failed))
                                   if result.failed else "")
        incomplete = f"\n\n{phrase(lang, 'chat.backtest_incomplete', why=why, id=self.id)}" if why else ""
        elements: list[cl.Element] = []
        for ticker in plan.tickers:
            try:
                elements.append(equity_chart(result.simulations, ticker, self.id, language=lang))
            except Exception:  # a chart that cannot be drawn must not cost the table
                logger.exception("No equity chart for %s in backtest %s", ticker, self.id)
        elements.append(cl.File(name=f"backtest-{self.id}.md", content=result.markdown().encode(),
                                mime="text/markdown", display="inline"))
        elements.append(cl.File(name=f"backtest-{self.id}-daily.csv", content=result.csv().encode(),
                                mime="text/csv", display="inline"))
        content = f"{summary}{incomplete}\n\n{explained_table(result, lang)}\n{baseline_rules(result, lang)}"
        await cl.Message(content=content, author=DESK,
                         elements=elements, metadata=label_metadata(DESK, language=lang)).send()
        await cl.Message(content=self._day_links(result), author=DESK,
                         metadata=label_metadata(DESK, language=lang)).send()

    def _day_links(self, result: Result) -> str:
        if (account := getattr(self.runner.where, "account", None)) is not None:
            # The days' threads are the LangGraph Server's (graph's ServerDays), not in this chat's history.
            return phrase(self.language, "chat.backtest_days_on_server", url=account.url, user=account.user)
        return day_links(self.id, self.runner.plan.tickers, result.days.values(), self.language)


# --- the result's words ----------------------------------------------------------------------------------------


def why_row(simulation: Simulation, language: str) -> str:
    """Why a strategy's figures read as they do, when its simulation says it plainly: it traded once, at the
    window's first close, and held that to the end (long: buy-and-hold's figures to the cent), or it never traded;
    "" otherwise."""
    if (first := simulation.held_throughout) is not None:
        key = "held" if first.position > 0 else "shorted"
        return phrase(language, f"chat.backtest_why_{key}")
    if simulation.trades == 0:
        return phrase(language, "chat.backtest_why_flat")
    return ""


def table_title(result: Result, language: str) -> str:
    """Table 1's title in `language`: the backtest, its tickers and window, and whether it is synthetic."""
    plan = result.backtest.plan
    title = phrase(language, "chat.backtest_table_title", id=result.backtest.id, tickers=", ".join(plan.tickers),
                   start=plan.start.isoformat(), end=plan.end.isoformat())
    return title + (phrase(language, "chat.backtest_table_synthetic") if plan.synthetic else "")


def explained_table(result: Result, language: str) -> str:
    """Table 1 in Markdown, a table per ticker (the four figures of each ticker side by side ran off a chat's page
    at the right), each strategy's reason beside its name (`why_row`), then the table's notes. Buy-and-hold's own
    row needs none, nor a published row (no simulation), which is left out of a ticker it has no figures for."""
    table = result.table
    hold = {b.label for b in result.baselines if b.name == "buy_and_hold"}
    lines = [f"**{table_title(result, language)}**"]
    for ticker in table.tickers:
        rows = []
        for row in table.rows:
            if ticker not in row.figures and row.source:
                continue
            simulation = result.simulations.get((ticker, row.strategy))
            why = why_row(simulation, language) if simulation is not None and row.strategy not in hold else ""
            name = (persona_label(DESK, language) if row.strategy == DESK_STRATEGY and language != "en"
                    else result.strategy_in(row, language))
            rows.append(replace(row, strategy=phrase(language, "chat.backtest_why", strategy=name, why=why)
                                if why else name))
        header, *grid = replace(table, rows=tuple(rows)).grid([ticker])
        header = header.replace("| Strategy |", f"| {phrase(language, 'chat.backtest_strategy')} |", 1)
        lines += ["", header, *grid]
    if notes := result.note_lines(language):
        lines += ["", *notes]
    return "\n".join(lines) + "\n"


def baseline_rules(result: Result, language: str) -> str:
    """The baselines' rules, as the CLI's file lists them, in `language`."""
    lines = [f"**{phrase(language, 'chat.backtest_rules_title')}**", ""]
    lines += ["- " + phrase(language, "chat.backtest_rule", label=b.label, rule=b.rule_in(language))
              for b in result.baselines]
    return "\n".join(lines)


def day_links(backtest_id: str, tickers: Iterable[str], days: Iterable[Day], language: str) -> str:
    """A link to each day's thread, by ticker and month: the day of the month and its signal's mark (the date and
    the signal in its title), so 183 days read as a few short lines."""
    months = word_list(language, "chat.backtest_months")
    days = sorted(days, key=lambda d: d.day)
    lines = [phrase(language, "chat.backtest_day_links"), "", phrase(language, "chat.backtest_day_key")]
    for ticker in tickers:
        by_month: dict[str, list[str]] = {}
        for day in (d for d in days if d.ticker == ticker):
            mark = SIGNAL_MARK.get(day.signal or "", "⚠️")
            title = f"{ticker} {day.day} {day.signal or ''}".strip()
            by_month.setdefault(day.day[:7], []).append(
                f'[{day.day[8:]}\u00a0{mark}]({day_link(backtest_id, ticker, day.day)} "{title}")')
        lines += ["", f"**{ticker}**", ""]
        for month, links in by_month.items():
            year, number = month.split("-")
            name = phrase(language, "chat.backtest_day_month", month=months[int(number) - 1], year=year)
            lines.append(f"- **{name}** " + " ".join(links))
    return "\n".join(lines)
