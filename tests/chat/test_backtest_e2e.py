"""A backtest asked in the chat, over the real server's socket (issue 23): the plan stated with Run and Cancel,
progress updated in place, Table 1 with a chart per ticker and the exports, each day's thread opened from its
link; refused plans said back; stop and resume keeping finished days; another user kept out."""
from __future__ import annotations

import re

import httpx
import pytest
import socketio

from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, actions, desk_texts

pytestmark = pytest.mark.e2e

WINDOW = "2024-01-02 to 2024-01-05"  # 4 NYSE sessions: seconds in demo mode


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # The demo at full speed (a pace set on purpose is kept for backtests too), and a low cap on runs. One server
    # for the module's tests but the one that needs another pace: each test has its own user.
    server = Server(tmp_path_factory.mktemp("backtest-e2e"), DESK_DEMO_DELAY_MS="0", DESK_BACKTEST_MAX_RUNS="12")
    server.start()
    yield server
    server.stop()


async def said(client: DeskClient, pattern: str, timeout: float = 60) -> str:
    """The first Desk message matching `pattern` (a regex), waiting for it."""
    found = re.compile(pattern, re.S)
    return await client.wait_for(lambda: next((t for t in desk_texts(client) if found.search(t)), None), timeout,
                                 f"a Desk message matching {pattern!r}")


async def plan_offered(client: DeskClient, text: str) -> dict:
    """Ask, and the Run button of the plan stated."""
    before, cancels = len(actions(client, "backtest_run")), len(actions(client, "backtest_cancel"))
    await client.send(text)
    # Chainlit sends a message's actions one event each after the message: wait for both buttons.
    await client.wait_for(lambda: len(actions(client, "backtest_run")) > before
                          and len(actions(client, "backtest_cancel")) > cancels, 30, f"the plan for {text!r}")
    return actions(client, "backtest_run")[-1]


def backtest_id(client: DeskClient) -> str:
    for text in desk_texts(client):
        if m := re.search(r"\*\*Backtest ([0-9a-f]{8})\*\*", text):
            return m[1]
    raise AssertionError("no backtest id shown")


async def test_ask_run_progress_result_and_day_threads(server):
    alice = DeskClient(server.base, username="alice")
    await alice.connect()
    try:
        run = await plan_offered(alice, f"backtest NVDA {WINDOW}")
        plan = await said(alice, "Backtest plan:")
        assert "4 trading days" in plan and "model calls" in plan and "synthetic" in plan
        assert actions(alice, "backtest_cancel"), "Cancel is offered beside Run"

        await alice.click(run)
        done = await said(alice, r"Backtest \*\*[0-9a-f]{8}\*\* done", 120)
        bt = backtest_id(alice)
        assert "(0 kept from before, 4 run now, 0 failed)" in done
        # Table 1: the strategies as rows, the ticker's four columns, labelled synthetic in demo mode.
        assert "| Strategy | NVDA CR% | NVDA ARR% | NVDA SR% | NVDA MDD% |".replace(" SR%", " SR") in done
        assert "| B&H |" in done and "(synthetic)" in done
        # A strategy's row, the reason its simulation gives beside it where there is one
        # (chat/features/backtests.py why_row).
        assert re.search(r"\| MACD( — \*[^|]+\*)? \|", done) and re.search(r"\| Trading Desk( — \*[^|]+\*)? \|", done)
        assert "**The baselines' rules**" in done and "- **KDJ&RSI**: KDJ(9, 3, 3) with RSI(14)" in done

        # Progress: one message, updated in place, with the days as they landed.
        progress = next(m for m in alice.by_author("Desk") if f"**Backtest {bt}**" in m.get("output", ""))
        updates = [d for e, d in alice.events if e == "update_message" and d.get("id") == progress["id"]]
        assert updates and len(updates) < 20, "throttled"
        assert "4/4 days" in progress["output"]
        assert re.search(r"NVDA 2024-01-0[2-5] (BUY|SELL|HOLD)", progress["output"])

        # Chainlit sends a message's elements after the message itself: wait for them.
        def shown() -> set[str] | None:
            elements = [d for e, d in alice.events if e == "element"]
            names = {str(e.get("name")) for e in elements}
            charts = [e for e in elements if e.get("type") == "plotly" and "NVDA" in e.get("name", "")]
            return names if charts and {f"backtest-{bt}-daily.csv", f"backtest-{bt}.md"} <= names else None

        names = await alice.wait_for(shown, 30, "the chart and the exports")
        assert f"backtest-{bt}.md" in names and f"backtest-{bt}-daily.csv" in names

        links = await said(alice, "opens as its own thread")
        link = f"/backtest/{bt}/NVDA/2024-01-03"
        assert "[03\u00a0" in links and f"({link} \"NVDA 2024-01-03 " in links  # under **January 2024**
        assert "- **January 2024** [02\u00a0" in links

        # The link opens the day as the user's own thread, told from its checkpoint: the debate and the card.
        async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": alice.cookie}) as http:
            r = await http.get(link)
        assert r.status_code == 303
        day_thread = f"bt-{bt}-NVDA-20240103"
        assert r.headers["location"].endswith(f"/thread/{day_thread}")
        day = DeskClient(server.base, username="alice")
        await day.connect(thread_id=day_thread, cookie=alice.cookie)
        try:
            await day.wait_for(lambda: day.by_author("Bull Researcher") and day.by_author("Risk Judge"), 30,
                               "the day's debate")
            card = await said(day, r"## \S+ (BUY|SELL|HOLD) NVDA · 2024-01-03")
            assert card
        finally:
            await day.close()

        # Another user: the link is not found, the thread refused, the backtest id unknown.
        bob = DeskClient(server.base, username="bob")
        await bob.connect()
        try:
            async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": bob.cookie}) as http:
                assert (await http.get(link)).status_code == 404
                assert (await http.get(f"/backtest/{bt}/NVDA/2024-01-04")).status_code == 404
            intruder = DeskClient(server.base, username="bob")
            with pytest.raises(socketio.exceptions.ConnectionError):
                await intruder.connect(thread_id=day_thread, cookie=bob.cookie)
            await bob.send(f"resume backtest {bt}")
            await said(bob, f"You have no backtest {bt}")
            assert not actions(bob, "backtest_run")
        finally:
            await bob.close()
    finally:
        await alice.close()


