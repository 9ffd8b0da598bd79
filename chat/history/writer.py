"""The one writer of the chat history (issue #9): every write of the data layer (chat/history/layer.py)
is queued here in call order and applied by one task, on one connection, in one transaction per round
(the SQL of each write is chat/history/sql.py)."""
from __future__ import annotations

import asyncio
import contextlib
import itertools
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

from chainlit.logger import logger
from sqlalchemy import Connection, Engine, bindparam, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, SQLAlchemyError, StatementError
from sqlalchemy.pool import NullPool

from .sql import ENSURE_THREAD, WRITES, delete_step, timestamp, upsert_step

APPLIED_KEPT = 100_000  # stamps of the steps stored most recently, kept to drop stale writes

# A pending step write: (stamp, the columns to write) or (stamp, None) for a deletion.
StepWrite = tuple[int, dict[str, Any] | None]


def _merge(old: StepWrite, new: StepWrite) -> StepWrite:
    """Two writes of one step as if applied in stamp order: a later write's absent fields keep the
    earlier one's values; a deletion (or a write after one) replaces."""
    first, last = (old, new) if old[0] <= new[0] else (new, old)
    if first[1] is None or last[1] is None:
        return last
    return last[0], {**first[1], **last[1]}


@dataclass
class _Op:
    """One write for the writer: `kind` names the SQL (see HistoryWriter._apply_op); a "step" op's
    content is in HistoryWriter's step table under `key`; a caller waiting for the result holds
    `done`."""
    kind: str
    key: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    done: asyncio.Future[Any] | None = None


class _Permanent(Exception):
    """A write the database refuses for what it is (not for the moment): it can never be stored."""


@dataclass
class _Round:
    """What became of a round's writes: stored (with each one's result), refused for good, or to
    be tried again (after `error`)."""
    done: list[tuple[_Op, Any]] = field(default_factory=list)
    failed: list[tuple[_Op, BaseException]] = field(default_factory=list)
    retry: list[_Op] = field(default_factory=list)
    error: BaseException | None = None

    def settle(self) -> None:
        """Answer the callers waiting for the stored and the refused writes."""
        for op, result in self.done:
            if op.done is not None and not op.done.done():
                op.done.set_result(result)
        for op, refused in self.failed:
            logger.error("History write %s %s cannot be stored and is dropped: %r", op.kind, op.key, refused)
            if op.done is not None and not op.done.done():
                op.done.set_exception(refused)


