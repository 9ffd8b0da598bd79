"""The chat history's data layer: Chainlit's SQLAlchemy layer with every value bound and every
read and write checked against the thread's owner.

Chainlit 2.12's `SQLAlchemyDataLayer.get_all_user_threads` pastes thread ids into `IN ('…')` as text:
a thread id of `x') UNION SELECT … FROM steps s --` read every user's steps. Its upserts also
build column lists from the keys of the dict they are handed, and let any write overwrite a row
by id whatever thread it belongs to. Here:

- thread ids are UUIDs, or a backtest day's or a scheduled run's (`valid_thread_id`); anything else is
  refused before it is stored or queried;
- values are always bound parameters, `IN` lists included; column names come from fixed lists;
- a step, element or feedback id that exists in another thread is never overwritten (the upsert's
  `WHERE` compares the stored row's thread), and a thread's owner is never replaced;
- feedback is written or deleted only by the owner of the message's thread (the requester is the
  user whose current token came with the HTTP request, see chat/web/accounts.py);
- a message whose metadata carries `STORED_AS` is stored with that text in its output's place: a secret shown once
  (a personal token, chat/features/tokens.py) reaches the page but never the history, so a reload or another
  device shows the masked text;
- deleting a thread deletes the desk's side of it too (checkpoints, notes: `on_delete_thread`),
  its element files, feedback, steps and row.

Every write goes through one writer (`HistoryWriter`, issue #9): under load Chainlit's detached
step writes landed out of order (an empty create after the final update blanked the text) and 50
chats' writes fought over SQLite's lock and the engine's pool. Reads first wait for the writes
queued before them.

The same layer runs on SQLite (the default, chat.sqlite under DESK_DATA_DIR) and on PostgreSQL
(DESK_DATABASE_URL, shared by every app process): the SQL is written once for both (upserts with
`ON CONFLICT`, a parameter tested for NULL is CAST so Postgres knows its type), through SQLAlchemy
with bound parameters.
"""
from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

from chainlit.context import context
from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.data.storage_clients.base import BaseStorageClient
from chainlit.data.utils import queue_until_user_message
from chainlit.element import Element, ElementDict
from chainlit.logger import logger
from chainlit.step import StepDict
from chainlit.types import Feedback, ThreadDict
from sqlalchemy import bindparam, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from ..storage import STEP_COLUMNS, chat_store
from .files import LocalFileStorage
from .requester import REQUESTER
from .rows import ELEMENTS, STEPS, THREADS, element_dict, parents_first, step_dict, thread_dict, thread_element_dict
from .sql import sql_value
from .writer import HistoryWriter

THREAD_COLUMNS = ("id", "createdAt", "name", "userId", "userIdentifier", "tags", "metadata")
ELEMENT_COLUMNS = ("id", "threadId", "type", "url", "chainlitKey", "name", "display", "objectKey", "size",
                   "page", "language", "forId", "mime", "props", "autoPlay", "playerConfig")


class InvalidThreadId(ValueError):
    """A thread id that is not a UUID: refused at the door (HTTP 400, socket refused)."""


class NotOwner(PermissionError):
    """A read or write of something that belongs to another user (or to nobody known)."""


class HistoryUnavailable(NotOwner):
    """The history database did not answer the check: refused like another's, unless the caller can do without."""


# A backtest day's own thread (graph/backtest/record.py: bt-<id>-<TICKER>-<YYYYMMDD>, the symbol's marks made "_"),
# opened in the chat like any analysis (chat/features/backtest_days.py). Letters, digits, "-" and "_" only.
BACKTEST_DAY_THREAD = re.compile(r"bt-([0-9a-f]{8})-([A-Za-z0-9_-]{1,32})-([0-9]{8})")
# A watch's scheduled run (graph/watchlist/slots.py: watch-<id>-<TICKER>-<YYYYMMDDHHMM>), made by the server at the
# slot and opened in the chat like a backtest's day (chat/features/watches.py). Letters, digits, "-" and "_" only.
SCHEDULED_THREAD = re.compile(r"watch-([0-9a-f]{8})-([A-Za-z0-9_-]{1,32})-([0-9]{12})")


def is_uuid(value: object) -> bool:
    """A UUID in canonical form (lowercase, hyphenated), as Chainlit and its frontend make them."""
    if not isinstance(value, str) or len(value) != 36:
        return False
    try:
        return str(uuid.UUID(value)) == value  # one spelling per thread: lowercase, hyphenated
    except ValueError:
        return False


