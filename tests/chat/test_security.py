"""Leaks (issue #9), tried as an attacker would: the real server over its socket and HTTP API, bob
against alice. Alice runs an analysis that says what she holds; bob tries to read it through a SQL
fragment in a thread id, reopen her thread, take her message ids, rate her messages, fetch her files.
Plus the data layer's guards in process, and the modes of the files the app creates.
"""
from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import chainlit as cl
import pytest
import socketio
from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.types import Feedback, Pagination, ThreadFilter

from chat import history, storage
from chat.history.requester import REQUESTER
from chat.web import startup
from graph.core.private import private_dir, private_file, write_private
from tests.support.attacks import injection, list_threads, login_cookie, outputs, request
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished

SECRET = "I hold 300 NVDA at 412.50 in my IRA"


async def poll(fetch: Callable[[], Awaitable[Any]], ok: Callable[[Any], bool], timeout: float = 20.0,
               what: str = "condition") -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = await fetch()
        if ok(value):
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {value!r}"[:2000])
        await asyncio.sleep(0.2)


def db(server: Server, name: str = "chat.sqlite") -> sqlite3.Connection:
    conn = sqlite3.connect(server.data_dir / name, timeout=10)
    conn.row_factory = sqlite3.Row
    return conn


def count(conn: sqlite3.Connection, query: str, *args: Any) -> int:
    return conn.execute(query, args).fetchone()[0]


# -- the real server --------------------------------------------------------------------------------

@dataclass
class Analysis:
    thread_id: str
    message_id: str           # alice's own message, the one that says what she holds
    judge_id: str             # the Risk Judge's message
    step_ids: set[str]
    files: list[str]          # URLs of the chart and the report
    cookie: str


async def analyse(server: Server, text: str, interject: str | None = None) -> Analysis:
    alice = DeskClient(server.base, "alice", "desk")
    await alice.connect()
    try:
        await alice.send(text)
        if interject:
            await alice.wait_for(lambda: alice.by_author("Market Analyst"), 60, "the analysts")
            await alice.send(interject)
        await alice.wait_for(lambda: runs_finished(alice) >= 1, 120, "alice's analysis")
        thread_id = alice.thread_id
        assert thread_id
    finally:
        await alice.close()

    async def thread() -> dict:
        r = await request(server.base, "GET", f"/project/thread/{thread_id}", alice.cookie)
        return r.json() if r.status_code == 200 else {}

    stored = await poll(thread, lambda t: len(t.get("elements") or []) >= 2
                        and any(s["name"] == "Risk Judge" and s["output"] for s in t["steps"])
                        and any(text in (s["output"] or "") for s in t["steps"]), what="alice's thread stored")
    steps = stored["steps"]
    return Analysis(thread_id, next(s["id"] for s in steps if s["type"] == "user_message" and text in s["output"]),
                    next(s["id"] for s in steps if s["name"] == "Risk Judge"), {s["id"] for s in steps},
                    [e["url"] for e in stored["elements"] if e.get("url")], alice.cookie)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("desk-security"), DESK_DEMO_DELAY_MS="1")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def alice(server: Server) -> Analysis:
    """Alice's analysis, in a thread of her own: her message says what she holds."""
    return asyncio.run(analyse(server, f"Should I buy NVDA today? {SECRET}."))


async def bob_with_a_thread(server: Server) -> DeskClient:
    """Bob, logged in, with a thread of his own (so his sidebar query reads steps)."""
    bob = DeskClient(server.base, "bob", "desk")
    await bob.connect()
    await bob.send("hello")
    await bob.wait_for(lambda: bob.thread_id, 10, "bob's thread")
    await poll(lambda: list_threads(server.base, bob.cookie), lambda r: any(
        s["output"] == "hello" for t in r.json()["data"] for s in t["steps"]), what="bob's message stored")
    return bob


