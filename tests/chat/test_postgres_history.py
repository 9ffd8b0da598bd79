"""The chat history on PostgreSQL (DESK_DATABASE_URL), against a real server: the schema made on
start (by several processes at once), a user's threads stored and listed, another user's thread
refused, SQL in values stored as text, a second process's layer reading the same history, and the
writer riding out a server that dropped its connections."""
from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import chainlit as cl
import psycopg
import pytest
from chainlit.types import Feedback, Pagination, ThreadFilter
from chainlit.utils import utc_now

from chat import history, storage
from chat.history.requester import REQUESTER
from graph.core.settings import Settings
from graph.persistence.postgres import libpq_url

pytestmark = pytest.mark.postgres

SECRET = "I hold 300 NVDA at 412.50 in my IRA"
SQL_TEXT = "x'); DELETE FROM steps; --"


@pytest.fixture
def pg(fresh_postgres_url: str) -> str:
    """The database's URL as the app sees it (SQLAlchemy's spelling), its tables created."""
    database = storage.chat_database(Settings(DESK_DATABASE_URL=fresh_postgres_url))
    assert isinstance(database, str) and database.startswith("postgresql+psycopg://")
    storage.create_schema(database)
    return fresh_postgres_url


def rows(url: str, query: str, *args: Any) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(query, args).fetchall()


def message(thread_id: str, author: str, text: str, kind: str = "assistant_message") -> dict[str, Any]:
    msg = cl.Message(content=text, author=author)
    msg.created_at = utc_now()
    step = dict(msg.to_dict())
    step.update(threadId=thread_id, type=kind)
    return step


async def alice_and_bob(layer: history.DeskDataLayer) -> tuple[Any, Any]:
    alice = await layer.create_user(cl.User(identifier="alice"))
    bob = await layer.create_user(cl.User(identifier="bob"))
    assert alice is not None and bob is not None
    return alice, bob


def test_the_schema_is_made_once_by_processes_starting_together(fresh_postgres_url: str):
    database = storage.chat_database(Settings(DESK_DATABASE_URL=fresh_postgres_url))
    with ThreadPoolExecutor(4) as pool:  # four app processes starting at once
        list(pool.map(lambda _: storage.create_schema(database), range(4)))
    storage.create_schema(database)  # and again at the next start
    tables = {r[0] for r in rows(fresh_postgres_url, "SELECT table_name FROM information_schema.tables "
                                                     "WHERE table_schema = 'public'")}
    assert {"users", "threads", "steps", "elements", "feedbacks"} <= tables
    columns = {r[0] for r in rows(fresh_postgres_url, "SELECT column_name FROM information_schema.columns "
                                                      "WHERE table_name = 'steps'")}
    assert set(storage.STEP_COLUMNS) <= columns


async def test_a_users_threads_are_stored_listed_and_kept_from_other_users(pg: str, tmp_path, emitter):
    layer = history.make_data_layer(tmp_path, database_url=pg)
    try:
        alice, bob = await alice_and_bob(layer)
        first, second, bobs = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
        await layer.update_thread(first, name="NVDA", user_id=alice.id, metadata={"chat_settings": {"rounds": 2}},
                                  tags=["desk"])
        await layer.update_thread(second, name="AAPL", user_id=alice.id)
        await layer.update_thread(bobs, name="TSLA", user_id=bob.id)
        asked = message(first, "alice", f"Should I buy NVDA today? {SECRET}", "user_message")
        judge = message(first, "Risk Judge", "Signal: BUY")
        await layer.create_step(asked)
        await layer.create_step(judge)
        tool = cl.Step(name="get_indicators", type="tool", parent_id=judge["id"], default_open=True)
        tool.input, tool.output = {"ticker": "NVDA"}, "RSI 14 at 55"
        await layer.create_step({**tool.to_dict(), "threadId": first})
        await layer.create_step(message(second, "alice", SQL_TEXT, "user_message"))
        await layer.create_step(message(bobs, "bob", "hello", "user_message"))
        await layer.flush()

        page = await layer.list_threads(Pagination(first=20), ThreadFilter(userId=alice.id))
        assert {t["id"] for t in page.data} == {first, second}
        thread = await layer.get_thread(first)
        assert thread is not None and thread["name"] == "NVDA" and thread["userIdentifier"] == "alice"
        assert [s["name"] for s in thread["steps"]] == ["alice", "Risk Judge", "get_indicators"]
        assert thread["steps"][0]["output"].endswith(SECRET)
        assert thread["steps"][2]["parentId"] == judge["id"]
        assert '"rounds": 2' in str(thread["metadata"])
        [sql] = (await layer.get_thread(second) or {})["steps"]
        assert sql["output"] == SQL_TEXT, "SQL in a value is stored as text"
        assert rows(pg, "SELECT count(*) FROM steps")[0][0] == 5

        # Ownership: bob's listing, a takeover of alice's thread or message, feedback on her message.
        bob_page = await layer.list_threads(Pagination(first=20), ThreadFilter(userId=bob.id))
        assert {t["id"] for t in bob_page.data} == {bobs}
        assert await layer.get_thread_author(first) == "alice"
        await layer.update_thread(first, user_id=bob.id, name="mine now")
        await layer.create_step({**asked, "threadId": bobs, "output": "mine now"})
        await layer.flush()
        assert await layer.thread_owner(first) == "alice"
        kept = await layer.get_thread(first)
        assert kept is not None and kept["name"] == "NVDA" and kept["steps"][0]["output"].endswith(SECRET)
        token = REQUESTER.set("bob")
        try:
            with pytest.raises(history.NotOwner):
                await layer.upsert_feedback(Feedback(forId=judge["id"], value=1))
        finally:
            REQUESTER.reset(token)
        token = REQUESTER.set("alice")
        try:
            fid = await layer.upsert_feedback(Feedback(forId=judge["id"], value=1, threadId=bobs))
        finally:
            REQUESTER.reset(token)
        assert rows(pg, 'SELECT "threadId", "value" FROM feedbacks WHERE id = %s', fid) == [(first, 1)]

        # A thread id that is SQL is refused at the door; a thread nobody has has no author.
        with pytest.raises(history.InvalidThreadId):
            await layer.get_thread(f"{first}') OR 1=1 --")
        assert await layer.get_thread_author(str(uuid.uuid4())) == ""

        await layer.delete_thread(second)
        assert await layer.thread_owner(second) is None
        assert rows(pg, 'SELECT count(*) FROM steps WHERE "threadId" = %s', second)[0][0] == 0
    finally:
        await layer.close()


