"""The desk as the MCP server offers it, for one user: what each tool and resource does, with no MCP in it (the
server, graph/mcp/server.py, binds these to the protocol; a test can call them in process).

Everything goes through the headless runtime the CLI uses: the message read once (graph/asking.py: a comparison's
follow-up, else the router the chat uses too), a run begun with `DeskRuntime.turn` (the thread's lease, the
follow-up path of the coordinator), the comparison's flow (graph/compare/flow.py), the backtest's (plan, offer,
confirm: graph/backtest/flow.py), the track record and the book stores. A thread an analysis makes here is an
ordinary thread of the user's: claimed for them (graph/persistence/threads.py), its decision logged to their track
record; another user can neither list nor read it, nor ask on it.

What goes wrong is a `Refusal`, one plain sentence in the thread's language, never a traceback.
"""
from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from langchain_core.messages import AIMessage

from ..asking import read_asked
from ..backtest.ask import Ask, read_ask
from ..backtest.flow import Prepared, backtest_desk, confirmed, prepare_new, prepare_resume, scored
from ..backtest.plan import PlanRefused
from ..backtest.record import Day
from ..backtest.runner import Progress as DaysDone
from ..book.store import BookStore
from ..compare.ask import read_comparison
from ..compare.flow import Comparison, comparison_cost, needs_confirmation
from ..core import clock
from ..core.chinese_script import is_chinese
from ..core.errors import explain
from ..core.events import Event, NodeDone, Token, ToolStarted
from ..core.personas import COMPARISON, persona_label
from ..core.plan import RunPlan
from ..core.state import language_of
from ..core.usage import this_run
from ..core.words import DEFAULT_LANGUAGE, is_language, phrase, vendor_name
from ..persistence.lease import LeaseHeld
from ..persistence.offers import Offered, OfferStore
from ..persistence.threads import OwnedThread
from ..record.case import report_markdown
from ..routing import Purpose, Route
from ..runtime.desk import DeskRuntime
from ..runtime.notes import acknowledgement, post_note
from ..track.summary import call_alpha, summarize
from ..track.words import record_answer
from .replies import (
    BacktestPlanReply,
    BacktestReply,
    BookReply,
    CompareDesk,
    CompareReply,
    DeskReply,
    Holding,
    RecordedCall,
    RecordReply,
    Ruling,
    ThreadInfo,
    Tokens,
)

# progress, total (None: not known), the message: an MCP progress notification (graph/mcp/server.py sends it).
Report = Callable[[float, float | None, str], Coroutine[Any, Any, None]]
SOURCE = "mcp"  # where the track record says a call was made, and a thread was claimed
LEASE_WAIT_S = 5.0
OFFER_KIND = "mcp-backtest"  # a backtest plan waiting for its run_backtest, in the desk's offers


async def _quiet(progress: float, total: float | None, message: str) -> None:
    return None


class Refusal(Exception):
    """What the user asked cannot be done, said in one plain sentence (str(refusal))."""


@dataclass
class Replied:
    """A tool's structured reply and its short text."""

    reply: Any
    text: str


class Turns:
    """A progress notification at each persona's turn: when it starts (its first tool call or word), numbered
    from the turns already spoken (a resumed run goes on counting), out of the plan's."""

    def __init__(self, report: Report, language: str, total: int | None, done: int = 0) -> None:
        self.report, self.language, self.total, self.n = report, language, total, done
        self.speaking: set[str] = set()

    async def saw(self, event: Event, tag: str = "") -> None:
        if isinstance(event, Token | ToolStarted):
            key = f"{event.persona}\n{tag}"
            if key not in self.speaking:
                self.speaking.add(key)
                await self.turn(event.persona, tag)
        elif isinstance(event, NodeDone) and (spoken := event.spoken) is not None:
            self.speaking.discard(f"{spoken.name}\n{tag}")

    async def turn(self, persona: str, tag: str = "") -> None:
        self.n += 1
        label = persona_label(persona, self.language) + (f" · {tag}" if tag else "")
        total = max(self.total, self.n) if self.total else None
        words = (phrase(self.language, "mcp.turn", persona=label, n=self.n, total=total) if total
                 else phrase(self.language, "mcp.turn_open", persona=label))
        await self.report(self.n, total, words)