@pytest.mark.e2e
async def test_a_sql_fragment_as_thread_id_is_refused_and_reads_nothing(server, alice):
    # The attack of the issue: connect as bob with `x') UNION SELECT … FROM steps s --` and write a message.
    attacker = DeskClient(server.base, "bob", "desk")
    with pytest.raises(socketio.exceptions.ConnectionError):
        await attacker.connect(thread_id=injection("bob"))

    bob = await bob_with_a_thread(server)
    try:
        # A message naming the fragment as its thread on an open socket is dropped, not stored.
        bob.thread_id = injection("bob")
        await bob.send("hello again")
        await asyncio.sleep(1)
        with db(server) as conn:
            assert count(conn, "SELECT count(*) FROM threads WHERE id = ?", injection("bob")) == 0
            assert count(conn, 'SELECT count(*) FROM steps WHERE output = ?', "hello again") == 0
    finally:
        await bob.close()

    r = await list_threads(server.base, bob.cookie)
    assert r.status_code == 200
    listed = [s["id"] for t in r.json()["data"] for s in t["steps"]]
    assert listed and not set(listed) & alice.step_ids, "bob read alice's steps"
    assert not [o for o in outputs(r.json()["data"]) if SECRET in o]

    # The HTTP thread endpoints refuse it at the door (400), before any query.
    path = quote(injection("bob"), safe="")
    assert (await request(server.base, "GET", f"/project/thread/{path}", bob.cookie)).status_code == 400
    for method in ("PUT", "DELETE"):
        r = await request(server.base, method, "/project/thread", bob.cookie,
                          json={"threadId": injection("bob"), "name": "x"})
        assert r.status_code == 400, (method, r.text)


@pytest.mark.e2e
async def test_a_fragment_stored_by_an_older_version_reads_nothing(server, alice):
    """The data layer binds thread ids (no text-built IN): a malicious thread id already in the
    database, owned by bob, gets him none of alice's steps."""
    bob = await bob_with_a_thread(server)
    await bob.close()
    with db(server) as conn:
        bob_id = conn.execute("SELECT id FROM users WHERE identifier = 'bob'").fetchone()[0]
        conn.execute('INSERT INTO threads (id, "createdAt", name, "userId", "userIdentifier", metadata) '
                     "VALUES (?, '2026-01-01T00:00:00Z', 'x', ?, 'bob', '{}')", (injection("bob"), bob_id))
    try:
        r = await list_threads(server.base, bob.cookie, first=100)
        assert r.status_code == 200
        threads = r.json()["data"]
        assert injection("bob") in {t["id"] for t in threads}  # the row is read...
        assert not {s["id"] for t in threads for s in t["steps"]} & alice.step_ids  # ...and nothing else
    finally:
        with db(server) as conn:
            conn.execute("DELETE FROM threads WHERE id = ?", (injection("bob"),))


@pytest.mark.e2e
async def test_an_element_row_with_empty_props_opens_like_any_other(server, alice):
    """An element whose stored props are empty, NULL or not a JSON object (a row written by another
    tool, or by hand) is read as having none: the thread and the element open, no 500."""
    rows = {str(uuid.uuid4()): props for props in ("", None, "not json", "[1, 2]")}
    with db(server) as conn:
        for element_id, props in rows.items():
            conn.execute('INSERT INTO elements (id, "threadId", type, name, display, props) '
                         "VALUES (?, ?, 'text', 'note.txt', 'inline', ?)", (element_id, alice.thread_id, props))
    try:
        thread = await request(server.base, "GET", f"/project/thread/{alice.thread_id}", alice.cookie)
        assert thread.status_code == 200
        read = {e["id"]: e["props"] for e in thread.json()["elements"]}
        assert [read[element_id] for element_id in rows] == ["{}"] * len(rows)
        for element_id in rows:
            r = await request(server.base, "GET", f"/project/thread/{alice.thread_id}/element/{element_id}",
                              alice.cookie)
            assert r.status_code == 200 and r.json()["props"] == {}, r.text
    finally:
        with db(server) as conn:
            conn.executemany("DELETE FROM elements WHERE id = ?", [(element_id,) for element_id in rows])


@pytest.mark.e2e
async def test_stored_files_are_served_to_their_owner_only(server, alice):
    bob = await login_cookie(server.base, "bob", "desk")
    assert len(alice.files) == 2
    for url in alice.files:
        assert (await request(server.base, "GET", url)).status_code == 401
        assert (await request(server.base, "GET", url, bob)).status_code == 404
        mine = await request(server.base, "GET", url, alice.cookie)
        assert mine.status_code == 200 and mine.content
        assert mine.headers["x-content-type-options"] == "nosniff"