REFUSED = [
    ("backtest NVDA 2024-03-01 to 2024-01-02", "The window is reversed"),
    ("backtest NVDA from January to March 2099", "is in the future"),
    ("backtest ZZZQX 2024-01-02 to 2024-01-05", "Unknown ticker ZZZQX"),
    ("backtest NVDA 2024-01-02 to 2024-03-28", "more than a backtest may run"),  # DESK_BACKTEST_MAX_RUNS=12
    ("backtest from January to March 2024", "Which tickers should I backtest"),
    ("backtest NVDA 2024-01-02 to 2024-01-05 with a budget of 1000 tokens", "more than the budget of 1,000"),
]


@pytest.mark.parametrize(("ask", "answer"), REFUSED)
async def test_refused_plans_are_said_back(server, ask, answer):
    client = DeskClient(server.base, username=f"refused-{REFUSED.index((ask, answer))}")  # a user per ask
    await client.connect()
    try:
        await client.send(ask)
        await said(client, re.escape(answer), 30)
        assert not actions(client, "backtest_run"), "nothing to run"
    finally:
        await client.close()


async def test_chinese_ask_gets_chinese_words(server):
    client = DeskClient(server.base, username="mei")
    await client.connect()
    try:
        run = await plan_offered(client, "回测英伟达 2024-01-02 至 2024-01-03")
        assert run["label"] == "运行"
        await said(client, "这是回测计划")
        await client.click(actions(client, "backtest_cancel")[-1])
        await said(client, "已取消")
    finally:
        await client.close()


async def test_stop_then_resume_keeps_finished_days(tmp_path):
    # One day at a time, at the demo's paced speed, so there is time to stop half-way.
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="3", DESK_BACKTEST_CONCURRENCY="1")
    server.start()
    client = DeskClient(server.base)
    try:
        await client.connect()
        await client.click(await plan_offered(client, "backtest NVDA 2024-01-02 to 2024-01-09"))  # 6 sessions
        await said(client, r"[1-5]/6 days", 120)  # a day or more has landed
        await client.send("/stop")
        stopped = await said(client, r"Stopped backtest \*\*[0-9a-f]{8}\*\*: \d of 6 days are done and kept", 60)
        bt = backtest_id(client)
        kept = int(re.search(r"(\d) of 6 days are done", stopped)[1])
        assert 1 <= kept < 6 and f"resume backtest {bt}" in stopped

        run = await plan_offered(client, f"resume backtest {bt}")
        assert f"{kept} already done (kept, not run again); {6 - kept} to run" in await said(client, "already done")
        await client.click(run)
        done = await said(client, rf"Backtest \*\*{bt}\*\* done", 180)
        # Every day is in the result once, and only the days left were run again.
        assert f"6 of 6 days ({kept} kept from before, {6 - kept} run now, 0 failed)" in done
    finally:
        await client.close()
        server.stop()