def _said(state: dict[str, Any]) -> str:
    """The thread's last words: the Desk's answer or question."""
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    return str(last.content) if isinstance(last, AIMessage) else ""


def _plain(text: str) -> str:
    return text.replace("**", "")


def desk_reply(thread_id: str, state: dict[str, Any], data: str = "") -> Replied:
    """What a run of the thread came to, and its short text; `data`: the vendor's label (the demo's says so)."""
    language = language_of(state)
    intent = state.get("intent")
    decision = state.get("final_decision")
    spent = Tokens.of(this_run(state))
    shown = vendor_name(data, language) if data else ""
    tail = " · ".join(filter(None, ["\n" + phrase(language, "mcp.answered_thread", thread=thread_id),
                                    phrase(language, "mcp.tokens", tokens=f"{spent.total:,}"), shown]))
    reply = DeskReply(thread_id=thread_id, outcome="answer", language=language, tokens=spent, data=data)
    if intent == "analyze" and decision is not None:
        ruling = Ruling.of(decision, state.get("asset_class"))
        title = phrase(language, "card.title", ticker=decision.ticker, trade_date=decision.trade_date,
                       signal=decision.signal)
        separator = "；" if is_chinese(language) else "; "
        rows = separator.join(f"{label} {value}" for label, value in decision.rows(language)[1:-1])  # the card's
        text = phrase(language, "mcp.decided", title=title, rows=rows)
        # The class and the benchmark, as the card says them (chat/views/card.py)
        benchmark = (phrase(language, "chat.card_benchmark", benchmark=ruling.benchmark) if ruling.benchmark
                     else phrase(language, "chat.card_no_benchmark"))
        gap = "" if is_chinese(language) else " "
        if ruling.asset_class:
            text += gap + phrase(language, "mcp.asset_class", ticker=decision.ticker,
                                 kind=phrase(language, f"mcp.class_{ruling.asset_class}"))
        text += gap + _plain(benchmark)
        return Replied(reply.model_copy(update={"outcome": "decision", "ruling": ruling}),
                       f"{text}\n\n{ruling.rationale}{tail}")
    if intent == "analyze":
        said = phrase(language, "mcp.stopped")
        return Replied(reply.model_copy(update={"outcome": "stopped", "said": said}), said + tail)
    said = _said(state)
    outcome = "question" if intent == "clarify" else "answer"
    return Replied(reply.model_copy(update={"outcome": outcome, "said": said}), said + tail)


class Owners(Protocol):
    """Whose each thread is (graph/persistence/threads.py's ThreadOwners; the chat's server adds its history's)."""

    async def owns(self, user: str, thread_id: str) -> bool: ...

    async def claim(self, user: str, thread_id: str, *, source: str, title: str = "") -> bool: ...

    async def threads(self, user: str) -> list[OwnedThread]: ...