@pytest.mark.e2e
async def test_bob_cannot_open_read_rename_share_or_delete_alice_thread(server, alice):
    bob = DeskClient(server.base, "bob", "desk")
    with pytest.raises(socketio.exceptions.ConnectionError):
        await bob.connect(thread_id=alice.thread_id)
    cookie = await login_cookie(server.base, "bob", "desk")
    tid = alice.thread_id
    for method, path, body in (("GET", f"/project/thread/{tid}", None),
                               ("PUT", "/project/thread", {"threadId": tid, "name": "bob's now"}),
                               ("PUT", "/project/thread/share", {"threadId": tid, "isShared": True}),
                               ("DELETE", "/project/thread", {"threadId": tid})):
        r = await request(server.base, method, path, cookie, json=body)
        assert r.status_code in (401, 403, 404), (method, path, r.status_code)
    r = await request(server.base, "GET", f"/project/thread/{tid}", alice.cookie)
    assert r.status_code == 200
    thread = r.json()
    assert thread["userIdentifier"] == "alice" and thread["name"] != "bob's now"
    assert {s["id"] for s in thread["steps"]} >= alice.step_ids


@pytest.mark.e2e
async def test_a_thread_whose_checkpoints_outlive_its_row_has_no_owner_to_reopen_it(server, alice):
    # A thread with checkpoints (a run happened) whose history row is gone: as a deletion by an older
    # version left them. Nobody may reopen it: its owner is unknown.
    orphan = await analyse(server, "$TSLA 2024-05-01")
    with db(server) as conn:
        for table, column in (("feedbacks", '"threadId"'), ("elements", '"threadId"'), ("steps", '"threadId"'),
                              ("threads", "id")):
            conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (orphan.thread_id,))
    with db(server, "checkpoints.sqlite") as conn:
        assert count(conn, "SELECT count(*) FROM checkpoints WHERE thread_id = ?", orphan.thread_id) > 0
    for user in ("bob", "alice"):
        client = DeskClient(server.base, user, "desk")
        with pytest.raises(socketio.exceptions.ConnectionError):
            await client.connect(thread_id=orphan.thread_id)
    # A thread id nobody has used opens as a new thread.
    fresh = DeskClient(server.base, "bob", "desk")
    await fresh.connect(thread_id=str(uuid.uuid4()))
    await fresh.close()


@pytest.mark.e2e
async def test_reusing_alice_message_id_does_not_move_her_message(server, alice):
    bob = await bob_with_a_thread(server)
    try:
        await bob.send("bob's words, under alice's message id", message_id=alice.message_id)
        await poll(lambda: list_threads(server.base, bob.cookie), lambda r: any(
            "bob's words" in (s["output"] or "") for t in r.json()["data"] for s in t["steps"]),
            what="bob's message stored under an id of its own")
    finally:
        await bob.close()
    r = await list_threads(server.base, bob.cookie, first=100)
    assert not {s["id"] for t in r.json()["data"] for s in t["steps"]} & alice.step_ids
    thread = (await request(server.base, "GET", f"/project/thread/{alice.thread_id}", alice.cookie)).json()
    [mine] = [s for s in thread["steps"] if s["id"] == alice.message_id]
    assert SECRET in mine["output"] and mine["threadId"] == alice.thread_id


@pytest.mark.e2e
async def test_feedback_on_alice_messages_fails_for_bob(server, alice):
    put = {"feedback": {"forId": alice.judge_id, "value": 1, "comment": "alice agrees"}, "sessionId": "s"}
    r = await request(server.base, "PUT", "/feedback", alice.cookie, json=put)
    assert r.status_code == 200
    feedback_id = r.json()["feedbackId"]

    bob = await bob_with_a_thread(server)
    await bob.close()
    own = next(s["id"] for t in (await list_threads(server.base, bob.cookie)).json()["data"] for s in t["steps"]
               if s["type"] == "user_message")
    attempts = [
        ("PUT", {"feedback": {"forId": alice.judge_id, "value": 0, "comment": "bob"}, "sessionId": "s"}),
        # her feedback's id on his own message: must not move or change hers
        ("PUT", {"feedback": {"id": feedback_id, "forId": own, "value": 0, "comment": "bob"}, "sessionId": "s"}),
        ("DELETE", {"feedbackId": feedback_id}),
    ]
    for method, body in attempts:
        r = await request(server.base, method, "/feedback", bob.cookie, json=body)
        assert r.status_code >= 400, (method, body, r.status_code)
    thread = (await request(server.base, "GET", f"/project/thread/{alice.thread_id}", alice.cookie)).json()
    [judge] = [s for s in thread["steps"] if s["id"] == alice.judge_id]
    assert judge["feedback"] == {"forId": alice.judge_id, "id": feedback_id, "value": 1, "comment": "alice agrees"}
    with db(server) as conn:
        assert count(conn, 'SELECT count(*) FROM feedbacks WHERE "forId" = ?', own) == 0
    r = await request(server.base, "DELETE", "/feedback", alice.cookie, json={"feedbackId": feedback_id})
    assert r.status_code == 200


