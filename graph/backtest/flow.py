"""A backtest's flow from asked to scored, as the CLI (graph/backtest/headless.py) and the chat
(chat/features/backtests.py) both run it: the desk a backtest runs on, the plan stated (new, or a stored one
resumed) and checked against the budget, the record stored once the plan is confirmed, the runner over its days, and
the result scored.

What differs between them is only how each is shown and confirmed: a terminal prompt and a progress bar, or a Run
button and a message updated in place."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from graph.core import clock

from ..core.settings import Settings
from ..core.words import DEFAULT_LANGUAGE
from ..models.registry import ModelRegistry
from ..runtime.desk import DeskRuntime
from .plan import Plan, PlanRefused, check_budget, cost, make_plan, statement
from .record import Backtest, Day, Records
from .result import DESK, Result, score_async
from .runner import Days, Runner
from .simulate import Rules
from .tokens import Estimate
from .watch import WatchedVendor

DESK_STRATEGY = DESK  # the desk's row of Table 1 and its simulations' strategy name ("Trading Desk")


def backtest_settings(settings: Settings) -> Settings:
    """The demo model at full speed: its pace (a hosted model's, three seconds to each first word) is there
    so a person reading along can interject, and nobody reads along a backtest. A pace set on purpose
    (DESK_DEMO_DELAY_MS, DESK_DEMO_FIRST_TOKEN_MS) is kept."""
    fast = {name: 0.0 for name in ("demo_delay_ms", "demo_first_token_ms") if name not in settings.model_fields_set}
    return settings.model_copy(update=fast) if fast and not settings.live else settings


def backtest_desk(desk: DeskRuntime) -> DeskRuntime:
    """A desk for a backtest's days beside an open one (the chat's): the same checkpoints, store and leases (so
    each day's thread opens in the chat like any analysis, and one process runs a backtest at a time), with the
    backtest's settings (the demo at full speed) and its vendor watched for failures (graph/backtest/watch.py)."""
    settings = backtest_settings(desk.settings)
    models = desk.models if settings is desk.settings else ModelRegistry(settings)
    runtime = DeskRuntime.build(settings, desk.checkpointer, desk.store, models=models,
                                vendor=WatchedVendor(desk.vendor))
    runtime.leases = desk.leases
    return runtime


@dataclass
class Prepared:
    """A plan stated and not yet confirmed: a new one (`backtest` None, stored once confirmed), or a stored
    backtest to resume, with what it has done already."""

    plan: Plan
    per_run: Estimate
    to_run: int
    concurrency: int
    budget: int | None = None
    backtest: Backtest | None = None
    kept: int = 0
    spent: int = 0

    def statement(self, language: str = DEFAULT_LANGUAGE, *, markdown: bool = False) -> str:
        """The plan in words, in `language` (the asker's: the chat's thread, English in the CLI); `markdown`: as a
        list for the chat, which wraps to the page."""
        return statement(self.plan, self.per_run, done=self.kept, spent=self.spent, budget=self.budget,
                         concurrency=self.concurrency, language=language, markdown=markdown)

    def to_json(self) -> dict[str, Any]:
        """The plan as an offer keeps it until it is confirmed (chat/features/backtests.py); a stored backtest by its
        id."""
        return {"plan": self.plan.to_json(), "per_run": asdict(self.per_run), "to_run": self.to_run,
                "concurrency": self.concurrency, "budget": self.budget,
                "backtest": self.backtest.id if self.backtest is not None else None, "kept": self.kept,
                "spent": self.spent}

    @classmethod
    async def from_json(cls, desk: DeskRuntime, user: str, value: Mapping[str, Any]) -> Prepared | None:
        """A plan kept by `to_json`, for `user`; None when its stored backtest is gone (or another user's)."""
        backtest = None
        if value.get("backtest") and (backtest := await Records(desk.store).get(user, str(value["backtest"]))) is None:
            return None
        budget = value.get("budget")
        return cls(Plan.from_json(value["plan"]), Estimate(**value["per_run"]), int(value["to_run"]),
                   int(value["concurrency"]), int(budget) if budget is not None else None, backtest,
                   int(value.get("kept") or 0), int(value.get("spent") or 0))

    def check_budget(self) -> None:
        """PlanRefused when what is left to run is expected to pass the budget (its `told(language)` says why in
        any language)."""
        check_budget(self.plan, self.per_run, self.budget, to_run=self.to_run, spent=self.spent)


async def prepare_new(desk: DeskRuntime, tickers: Sequence[str], start: date, end: date, *, every: int = 1,
                      analysts: Sequence[str] | None = None, debate_rounds: int | None = None,
                      risk_rounds: int | None = None, today: date | None = None, budget: int | None = None,
                      concurrency: int | None = None) -> Prepared:
    """A new backtest's plan (PlanRefused with the reason when it cannot or should not run)."""
    plan = await make_plan(desk.vendor, desk.settings, tickers, start, end, every=every, analysts=analysts,
                           debate_rounds=debate_rounds, risk_rounds=risk_rounds, today=today or clock.today(),
                           live=desk.models.live)
    return Prepared(plan, cost(plan, live=desk.models.live), plan.runs,
                    concurrency or desk.settings.backtest_concurrency, budget)


async def prepare_resume(desk: DeskRuntime, user: str, backtest_id: str, *, budget: int | None = None,
                         concurrency: int | None = None, days: Days | None = None) -> Prepared | None:
    """A stored backtest of `user` to go on with, what it has done and what is left; None when `user` has no
    backtest of that id (another user's is not found either)."""
    if (backtest := await Records(desk.store).get(user, backtest_id)) is None:
        return None
    concurrency = concurrency or desk.settings.backtest_concurrency
    runner = Runner(desk, backtest, concurrency=concurrency, budget=budget, days=days)
    to_run = len(await runner.survey())
    return Prepared(backtest.plan, runner.per_run(), to_run, concurrency, budget, backtest,
                    runner.progress.kept, runner.progress.tokens)


async def confirmed(desk: DeskRuntime, user: str, prepared: Prepared, days: Days | None = None) -> Runner:
    """The plan is confirmed: a new backtest is stored now (never before), and its runner made; `days` says
    where the days run (in process when None; graph/backtest/server_days.py for a LangGraph Server)."""
    if prepared.backtest is None:
        prepared.backtest = await Records(desk.store).create(user, prepared.plan)
    return Runner(desk, prepared.backtest, concurrency=prepared.concurrency, budget=prepared.budget, days=days)


async def scored(runner: Runner, days: dict[str, Day], *, rules: Rules | None = None,
                 risk_free_rate: float = 0.0) -> Result:
    """The days run so far scored against the baselines: Table 1, the simulations and the exports."""
    return await score_async(runner.backtest, days, runner.desk.vendor, rules=rules, risk_free_rate=risk_free_rate)


__all__ = ["DESK_STRATEGY", "PlanRefused", "Prepared", "backtest_desk", "backtest_settings", "confirmed",
           "prepare_new", "prepare_resume", "scored"]
