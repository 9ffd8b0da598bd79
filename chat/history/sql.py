"""The SQL of the history's writes (chat/history/writer.py applies them, one round per transaction):
values always bound, column names only from fixed lists, and no write over a row of another thread
(each upsert's WHERE compares the stored row's thread)."""
from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from chainlit.logger import logger
from sqlalchemy import Connection, TextClause, text

from graph import clock


def columns(names: list[str]) -> tuple[str, str]:
    """The quoted column list and the placeholders, for names taken from a fixed list only."""
    return ", ".join(f'"{n}"' for n in names), ", ".join(f":{n}" for n in names)


def sql_value(value: Any) -> Any:
    """A value both databases bind into our columns: lists and dicts as JSON text (SQLite has no
    such type, and the schema keeps JSON as text on Postgres too, so reads are the same)."""
    if isinstance(value, list | dict):
        return json.dumps(value)
    if value is None or isinstance(value, str | int | float | bytes):
        return value
    return str(value)


def timestamp() -> str:
    return clock.now().replace(tzinfo=None).isoformat() + "Z"


ENSURE_THREAD = text('INSERT INTO threads ("id", "createdAt") VALUES (:id, :now) ON CONFLICT ("id") DO NOTHING')


@functools.lru_cache(maxsize=64)
def upsert_step(names: tuple[str, ...]) -> TextClause:
    """The upsert of a step setting these columns (a handful of sets occur: built once each). An id
    stored in another thread is left alone: the WHERE makes that atomic."""
    cols, values = columns(list(names))
    updates = ", ".join(f'"{n}" = :{n}' for n in names if n != "id")
    return text(f"""
        INSERT INTO steps ({cols}) VALUES ({values})
        ON CONFLICT ("id") DO UPDATE SET {updates}
        WHERE steps."threadId" = excluded."threadId"
    """)


# -- the writes other than step upserts: (connection, key, parameters) -> a row count, by kind ------


def delete_step(conn: Connection, step_id: str, p: dict[str, Any]) -> None:
    for query in ('DELETE FROM feedbacks WHERE "forId" = :id', 'DELETE FROM elements WHERE "forId" = :id',
                  'DELETE FROM steps WHERE "id" = :id'):
        conn.execute(text(query), {"id": step_id})


def _upsert_element(conn: Connection, element_id: str, p: dict[str, Any]) -> int:
    names = list(p)
    cols, values = columns(names)
    updates = ", ".join(f'"{n}" = :{n}' for n in names if n != "id")
    return conn.execute(text(f"""
        INSERT INTO elements ({cols}) VALUES ({values})
        ON CONFLICT ("id") DO UPDATE SET {updates}
        WHERE elements."threadId" = excluded."threadId"
    """), p).rowcount


def _delete_element(conn: Connection, element_id: str, p: dict[str, Any]) -> int:
    return conn.execute(text('DELETE FROM elements WHERE "id" = :id AND ("threadId" = :threadId OR '
                             '("threadId" IS NULL AND CAST(:threadId AS TEXT) IS NULL))'), p).rowcount


def _upsert_feedback(conn: Connection, feedback_id: str, p: dict[str, Any]) -> int:
    return conn.execute(text("""
        INSERT INTO feedbacks ("id", "forId", "threadId", "value", "comment")
        VALUES (:id, :forId, :threadId, :value, :comment)
        ON CONFLICT ("id") DO UPDATE SET "value" = excluded."value", "comment" = excluded."comment"
        WHERE feedbacks."forId" = excluded."forId"
    """), p).rowcount


def _delete_feedback(conn: Connection, feedback_id: str, p: dict[str, Any]) -> int:
    return conn.execute(text('DELETE FROM feedbacks WHERE "id" = :id'), {"id": feedback_id}).rowcount


def _delete_thread(conn: Connection, thread_id: str, p: dict[str, Any]) -> None:
    for query in ('DELETE FROM feedbacks WHERE "threadId" = :id OR "forId" IN '
                  '(SELECT "id" FROM steps WHERE "threadId" = :id)',
                  'DELETE FROM elements WHERE "threadId" = :id',
                  'DELETE FROM steps WHERE "threadId" = :id',
                  'DELETE FROM threads WHERE "id" = :id'):
        conn.execute(text(query), {"id": thread_id})


def _update_thread(conn: Connection, thread_id: str, p: dict[str, Any]) -> int:
    """Chainlit's update_thread inside the round: the row ensured, the metadata merged as
    Chainlit merges it (a key set to None is deleted), the owner set once and never replaced."""
    name, user_id, metadata, tags = p["name"], p["user_id"], p["metadata"], p["tags"]
    conn.execute(ENSURE_THREAD, {"id": thread_id, "now": timestamp()})
    if name is None and user_id is None and metadata is None and tags is None:
        return 0
    owner, raw = conn.execute(text('SELECT "userId", "metadata" FROM threads WHERE "id" = :id'),
                              {"id": thread_id}).one()
    if user_id and owner and owner != user_id:
        logger.warning("Refused to give thread %s to another user", thread_id)
        return 0
    try:
        base = json.loads(raw) if isinstance(raw, str) and raw else {}
    except json.JSONDecodeError:
        base = {}
    base = base if isinstance(base, dict) else {}
    incoming = metadata or {}
    merged = {k: v for k, v in base.items() if not (k in incoming and incoming[k] is None)}
    merged.update({k: v for k, v in incoming.items() if v is not None})
    identifier = None
    if user_id:
        row = conn.execute(text('SELECT "identifier" FROM users WHERE "id" = :id'), {"id": user_id}).first()
        identifier = row[0] if row else None
    return conn.execute(text("""
        UPDATE threads SET
            "name" = COALESCE(CAST(:name AS TEXT), "name"),
            "userId" = COALESCE(CAST(:userId AS TEXT), "userId"),
            "userIdentifier" = COALESCE(CAST(:userIdentifier AS TEXT), "userIdentifier"),
            "tags" = COALESCE(CAST(:tags AS TEXT), "tags"),
            "metadata" = :metadata
        WHERE "id" = :id AND ("userId" IS NULL OR CAST(:userId AS TEXT) IS NULL OR "userId" = :userId)
    """), {"id": thread_id, "name": name if name is not None else merged.get("name"), "userId": user_id,
          "userIdentifier": identifier, "tags": sql_value(tags), "metadata": json.dumps(merged)}).rowcount


WRITES: dict[str, Callable[[Connection, str, dict[str, Any]], Any]] = {
    "thread": _update_thread, "element": _upsert_element, "delete_element": _delete_element,
    "feedback": _upsert_feedback, "delete_feedback": _delete_feedback, "delete_thread": _delete_thread,
}