@pytest.mark.e2e
async def test_deleting_a_thread_deletes_its_checkpoints_notes_files_and_rows(server, alice):
    gone = await analyse(server, "Is Berkshire B a sell?", interject="what about insurance float?")
    files = [server.data_dir / "files" / unquote(url.split(f"{history.FILES_ROUTE}/", 1)[1]) for url in gone.files]
    assert all(f.is_file() for f in files)
    store = server.data_dir / "store.sqlite"
    if store.exists():
        with db(server, "store.sqlite") as conn:
            assert count(conn, "SELECT count(*) FROM store WHERE prefix LIKE ?", f"%{gone.thread_id}%") > 0

    r = await request(server.base, "DELETE", "/project/thread", gone.cookie, json={"threadId": gone.thread_id})
    assert r.status_code == 200, r.text

    with db(server) as conn:
        for table, column in (("threads", "id"), ("steps", '"threadId"'), ("elements", '"threadId"'),
                              ("feedbacks", '"threadId"')):
            assert count(conn, f"SELECT count(*) FROM {table} WHERE {column} = ?", gone.thread_id) == 0, table
    with db(server, "checkpoints.sqlite") as conn:
        for table in ("checkpoints", "writes"):
            assert count(conn, f"SELECT count(*) FROM {table} WHERE thread_id = ?", gone.thread_id) == 0, table
    if store.exists():
        with db(server, "store.sqlite") as conn:
            assert count(conn, "SELECT count(*) FROM store WHERE prefix LIKE ?", f"%{gone.thread_id}%") == 0
    assert not any(f.exists() or f.parent.exists() for f in files)

    # Nothing is left to find under that id: bob opening it gets an empty new thread.
    bob = DeskClient(server.base, "bob", "desk")
    await bob.connect(thread_id=gone.thread_id)
    try:
        await bob.wait_for(lambda: [d for n, d in bob.events if n == "resume_thread_error"], 10, "not found")
        assert not [n for n, _ in bob.events if n == "resume_thread"]
    finally:
        await bob.close()
    # Alice's other thread is untouched.
    assert (await request(server.base, "GET", f"/project/thread/{alice.thread_id}", alice.cookie)).status_code == 200


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.e2e
def test_the_data_folder_and_its_files_are_private(server, alice):
    data = server.data_dir
    for name in ("chat.sqlite", "checkpoints.sqlite", "auth_secret"):
        assert mode(data / name) == 0o600, name
    files = data / "files"
    assert mode(files) == 0o700
    for path in files.rglob("*"):
        assert mode(path) == (0o700 if path.is_dir() else 0o600), path


# -- in process ---------------------------------------------------------------------------------------

def test_thread_ids_are_uuids_or_empty():
    tid = str(uuid.uuid4())
    assert history.valid_thread_id("") and history.valid_thread_id(None) and history.valid_thread_id(tid)
    for bad in (injection("bob"), tid.upper(), tid + " ", "{" + tid + "}", tid.replace("-", ""), 42, ["x"]):
        assert not history.valid_thread_id(bad), bad
    with pytest.raises(history.InvalidThreadId):
        history.require_thread_id("")


