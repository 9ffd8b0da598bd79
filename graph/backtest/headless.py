"""`python -m graph backtest …`: the plan stated, confirmed, the days run with a progress bar on stderr, then
Table 1 on stdout and its two exports in a folder. graph/cli.py reads the arguments; this is the flow.

With `--server URL` (or DESK_BACKTEST_SERVER) the days are deliberated on that LangGraph Server as the account
DESK_SERVER_USER (or --server-user; DESK_SERVER_PASSWORD, else asked at the terminal): graph/backtest/server_days.py.
The plan, the records and the scoring stay here.

Exit codes: 0 every day decided; 1 the table was made but some days failed or were left to run (the budget),
or the run stopped (resume it); 2 nothing ran: a plan refused, no confirmation, an unknown backtest id; 130
(Ctrl-C) or 143 (SIGTERM, graph/core/stopping.py): stopped, its leases released, finished days kept.
"""
from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

from ..core import stopping
from ..core.errors import explain
from ..core.settings import Settings
from ..data import make_vendor
from ..persistence.lease import LeaseHeld
from ..runtime.desk import DeskRuntime
from .flow import backtest_settings, confirmed, prepare_new, prepare_resume, scored
from .plan import PlanRefused
from .progress import ProgressBar
from .record import Backtest
from .runner import Days, Runner
from .server_days import ServerAccount, account_from, server_days
from .simulate import Rules
from .watch import WatchedVendor


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


def server_account(args: argparse.Namespace, settings: Settings) -> ServerAccount | None:
    """The server the days run on and its account (None: in process). The password is never an argument
    (a command line is visible to every user of the machine): the setting, or asked at the terminal."""
    url = settings.backtest_server if args.server is None else args.server
    if not url:
        return None
    user = args.server_user or settings.backtest_server_user or args.user
    password = settings.backtest_server_password.get_secret_value() if settings.backtest_server_password else None
    if password is None and sys.stdin.isatty():
        password = getpass.getpass(f"Password of {user} on {url}: ")
    if password is None:
        raise ValueError("set DESK_SERVER_PASSWORD to the password of the server's account "
                         f"{user!r} (or run at a terminal to be asked)")
    return account_from(settings, url=url, user=user, password=password)


async def _prepare(args: argparse.Namespace, desk: DeskRuntime, session: _Session,
                   days: Days | None = None) -> Runner | int:
    """The plan (new, or the stored one of --resume ID) stated, checked against the budget and confirmed;
    the runner to run it, or the exit code when nothing is to run."""
    concurrency = args.concurrency or desk.settings.backtest_concurrency
    if args.resume:
        prepared = await prepare_resume(desk, args.user, args.resume, budget=args.budget, concurrency=concurrency,
                                        days=days)
        if prepared is None:
            print(f"No backtest {args.resume} for user {args.user}.", file=sys.stderr)
            return 2
    else:
        prepared = await prepare_new(desk, args.tickers, args.start, args.end, every=args.every,
                                     analysts=args.analysts, debate_rounds=args.debate_rounds,
                                     risk_rounds=args.risk_rounds, today=args.today, budget=args.budget,
                                     concurrency=concurrency)
    print(prepared.statement())
    prepared.check_budget()
    if prepared.to_run and (ok := _confirmed(args.yes)) is not True:
        if ok is None:
            print("Not started: there is no terminal to confirm on. Add --yes to run the plan above.", file=sys.stderr)
        else:
            print("Not started.", file=sys.stderr)
        return 2
    runner = await confirmed(desk, args.user, prepared, days)  # a new backtest is stored only now
    session.backtest = runner.backtest
    print(f"backtest {runner.backtest.id} · if it stops, resume with: {session.resume_hint()}", flush=True)
    return runner


async def run(args: argparse.Namespace, settings: Settings, session: _Session) -> int:
    settings = backtest_settings(settings)
    account = server_account(args, settings)
    async with AsyncExitStack() as stack:
        where = await stack.enter_async_context(server_days(account)) if account else None
        desk = await stack.enter_async_context(DeskRuntime.open(settings, vendor=WatchedVendor(make_vendor(settings))))
        # On a server, the server's model and pace deliberate; this desk plans, keeps the records and scores.
        print(f"days on {account.url} as {account.user} (the server's model)" if account else desk.models.notice)
        try:
            prepared = await _prepare(args, desk, session, where)
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
        result = await scored(runner, days, rules=Rules(args.mode, args.cost_bps), risk_free_rate=args.risk_free)
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
        return stopping.run(run(args, Settings(), session))  # SIGTERM stops it as Ctrl-C does
    except KeyboardInterrupt as stopped:
        hint = f" Finished days are kept; go on with: {session.resume_hint()}" if session.backtest else ""
        print(f"\nstopped.{hint}", file=sys.stderr)
        return stopping.exit_code(stopped)
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
