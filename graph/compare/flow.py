"""A comparison from asked to ranked, as the CLI (graph/compare/headless.py) and the chat (chat/features/compare.py)
both run it: the record stored, the cost stated (a live model and more than two tickers: asked before anything
runs), the desks side by side (graph/compare/runner.py), the Comparison turn and its ranking
(graph/compare/comparison.py), the record completed; and later, follow-ups answered from it.

What differs between the CLI and the chat is only how each shows the desks' events and confirms the cost."""
from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date

from ..backtest.tokens import Estimate, Shape, estimate
from ..core.context import DeskContext
from ..core.events import Token, TurnRestarted
from ..core.personas import DESK
from ..core.plan import RunPlan
from ..runtime.desk import DeskRuntime
from .ask import CompareAsk, mentions
from .comparison import ComparisonResult, ComparisonTurn, DeskOutcome, followup_prompt, outcome, streamed_turn
from .runner import CompareRunner, Consume, DeskRun, desk_thread
from .store import Comparisons, Record

ASK_ABOVE = 2  # a live comparison of more tickers than this states its cost and waits for a yes


@dataclass(frozen=True)
class Cost:
    tickers: int
    per_analysis: Estimate

    @property
    def tokens(self) -> int:
        return self.per_analysis.tokens * self.tickers

    @property
    def calls(self) -> int:
        return self.per_analysis.calls * self.tickers + 1  # and the Comparison turn


def comparison_cost(plan: RunPlan, tickers: int, *, live: bool) -> Cost:
    """What the desks are expected to spend: one analysis's estimate (graph/backtest/tokens.py) per ticker."""
    shape = Shape(len(plan.analysts), plan.debate_rounds, plan.risk_rounds, tuple(plan.analysts))
    return Cost(tickers, estimate(shape, live=live))


def needs_confirmation(tickers: int, *, live: bool) -> bool:
    """A live model spends real money: more than ASK_ABOVE desks are asked about first. The demo costs nothing."""
    return live and tickers > ASK_ABOVE


class Comparison:
    """One comparison, held by its parent thread, for one user."""

    def __init__(self, desk: DeskRuntime, user: str, record: Record, *, plan: RunPlan | None = None,
                 context: DeskContext | None = None) -> None:
        self.desk = desk
        self.user = user
        self.record = record
        self.plan = plan or desk.plan()
        self.context = context or desk.context(user=user)
        self.runner = CompareRunner(desk, record.parent, record.tickers, record.trade_date, language=record.language,
                                    plan=self.plan, context=self.context)

    @classmethod
    async def new(cls, desk: DeskRuntime, user: str, parent: str, ask: CompareAsk, asked: str = "", *,
                  plan: RunPlan | None = None, context: DeskContext | None = None) -> Comparison:
        """A comparison asked now, its record stored before any desk runs (so a stop can always be resumed)."""
        assert ask.trade_date is not None, "a refused ask has no comparison"
        threads = {t: desk_thread(parent, t) for t in ask.tickers}
        record = Record(parent, ask.tickers, ask.trade_date, threads, ask.language, asked)
        await Comparisons(desk.store).put(user, record)
        return cls(desk, user, record, plan=plan, context=context)

    @classmethod
    async def stored(cls, desk: DeskRuntime, user: str, parent: str, *, plan: RunPlan | None = None,
                     context: DeskContext | None = None) -> Comparison | None:
        """The comparison `user` holds in thread `parent` (None: none, or another user's)."""
        record = await Comparisons(desk.store).get(user, parent)
        return cls(desk, user, record, plan=plan, context=context) if record is not None else None

    def cost(self) -> Cost:
        return comparison_cost(self.plan, len(self.record.tickers), live=self.desk.models.live)

    async def interrupted(self) -> list[str]:
        """The tickers whose desks stopped half-way (or never ran) while the comparison is not done."""
        if self.record.status == "done":
            return []
        hows = await self.runner.survey()
        return [t for t, how in hows.items() if how != "kept"]

    async def reopen(self) -> None:
        """One desk was edited (forked after one of its turns, `DeskRuntime.fork`): the comparison is to run again,
        its decided desks kept, the edited one going on from its fork (a desk stopped half-way, to `run_desks`),
        then the Comparison turn anew. Stored as running first, so a stop meanwhile is resumed like any."""
        self.record.status = "running"
        await Comparisons(self.desk.store).put(self.user, self.record)

    async def run_desks(self, consume: Consume) -> dict[str, DeskRun]:
        return await self.runner.run(consume)

    def outcomes(self) -> list[DeskOutcome]:
        return [outcome(r.ticker, r.thread, r.state or {}, r.error, self.record.language)
                for r in self.runner.desks.values()]

    def turn(self) -> ComparisonTurn:
        return ComparisonTurn(self.desk.models, self.outcomes(), self.record.trade_date.isoformat(),
                              language=self.record.language, context=self.context)

    async def finish(self, result: ComparisonResult) -> None:
        self.record.status, self.record.text = "done", result.text
        self.record.ranking, self.record.read = result.rows(), result.read
        await Comparisons(self.desk.store).put(self.user, self.record)

    async def load_outcomes(self) -> list[DeskOutcome]:
        """Each desk's outcome as its thread holds it now (a follow-up, a page showing the card again)."""
        for run in self.runner.desks.values():
            run.state = await self.desk.state(run.thread)
        return self.outcomes()

    async def followup(self, question: str) -> AsyncIterator[Token | TurnRestarted | str]:
        """The Desk's answer to a follow-up about the comparison: Token events (TurnRestarted: a cut-off call's
        words void), then its whole text."""
        messages = followup_prompt(await self.load_outcomes(), self.record.ranking,
                                   self.record.trade_date.isoformat(), question, self.record.language)
        async for piece in streamed_turn(self.desk.models, DESK, messages, self.context):
            yield piece


def same_comparison(record: Record, named: CompareAsk) -> bool:
    """Whether a message naming `named` (its tickers, its date) stays within the comparison: only tickers it
    compared (or none), on its trade date (or none said)."""
    return set(named.tickers) <= set(record.tickers) and (not named.explicit_date
                                                          or named.trade_date == record.trade_date)


async def followup_of(desk: DeskRuntime, user: str, parent: str, text: str, today: date) -> Comparison | None:
    """The comparison a message in thread `parent` follows up ("which was riskier?", "why was the bear worried
    about AMD?"): one of `user`'s, finished, with no analysis of the thread's own since, the message naming no
    other ticker and no other date. None: the message is the desk's as usual (a new analysis, a new comparison).
    An analysis of the thread's own from before the comparison ("compare NVDA and AMD" asked after one) does not
    take the follow-ups; one since does."""
    comparison = await Comparison.stored(desk, user, parent)
    if comparison is None or comparison.record.status != "done":
        return None
    own, compared = await desk.last_written(parent), await Comparisons(desk.store).updated(user, parent)
    if own is not None and (compared is None or own > compared):
        return None
    return comparison if same_comparison(comparison.record, mentions(text, today)) else None