@pytest.fixture
async def seeded(tmp_path, emitter) -> dict[str, Any]:
    """A chat database with alice's thread (steps) and bob's, as rows."""
    storage.create_schema(storage.chat_db_path(tmp_path))
    ids = {"alice_thread": str(uuid.uuid4()), "bob_thread": str(uuid.uuid4()), "alice_steps": []}
    with sqlite3.connect(storage.chat_db_path(tmp_path)) as conn:
        for user in ("alice", "bob"):
            conn.execute("INSERT INTO users (id, identifier, metadata, \"createdAt\") VALUES (?, ?, '{}', '')",
                         (f"{user}-id", user))
            conn.execute('INSERT INTO threads (id, "createdAt", name, "userId", "userIdentifier", metadata) '
                         "VALUES (?, '2026-01-01', ?, ?, ?, '{}')", (ids[f"{user}_thread"], user, f"{user}-id", user))
        for i, text in enumerate((SECRET, "Signal: BUY", "RSI 55")):
            step = str(uuid.uuid4())
            ids["alice_steps"].append(step)
            conn.execute('INSERT INTO steps (id, name, type, "threadId", output, "createdAt") '
                         "VALUES (?, ?, ?, ?, ?, ?)",
                         (step, "alice", "user_message", ids["alice_thread"], text, f"2026-01-01T00:00:0{i}Z"))
        # the malicious thread id, stored for bob (as Chainlit's own layer stores it)
        conn.execute('INSERT INTO threads (id, "createdAt", name, "userId", "userIdentifier", metadata) '
                     "VALUES (?, '2026-01-02', 'x', 'bob-id', 'bob', '{}')", (injection("bob"),))
    return ids


async def bobs_listing(layer: SQLAlchemyDataLayer) -> set[str]:
    page = await layer.list_threads(Pagination(first=50), ThreadFilter(userId="bob-id"))
    return {s["id"] for t in page.data for s in t["steps"]}


async def test_the_injection_reads_alice_steps_through_chainlit_layer_and_nothing_through_ours(tmp_path, seeded):
    # Proof that the payload is a working attack: Chainlit's own layer hands bob alice's steps.
    stock = SQLAlchemyDataLayer(f"sqlite+aiosqlite:///{storage.chat_db_path(tmp_path)}")
    try:
        assert set(seeded["alice_steps"]) <= await bobs_listing(stock)
    finally:
        await stock.engine.dispose()
    ours = history.make_data_layer(tmp_path)
    try:
        assert not await bobs_listing(ours) & set(seeded["alice_steps"])
        with pytest.raises(history.InvalidThreadId):
            await ours.update_thread(injection("bob"), name="x")
        with pytest.raises(history.InvalidThreadId):
            await ours.get_thread(injection("bob"))
    finally:
        await ours.engine.dispose()


async def test_the_data_layer_never_moves_a_step_or_a_thread_to_another_user(tmp_path, seeded):
    layer = history.make_data_layer(tmp_path)
    try:
        stolen = {"id": seeded["alice_steps"][0], "threadId": seeded["bob_thread"], "name": "bob",
                  "type": "user_message", "output": "mine now", "createdAt": "2026-01-03T00:00:00Z"}
        await layer.create_step(stolen)  # type: ignore[arg-type]
        await layer.update_step(stolen)  # type: ignore[arg-type]
        thread = await layer.get_thread(seeded["alice_thread"])
        assert thread is not None
        [step] = [s for s in thread["steps"] if s["id"] == seeded["alice_steps"][0]]
        assert step["output"] == SECRET and step["threadId"] == seeded["alice_thread"]

        await layer.update_thread(seeded["alice_thread"], user_id="bob-id", name="bob's")
        assert await layer.thread_owner(seeded["alice_thread"]) == "alice"
        assert (await layer.get_thread(seeded["alice_thread"]) or {}).get("name") == "alice"

        # feedback: only with a requester, on the requester's own messages
        with pytest.raises(history.NotOwner):
            await layer.upsert_feedback(Feedback(forId=seeded["alice_steps"][1], value=1))
        token = REQUESTER.set("bob")
        try:
            with pytest.raises(history.NotOwner):
                await layer.upsert_feedback(Feedback(forId=seeded["alice_steps"][1], value=1))
        finally:
            REQUESTER.reset(token)
        token = REQUESTER.set("alice")
        try:
            fid = await layer.upsert_feedback(Feedback(forId=seeded["alice_steps"][1], value=1, threadId="forged"))
            rows = await layer.execute_sql('SELECT "threadId" FROM feedbacks WHERE id = :id', {"id": fid})
            assert rows == [{"threadId": seeded["alice_thread"]}]
        finally:
            REQUESTER.reset(token)
        token = REQUESTER.set("bob")
        try:
            with pytest.raises(history.NotOwner):
                await layer.delete_feedback(fid)
        finally:
            REQUESTER.reset(token)
    finally:
        await layer.engine.dispose()