def valid_thread_id(value: object) -> bool:
    """Empty (a new thread), a UUID in canonical form, or a thread the server made: a backtest's day, a
    watch's scheduled run."""
    if value is None or value == "":
        return True
    return is_uuid(value) or is_server_thread(value)


def is_server_thread(value: object) -> bool:
    """A thread the server makes without a page (a backtest's day, a scheduled run): a page may open it once
    it is its user's, never start it (chat/web/door.py)."""
    return isinstance(value, str) and any(p.fullmatch(value) for p in (BACKTEST_DAY_THREAD, SCHEDULED_THREAD))


def require_thread_id(value: object) -> str:
    if not value or not valid_thread_id(value):
        raise InvalidThreadId("a thread id is a UUID")
    return cast(str, value)


def _session_thread() -> str | None:
    """The thread of the socket session this call runs for, if it runs for one."""
    try:
        return context.session.thread_id
    except Exception:
        return None


# A message's metadata: the text the history keeps instead of its output (the output shows a secret only once).
STORED_AS = "desk_stored_as"
# A comparison's desk thread carries this in its metadata (chat/features/compare.py: COMPARED, the parent and ticker).
COMPARED_DESK = "compared_desk"


def _is_compared_desk(thread: ThreadDict) -> bool:
    metadata: Any = thread.get("metadata")
    if isinstance(metadata, str):  # SQLite gives it back as its JSON text
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return False
    return isinstance(metadata, dict) and bool(metadata.get(COMPARED_DESK))