def _writer_engine(url: str) -> Engine:
    """The writer's engine. SQLite: the driver's own transaction handling off, so that each round
    opens with BEGIN IMMEDIATE (the write lock taken up front, not at the first write, where a
    deferred transaction could fail with "database is locked" half-way); WAL and NORMAL sync.
    Postgres: one pooled connection, checked before use (a restarted server is reconnected)."""
    if make_url(url).get_backend_name() != "sqlite":
        return create_engine(url, pool_size=1, max_overflow=0, pool_pre_ping=True)
    engine = create_engine(url, poolclass=NullPool, connect_args={"timeout": 30, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA journal_mode=WAL")
        dbapi_connection.execute("PRAGMA synchronous=NORMAL")

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


class HistoryWriter:
    """The one writer of the chat history (issue #9). Every write is queued here in call order and
    applied by one asyncio task through one sqlite3 connection on one thread: everything pending is
    applied in a single `BEGIN IMMEDIATE … COMMIT` per round, so 50 chats' writes no longer compete
    for SQLite's lock or the read engine's pool.

    Step writes carry the stamp taken when Chainlit's call started (in send/update order). Pending
    writes of one step merge (the highest stamp's fields win); a stamp not higher than one applied
    or in flight is dropped (an older snapshot landing after a newer one would blank the text).
    A round that fails is logged and put back under anything queued since, then retried after a
    back-off: a write is never dropped for a transient error ("database is locked", I/O, a lost
    connection). Only a write the database rejects on its own for what it is (a NOT NULL column
    missing, …) is given up, logged as an error, after it has been separated from the rest of its
    round.

    `url` is a SQLAlchemy URL: sqlite:///path (the connection on the writer thread) or
    postgresql+psycopg://… (one connection, and Postgres's row locks instead of SQLite's file lock,
    so the writers of several processes interleave)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqlite = make_url(url).get_backend_name() == "sqlite"
        self.stamps = itertools.count(1)
        self._ops: list[_Op] = []
        self._steps: dict[str, StepWrite] = {}
        self._applied: dict[str, int] = {}  # step id -> highest stamp stored (or being stored)
        self._task: asyncio.Task[None] | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._engine: Engine | None = None
        self._conn: Connection | None = None

    # -- queueing (on the event loop, no await: call order is queue order) ---------------------------

    def put_step(self, stamp: int, step_id: str, params: dict[str, Any] | None) -> None:
        """A step's columns (None: delete it), stamped when its write was called."""
        if stamp <= self._applied.get(step_id, 0):
            return  # a newer write of this step is stored or being stored
        if (pending := self._steps.get(step_id)) is not None:
            self._steps[step_id] = _merge(pending, (stamp, params))
        else:
            self._steps[step_id] = (stamp, params)
            self._ops.append(_Op("step", step_id))
        self._kick()

    def put(self, kind: str, key: str = "", **params: Any) -> None:
        self._ops.append(_Op(kind, key, params))
        self._kick()

    async def run(self, kind: str, key: str = "", **params: Any) -> Any:
        """Queue a write and wait until it is stored; its result (a row count) or its error."""
        done = asyncio.get_running_loop().create_future()
        self._ops.append(_Op(kind, key, params, done))
        self._kick()
        return await done

    def pending(self) -> int:
        return len(self._ops) + (1 if self._busy() else 0)

    async def flush(self) -> None:
        """Wait until every write queued before this call is stored."""
        if self._ops or self._busy():
            await self.run("barrier")

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        if self._executor is not None:
            await asyncio.get_running_loop().run_in_executor(self._executor, self._close_connection)
            self._executor.shutdown(wait=False)
            self._executor = None

    # -- the writer task ---------------------------------------------------------------------------

    def _busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def _kick(self) -> None:
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._task.get_loop() is not loop:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="history-writer")
            self._task = loop.create_task(self._write_loop(), name="history-writer")

    async def _write_loop(self) -> None:
        """Runs while writes are pending, then ends (the next write starts it again)."""
        backoff = 0.05
        while self._ops:
            ops, steps = self._take_round()
            stored = await self._store(ops, steps)
            stored.settle()
            if stored.retry:
                logger.warning("History writer: %r; retrying %d writes in %.2f s", stored.error, len(stored.retry),
                               backoff)
                self._requeue(stored.retry, steps)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 2.0)
            else:
                backoff = 0.05

    def _take_round(self) -> tuple[list[_Op], dict[str, StepWrite]]:
        """Everything queued so far, as one round."""
        ops, steps = self._ops, self._steps
        self._ops, self._steps = [], {}
        for step_id, (stamp, _) in steps.items():  # in flight counts as stored for older writes
            self._applied[step_id] = max(self._applied.pop(step_id, 0), stamp)  # to the end: newest
        if len(self._applied) > APPLIED_KEPT:  # a stale write arrives within moments, not hours
            for step_id in list(itertools.islice(self._applied, len(self._applied) - APPLIED_KEPT // 2)):
                del self._applied[step_id]
        return ops, steps

    async def _store(self, ops: list[_Op], steps: dict[str, StepWrite]) -> _Round:
        """A round applied in one transaction; if one of its writes can never be stored, each on
        its own, so that only that one is lost."""
        loop = asyncio.get_running_loop()
        stored = _Round()
        try:
            results = await loop.run_in_executor(self._executor, self._apply, ops, steps)
            stored.done = list(zip(ops, results, strict=True))
        except _Permanent:
            for i, op in enumerate(ops):
                try:
                    [result] = await loop.run_in_executor(self._executor, self._apply, [op], steps)
                    stored.done.append((op, result))
                except _Permanent as exc:
                    stored.failed.append((op, exc.__cause__ or exc))
                except Exception as exc:
                    stored.error, stored.retry = exc, ops[i:]
                    break
        except Exception as exc:
            stored.error, stored.retry = exc, ops
        return stored

    def _requeue(self, ops: list[_Op], steps: dict[str, StepWrite]) -> None:
        """Put a failed round back in front of what was queued since, merging step writes."""
        newer_ops, newer_steps = self._ops, self._steps
        self._ops, self._steps = [], {}
        for op in ops:
            if op.kind == "step":
                write = steps[op.key]
                if op.key in newer_steps:  # a newer write is queued: merged there, in its place
                    newer_steps[op.key] = _merge(write, newer_steps[op.key])
                    continue
                self._steps[op.key] = write
            self._ops.append(op)
        self._ops.extend(newer_ops)
        self._steps.update(newer_steps)

    # -- on the writer thread ------------------------------------------------------------------------

    def _connection(self) -> Connection:
        if self._conn is None:
            if self._engine is None:
                self._engine = _writer_engine(self.url)
            self._conn = self._engine.connect()
        return self._conn

    def _close_connection(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(SQLAlchemyError):  # a dead connection: nothing left to close
                self._conn.close()
            self._conn = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def _permanent(self, exc: BaseException) -> bool:
        """Whether a failed round's error is about a write itself (retrying cannot help)."""
        if isinstance(exc, ValueError | TypeError | KeyError):
            return True
        if isinstance(exc, DBAPIError):
            if isinstance(exc, OperationalError) or exc.connection_invalidated:
                return False  # locked, I/O, a lost connection, a deadlock: for the moment
            # sqlite3 raises InterfaceError for a value it cannot bind; psycopg for a closed connection.
            return self.sqlite or not isinstance(exc, InterfaceError)
        return isinstance(exc, StatementError) and isinstance(exc.orig, ValueError | TypeError | KeyError)

    def _apply(self, ops: list[_Op], steps: dict[str, StepWrite]) -> list[Any]:
        """A round in one transaction: the threads its steps belong to ensured, then every write in
        queue order. Returns each write's result.

        Step upserts between two other writes are sent together, one statement per set of columns
        with every row's parameters (executemany: one round trip on Postgres, psycopg's pipeline;
        one C loop in sqlite3): a round of a busy server holds tens of them, and one statement each
        cost more of the server's CPU than the rest of the writer. Their order among themselves does
        not matter (a round holds one write per step); their order against the other writes is kept."""
        conn = self._connection()
        try:
            with conn.begin():  # committed at the end of the block, rolled back if it raises
                threads: set[str] = set()
                for op in ops:
                    if op.kind == "step" and (columns := steps[op.key][1]) is not None:
                        threads.add(columns["threadId"])
                if threads:
                    now = timestamp()
                    conn.execute(ENSURE_THREAD, [{"id": t, "now": now} for t in sorted(threads)])
                results: list[Any] = [None] * len(ops)
                upserts: dict[tuple[str, ...], list[int]] = {}  # columns -> the step writes that set them
                for i, op in enumerate(ops):
                    if op.kind == "step" and (columns := steps[op.key][1]) is not None:
                        upserts.setdefault(tuple(columns), []).append(i)
                        continue
                    self._upsert_steps(conn, upserts, ops, steps, results)
                    results[i] = self._apply_op(conn, op, steps)
                self._upsert_steps(conn, upserts, ops, steps, results)
                return results
        except BaseException as exc:
            if self._permanent(exc):
                raise _Permanent(str(exc)) from exc  # refused for what it is, not for the moment
            if not (isinstance(exc, OperationalError) and "locked" in str(exc)):
                self._close_connection()  # I/O, a lost connection and the like: a fresh one next round
            raise

    @staticmethod
    def _upsert_steps(conn: Connection, upserts: dict[tuple[str, ...], list[int]], ops: list[_Op],
                      steps: dict[str, StepWrite], results: list[Any]) -> None:
        """The step upserts gathered so far, one statement per set of columns; each gets 1 as its
        result, or 0 if its id is another thread's step (left alone: the upsert's WHERE)."""
        for names, indexes in upserts.items():
            rows = [cast(dict[str, Any], steps[ops[i].key][1]) for i in indexes]
            written = conn.execute(upsert_step(names), rows if len(rows) > 1 else rows[0]).rowcount
            refused: set[str] = set()
            if written != len(rows):  # rare (a forged id): which ones, for the log and the results
                stored = conn.execute(text('SELECT "id", "threadId" FROM steps WHERE "id" IN :ids')
                                      .bindparams(bindparam("ids", expanding=True)),
                                      {"ids": [r["id"] for r in rows]}).all()
                mine = {r["id"]: r["threadId"] for r in rows}
                refused = {step_id for step_id, thread_id in stored if mine.get(step_id) != thread_id}
                for step_id in sorted(refused):
                    logger.warning("Refused to move step %s from another thread", step_id)
            for i in indexes:
                results[i] = 0 if ops[i].key in refused else 1
        upserts.clear()

    def _apply_op(self, conn: Connection, op: _Op, steps: dict[str, StepWrite]) -> Any:
        if op.kind == "barrier":
            return None
        if op.kind == "step":
            _, columns = steps[op.key]
            if columns is not None:  # upserts go through _upsert_steps, a deletion comes here
                upserts = {tuple(columns): [0]}
                results: list[Any] = [None]
                self._upsert_steps(conn, upserts, [op], steps, results)
                return results[0]
            return delete_step(conn, op.key, op.params)
        if (write := WRITES.get(op.kind)) is None:
            raise ValueError(f"unknown history write {op.kind}")
        return write(conn, op.key, op.params)