async def test_deleting_a_thread_calls_the_desk_first(tmp_path, seeded):
    forgotten: list[str] = []

    async def forget(thread_id: str) -> None:
        forgotten.append(thread_id)

    layer = history.make_data_layer(tmp_path, on_delete_thread=forget)
    try:
        await layer.delete_thread(seeded["alice_thread"])
        assert forgotten == [seeded["alice_thread"]]
        assert await layer.thread_owner(seeded["alice_thread"]) is None
        with pytest.raises(history.InvalidThreadId):
            await layer.delete_thread(injection("bob"))
        assert forgotten == [seeded["alice_thread"]]
    finally:
        await layer.engine.dispose()


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The most permissive umask: whatever is private below is so by how it was created."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


async def test_files_are_created_private_whatever_the_umask(tmp_path, open_umask, no_model_env):
    from graph.core.settings import Settings
    from graph.data import make_vendor
    from graph.persistence.database import open_checkpointer

    data = tmp_path / "data"
    storage.create_schema(storage.chat_db_path(data))
    assert mode(data) == 0o700 and mode(data / "chat.sqlite") == 0o600
    startup.ensure_auth_secret(data)
    assert mode(data / "auth_secret") == 0o600
    settings = Settings(DESK_DATA_DIR=data, DESK_DATA_VENDOR="yfinance")
    async with open_checkpointer(settings):
        pass
    assert mode(data / "checkpoints.sqlite") == 0o600
    make_vendor(settings)
    assert mode(data / "market_cache.sqlite") == 0o600
    files = history.LocalFileStorage(data / "files")
    await files.upload_file("u/e/chart.svg", b"<svg/>")
    assert [mode(p) for p in (data / "files", data / "files/u", data / "files/u/e")] == [0o700] * 3
    assert mode(data / "files/u/e/chart.svg") == 0o600
    await files.delete_file("u/e/chart.svg")
    assert not (data / "files/u").exists() and (data / "files").is_dir()

    private_dir(tmp_path / "a" / "b")
    assert mode(tmp_path / "a" / "b") == 0o700
    write_private(tmp_path / "secret", b"x")
    assert mode(tmp_path / "secret") == 0o600
    with pytest.raises(FileExistsError):
        write_private(tmp_path / "secret", b"y", exclusive=True)
    loose = tmp_path / "old.sqlite"
    loose.write_bytes(b"")
    loose.chmod(0o644)
    private_file(loose)  # a database left readable by an earlier version is tightened
    assert mode(loose) == 0o600


async def test_chat_element_round_trip_through_our_layer(alices_thread):
    """Elements still persist (from a fixed column list) and resolve to their owner."""
    layer, user, thread_id = alices_thread
    msg = cl.Message(content="Signal: BUY", author="Risk Judge")
    await layer.create_step(msg.to_dict())
    image = cl.Image(name="chart.svg", content=b"<svg/>", mime="image/svg+xml", for_id=msg.id)
    await layer.create_element(image)
    [element] = (await layer.get_thread(thread_id) or {}).get("elements") or []
    assert await layer.file_owner(element["objectKey"]) == "alice"
    assert await layer.file_owner(f"{user.id}/nope/chart.svg") is None


async def test_the_names_a_thread_is_told_apart_from_are_its_owners_only(tmp_path, seeded):
    """thread_names.distinct numbers a name another thread of the same user has: another user's names are never
    read (nor told), and a thread id that is no UUID reaches no SQL."""
    layer = history.make_data_layer(tmp_path)
    try:
        assert await layer.names_beside(seeded["bob_thread"]) == {"x"}  # bob's other thread, not alice's
        assert await layer.names_beside(seeded["alice_thread"]) == set()
        with pytest.raises(history.InvalidThreadId):
            await layer.names_beside(injection("bob"))
    finally:
        await layer.engine.dispose()
