"""`python -m graph backtest …`: the plan stated, confirmed, the days run with a progress bar on stderr, then
Table 1 on stdout and its two exports in a folder. graph/cli.py reads the arguments; this is the flow.

Exit codes: 0 every day decided; 1 the table was made but some days failed or were left to run (the budget),
or the run stopped (resume it); 2 nothing ran: a plan refused, no confirmation, an unknown backtest id.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from ..core.errors import explain
from ..core.settings import Settings
from ..data import make_vendor
from ..persistence.lease import LeaseHeld
from ..runtime.desk import DeskRuntime
from .plan import PlanRefused, check_budget, cost, make_plan, statement
from .progress import ProgressBar
from .record import Backtest, Records
from .result import score_async
from .runner import Runner
from .simulate import Rules
from .watch import WatchedVendor


def backtest_settings(settings: Settings) -> Settings:
    """The demo model at full speed: its pace (a hosted model's, three seconds to each first word) is there
    so a person reading along can interject, and nobody reads along a backtest. A pace set on purpose
    (DESK_DEMO_DELAY_MS, DESK_DEMO_FIRST_TOKEN_MS) is kept."""
    fast = {name: 0.0 for name in ("demo_delay_ms", "demo_first_token_ms") if name not in settings.model_fields_set}
    return settings.model_copy(update=fast) if fast and not settings.live else settings


@dataclass
class _Session:
    backtest: Backtest | None = None

    def resume_hint(self) -> str:
        return f"python -m graph backtest --resume {self.backtest.id}" if self.backtest else ""


def _confirmed(yes: bool) -> bool | None:
    """True to go on; False when the user said no; None when there is nobody to ask."""
    if yes:
        return True
    if not sys.stdin.isatty():
        return None
    try:
        answer = input("Run it? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


async def _prepare(args: argparse.Namespace, desk: DeskRuntime, session: _Session) -> Runner | int:
    """The plan (new, or the stored one of --resume ID) stated, checked against the budget and confirmed;
    the runner to run it, or the exit code when nothing is to run."""
    records = Records(desk.store)
    concurrency = args.concurrency or desk.settings.backtest_concurrency
    backtest: Backtest | None = None
    runner: Runner | None = None
    if args.resume:
        if (backtest := await records.get(args.user, args.resume)) is None:
            print(f"No backtest {args.resume} for user {args.user}.", file=sys.stderr)
            return 2
        runner = Runner(desk, backtest, concurrency=concurrency, budget=args.budget)
        plan, to_run = backtest.plan, len(await runner.survey())
        kept, spent, per_run = runner.progress.kept, runner.progress.tokens, runner.per_run()
    else:
        plan = await make_plan(desk.vendor, desk.settings, args.tickers, args.start, args.end, every=args.every,
                               analysts=args.analysts, debate_rounds=args.debate_rounds,
                               risk_rounds=args.risk_rounds, today=args.today or date.today(),
                               live=desk.models.live)
        to_run, kept, spent, per_run = plan.runs, 0, 0, cost(plan, live=desk.models.live)
    print(statement(plan, per_run, done=kept, spent=spent, budget=args.budget, concurrency=concurrency))
    check_budget(plan, per_run, args.budget, to_run=to_run, spent=spent)
    if to_run and (ok := _confirmed(args.yes)) is not True:
        if ok is None:
            print("Not started: there is no terminal to confirm on. Add --yes to run the plan above.", file=sys.stderr)
        else:
            print("Not started.", file=sys.stderr)
        return 2
    if backtest is None or runner is None:  # a new backtest is stored only once it is confirmed
        backtest = await records.create(args.user, plan)
        runner = Runner(desk, backtest, concurrency=concurrency, budget=args.budget)
    session.backtest = backtest
    print(f"backtest {backtest.id} · if it stops, resume with: {session.resume_hint()}", flush=True)
    return runner


async def run(args: argparse.Namespace, settings: Settings, session: _Session) -> int:
    settings = backtest_settings(settings)
    async with DeskRuntime.open(settings, vendor=WatchedVendor(make_vendor(settings))) as desk:
        print(desk.models.notice)  # the market data is in the plan's statement
        try:
            prepared = await _prepare(args, desk, session)
        except PlanRefused as refused:
            print(str(refused), file=sys.stderr)
            return 2
        if isinstance(prepared, int):
            return prepared
        runner = prepared
        shown = ProgressBar(sys.stderr)
        runner.on_day = shown.day
        shown.start(runner.progress)
        try:
            days = await runner.run()
        finally:
            shown.close()
        result = await score_async(runner.backtest, days, desk.vendor, rules=Rules(args.mode, args.cost_bps),
                                   risk_free_rate=args.risk_free)
    print()
    print(result.table.markdown())
    markdown, daily = result.write(Path(args.out) if args.out else Path("backtests"))
    print(f"Written: {markdown} (the table, the rules, every day) and {daily} (daily positions and returns)")
    progress = runner.progress
    print(f"{progress.finished} of {progress.total} days decided or tried ({progress.kept} kept from before, "
          f"{progress.ran} run now, {progress.failed} failed) · {progress.tokens:,} tokens")
    if progress.stopped or result.failed:
        why = f"stopped at {progress.stopped}" if progress.stopped else f"{len(result.failed)} days failed"
        print(f"Incomplete ({why}); run the rest with: {session.resume_hint()}", file=sys.stderr)
        return 1
    return 0


def main(args: argparse.Namespace) -> int:
    session = _Session()
    try:
        return asyncio.run(run(args, Settings(), session))
    except KeyboardInterrupt:
        hint = f" Finished days are kept; go on with: {session.resume_hint()}" if session.backtest else ""
        print(f"\nstopped.{hint}", file=sys.stderr)
        return 130
    except asyncio.CancelledError:  # only a lease's keeper cancels: this process lost the backtest's lease
        print(f"\nstopped: this process lost the backtest's lease, so another may be running it. When it is "
              f"over: {session.resume_hint()}", file=sys.stderr)
        return 1
    except LeaseHeld:
        print(f"\nbacktest {args.resume or ''} is running in another process; wait for it to end.", file=sys.stderr)
        return 1
    except Exception as exc:
        hint = f"\nFinished days are kept; go on with: {session.resume_hint()}" if session.backtest else ""
        print(f"\nerror: {explain(exc)}{hint}", file=sys.stderr)
        return 1
