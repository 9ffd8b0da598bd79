"""Watches in the chat, over the real server's socket (issue 26, points 3-6): a watch asked in words is stated
with Save and Cancel, `/watch` lists, pauses, resumes and removes it (the server's jobs follow); refusals are
said back and store nothing; a slot the server runs is a thread in its user's sidebar, marked scheduled, told
from its checkpoint when opened; a changed call is a notice at the top of the next new chat (with a link to
the thread, shown once) and one signed post to the webhook; another user sees none of it.

No test sleeps until a slot: a watch is written into the Store before the server starts, made days ago, so
the server's catch-up at startup runs its latest due slot with the real clock."""
from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import socketio
from aiohttp import web

from benchmarks.support.ports import free_port
from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.track.calls import Call
from graph.track.log import DecisionLog
from graph.watchlist.rules import Rule
from graph.watchlist.scheduler import JOBS_TABLE, WatchDesk
from graph.watchlist.store import MAX_WATCHES, WatchStore
from graph.watchlist.webhook import SIGNATURE, signature
from tests.support.chat_server import Server
from tests.support.loopback import Loopback
from tests.support.socket_client import DeskClient, actions, desk_texts, said

pytestmark = pytest.mark.e2e

SECRET = "whsec-never-in-the-log"


async def answer(client: DeskClient, text: str, pattern: str) -> str:
    """Send `text`; the Desk's answer matching `pattern`, said after it. A person types a message every few
    seconds and the door refuses a faster sender (chat/web/rates.py, a toast): sent again once it lets it."""
    since = len(desk_texts(client))
    for _ in range(3):
        toasts = sum(1 for event, _ in client.events if event == "toast")
        await client.send(text)
        refused = await client.until(lambda: sum(1 for event, _ in client.events if event == "toast") > toasts
                                     or len(desk_texts(client)) > since, 10)
        if refused and len(desk_texts(client)) == since:
            await asyncio.sleep(2.5)  # the bucket refills one message every two seconds
            continue
        break
    return await said(client, pattern, since=since)


async def offered(client: DeskClient, text: str, pattern: str = "Nothing is stored") -> tuple[str, dict, dict]:
    """Ask for a watch: the statement, and its Save and Cancel buttons (sent just after it)."""
    before = len(actions(client, "watch_cancel"))
    stated = await answer(client, text, pattern)
    await client.wait_for(lambda: len(actions(client, "watch_cancel")) > before, 10, "Save and Cancel")
    return stated, actions(client, "watch_save")[-1], actions(client, "watch_cancel")[-1]


def jobs(data_dir: Path) -> list[str]:
    """The scheduler's jobs as stored in its table (graph/watchlist/scheduler.py)."""
    with sqlite3.connect(data_dir / "schedules.sqlite") as db:
        return sorted(row[0] for row in db.execute(f"SELECT id FROM {JOBS_TABLE}") if row[0] != "watch:sync")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # One server for the tests that seed nothing: each has its own users, and only alice ever saves a watch
    # (the refusals store nothing, which they check), so the scheduler's jobs below are hers alone.
    server = Server(tmp_path_factory.mktemp("watch-e2e"), DESK_DEMO_DELAY_MS="0")
    server.start()
    yield server
    server.stop()