async def test_a_second_process_reads_the_same_history(pg: str, tmp_path, emitter):
    first = history.make_data_layer(tmp_path / "one", database_url=pg)
    second = history.make_data_layer(tmp_path / "two", database_url=pg)  # another process, another folder
    try:
        alice, _ = await alice_and_bob(first)
        thread_id = str(uuid.uuid4())
        await first.update_thread(thread_id, name="NVDA", user_id=alice.id)
        await first.create_step(message(thread_id, "Risk Judge", "Signal: HOLD"))
        await first.flush()
        assert await second.get_user("alice") is not None
        thread = await second.get_thread(thread_id)
        assert thread is not None and [s["output"] for s in thread["steps"]] == ["Signal: HOLD"]
        # The second process writes to it; the first reads that.
        await second.create_step(message(thread_id, "Desk", "Follow-up answered"))
        await second.flush()
        assert [s["output"] for s in (await first.get_thread(thread_id) or {})["steps"]] == \
            ["Signal: HOLD", "Follow-up answered"]
    finally:
        await first.close()
        await second.close()


async def test_writes_and_reads_survive_the_server_dropping_every_connection(pg: str, tmp_path, emitter, caplog):
    layer = history.make_data_layer(tmp_path, database_url=pg)
    try:
        alice, _ = await alice_and_bob(layer)
        thread_id = str(uuid.uuid4())
        await layer.update_thread(thread_id, name="NVDA", user_id=alice.id)
        await layer.create_step(message(thread_id, "Market Analyst", "before"))
        await layer.flush()
        # As a server restart or a failover does: every connection of the app is closed under it.
        dropped = rows(libpq_url(pg) or pg, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        assert len(dropped) >= 2, "the writer's and the reader's connections"
        await layer.create_step(message(thread_id, "News Analyst", "after"))
        await asyncio.wait_for(layer.flush(), 30)
        thread = await layer.get_thread(thread_id)
        assert thread is not None and [s["output"] for s in thread["steps"]] == ["before", "after"]
    finally:
        await layer.close()


async def test_element_files_resolve_to_their_owner(pg: str, tmp_path, emitter):
    layer = history.make_data_layer(tmp_path, database_url=pg)
    try:
        alice, _ = await alice_and_bob(layer)
        thread_id = emitter.session.thread_id
        await layer.update_thread(thread_id, name="NVDA", user_id=alice.id)
        msg = message(thread_id, "Risk Judge", "Signal: BUY")
        await layer.create_step(msg)
        image = cl.Image(name="chart.svg", content=b"<svg/>", mime="image/svg+xml", for_id=msg["id"])
        await layer.create_element(image)
        [element] = (await layer.get_thread(thread_id) or {}).get("elements") or []
        assert element["forId"] == msg["id"]
        assert await layer.file_owner(element["objectKey"]) == "alice"
        assert (tmp_path / "files" / element["objectKey"]).read_bytes() == b"<svg/>"
    finally:
        await layer.close()
