"""The track record outlives processes: two processes settling the same calls at once score each
once, a restart loses nothing, the CLI logs and prints the record, and a server's runtime settles
in the background at start."""
from __future__ import annotations

import subprocess
import sys
from datetime import date
from pathlib import Path

from graph.core.settings import Settings
from graph.persistence.store import open_sqlite_store
from graph.runtime.desk import DeskRuntime
from graph.track.calls import Call
from graph.track.log import DecisionLog
from tests.support.cli import run_cli
from tests.support.env import demo_env

ROOT = Path(__file__).resolve().parents[2]
TODAY = date(2024, 7, 1)
CALLS = 24

# One process's settlement pass over the store file (argv: store path, user, today).
SETTLE = """
import asyncio, sys
from pathlib import Path
from datetime import date
from graph.core.settings import Settings
from graph.data.synthetic import SyntheticVendor
from graph.models.registry import ModelRegistry
from graph.persistence.store import open_sqlite_store
from graph.track.keeper import TrackRecord

async def main():
    async with open_sqlite_store(Path(sys.argv[1])) as store:
        track = TrackRecord(store, SyntheticVendor(), ModelRegistry(Settings()))
        calls = await track.settle_due(sys.argv[2], date.fromisoformat(sys.argv[3]))
        print(sum(v["outcome"] is not None for v in calls))

asyncio.run(main())
"""


def pending_calls(n: int) -> list[Call]:
    days = [f"2024-03-{d:02d}" for d in (1, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 18, 19, 20, 21, 22, 25, 26, 27, 28)]
    return [Call(id=f"t{i}:0", user="alice", thread_id=f"t{i}", ticker=("NVDA", "AAPL", "MSFT")[i % 3],
                 trade_date=days[i % len(days)], signal=("BUY", "SELL", "HOLD")[i % 3], horizon="5 days",
                 stop="", recorded_at=f"2024-03-01T00:00:{i:02d}") for i in range(n)]


async def test_two_processes_settling_at_once_score_each_call_once(tmp_path):
    path = tmp_path / "store.sqlite"
    async with open_sqlite_store(path) as store:
        await DecisionLog(store).save_all(pending_calls(CALLS))
    env = demo_env(DESK_DATA_DIR=str(tmp_path / "data"))
    procs = [subprocess.Popen([sys.executable, "-c", SETTLE, str(path), "alice", TODAY.isoformat()], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert [o.strip() for o, _ in outs] == [str(CALLS)] * 2
    async with open_sqlite_store(path) as store:
        calls = await DecisionLog(store).calls("alice")
        items = await store.asearch(DecisionLog.namespace("alice"), limit=1000)
    assert len(items) == CALLS and len({c.id for c in calls}) == CALLS  # one record per call, none doubled
    assert all(c.outcome is not None and c.outcome.reflection for c in calls)
    # Scored from the same closes: a second pass changes no figure.
    async with open_sqlite_store(path) as store:
        again = await DecisionLog(store).calls("alice")
    assert [c.outcome for c in again] == [c.outcome for c in calls]


async def test_a_restart_loses_nothing_and_the_start_settles_in_the_background(tmp_path):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    async with DeskRuntime.open(settings) as desk:
        await desk.track.log.save_all(pending_calls(3))
    async with DeskRuntime.open(settings) as desk:
        before = await desk.track.log.calls("alice")
        assert [c.settled for c in before] == [False] * 3
        assert await desk.start_settling(TODAY) == 1  # users settled
        after = await desk.track.log.calls("alice")
    assert [c.id for c in after] == [c.id for c in before] and all(c.settled for c in after)


def test_the_cli_logs_its_decision_and_prints_the_record(tmp_path):
    # `python -m graph …` in this process (tests/support/cli.py): each call opens the data folder afresh.
    analysis = run_cli(tmp_path, "should I buy NVDA on 2024-03-01?", "--today", "2024-06-10",
                       "--analysts", "market", "--debate-rounds", "1", "--risk-rounds", "1", "--quiet-tools")
    assert analysis.returncode == 0, analysis.stderr
    assert "▶ Track record" in analysis.stdout and "starts from nothing" in analysis.stdout
    record = run_cli(tmp_path, "--record", "--today", "2024-06-10")
    assert record.returncode == 0, record.stderr
    assert "| 2024-03-01 | NVDA |" in record.stdout and ("| right |" in record.stdout or "| wrong |" in record.stdout)
    other = run_cli(tmp_path, "--record", "--user", "bob")
    assert "No calls are logged yet" in other.stdout
    refused = run_cli(tmp_path, "--ticker", "NVDA", "hi")
    assert refused.returncode == 2 and "--ticker goes with --record" in refused.stderr


# A demo analysis through DeskRuntime on SQLite that dies (os._exit: no close, no cleanup) the moment the
# Risk Judge's step is reported done (argv: data dir).
DIES_AFTER_THE_JUDGE = """
import asyncio, os, sys
from datetime import date
from pathlib import Path
from graph.core.events import NodeDone
from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime

async def main():
    settings = Settings(DESK_DATA_DIR=Path(sys.argv[1]), DESK_DEMO_DELAY_MS=0, DESK_DEMO_FIRST_TOKEN_MS=0)
    async with DeskRuntime.open(settings) as desk:
        plan = desk.plan(analysts=["market"], debate_rounds=1, risk_rounds=1)
        async with desk.turn("t-crash", "should I buy NVDA on 2024-05-01?", plan) as turn:
            async for ev in turn.events(desk.context(today=date(2024, 7, 1), user="alice", source="cli")):
                if isinstance(ev, NodeDone) and ev.node == "risk_judge":
                    print(ev.update["final_decision"].signal, flush=True)
                    os._exit(0)

asyncio.run(main())
"""


async def test_the_judges_call_is_logged_before_its_step_is_done_and_survives_a_crash(tmp_path):
    # The judge's log write runs beside the rest of its step (graph/nodes/debate.py) but ends before the step
    # does: a process that dies as soon as the step is reported has the call in the log all the same.
    data = tmp_path / "data"
    done = subprocess.run([sys.executable, "-c", DIES_AFTER_THE_JUDGE, str(data)], cwd=ROOT, env=demo_env(),
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and done.stdout.strip() in ("BUY", "SELL", "HOLD"), done.stderr
    async with DeskRuntime.open(Settings(DESK_DATA_DIR=data, DESK_DEMO_DELAY_MS=0)) as desk:
        [call] = await desk.track.log.calls("alice")
    assert (call.id, call.thread_id, call.ticker, call.trade_date) == ("t-crash:0", "t-crash", "NVDA", "2024-05-01")
    # (The step's checkpoint may not have been written yet: then a resume runs the judge again, and its
    # call is written again under the same id.)
    assert call.signal == done.stdout.strip()