class DeskDataLayer(SQLAlchemyDataLayer):
    """Reads through Chainlit's engine (after the writer has stored what was queued before them);
    every write through one HistoryWriter, in call order."""

    def __init__(self, conninfo: str, *, storage_provider: BaseStorageClient | None = None,
                 on_delete_thread: Callable[[str], Awaitable[None]] | None = None, **kwargs: Any) -> None:
        url = make_url(conninfo)
        backend = url.get_backend_name()
        if backend == "sqlite":
            # Reads wait for the writer's lock instead of failing with "database is locked".
            kwargs["connect_args"] = {"timeout": 30, **(kwargs.get("connect_args") or {})}
            writer_url = f"sqlite:///{url.database}"
        elif backend == "postgresql":
            # psycopg 3 for both engines (Chainlit's async reads, the writer's thread).
            conninfo = url.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
            writer_url = conninfo
        else:
            raise ValueError("DeskDataLayer stores the history in SQLite (sqlite+aiosqlite:///…) or PostgreSQL "
                             "(postgresql://…)")
        super().__init__(conninfo, storage_provider=storage_provider, **kwargs)
        if backend == "postgresql":
            # A connection the server closed (a restart, a failover, an idle timeout) is replaced
            # before a read uses it; Chainlit's engine would fail that read (a 404 to the user).
            self.engine = create_async_engine(conninfo, pool_pre_ping=True,
                                              connect_args=kwargs.get("connect_args") or {})
            self.async_session = async_sessionmaker(self.engine, expire_on_commit=False)
        self.on_delete_thread = on_delete_thread
        self._writer = HistoryWriter(writer_url)

    async def flush(self) -> None:
        """Wait until every write queued so far is stored."""
        await self._writer.flush()

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self._writer.flush(), 8)
        except TimeoutError:
            logger.error("History writer: %d writes not stored at shutdown", self._writer.pending())
        await self._writer.close()
        await super().close()

    async def _rows(self, query: str, **params: Any) -> list[dict[str, Any]] | None:
        """Rows of a read, after the writes queued before it; None when the database failed
        (callers refuse then)."""
        await self._writer.flush()
        result = await self.execute_sql(query, params)
        return result if isinstance(result, list) else None

    async def _get_user_id_by_thread(self, thread_id: str) -> str | None:
        await self._writer.flush()
        return await super()._get_user_id_by_thread(thread_id)

    # -- ownership look-ups ------------------------------------------------------------------

    async def thread_owner(self, thread_id: str) -> str | None:
        """The identifier of the thread's owner; "" for a row with no owner; None with no row."""
        rows = await self._rows('SELECT "userIdentifier" FROM threads WHERE "id" = :id',
                                id=require_thread_id(thread_id))
        if rows is None:
            raise NotOwner("the history database did not answer")
        return (rows[0]["userIdentifier"] or "") if rows else None

    async def names_beside(self, thread_id: str) -> set[str]:
        """The names of the thread's owner's other threads (none for a thread without an owner)."""
        rows = await self._rows('SELECT "name" FROM threads WHERE "userIdentifier" = '
                                '(SELECT "userIdentifier" FROM threads WHERE "id" = :id) AND "id" <> :id '
                                'AND "name" IS NOT NULL', id=require_thread_id(thread_id))
        return {str(r["name"]) for r in rows or []}

    async def step_thread(self, step_id: str) -> str | None:
        """The thread a step (a message) id is stored in, if any."""
        rows = await self._rows('SELECT "threadId" FROM steps WHERE "id" = :id', id=step_id)
        if rows is None:
            raise HistoryUnavailable("the history database did not answer")
        return rows[0]["threadId"] if rows else None

    async def file_owner(self, object_key: str) -> str | None:
        """The identifier of the user whose thread holds the element stored under `object_key`."""
        return (await self.stored_file(object_key))[0]

    async def stored_file(self, object_key: str) -> tuple[str | None, str | None]:
        """The owner (as file_owner) of the element stored under `object_key`, and the mime it was
        stored with (None when there is none, or no one)."""
        rows = await self._rows('SELECT t."userIdentifier" AS owner, e."mime" AS mime FROM elements e '
                                'JOIN threads t ON t."id" = e."threadId" WHERE e."objectKey" = :key', key=object_key)
        owners = {r["owner"] for r in rows or []}
        mimes = {r["mime"] for r in rows or []}
        if len(owners) != 1:
            return None, None
        return owners.pop(), mimes.pop() if len(mimes) == 1 else None

    async def _step_owner(self, step_id: str) -> tuple[str | None, str | None]:
        rows = await self._rows('SELECT t."userIdentifier" AS owner, s."threadId" AS thread FROM steps s '
                                'JOIN threads t ON t."id" = s."threadId" WHERE s."id" = :id', id=step_id)
        return (rows[0]["owner"], rows[0]["thread"]) if rows else (None, None)

    # -- threads ---------------------------------------------------------------------------------

    async def get_thread_author(self, thread_id: str) -> str:
        # "" makes Chainlit's is_thread_author answer 404 (its own raises a ValueError: a 500).
        return await self.thread_owner(thread_id) or ""

    async def get_thread(self, thread_id: str) -> ThreadDict | None:
        threads = await self.get_all_user_threads(thread_id=require_thread_id(thread_id))
        return threads[0] if threads else None

    async def update_thread(self, thread_id: str, name: str | None = None, user_id: str | None = None,
                            metadata: dict | None = None, tags: list[str] | None = None) -> None:
        """Queued in order with the step writes, applied by the writer (the row ensured, the
        metadata merged, the owner set once: see chat/history/sql.py, _update_thread); returns at once."""
        require_thread_id(thread_id)
        self._writer.put("thread", thread_id, name=name, user_id=user_id,
                         metadata=dict(metadata) if metadata is not None else None,
                         tags=list(tags) if tags is not None else None)

    async def delete_thread(self, thread_id: str) -> None:
        """The whole thread: the desk's side first (a run in flight is stopped, checkpoints and
        notes deleted; if that fails the thread stays listed and can be deleted again), then its
        files and rows."""
        require_thread_id(thread_id)
        if self.on_delete_thread is not None:
            await self.on_delete_thread(thread_id)
        elements = await self._rows('SELECT "objectKey" FROM elements WHERE "threadId" = :id', id=thread_id)
        if self.storage_provider is not None:
            for element in elements or []:
                if element["objectKey"]:
                    await self.storage_provider.delete_file(object_key=element["objectKey"])
        await self._writer.run("delete_thread", thread_id)

    async def get_all_user_threads(self, user_id: str | None = None,
                                   thread_id: str | None = None) -> list[ThreadDict] | None:
        """Chainlit's query of a user's threads (or one thread), with the thread ids of the second
        and third query bound as an expanding parameter instead of pasted into the SQL."""
        threads = await self._rows(THREADS, user_id=user_id, thread_id=thread_id, limit=self.user_thread_limit)
        if threads is None:
            return None
        if not threads:
            return []
        ids = [t["thread_id"] for t in threads]
        steps = await self._select_in(STEPS, ids)
        elements = await self._select_in(ELEMENTS, ids)
        by_id = {t["thread_id"]: thread_dict(t) for t in threads if t["thread_id"] is not None}
        for s in steps:
            if (thread := by_id.get(s["step_threadid"])) is not None:
                thread["steps"].append(step_dict(s))
        for e in elements:
            thread = by_id.get(e["element_threadid"])
            kept = thread.get("elements") if thread is not None else None
            if kept is not None:
                kept.append(thread_element_dict(e, await self._read_url(e)))
        for thread in by_id.values():
            thread["steps"] = parents_first(thread["steps"])
        listed = list(by_id.values())
        if thread_id is None:  # the sidebar's list: a comparison is one thread, its desks are opened from it
            listed = [t for t in listed if not _is_compared_desk(t)]
        return listed

    async def _read_url(self, e: dict[str, Any]) -> str | None:
        """Where the page fetches an element's file: the storage provider's URL for its key."""
        url = e.get("element_url")
        key = e.get("element_objectkey")
        if self.storage_provider is not None and isinstance(key, str) and key.strip():
            try:
                url = await self.storage_provider.get_read_url(object_key=key)
            except Exception as exc:
                logger.warning(f"Failed to get read URL for object_key '{key}': {exc}")
        return url

    async def _select_in(self, query: str, ids: list[str]) -> list[dict[str, Any]]:
        await self._writer.flush()
        statement = text(query).bindparams(bindparam("ids", expanding=True))
        async with self.async_session() as session:
            try:
                result = await session.execute(statement, {"ids": ids})
                return self.clean_result([dict(row._mapping) for row in result.fetchall()])
            except SQLAlchemyError as e:
                logger.warning(f"An error occurred: {e}")
                return []

    # -- steps -----------------------------------------------------------------------------------
    #
    # Chainlit fires create_step and update_step as detached tasks: an empty create can start its
    # write after the final update's. Tasks start in creation order, so a stamp taken before the
    # first await follows Chainlit's send/update order; the writer keeps the highest stamp.

    def _step_columns(self, step_dict: StepDict) -> dict[str, Any] | None:
        """The columns a step write sets (fields absent from it keep their stored value), or None
        for a step with an invalid thread id."""
        thread_id = step_dict.get("threadId")
        if not thread_id or not valid_thread_id(thread_id) or not isinstance(step_dict.get("id"), str):
            logger.warning("Refused a step with an invalid thread id")
            return None
        raw: dict[str, Any] = dict(step_dict)
        raw["showInput"] = str(raw.get("showInput", "")).lower() if "showInput" in raw else None
        metadata = raw.get("metadata")
        if isinstance(metadata, dict) and isinstance(stored := metadata.get(STORED_AS), str):
            raw["output"] = stored  # the secret is shown, never stored
        columns = {k: sql_value(v) for k in STEP_COLUMNS
                   if (v := raw.get(k)) is not None and not (isinstance(v, dict) and not v)}
        columns["metadata"] = json.dumps(raw.get("metadata") or {})
        columns["generation"] = json.dumps(raw.get("generation") or {})
        return columns

    async def create_step(self, step_dict: StepDict) -> None:
        stamp = next(self._writer.stamps)  # before any await: in Chainlit's call order
        if (columns := self._step_columns(step_dict)) is not None:
            await self._queue_step(stamp, columns["id"], columns)

    async def update_step(self, step_dict: StepDict) -> None:
        stamp = next(self._writer.stamps)
        if (columns := self._step_columns(step_dict)) is not None:
            await self._queue_step(stamp, columns["id"], columns)

    @queue_until_user_message()
    async def _queue_step(self, stamp: int, step_id: str, columns: dict[str, Any]) -> None:
        self._writer.put_step(stamp, step_id, columns)

    async def delete_step(self, step_id: str) -> None:
        await self._delete_step(next(self._writer.stamps), step_id)

    @queue_until_user_message()
    async def _delete_step(self, stamp: int, step_id: str) -> None:
        session_thread = _session_thread()
        if session_thread is not None and await self.step_thread(step_id) not in (None, session_thread):
            logger.warning("Refused to delete step %s of another thread", step_id)
            return
        self._writer.put_step(stamp, step_id, None)

    async def get_step(self, step_id: str) -> StepDict | None:
        await self._writer.flush()
        return await super().get_step(step_id)

    # -- feedback: only on the requester's own messages ---------------------------------------

    async def upsert_feedback(self, feedback: Feedback) -> str:
        requester = REQUESTER.get()
        owner, thread_id = await self._step_owner(feedback.forId)
        if not requester or owner != requester:
            raise NotOwner("Message not found")
        feedback.threadId = thread_id  # the message's thread, not what the client says
        feedback.id = feedback.id or str(uuid.uuid4())
        existing = await self._rows('SELECT "forId" FROM feedbacks WHERE "id" = :id', id=feedback.id)
        if existing is None or (existing and existing[0]["forId"] != feedback.forId):
            raise NotOwner("Feedback not found")
        await self._writer.run("feedback", feedback.id, id=feedback.id, forId=feedback.forId, threadId=thread_id,
                               value=feedback.value, comment=feedback.comment)
        return feedback.id

    async def delete_feedback(self, feedback_id: str) -> bool:
        requester = REQUESTER.get()
        rows = await self._rows('SELECT t."userIdentifier" AS owner FROM feedbacks f '
                                'JOIN steps s ON s."id" = f."forId" JOIN threads t ON t."id" = s."threadId" '
                                'WHERE f."id" = :id', id=feedback_id)
        if not requester or not rows or rows[0]["owner"] != requester:
            raise NotOwner("Feedback not found")
        await self._writer.run("delete_feedback", feedback_id)
        return True

    # -- elements --------------------------------------------------------------------------------

    async def get_element(self, thread_id: str, element_id: str) -> ElementDict | None:
        rows = await self._rows('SELECT * FROM elements WHERE "threadId" = :thread_id AND "id" = :element_id',
                                thread_id=require_thread_id(thread_id), element_id=element_id)
        return element_dict(rows[0]) if rows else None

    @queue_until_user_message()
    async def create_element(self, element: Element) -> None:
        """Chainlit's upload of an element's content to the storage provider, with the row written
        from a fixed column list and never over another thread's element."""
        if not self.storage_provider or not element.for_id or not valid_thread_id(element.thread_id):
            return
        rows = await self._rows('SELECT "threadId" FROM elements WHERE "id" = :id', id=element.id)
        if rows is None or (rows and rows[0]["threadId"] != element.thread_id):
            logger.warning("Refused to overwrite element %s of another thread", element.id)
            return
        content: bytes | str | None = None
        if element.path:
            content = await asyncio.to_thread(Path(element.path).read_bytes)
        elif element.content:
            content = element.content
        elif element.url:
            return  # a link, not a file of ours: nothing to keep
        if content is None:
            raise ValueError("Element path or content must be provided")
        user_id = await self._get_user_id_by_thread(element.thread_id) or "unknown"
        object_key = f"{user_id}/{element.id}" + (f"/{element.name}" if element.name else "")
        element.mime = element.mime or "application/octet-stream"
        uploaded = await self.storage_provider.upload_file(object_key=object_key, data=content, mime=element.mime,
                                                           overwrite=True)
        if not uploaded:
            raise ValueError("create_element: failed to persist data in storage_provider")
        raw: dict[str, Any] = dict(element.to_dict())
        raw["url"], raw["objectKey"] = uploaded.get("url"), uploaded.get("object_key")
        params = {k: (json.dumps(v) if k == "props" else sql_value(v)) for k in ELEMENT_COLUMNS
                  if (v := raw.get(k)) is not None}
        # The file is stored; its row is queued (never over another thread's element: the upsert's WHERE).
        self._writer.put("element", element.id, **params)

    @queue_until_user_message()
    async def delete_element(self, element_id: str, thread_id: str | None = None) -> None:
        thread = thread_id or _session_thread()
        rows = await self._rows('SELECT "threadId", "objectKey" FROM elements WHERE "id" = :id', id=element_id)
        if not rows:
            return
        if thread is not None and rows[0]["threadId"] != thread:
            logger.warning("Refused to delete element %s of another thread", element_id)
            return
        if self.storage_provider is not None and rows[0]["objectKey"]:
            await self.storage_provider.delete_file(object_key=rows[0]["objectKey"])
        self._writer.put("delete_element", element_id, id=element_id, threadId=rows[0]["threadId"])


def make_data_layer(data_dir: Path,
                    on_delete_thread: Callable[[str], Awaitable[None]] | None = None, *,
                    database_url: str | None = None) -> DeskDataLayer:
    """Chainlit's SQLAlchemy data layer with bound parameters and ownership checks,
    on chat.sqlite under `data_dir` or on the Postgres database of `database_url` (DESK_DATABASE_URL);
    `on_delete_thread` forgets the desk's side of a deleted thread (checkpoints, notes)."""
    database = chat_store(data_dir, database_url)
    conninfo = database if isinstance(database, str) else f"sqlite+aiosqlite:///{database}"
    return DeskDataLayer(conninfo, storage_provider=LocalFileStorage(data_dir / "files"),
                         on_delete_thread=on_delete_thread)
