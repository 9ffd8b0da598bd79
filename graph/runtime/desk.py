"""The desk's one composition root: opened once from Settings, used by the CLI, the chat,
the benchmarks and the tests.

It holds what a process shares — the model registry, the market-data vendor, the checkpointer,
the store (the interjection inbox), the compiled graph — and how a run is configured (its
config and context) or continued. Opened inside the running event loop, because the SQLite
checkpointer and store must be.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from graph.core import clock

from ..core.context import LOCAL_USER, DeskContext, thread_config
from ..core.events import Event, desk_events
from ..core.personas import PERSONA_OF_NODE
from ..core.plan import RunPlan
from ..core.settings import Settings
from ..data import make_vendor
from ..data.vendor import Vendor
from ..models.registry import ModelRegistry
from ..nodes.analysts import Toolkit
from ..nodes.builder import build_graph
from ..nodes.holdings import priced_book
from ..notes.inbox import Inbox, Note
from ..paper.broker import paper_broker
from ..paper.keeper import PaperKeeper
from ..persistence.database import open_checkpointer, open_leases, open_rates, open_store
from ..persistence.lease import Held, Leases, MemoryLeases, hold_run
from ..persistence.outages import Outages
from ..persistence.rates import MemoryRates, RateBuckets
from ..persistence.threads import ThreadOwners
from ..record.edits import edit_change
from ..request import parse_request
from ..track.keeper import TrackRecord
from . import begun
from . import branches as past

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Interrupted:
    """A thread whose last run stopped before the end (a crash, a kill, a stop, a failure)."""
    next_nodes: tuple[str, ...]
    personas: tuple[str, ...]   # who speaks when it resumes


@dataclass(frozen=True)
class DeskTurn:
    """A run of one thread whose lease is held (`DeskRuntime.turn`)."""
    desk: DeskRuntime
    thread_id: str
    held: Held                          # `held.lost` is set if another process takes the thread over
    plan: RunPlan
    graph_input: dict[str, Any] | None  # None: the interrupted run continues
    resumed: dict[str, Any] | None      # the thread's state when continuing (who spoke, the request)

    def events(self, context: DeskContext, callbacks: list[BaseCallbackHandler] | None = None) -> AsyncIterator[Event]:
        return self.desk.events(self.graph_input, self.thread_id, context, callbacks)


@dataclass
class DeskRuntime:
    settings: Settings
    models: ModelRegistry
    vendor: Vendor
    checkpointer: BaseCheckpointSaver[Any]
    store: BaseStore
    graph: CompiledStateGraph[Any, Any, Any, Any]
    # One run per thread across the processes sharing the checkpointer (graph/persistence/lease.py).
    leases: Leases = field(default_factory=MemoryLeases)
    # How fast each user and thread may be sent messages, counted by every process beside the leases
    # (graph/persistence/rates.py; the chat's door takes from them).
    rates: RateBuckets = field(default_factory=MemoryRates)
    # Work the runtime started on its own (the settlement pass at server start), ended when it closes.
    background: set[asyncio.Task[Any]] = field(default_factory=set)
    # The database's outages as this process sees them (Postgres only; graph/persistence/outages.py): a run rides
    # out a blip by itself, and whoever shows the run hears of it.
    outages: Outages | None = None

    @property
    def track(self) -> TrackRecord:
        """The users' decision logs, in the same store (graph/track/)."""
        return TrackRecord(self.store, self.vendor, self.models)

    @property
    def paper(self) -> PaperKeeper:
        """The users' paper books, in the same store, priced by the same vendor (graph/paper/); their orders mirrored to
        Alpaca's paper account when its keys are in the environment (graph/paper/broker.py)."""
        return PaperKeeper(self.store, self.vendor, paper_broker())

    @property
    def owners(self) -> ThreadOwners:
        """Whose each thread is, for the headless ways of asking (the CLI, the MCP server): persistence/threads.py."""
        return ThreadOwners(self.store)

    @property
    def inbox(self) -> Inbox:
        # Stateless over the store (unique keys, no counter), so one per access is as good as one.
        return Inbox(self.store)

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings | None = None, *, models: ModelRegistry | None = None,
                   vendor: Vendor | None = None, toolkit: Toolkit | None = None,
                   checkpointer: BaseCheckpointSaver[Any] | None = None,
                   store: BaseStore | None = None) -> AsyncIterator[DeskRuntime]:
        """Models, vendor, checkpointer and store from the settings unless given (tests and
        benchmarks pass their own); the graph compiled once over them."""
        settings = settings or Settings()
        async with AsyncExitStack() as stack:
            saver: BaseCheckpointSaver[Any]
            if checkpointer is not None:
                saver = checkpointer
            else:
                saver = await stack.enter_async_context(open_checkpointer(settings))
            if store is None:
                store = await stack.enter_async_context(open_store(settings))
            runtime = cls.build(settings, saver, store, models=models, vendor=vendor, toolkit=toolkit)
            runtime.outages = getattr(saver, "outages", None)
            if checkpointer is None:  # leases live beside the configured checkpoints (a given one is private)
                runtime.leases = await stack.enter_async_context(open_leases(settings))
                runtime.rates = await stack.enter_async_context(open_rates(settings))
            runtime.warm_up()
            stack.push_async_callback(runtime._end_background)
            yield runtime

    @classmethod
    def build(cls, settings: Settings, checkpointer: BaseCheckpointSaver[Any], store: BaseStore | None = None, *,
              models: ModelRegistry | None = None, vendor: Vendor | None = None,
              toolkit: Toolkit | None = None) -> DeskRuntime:
        """The runtime over a checkpointer (and store) the caller owns: in-memory ones in tests."""
        models = models or ModelRegistry(settings)
        vendor = vendor or make_vendor(settings)
        store = store if store is not None else InMemoryStore()
        graph = build_graph(settings, models=models, vendor=vendor, toolkit=toolkit, checkpointer=checkpointer,
                            store=store)
        return cls(settings, models, vendor, checkpointer, store, graph)

    def start_settling(self, today: date | None = None) -> asyncio.Task[Any]:
        """The track record's settlement pass at server start, in the background: every user's
        calls whose window is over are scored (and reflected on) before anyone asks for them, then every
        paper book takes its new calls and is worked out as of the last close."""
        task = asyncio.create_task(self._settle_everyone(today or clock.today()), name="desk-settle")
        self.background.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self.background.discard(t)
            if not t.cancelled() and (exc := t.exception()) is not None:
                logger.error("The settlement pass failed: %s", exc, exc_info=exc)

        task.add_done_callback(done)
        return task

    async def _settle_everyone(self, today: date) -> int:
        """The track record's pass, then the paper books' (which read the calls it settled). How many users the
        track record settled."""
        users = await self.track.settle_everyone(today)
        await self.paper.settle_everyone(today)
        return users

    async def _end_background(self) -> None:
        for task in list(self.background):
            task.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)

    @staticmethod
    def warm_up() -> None:
        """Load the coordinator's tables (companies, NYSE holidays) before the first user waits."""
        parse_request("should I buy NVDA today?", clock.today())

    # -- one run -------------------------------------------------------------

    config = staticmethod(thread_config)

    def plan(self, *, analysts: list[str] | None = None, debate_rounds: int | None = None,
             risk_rounds: int | None = None) -> RunPlan:
        return RunPlan.of(self.settings, analysts=analysts, debate_rounds=debate_rounds, risk_rounds=risk_rounds)

    @staticmethod
    def context(*, today: date | None = None, quick_model: str | None = None, deep_model: str | None = None,
                user: str | None = None, source: str = "cli") -> DeskContext:
        return DeskContext(today=today, quick_model=quick_model, deep_model=deep_model, user=user, source=source)

    @asynccontextmanager
    async def turn(self, thread_id: str, text: str | None, plan: RunPlan | None = None, *,
                   wait_s: float = 0.0) -> AsyncIterator[DeskTurn]:
        """The one way a run begins, in the chat and the CLI: the thread's lease is taken (a crashed
        process's let go first; LeaseHeld when another process runs the thread, after trying for
        `wait_s`) and held until the block ends; then the run's input: `text`, a new message (with
        the plan of its analysis, if one is asked for), or None, the thread's interrupted run
        continued from its last checkpoint with the plan it had."""
        # The notes a new message skips are read before the lease is taken: one posted once it is held (it was
        # posted because the thread was seen running) is this run's to answer, never marked read unanswered.
        earlier = await self.inbox.all(thread_id) if text is not None else []
        async with hold_run(self.leases, thread_id, wait_s) as held:
            if text is None:
                values = await self.state(thread_id)
                plan = RunPlan.from_state(values, self.settings.parallel_analysts)
                yield DeskTurn(self, thread_id, held, plan, None, values)
            else:
                skipped = await self._begin(thread_id, held, plan, earlier)
                yield DeskTurn(self, thread_id, held, plan or self.plan(), self._input(text, plan, skipped), None)

    async def _begin(self, thread_id: str, held: Held, plan: RunPlan | None, earlier: list[Note]) -> list[Note]:
        """Said before a new message's input is given: a note posted before the run's first step is saved is then
        addressed from this run's plan, not from the thread's checkpoint at rest (runtime/begun.py). With no plan
        given, the coordinator keeps the thread's own (the settings' where it has none). The notes the message
        skips: those before it, but for the notes posted to a run that ended before saving any step (a server
        stopped in its first moments): no resume can answer them, so this run does."""
        # Side by side: both are a new run's wait before its first step.
        newest, last = await asyncio.gather(self.checkpointer.aget_tuple(self.config(thread_id)),
                                            begun.last(self.store, thread_id))
        if (cut_short := begun.cut_short(last, newest)) is not None:
            earlier = [n for n in earlier if n.key in cut_short]
        if plan is None:
            values = await self.state(thread_id)
            plan = RunPlan.of(self.settings, analysts=values.get("analysts"), debate_rounds=values.get("debate_rounds"),
                              risk_rounds=values.get("risk_rounds"))
        checkpoint = newest.config["configurable"].get("checkpoint_id") if newest is not None else None
        await begun.begin(self.store, thread_id, begun.Begun(held.lease.owner, checkpoint, plan.state_fields(),
                                                             tuple(n.key for n in earlier)))
        return earlier

    def events(self, graph_input: Any, thread_id: str, context: DeskContext,
               callbacks: list[BaseCallbackHandler] | None = None) -> AsyncIterator[Event]:
        """Stream a run. `graph_input` None continues the thread from its last checkpoint:
        LangGraph re-runs only the pending tasks (finished speakers are not asked again)."""
        return desk_events(self.graph, graph_input, self.config(thread_id, callbacks), context)

    async def interrupted(self, thread_id: str) -> Interrupted | None:
        """Whether the thread's last run stopped before its end, and who would speak next."""
        snapshot = await self.graph.aget_state(self.config(thread_id))
        if not snapshot.next:
            return None
        return Interrupted(tuple(snapshot.next), tuple(PERSONA_OF_NODE.get(n, n) for n in snapshot.next))

    async def new_input(self, thread_id: str, text: str, plan: RunPlan | None = None) -> dict[str, Any]:
        """A new message's input. Notes left from an earlier run that ended before reading them
        are skipped: they were typed to that run (resuming it would have answered them)."""
        return self._input(text, plan, await self.inbox.all(thread_id))

    @staticmethod
    def _input(text: str, plan: RunPlan | None, notes: list[Note]) -> dict[str, Any]:
        graph_input: dict[str, Any] = {"messages": [HumanMessage(text)], **(plan.state_fields() if plan else {})}
        if notes:
            graph_input["inbox_read"] = [n.key for n in notes]
        return graph_input

    async def state(self, thread_id: str) -> dict[str, Any]:
        return (await self.graph.aget_state(self.config(thread_id))).values or {}

    async def has_thread(self, thread_id: str) -> bool:
        """Whether any checkpoint of the thread exists."""
        return await self.checkpointer.aget_tuple(self.config(thread_id)) is not None

    async def last_written(self, thread_id: str) -> datetime | None:
        """When the thread's latest checkpoint was written; None when it has none."""
        got = await self.checkpointer.aget_tuple(self.config(thread_id))
        return datetime.fromisoformat(got.checkpoint["ts"]) if got is not None else None

    async def delete_thread(self, thread_id: str) -> None:
        """Forget a thread: every checkpoint and pending write of it, and its notes."""
        await self.checkpointer.adelete_thread(thread_id)
        await self.inbox.delete(thread_id)
        await begun.forget(self.store, thread_id)

    # -- editing the past (graph/runtime/branches.py: LangGraph time travel) ------------

    async def history(self, thread_id: str) -> list[past.Step]:
        """The finished contributions on the thread's current branch, in speaking order."""
        return await past.steps(self.graph, thread_id, self.settings.parallel_analysts)

    async def fork(self, thread_id: str, step_id: str, text: str, user: str | None = None) -> past.Fork:
        """Fork the current branch after `step_id`, with `text` as its words; `events(None, ...)`
        then re-runs only what follows it. The re-run sizes its ruling against `user`'s book as it is
        now (the desk's local user when None, as a run's context says): a book stored since the analysis
        began counts, one dropped since does not."""
        # The notes posted so far were sent on the branch being left: the new one does not answer them.
        posted = [note.key for note in await self.inbox.all(thread_id)]
        state = await self.state(thread_id)
        rerun: dict[str, Any] = {}
        if state.get("ticker") and state.get("trade_date"):
            rerun = {"book": await priced_book(self.store, self.vendor, user or LOCAL_USER, str(state["ticker"]),
                                               str(state["trade_date"]), allow_short=self.settings.allow_short),
                     "sizing": None}
        return await past.fork(self.graph, thread_id, step_id, text, self.settings.parallel_analysts, posted, rerun)

    async def branches(self, thread_id: str) -> list[past.Branch]:
        return await past.branches(self.graph, thread_id)

    async def switch_branch(self, thread_id: str, head: str) -> past.Branch:
        """Make the branch whose newest checkpoint id is (or starts with) `head` the current one."""
        return await past.switch(self.graph, thread_id, head)

    async def branch_of(self, thread_id: str, checkpoint_id: str) -> past.Branch | None:
        """The branch a checkpoint was on (e.g. the one an edit forked from)."""
        return await past.branch_of(self.graph, thread_id, checkpoint_id)

    async def edit_change(self, thread_id: str) -> str | None:
        """'was SELL 1.8% at 0.80 → now HOLD at 0.55' once a forked run has its decision."""
        return edit_change(await self.state(thread_id))