async def test_ask_save_list_pause_resume_remove(server):
    alice, bob = DeskClient(server.base, username="alice"), DeskClient(server.base, username="bob")
    tmp_path = server.data_dir
    await alice.connect()
    await bob.connect()
    try:
        stated, save, _ = await offered(alice, "watch NVDA and AMD every trading day after the close")
        assert "Watch **NVDA, AMD** every trading day at 16:30 New York time" in stated
        assert "a full deliberation per ticker" in stated and "track record" in stated
        assert re.search(r"First run: \w+day \d{4}-\d\d-\d\d, 16:30 New York time", stated)
        assert jobs(tmp_path) == []  # nothing stored before Save
        await alice.click(save)
        saved = await said(alice, "Saved as watch 1")
        assert "**NVDA, AMD** every trading day at 16:30 New York time" in saved
        assert len(jobs(tmp_path)) == 1  # the scheduler took it at once

        listed = await answer(alice, "/watch", "Your watches")
        assert "1. **NVDA, AMD** · every trading day at 16:30 New York time · active · not run yet" in listed
        assert "You have no watches" in await answer(bob, "/watch", "watches")  # alice's is hers alone
        assert "You have no watch 1" in await answer(bob, "/watch pause 1", "watch 1")

        assert "Paused watch 1 (**NVDA, AMD**)" in await answer(alice, "/watch pause 1", "Paused")
        assert "· ⏸ paused ·" in await answer(alice, "/watch", "Your watches")
        assert jobs(tmp_path) == []  # a paused watch has no job
        assert "Resumed watch 1" in await answer(alice, "/watch resume 1", "Resumed")
        assert "· active ·" in await answer(alice, "/watch", "Your watches")
        assert len(jobs(tmp_path)) == 1

        # A second watch, weekly, in Chinese; cancelled first, then saved.
        stated, save, cancel = await offered(alice, "每周一早上关注 苹果", "保存")
        assert "关注 **AAPL**，每星期一纽约时间 09:00" in stated and save["label"] == "保存"
        await alice.click(cancel)
        await said(alice, "已取消")
        stated, save, _ = await offered(alice, "check my whole book every Monday morning")
        assert "Watch **your whole book** every Monday at 09:00 New York time" in stated
        await alice.click(save)
        await said(alice, "Saved as watch 2")
        # A second press of the same Save: gone, nothing saved twice.
        await alice.click(save)
        await said(alice, "no longer on offer")

        assert "You have no watch 7" in await answer(alice, "/watch remove 7", "watch 7")
        assert "Which watch?" in await answer(alice, "/watch remove", "Which watch")
        removed = await answer(alice, "/watch remove 1", "Removed watch 1")
        assert "(**NVDA, AMD**)" in removed
        listed = await answer(alice, "/watch", "Your watches")
        assert "1. **your whole book** · every Monday at 09:00 New York time" in listed and "NVDA" not in listed
        assert len(jobs(tmp_path)) == 1
    finally:
        await alice.close()
        await bob.close()


REFUSALS = [
    ("watch NVDA every hour", "at most once a trading day"),
    ("watch NVDA every Saturday", "closed on weekends"),
    ("watch NVDA on 2024-01-05", "2024-01-05 has passed"),
    ("watch " + " ".join(["NVDA", "AMD", "AAPL", "MSFT", "GOOGL", "AMZN", "META", "TSLA", "NFLX", "INTC", "ORCL",
                          "IBM", "CSCO", "ADBE", "QCOM", "TXN", "AVGO", "JPM", "PYPL", "UBER", "WMT", "KO"])
     + " every trading day", "at most 20 tickers"),
    ("每小时关注英伟达", "每个交易日最多运行一次"),
]


@pytest.mark.parametrize(("ask", "refusal"), REFUSALS)
async def test_refused_watches_are_said_back_and_store_nothing(server, ask, refusal):
    client = DeskClient(server.base, username=f"refused-{REFUSALS.index((ask, refusal))}")  # a user per ask
    await client.connect()
    try:
        await answer(client, ask, re.escape(refusal))
        assert not actions(client, "watch_save")
        assert "You have no watches" in await answer(client, "/watch", "watches")
    finally:
        await client.close()


async def test_more_watches_than_the_cap_is_refused_and_keeps_the_others(tmp_path):
    settings = Settings(data_dir=tmp_path)
    async with DeskRuntime.open(settings) as desk:
        store = WatchStore(desk.store)
        for i in range(MAX_WATCHES):
            await store.add("carol", (f"T{i}",), Rule())
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="0", DESK_WATCH="off")
    server.start()
    carol = DeskClient(server.base, username="carol")
    try:
        await carol.connect()
        _, save, _ = await offered(carol, "watch NVDA every trading day")
        await carol.click(save)
        await said(carol, f"You have {MAX_WATCHES} watches, the most one may keep: nothing was saved")
        listed = await answer(carol, "/watch", "Your watches")
        assert f"{MAX_WATCHES}. **T{MAX_WATCHES - 1}**" in listed and "NVDA" not in listed
    finally:
        await carol.close()
        server.stop()


