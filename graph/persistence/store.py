"""LangGraph's Store for what outlives a run but is not a checkpoint: the interjection inbox.
Its SQLite form is one file under DESK_DATA_DIR, opened inside the running loop; which store a
process opens, SQLite or Postgres, is decided in graph/persistence/database.py."""
from __future__ import annotations

import sqlite3
import threading
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langgraph.store.base import GetOp, Item, SearchItem, SearchOp, _validate_namespace_labels
from langgraph.store.sqlite.aio import AsyncSqliteStore
from langgraph.store.sqlite.base import _decode_ns_text, _row_to_item, _row_to_search_item

from ..core.private import private_file


class DeskSqliteStore(AsyncSqliteStore):
    """AsyncSqliteStore whose plain searches (no vector query, no TTL to refresh) run as one statement.

    Every speaker reads its thread's inbox at the start of its turn, on the critical path. The store's
    batch runs each search in an explicit transaction on a cursor of its own: six round trips to the
    connection's thread (BEGIN, cursor, execute, fetch, close, COMMIT) behind a queue: 0.15 ms alone,
    1-2 ms during a run, whose checkpoints are written beside it. Here the store's own query runs in one round
    trip, under the store's lock (so never inside another operation's transaction), as a read of its own.

    Once the store knows its file (`read_here`), such a search runs right here on the event loop, on a
    connection of its own that only reads: in WAL a reader never waits for a writer, and a small read is
    ~20 µs, where the two hops to and from the store's thread cost 1-2 ms a turn under load (each thread
    has to be woken and given the GIL while the checkpoints are being written). Should the file be locked
    after all (a crashed process's WAL being recovered), the read goes the store's own way instead."""

    read_path: Path | None = None
    _reader: sqlite3.Connection | None = None
    _reader_thread: int | None = None

    def read_here(self, path: Path) -> None:
        self.read_path = path

    def close_reader(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _read(self, sql: str, params: Any) -> list[Any] | None:
        """The rows, read on this thread; None when this store cannot read here (no file, another
        thread than the first reader's, or the file busy), so the caller takes the store's own way."""
        if self.read_path is None:
            return None
        try:
            if self._reader is None:
                # timeout=0: a locked file is answered at once (then the store's thread reads, and may wait).
                self._reader = sqlite3.connect(f"{self.read_path.resolve().as_uri()}?mode=ro", uri=True,
                                               timeout=0, isolation_level=None)
                self._reader_thread = threading.get_ident()
            elif self._reader_thread != threading.get_ident():
                return None
            return self._reader.execute(sql, params).fetchall()
        except sqlite3.OperationalError:
            return None

    async def asearch(self, namespace_prefix: tuple[str, ...], /, *, query: str | None = None,
                      filter: dict[str, Any] | None = None, limit: int = 10, offset: int = 0,
                      refresh_ttl: bool | None = None) -> list[SearchItem]:
        if query is not None or self.ttl_config:  # a vector search or a TTL refresh: the store's own way
            return await super().asearch(namespace_prefix, query=query, filter=filter, limit=limit,
                                         offset=offset, refresh_ttl=refresh_ttl)
        _validate_namespace_labels(namespace_prefix)
        queries, _ = self._prepare_batch_search_queries([(0, SearchOp(namespace_prefix, filter, limit, offset))])
        sql, params, _ = queries[0]
        if not self.is_setup:
            await self.setup()
        rows: Iterable[Any] | None = self._read(sql, params)
        if rows is None:
            async with self.lock:
                rows = await self.conn.execute_fetchall(sql, params)
        return [_row_to_search_item(_decode_ns_text(row[0]), {"key": row[1], "value": row[2], "created_at": row[3],
                                                              "updated_at": row[4]}, loader=self._deserializer)
                for row in rows]

    async def aget(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None) -> Item | None:
        """One item, read here as a plain search is (the coordinator reads the user's book so at every
        analysis); the store's own way when it has a TTL to refresh or cannot read here."""
        if self.ttl_config or self.read_path is None:
            return await super().aget(namespace, key, refresh_ttl=refresh_ttl)
        _validate_namespace_labels(namespace)
        if not self.is_setup:
            await self.setup()
        [query] = self._get_batch_GET_ops_queries([(0, GetOp(namespace, key))])
        rows = self._read(query.query, query.params)
        if rows is None:
            return await super().aget(namespace, key, refresh_ttl=refresh_ttl)
        for row in rows:
            if row[0] == key:
                return _row_to_item(namespace, {"key": row[0], "value": row[1], "created_at": row[2],
                                                "updated_at": row[3]}, loader=self._deserializer)
        return None


@asynccontextmanager
async def open_sqlite_store(path: Path) -> AsyncIterator[AsyncSqliteStore]:
    private_file(path)  # owner-only from creation, its folder too
    async with DeskSqliteStore.from_conn_string(str(path)) as store:
        assert isinstance(store, DeskSqliteStore)  # the library's constructor, typed as its own class
        await store.setup()
        # WAL, as the checkpoints: a commit (a note, a logged call) is one append and one fsync instead
        # of a rollback journal's several (~1 ms → ~0.5 ms here; 3-5 ms during a run), and reading
        # the inbox at every turn never waits for another process's write. synchronous stays FULL:
        # a note acknowledged to its writer survives a power cut too.
        # (The pragma answers with a row: fetched, so no statement is left open holding a lock.)
        await store.conn.execute_fetchall("PRAGMA journal_mode=WAL")
        store.read_here(path)
        try:
            yield store
        finally:
            store.close_reader()
