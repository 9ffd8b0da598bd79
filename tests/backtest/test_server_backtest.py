"""A backtest whose days run on LangGraph Server (issue 23, point 4): a real `langgraph dev` on a loopback port
(demo model, no pacing) serving the desk, the runner in this process or the CLI submitting each day as a
background run as alice (HTTP Basic, graph/server_auth.py).

The same demo backtest as in process, day for day; a runner stopped mid-way and resumed runs no finished day
again; the days' memory is the backtest's own under the authenticated user, which nobody reads through the
store API and another user cannot reach by naming the backtest (or alice) in a run's context.
"""
from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from langgraph.graph import StateGraph
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from typing_extensions import TypedDict

from graph.backtest.record import Day
from graph.backtest.runner import DayTask, Runner
from graph.backtest.server_days import ServerAccount, ServerDays
from graph.core.settings import Settings
from graph.data.synthetic import SyntheticVendor
from graph.data.vendor import VendorError
from graph.persistence.namespaces import user_label
from tests.backtest.conftest import Make, backtest_desk
from tests.support.env import demo_env
from tests.support.langgraph_dev import LangGraphDev

ROOT = Path(__file__).resolve().parents[2]
ACCOUNTS = {"alice": "alice's passphrase", "bob": "bob's passphrase"}
NO_PACE = {"DESK_DEMO_DELAY_MS": "0", "DESK_DEMO_FIRST_TOKEN_MS": "0"}
START, END = date(2024, 1, 2), date(2024, 1, 8)  # five sessions; every 2nd: the 2nd, 4th and 8th


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LangGraphDev]:
    dev = LangGraphDev(tmp_path_factory.mktemp("langgraph_dev"), ACCOUNTS, env=NO_PACE)
    try:
        dev.start()
        yield dev
    finally:
        dev.stop()


def account(server: LangGraphDev, name: str) -> ServerAccount:
    return ServerAccount(server.url, name, ACCOUNTS[name])


def sync_client(server: LangGraphDev, name: str) -> SyncLangGraphClient:
    return get_sync_client(url=server.url, api_key=None, headers=account(server, name).headers())


def status_of(call: Any) -> int:
    with pytest.raises(httpx.HTTPStatusError) as refused:
        call()
    return refused.value.response.status_code


# -- the CLI, end to end ---------------------------------------------------------------------------------