@pytest.fixture
async def receiver(loopback: Loopback) -> dict:
    """A webhook receiver on loopback, in this process: the server posts to it."""
    seen: dict = {"posts": [], "url": ""}

    async def take(request: web.Request) -> web.Response:
        seen["posts"].append((await request.read(), request.headers.get(SIGNATURE, "")))
        return web.Response(status=200)

    seen["url"] = await loopback.serve("/hooks/alice-token-42", take)
    return seen


async def seed_scheduled(data_dir: Path, user: str = "alice") -> tuple[str, str, str]:
    """The user's watch on NVDA, made ten days ago and never run (the server's catch-up runs its latest slot), and
    an earlier call of theirs on NVDA with another signal than the desk will decide at that slot (learned on a
    throwaway desk), so the run gives a notice. Returns the earlier signal, the new one and the slot's thread."""
    made = datetime.now(UTC) - timedelta(days=10)
    fast = {"demo_delay_ms": 0, "demo_first_token_ms": 0}
    async with DeskRuntime.open(Settings(data_dir=data_dir / "probe", **fast)) as probe:
        scout = await WatchStore(probe.store).add(user, ("NVDA",), Rule(), now=made)
        [ran] = await WatchDesk(probe).check(user, scout.id, datetime.now(UTC))
    assert ran.decision is not None
    before = "SELL" if ran.decision.signal != "SELL" else "BUY"
    async with DeskRuntime.open(Settings(data_dir=data_dir, **fast)) as desk:
        watch = await WatchStore(desk.store).add(user, ("NVDA",), Rule(), now=made)
        await DecisionLog(desk.store).save(Call(id="earlier:1", user=user, thread_id="earlier", ticker="NVDA",
                                                trade_date=(made + timedelta(days=1)).date().isoformat(),
                                                signal=before, stop="n/a"))
    return before, ran.decision.signal, ran.thread.replace(scout.id, watch.id)


async def request(base: str, method: str, path: str, cookie: str, **kwargs) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, headers={"Cookie": cookie}) as http:
        return await http.request(method, path, **kwargs)