@dataclass
class DeskService:
    desk: DeskRuntime
    user: str
    today: date | None = None  # None: the real today (`--today` pretends another)
    owners: Owners | None = None  # None: the desk's own (its Store)
    _backtests: DeskRuntime | None = field(default=None, repr=False)

    @property
    def ownership(self) -> Owners:
        return self.owners or self.desk.owners

    def _today(self) -> date:
        return self.today or clock.today()

    @property
    def language(self) -> str:
        """The language of what belongs to no thread (the record, the book): DESK_LANGUAGE's, else English."""
        setting = self.desk.settings.language
        return setting if is_language(setting) else DEFAULT_LANGUAGE

    # -- threads -------------------------------------------------------------------------------

    async def _own(self, thread_id: str, language: str = DEFAULT_LANGUAGE) -> None:
        """Refuse a thread that is not the user's: another's reads exactly as one that does not exist."""
        if not thread_id or not await self.ownership.owns(self.user, thread_id):
            raise Refusal(phrase(language, "mcp.not_yours", thread=thread_id))

    async def threads(self) -> list[ThreadInfo]:
        found = []
        for owned in await self.ownership.threads(self.user):
            state = await self.desk.state(owned.thread_id)
            decision = state.get("final_decision")
            found.append(ThreadInfo(thread_id=owned.thread_id, title=owned.title, at=owned.at,
                                    ticker=state.get("ticker"), signal=decision.signal if decision else None))
        return found

    async def report(self, thread_id: str) -> str:
        """The thread's deliberation as one Markdown document, as the chat offers it for download."""
        state = await self._analysed(thread_id)
        return report_markdown(state, self.desk.vendor.label)

    async def decision(self, thread_id: str) -> str:
        """The thread's latest ruling as JSON (null while it has none: a run stopped before the judge)."""
        state = await self._analysed(thread_id)
        decision = state.get("final_decision")
        body = {"thread_id": thread_id, "ticker": state.get("ticker"), "trade_date": state.get("trade_date"),
                "ruling": Ruling.of(decision, state.get("asset_class")).model_dump(mode="json")
                if decision is not None else None,
                "resumable": await self.desk.interrupted(thread_id) is not None}
        return json.dumps(body, ensure_ascii=False, indent=2)

    async def _analysed(self, thread_id: str) -> dict[str, Any]:
        await self._own(thread_id)
        state = await self.desk.state(thread_id)
        if not state.get("ticker"):
            raise Refusal(phrase(language_of(state), "mcp.no_analysis", thread=thread_id))
        return state

    # -- the desk's runs -----------------------------------------------------------------------

    async def analyse(self, request: str | None = None, ticker: str | None = None, trade_date: date | None = None,
                      thread_id: str | None = None, report: Report = _quiet) -> Replied:
        """A new analysis: words in any language the desk reads, or a ticker (and a date; today by default). In a
        new thread unless `thread_id` names one of the user's."""
        text = (request or "").strip() or " ".join(filter(None, [(ticker or "").strip(),
                                                                  trade_date.isoformat() if trade_date else ""]))
        if not text.strip():
            raise Refusal(phrase(DEFAULT_LANGUAGE, "mcp.ask_something"))
        if thread_id:
            await self._own(thread_id)
        return await self._ask(thread_id or str(uuid.uuid4()), text, report)

    async def follow_up(self, thread_id: str, question: str, report: Report = _quiet) -> Replied:
        """A message on one of the user's threads: answered from the thread (a new ticker or date is a new
        analysis in it, as in the chat)."""
        await self._own(thread_id)
        return await self._ask(thread_id, question, report)

    async def _ask(self, thread_id: str, text: str, report: Report) -> Replied:
        asked = await read_asked(self.desk, self.user, thread_id, text, self._today())
        if not asked.usable:
            raise Refusal(asked.problem or phrase(asked.language, "mcp.ask_something"))
        if asked.followed is not None:  # "which was riskier?" after a comparison
            return await self._compare_followup(asked.followed, asked.text, report)
        if asked.route.purpose is not Purpose.DESK:
            raise Refusal(elsewhere(asked.route, asked.language))
        state = await self.desk.state(thread_id)
        plan = self.desk.plan()
        total = None if state.get("ticker") else len(plan.slots())  # a new thread: an analysis, most likely
        try:
            await self._run(thread_id, asked.text, plan, Turns(report, asked.language, total), asked.language,
                            title=asked.text)
        except LeaseHeld:
            # The thread runs now (another call, the chat, another process): the message is a note to that run, as
            # a message to a thread running in another window is in the chat; its answer comes in that run.
            return await self._noted(thread_id, asked.text, asked.language)
        return desk_reply(thread_id, await self.desk.state(thread_id), self.desk.vendor.label)

    async def _noted(self, thread_id: str, text: str, language: str) -> Replied:
        if not await self.ownership.claim(self.user, thread_id, source=SOURCE, title=text):
            raise Refusal(phrase(language, "mcp.not_yours", thread=thread_id))
        posted = await post_note(self.desk, thread_id, text)
        said = _plain(phrase(language, "mcp.noted", ack=acknowledgement(posted, language)))
        return Replied(DeskReply(thread_id=thread_id, outcome="noted", said=said, language=language), said)

    async def resume(self, thread_id: str, report: Report = _quiet) -> Replied:
        """Go on with the thread's stopped run (a cancellation, a failure, a crash) from its last finished turn."""
        await self._own(thread_id)
        state = await self.desk.state(thread_id)
        language = language_of(state)
        if await self.desk.interrupted(thread_id) is None:
            raise Refusal(phrase(language, "mcp.nothing_to_resume", thread=thread_id))
        plan = RunPlan.from_state(state, self.desk.settings.parallel_analysts)
        turns = Turns(report, language, len(plan.slots()), len(plan.spoken(state)))
        await self._run(thread_id, None, plan, turns, language)
        return desk_reply(thread_id, await self.desk.state(thread_id), self.desk.vendor.label)

    async def _run(self, thread_id: str, text: str | None, plan: RunPlan, turns: Turns, language: str,
                   title: str | None = None) -> None:
        """Run the thread. `title`: a new message's, which claims the thread for the user once its lease is held (it
        is listed from then on, so a note a client sends on seeing it reaches this run); a lease held elsewhere is
        LeaseHeld then, for the caller to pass the message on. A resume waits briefly for a run that just ended (a
        cancelled call lets its lease go a moment after) and is refused if the thread runs."""
        async with self._failures(thread_id, language, busy=title is None), \
                self.desk.turn(thread_id, text, plan, wait_s=LEASE_WAIT_S if title is None else 0.0) as turn:
            if title is not None and not await self.ownership.claim(self.user, thread_id, source=SOURCE, title=title):
                raise Refusal(phrase(language, "mcp.not_yours", thread=thread_id))
            context = self.desk.context(today=self.today, user=self.user, source=SOURCE)
            try:
                async for event in turn.events(context):
                    if isinstance(event, NodeDone) and event.node == "coordinator" and "language" in event.update:
                        turns.language = language_of(event.update)
                    await turns.saw(event)
            except asyncio.CancelledError:
                if turn.held.lost.is_set():  # the lease's keeper cancelled it: another process may run it now
                    raise Refusal(phrase(turns.language, "mcp.lease_lost", thread=thread_id)) from None
                raise  # a stop: the thread keeps every finished turn

    @asynccontextmanager
    async def _failures(self, thread_id: str, language: str, busy: bool = True) -> AsyncIterator[None]:
        """A run's failure as a sentence: another run holds the thread (`busy`: said so, else LeaseHeld goes up),
        or what failed and that it resumes."""
        try:
            yield
        except LeaseHeld:
            if not busy:
                raise
            raise Refusal(phrase(language, "mcp.running", thread=thread_id)) from None
        except Refusal:
            raise
        except Exception as exc:
            raise Refusal(phrase(language, "mcp.failed", thread=thread_id, reason=explain(exc, language))) from None

    # -- several tickers -----------------------------------------------------------------------

    async def compare(self, request: str | None = None, tickers: Sequence[str] = (), trade_date: date | None = None,
                      confirm_cost: bool = False, report: Report = _quiet) -> Replied:
        """Several tickers side by side on one trade date, each an ordinary desk thread, then the Comparison turn."""
        text = (request or "").strip() or ("compare " + " and ".join(t.strip() for t in tickers if t.strip())
                                           + (f" on {trade_date.isoformat()}" if trade_date else ""))
        ask = read_comparison(text, self._today(), language_setting=self.desk.settings.language)
        if ask is None:
            raise Refusal(phrase(self.language, "mcp.not_a_comparison"))
        if ask.problem:
            raise Refusal(ask.problem)
        plan = self.desk.plan()
        if needs_confirmation(len(ask.tickers), live=self.desk.models.live) and not confirm_cost:
            c = comparison_cost(plan, len(ask.tickers), live=self.desk.models.live)
            cost = _plain(phrase(ask.language, "compare.cost", n=len(ask.tickers), tokens=f"{c.tokens:,}",
                                 calls=c.calls, per=f"{c.per_analysis.tokens:,}",
                                 source=c.per_analysis.source_in(ask.language)))
            raise Refusal(phrase(ask.language, "mcp.compare_cost", cost=cost))
        parent = str(uuid.uuid4())
        context = self.desk.context(today=self.today, user=self.user, source=SOURCE)
        comparison = await Comparison.new(self.desk, self.user, parent, ask, text, plan=plan, context=context)
        for owned in (parent, *comparison.record.threads.values()):
            await self.ownership.claim(self.user, owned, source=SOURCE, title=text)
        turns = Turns(report, ask.language, len(plan.slots()) * len(ask.tickers) + 1)

        async def consume(ticker: str, events: AsyncIterator[Event]) -> None:
            async for event in events:
                await turns.saw(event, ticker)

        async with self._failures(parent, ask.language):
            await comparison.run_desks(consume)
            turn = comparison.turn()
            await turns.turn(COMPARISON)
            async for _ in turn.stream():
                pass
            assert turn.result is not None
            await comparison.finish(turn.result)
        return await self._compared(comparison, turn.result.text)

    async def _compared(self, comparison: Comparison, said: str) -> Replied:
        record = comparison.record
        desks, spent = [], Tokens()
        for run in comparison.runner.desks.values():
            state = run.state or await self.desk.state(run.thread)
            decision = state.get("final_decision")
            spent = spent.add(Tokens.of(this_run(state)))
            why_none = "" if decision is not None else run.error or phrase(record.language, "mcp.stopped")
            desks.append(CompareDesk(ticker=run.ticker, thread_id=run.thread,
                                     ruling=Ruling.of(decision, state.get("asset_class")) if decision is not None
                                     else None, why_none=why_none))
        reply = CompareReply(thread_id=record.parent, trade_date=record.trade_date.isoformat(), desks=desks,
                             ranking=list(record.ranking or []), comparison=said, tokens=spent)
        lines = [f"{d.ticker}: {d.ruling.signal if d.ruling else '—'} (thread {d.thread_id})" for d in desks]
        return Replied(reply, "\n".join([said, "", *lines, "", phrase(record.language, "mcp.answered_thread",
                                                                       thread=record.parent)]))

    async def _compare_followup(self, comparison: Comparison, question: str, report: Report) -> Replied:
        turns = Turns(report, comparison.record.language, None)
        said = ""
        async for piece in comparison.followup(question):
            if isinstance(piece, Token):
                await turns.saw(piece)
            elif isinstance(piece, str):  # the whole answer (a TurnRestarted voids words it never keeps)
                said = piece
        thread = comparison.record.parent
        return Replied(DeskReply(thread_id=thread, outcome="answer", said=said, language=comparison.record.language),
                       f"{said}\n{phrase(comparison.record.language, 'mcp.answered_thread', thread=thread)}")

    # -- the track record and the book ---------------------------------------------------------

    async def record(self, ticker: str | None = None) -> Replied:
        """The user's calls, scored where their horizon has passed, as the chat's /record shows them."""
        today = self._today()
        ticker = ticker.strip().upper() if ticker and ticker.strip() else None
        calls = await self.desk.track.calls(self.user, today, ticker=ticker)
        summary = summarize(calls)
        listed = [RecordedCall(thread_id=c.thread_id, ticker=c.ticker, trade_date=c.trade_date, signal=c.signal,
                               size=c.position_size, horizon=c.horizon, confidence=c.confidence,
                               status="settled" if c.outcome else "pending",
                               verdict=c.outcome.verdict if c.outcome else None,
                               alpha=call_alpha(c.signal, c.outcome) if c.outcome else None,
                               settle_date=c.outcome.settle_date if c.outcome else None, pending=c.pending)
                  for c in calls]
        reply = RecordReply(ticker=ticker, calls=listed, settled=summary.settled, right=summary.right,
                            hit_rate=summary.hit_rate, mean_alpha=summary.mean_alpha)
        return Replied(reply, record_answer(calls, ticker, today, self.language))

    async def book(self) -> Replied:
        book = await BookStore(self.desk.store).get(self.user)
        if book is None:
            return Replied(BookReply(positions=[], text=phrase(self.language, "mcp.no_book")),
                           phrase(self.language, "mcp.no_book"))
        positions = [Holding(symbol=p.symbol, quantity=str(p.quantity), cost=None if p.cost is None else str(p.cost))
                     for p in book.positions]
        text = book.describe()
        return Replied(BookReply(positions=positions, cash=str(book.cash), text=text), text)

    # -- backtests -----------------------------------------------------------------------------

    def _backtest_desk(self) -> DeskRuntime:
        """The backtest's desk beside this one: the same stores and leases, the demo at full speed."""
        if self._backtests is None:
            self._backtests = backtest_desk(self.desk)
        return self._backtests

    @property
    def _offers(self) -> OfferStore:
        return OfferStore(self.desk.store, self.desk.leases)

    async def plan_backtest(self, request: str | None = None, tickers: Sequence[str] = (), start: date | None = None,
                            end: date | None = None, every: int = 1, budget: int | None = None,
                            resume_id: str | None = None) -> Replied:
        """A backtest's plan and cost, kept under an id for run_backtest; nothing runs."""
        desk = self._backtest_desk()
        language = self.language
        try:
            if resume_id:
                prepared = await prepare_resume(desk, self.user, resume_id.strip(), budget=budget)
                if prepared is None:
                    raise Refusal(phrase(language, "mcp.no_backtest", id=resume_id))
            else:
                ask = self._backtest_ask(request, tickers, start, end, every, budget)
                language = ask.language
                if ask.problem or ask.start is None or ask.end is None or not ask.tickers:
                    raise Refusal(ask.problem or phrase(language, "mcp.backtest_window"))
                prepared = await prepare_new(desk, ask.tickers, ask.start, ask.end, every=ask.every,
                                             today=self.today, budget=ask.budget)
            prepared.check_budget()
        except PlanRefused as refused:
            raise Refusal(refused.told(language)) from None
        offered = await self._offers.put(Offered(OfferStore.new_key(), OFFER_KIND, self.user, "", language,
                                                 prepared.to_json()))
        plan = prepared.plan
        calls, expected = prepared.per_run.times(prepared.to_run)
        statement = prepared.statement(language)
        reply = BacktestPlanReply(plan_id=offered.key, tickers=list(plan.tickers), start=plan.start.isoformat(),
                                  end=plan.end.isoformat(), deliberations=prepared.to_run, expected_tokens=expected,
                                  expected_calls=calls, statement=statement)
        return Replied(reply, f"{statement}\n\n{phrase(language, 'mcp.plan_ready', plan=offered.key)}")

    def _backtest_ask(self, request: str | None, tickers: Sequence[str], start: date | None, end: date | None,
                      every: int, budget: int | None) -> Ask:
        if request and request.strip():
            text = request.strip()
            asked = read_ask(text if text.lower().startswith(("backtest", "回测", "回測")) else f"backtest {text}",
                             self._today())
            return asked or Ask(language=self.language, problem=phrase(self.language, "mcp.backtest_window"))
        named = tuple(dict.fromkeys(t.strip().upper() for t in tickers if t.strip()))
        return Ask(named, start, end, max(1, every), self.language, budget=budget)

    async def run_backtest(self, plan_id: str, report: Report = _quiet) -> Replied:
        """Run a plan stated by plan_backtest, once, by its id: the days, then Table 1."""
        how, offered = await self._offers.take(OFFER_KIND, plan_id.strip(), self.user)
        language = offered.language if offered is not None and how == "taken" else self.language
        if how != "taken" or offered is None:  # another user's plan reads as no plan at all
            raise Refusal(phrase(language, "mcp.no_plan", plan=plan_id))
        desk = self._backtest_desk()
        prepared = await Prepared.from_json(desk, self.user, offered.body)
        if prepared is None:
            raise Refusal(phrase(language, "mcp.no_plan", plan=plan_id))
        runner = await confirmed(desk, self.user, prepared)  # a new backtest is stored only now
        sent: set[asyncio.Task[None]] = set()

        def landed(day: Day, progress: DaysDone) -> None:
            words = phrase(language, "mcp.day", n=progress.finished, total=progress.total, ticker=day.ticker,
                           day=day.day, signal=day.signal or day.status)
            task = asyncio.get_running_loop().create_task(report(progress.finished, progress.total, words))
            sent.add(task)
            task.add_done_callback(sent.discard)

        runner.on_day = landed
        async with self._failures(runner.backtest.id, language):
            days = await runner.run()
            result = await scored(runner, days)
        if sent:
            await asyncio.gather(*sent, return_exceptions=True)
        progress = runner.progress
        complete = not (progress.stopped or result.failed)
        reply = BacktestReply(backtest_id=runner.backtest.id, table=result.table.markdown(), days=progress.finished,
                              failed=len(result.failed), tokens=progress.tokens, complete=complete)
        return Replied(reply, result.table.markdown())


def elsewhere(routed: Route, language: str) -> str:
    """Where what the words ask for is done, when it is not the desk's deliberation: the tool to use."""
    if isinstance(routed.read, Ask) and routed.read.problem:
        return routed.read.problem
    key = {Purpose.BOOK: "mcp.routed_book", Purpose.WATCH: "mcp.routed_watch",
           Purpose.BACKTEST: "mcp.routed_backtest", Purpose.COMPARE: "mcp.routed_compare",
           Purpose.TOKENS: "mcp.routed_tokens", Purpose.PAPER: "mcp.routed_paper"}[routed.purpose]
    return phrase(language, key)