def backtest_cli(folder: Path, *more: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m graph backtest AAPL MSFT` over START…END every 2 days, its records in `folder`."""
    return subprocess.run(
        [sys.executable, "-m", "graph", "backtest", "AAPL", "MSFT", "--start", START.isoformat(), "--end",
         END.isoformat(), "--every", "2", "--today", "2024-06-28", "--yes", "--out", str(folder / "out"), *more],
        env=demo_env(DESK_DATA_DIR=str(folder / "data"), **NO_PACE, **env), cwd=ROOT, capture_output=True,
        text=True, timeout=600)


def desk_signals(done: subprocess.CompletedProcess[str]) -> dict[tuple[str, str], str]:
    """The desk's signal of each (ticker, day) it deliberated, from the daily CSV the CLI wrote."""
    daily = Path(re.search(r"and (\S+-daily\.csv)", done.stdout).group(1))  # type: ignore[union-attr]
    frame = pd.read_csv(daily)
    rows = frame[(frame.strategy == "Trading Desk") & frame.signal.notna()]
    return {(r.ticker, r.date): r.signal for r in rows.itertuples()}


@pytest.mark.e2e
def test_the_cli_runs_the_days_on_the_server_as_in_process(server: LangGraphDev, tmp_path: Path) -> None:
    password = ACCOUNTS["alice"]
    served = backtest_cli(tmp_path / "served", "--server", server.url, "--server-user", "alice",
                          DESK_SERVER_PASSWORD=password)
    assert served.returncode == 0, served.stderr
    assert "6 of 6 days decided or tried (0 kept from before, 6 run now, 0 failed)" in served.stdout
    assert "| Trading Desk |" in served.stdout and f"days on {server.url} as alice" in served.stdout
    assert password not in served.stdout + served.stderr
    here = backtest_cli(tmp_path / "here")
    assert here.returncode == 0, here.stderr
    # Day for day the same decisions: the same desk, the same data, the same memory (nothing settles in a week).
    assert desk_signals(served) == desk_signals(here) and len(desk_signals(here)) == 6

    # Each day is a thread of alice's on the server (named in the Markdown's days), bob's 404.
    markdown = Path(re.search(r"Written: (\S+\.md)", served.stdout).group(1)).read_text()  # type: ignore[union-attr]
    threads = re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", markdown)
    assert len(set(threads)) == 6
    alice, bob = sync_client(server, "alice"), sync_client(server, "bob")
    for thread in set(threads):
        assert alice.threads.get(thread)["metadata"]["owner"] == "alice"
        assert status_of(lambda t=thread: bob.threads.get(t)) == 404


@pytest.mark.e2e
def test_a_wrong_password_is_said_and_nothing_starts(server: LangGraphDev, tmp_path: Path) -> None:
    refused = backtest_cli(tmp_path, "--server", server.url, "--server-user", "alice",
                           DESK_SERVER_PASSWORD="not her passphrase")
    assert refused.returncode == 1 and f"{server.url} refused the account 'alice'" in refused.stderr
    assert "backtest " not in refused.stdout and "not her passphrase" not in refused.stdout + refused.stderr


def test_without_the_servers_password_nothing_starts(tmp_path: Path) -> None:
    refused = backtest_cli(tmp_path, "--server", "http://127.0.0.1:9", "--server-user", "alice")
    assert refused.returncode == 1 and "DESK_SERVER_PASSWORD" in refused.stderr
    assert "backtest " not in refused.stdout  # no plan stored


# -- resuming ----------------------------------------------------------------------------------------------

@pytest.mark.e2e
async def test_a_resumed_backtest_runs_no_finished_day_again(server: LangGraphDev, settings: Settings,
                                                              new_backtest: Make) -> None:
    desk = backtest_desk(settings)
    backtest = await new_backtest(desk, ["AAPL", "MSFT"], START, END, every=2)
    days = ServerDays(account(server, "alice"))
    first = Runner(desk, backtest, concurrency=2, days=days)
    running = asyncio.create_task(first.run())

    def stop_after_two(day: Day, progress: Any) -> None:
        if progress.ran == 2:
            running.cancel()  # as a Ctrl-C: the days in flight go on on the server

    first.on_day = stop_after_two
    with pytest.raises(asyncio.CancelledError):
        await running
    assert first.progress.ran == 2

    second = Runner(desk, backtest, concurrency=2, days=days)
    finished = await second.run()
    assert [d.status for d in finished.values()] == ["done"] * 6
    assert second.progress.kept >= 2 and second.progress.kept + second.progress.ran == 6
    alice = sync_client(server, "alice")
    for day in finished.values():  # one run each: none begun again, those in flight joined
        assert len(alice.runs.list(day.thread)) == 1, day
    await days.aclose()


# -- memory: the backtest's own, under the authenticated user ------------------------------------------------

@pytest.mark.e2e
async def test_the_days_memory_is_the_backtests_own_under_the_authenticated_user(
        server: LangGraphDev, settings: Settings, new_backtest: Make) -> None:
    desk = backtest_desk(settings)
    # Every 30 sessions, one at a time: the first day's call (2-6 weeks) settles on the second day.
    backtest = await new_backtest(desk, ["AAPL"], date(2024, 1, 2), date(2024, 4, 30), every=30)
    days = ServerDays(account(server, "alice"))
    runner = Runner(desk, backtest, concurrency=1, days=days)
    first, second, _ = (await runner.run()).values()
    recalled = (await days.state(second.thread))["track_record"]["same"]
    assert [c["id"] for c in recalled] == [f"{first.thread}:0"]  # learnt from its own backtest, on the server

    alice, bob = sync_client(server, "alice"), sync_client(server, "bob")
    # alice's own record is not the backtest's
    record = alice.runs.wait(alice.threads.create()["thread_id"], "desk",
                             input={"messages": [{"role": "user", "content": "/record"}]})
    assert isinstance(record, dict) and "No calls are logged yet" in record["messages"][-1]["content"]
    # bob naming alice's backtest (and alice) in a run's context gets his own, empty, memory
    thread = bob.threads.create()["thread_id"]
    values = bob.runs.wait(thread, "desk",
                           input={"messages": [{"role": "user", "content": "analyze $AAPL on 2024-02-14"}]},
                           context={"today": "2024-02-14", "backtest": backtest.id, "user": "alice"})
    assert isinstance(values, dict) and values["final_decision"] is not None and values["track_record"]["same"] == []
    # nobody reads a backtest's record through the store API, not even its user; only its user deletes from it
    space = ["track", user_label(f"alice/backtest/{backtest.id}")]
    for client in (alice, bob):
        assert status_of(lambda c=client: c.store.search_items(space)) == 403
        assert status_of(lambda c=client: c.store.get_item(space, f"{first.thread}:0")) == 403
        assert status_of(lambda c=client: c.store.put_item(space, "planted", {"signal": "BUY"})) == 403
    assert status_of(lambda: bob.store.delete_item(space, f"{first.thread}:0")) == 403
    assert status_of(lambda: alice.store.delete_item(["track", "alice"], "any")) == 403

    # forget (a day decided on missing data): the next day, begun again, recalls nothing of it
    await days.forget(backtest, first.thread)
    task = DayTask("AAPL", date.fromisoformat(second.day), second.thread, 1)
    state, failures = await days.deliberate(backtest, task, runner.run_plan, fresh=True)
    assert failures == [] and state["final_decision"].signal in ("BUY", "SELL", "HOLD")
    assert state["track_record"]["same"] == []
    await days.aclose()


# -- the server's vendor tells its failures on the run's stream --------------------------------------------

class NoNews(SyntheticVendor):
    def news(self, ticker: str, start: date, end: date) -> list:
        raise VendorError("rate limited")


async def test_the_servers_vendor_sends_each_failure_on_the_custom_stream() -> None:
    """From the worker thread the tools call the vendor in, as graph/server.py's vendor is called."""
    from graph.server import ReportingVendor  # builds the served graph on import: only for this test

    vendor = ReportingVendor(NoNews())

    class State(TypedDict, total=False):
        done: bool

    async def fetch(state: State) -> State:
        with pytest.raises(VendorError):
            await asyncio.to_thread(vendor.news, "AAPL", date(2024, 1, 2), date(2024, 1, 3))
        return {"done": True}

    graph = StateGraph(State).add_node("fetch", fetch).set_entry_point("fetch").compile()
    sent = [chunk async for chunk in graph.astream({}, stream_mode="custom")]
    assert sent == [{"event": "vendor_failed", "what": "news of AAPL", "reason": "rate limited"}]
    with pytest.raises(VendorError):  # outside a run (the settlement pass at start): no stream, raised as it was
        vendor.news("AAPL", date(2024, 1, 2), date(2024, 1, 3))
