"""The chat history writer under load (issue 12, point 3): a round's step upserts go out as one
statement per set of columns, every final text is stored, their order against the round's other
writes is kept, and a forged id in a batch is refused on its own. On SQLite and on a real Postgres."""
from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, event, text

from chat import storage
from chat.history import HistoryWriter
from graph.core.settings import Settings


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def writer_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A chat history database with its tables, as the writer's SQLAlchemy URL."""
    if request.param == "sqlite":
        path = storage.chat_db_path(tmp_path)
        storage.create_schema(path)
        return f"sqlite:///{path}"
    database = storage.chat_database(Settings(DESK_DATABASE_URL=request.getfixturevalue("fresh_postgres_url")))
    assert isinstance(database, str)
    storage.create_schema(database)
    return database


@pytest.fixture
def statements() -> Iterator[list[tuple[str, int]]]:
    """Every statement sent to any database meanwhile, with how many parameter sets it carried."""
    seen: list[tuple[str, int]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        seen.append((" ".join(statement.split()), len(parameters) if executemany else 1))

    event.listen(Engine, "before_cursor_execute", record)
    yield seen
    event.remove(Engine, "before_cursor_execute", record)


def step(thread_id: str, output: str, step_id: str | None = None, **more: Any) -> dict[str, Any]:
    return {"id": step_id or str(uuid.uuid4()), "threadId": thread_id, "name": "Bull Researcher",
            "type": "assistant_message", "output": output, "createdAt": "2026-11-22T10:00:00Z",
            "metadata": "{}", "generation": "{}", **more}


def stored(writer: HistoryWriter, query: str, **params: Any) -> list[Any]:
    """Rows read on a connection of their own (the writer keeps its one connection)."""
    engine = create_engine(writer.url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(query), params).all())
    finally:
        engine.dispose()


async def test_a_round_of_step_writes_goes_out_as_one_statement_per_set_of_columns(writer_url, statements):
    writer = HistoryWriter(writer_url)
    threads = [str(uuid.uuid4()) for _ in range(3)]
    stamps = iter(range(1, 1000))
    finals: dict[str, str] = {}
    try:
        # 3 chats × 10 messages, each sent empty then streamed to its end, and a tool step per chat
        # with other columns: queued with no await in between, so one round takes them all.
        for t, thread_id in enumerate(threads):
            for i in range(10):
                first = step(thread_id, "")
                writer.put_step(next(stamps), first["id"], first)
                finals[first["id"]] = f"chat {t} message {i}: " + "word " * 40
                writer.put_step(next(stamps), first["id"], {**first, "output": finals[first["id"]]})
            tool = step(thread_id, "RSI 55", type="tool", input='{"ticker": "NVDA"}', showInput="json")
            writer.put_step(next(stamps), tool["id"], tool)
            finals[tool["id"]] = "RSI 55"
        await writer.flush()

        step_upserts = [(s, n) for s, n in statements if s.startswith("INSERT INTO steps")]
        thread_inserts = [(s, n) for s, n in statements if s.startswith("INSERT INTO threads")]
        assert sorted(n for _, n in step_upserts) == [3, 30]   # two sets of columns, every row once
        assert [n for _, n in thread_inserts] == [3]           # each chat's thread ensured once
        rows = dict(stored(writer, 'SELECT "id", "output" FROM steps'))
        assert rows == finals
    finally:
        await writer.close()


async def test_step_writes_keep_their_order_against_the_other_writes_of_their_round(writer_url):
    writer = HistoryWriter(writer_url)
    thread_id = str(uuid.uuid4())
    stamps = iter(range(1, 1000))
    try:
        before = [step(thread_id, f"before {i}") for i in range(4)]
        after = [step(thread_id, f"after {i}") for i in range(3)]
        for s in before:
            writer.put_step(next(stamps), s["id"], s)
        writer.put("delete_thread", thread_id)  # the user deleted the thread, then wrote again
        for s in after:
            writer.put_step(next(stamps), s["id"], s)
        writer.put("thread", thread_id, name="NVDA · 2026-11-20 · SELL", user_id=None, metadata=None, tags=None)
        await writer.flush()

        outputs = sorted(o for (o,) in stored(writer, 'SELECT "output" FROM steps WHERE "threadId" = :t', t=thread_id))
        assert outputs == ["after 0", "after 1", "after 2"]
        assert stored(writer, 'SELECT "name" FROM threads WHERE "id" = :t', t=thread_id) == [
            ("NVDA · 2026-11-20 · SELL",)]
    finally:
        await writer.close()


async def test_a_forged_id_in_a_batch_is_refused_and_the_rest_of_the_batch_stored(writer_url, caplog):
    writer = HistoryWriter(writer_url)
    alice, bob = str(uuid.uuid4()), str(uuid.uuid4())
    stamps = iter(range(1, 1000))
    try:
        hers = step(alice, "I hold 300 NVDA")
        writer.put_step(next(stamps), hers["id"], hers)
        await writer.flush()

        his = [step(bob, f"bob {i}") for i in range(4)]
        forged = step(bob, "mine now", step_id=hers["id"])
        for s in [his[0], his[1], forged, his[2], his[3]]:
            writer.put_step(next(stamps), s["id"], s)
        with caplog.at_level(logging.WARNING):
            await writer.flush()

        assert stored(writer, 'SELECT "threadId", "output" FROM steps WHERE "id" = :i', i=hers["id"]) == [
            (alice, "I hold 300 NVDA")]
        outputs = sorted(o for (o,) in stored(writer, 'SELECT "output" FROM steps WHERE "threadId" = :t', t=bob))
        assert outputs == ["bob 0", "bob 1", "bob 2", "bob 3"]
        refused = [r.getMessage() for r in caplog.records if "Refused to move step" in r.getMessage()]
        assert refused == [f"Refused to move step {hers['id']} from another thread"]
    finally:
        await writer.close()