async def test_a_scheduled_run_is_a_thread_a_notice_and_a_webhook_post_for_its_user_only(tmp_path, receiver):
    before, after, thread = await seed_scheduled(tmp_path)
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="0", DESK_WEBHOOK_URL=receiver["url"], DESK_WEBHOOK_SECRET=SECRET)
    server.start()
    alice, bob = DeskClient(server.base, username="alice"), DeskClient(server.base, username="bob")
    try:
        # The server ran the due slot at startup and posted the notice, signed.
        await alice.wait_for(lambda: receiver["posts"], 120, "the webhook's post")
        [(body, signed)] = receiver["posts"]
        posted = json.loads(body)
        assert posted["kind"] == "desk.notice" and posted["id"] == thread and posted["ticker"] == "NVDA"
        assert posted["reason"] == f"{before} → {after}" and signed == signature(body, SECRET)

        # A new chat of alice's: the notice at the top, a system message (the starters stay), with a link.
        await alice.connect()
        top = await alice.wait_for(lambda: next((m for m in alice.by_author("Desk") if "Since you were last here"
                                                 in m.get("output", "")), None), 30, "the notice")
        assert top["type"] == "system_message" and alice.by_author("Desk")[0] is top
        assert f"**NVDA**: {before} → {after}" in top["output"]
        assert re.search(r"\w+day \d{4}-\d\d-\d\d, 16:30 New York time", top["output"])
        assert f"(/thread/{thread})" in top["output"]

        # The thread is in alice's sidebar, named and marked scheduled.
        r = await request(server.base, "POST", "/project/threads", alice.cookie,
                          json={"pagination": {"first": 20}, "filter": {}})
        listed = {t["id"]: t for t in r.json()["data"]}
        assert thread in listed
        assert re.fullmatch(r"Scheduled · NVDA · \d{4}-\d\d-\d\d", listed[thread]["name"])
        metadata = listed[thread]["metadata"]
        metadata = json.loads(metadata) if isinstance(metadata, str) else metadata
        assert metadata["scheduled"]["ticker"] == "NVDA"

        # Opening it: the debate and the card, told from its checkpoint.
        opened = DeskClient(server.base, username="alice")
        await opened.connect(thread_id=thread, cookie=alice.cookie)
        try:
            await opened.wait_for(lambda: opened.by_author("Bull Researcher") and opened.by_author("Risk Judge"),
                                  30, "the scheduled run's debate")
            await said(opened, "Scheduled run of your watch on \\*\\*NVDA\\*\\*")
            await said(opened, rf"## \S+ {after} NVDA · \d{{4}}-\d\d-\d\d")
        finally:
            await opened.close()

        # The notice is shown once: the next new chat starts without it.
        again = DeskClient(server.base, username="alice")
        await again.connect(cookie=alice.cookie)
        try:
            await again.wait_for(lambda: again.by_author("Desk"), 30, "the start notice")
            assert not any("Since you were last here" in t for t in desk_texts(again))
        finally:
            await again.close()

        # bob: no watch, no notice, not the thread (neither its page nor its socket), no call of alice's.
        await bob.connect()
        await bob.wait_for(lambda: bob.by_author("Desk"), 30, "bob's start notice")
        assert not any("Since you were last here" in t for t in desk_texts(bob))
        assert "You have no watches" in await answer(bob, "/watch", "watches")
        r = await request(server.base, "POST", "/project/threads", bob.cookie,
                          json={"pagination": {"first": 20}, "filter": {}})
        assert thread not in {t["id"] for t in r.json()["data"]}
        assert (await request(server.base, "GET", f"/project/thread/{thread}", bob.cookie)).status_code in (401, 404)
        intruder = DeskClient(server.base, username="bob")
        with pytest.raises(socketio.exceptions.ConnectionError):
            await intruder.connect(thread_id=thread, cookie=bob.cookie)
        # Nor a scheduled thread of a slot yet to come: a page may never be the first to name one.
        future = re.sub(r"-\d{12}$", "-209901021630", thread)
        with pytest.raises(socketio.exceptions.ConnectionError):
            await DeskClient(server.base, username="bob").connect(thread_id=future, cookie=bob.cookie)

        log = server.log_text()
        assert SECRET not in log and "alice-token-42" not in log
    finally:
        await alice.close()
        await bob.close()
        server.stop()
    async with DeskRuntime.open(Settings(data_dir=tmp_path)) as desk:
        calls = await DecisionLog(desk.store).calls("alice", ticker="NVDA")
        assert [c.source for c in calls if c.thread_id == thread] == ["scheduled"]  # it fed alice's track record
        assert await DecisionLog(desk.store).calls("bob") == []
        [notice] = await WatchStore(desk.store).notices("alice")
        assert notice.seen and notice.posted


async def test_a_webhook_that_fails_loses_no_notice_and_says_so(tmp_path):
    before, after, thread = await seed_scheduled(tmp_path)
    closed = f"http://127.0.0.1:{free_port()}/hooks/alice-token-42"  # nothing listens: every try is refused
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="0", DESK_WEBHOOK_URL=closed, DESK_WEBHOOK_SECRET=SECRET)
    server.start()
    alice = DeskClient(server.base, username="alice")
    try:
        # Tried with back-off (1 s, 2 s, 4 s), then given up: the run's thread gets its row after that.
        await alice.wait_for(lambda: "(try 4)" in server.log_text(), 60, "the webhook's last try")
        await alice.connect()
        top = await said(alice, "Since you were last here")
        assert f"**NVDA**: {before} → {after}" in top and f"(/thread/{thread})" in top
        assert "the webhook did not take it" in top
        log = server.log_text()
        assert "webhook to 127.0.0.1: ConnectError (try 1)" in log
        assert SECRET not in log and "alice-token-42" not in log
    finally:
        await alice.close()
        server.stop()
