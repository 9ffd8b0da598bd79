"""A full disk under DESK_DATA_DIR (issue 36, point 6): a clear error, the thread stays readable, nothing
stored is corrupted, and the run resumes once space is back.

The desk's own SQLite files (checkpoints, store) and the chat history's writer (chat/history/writer.py) sit
in DESK_DATA_DIR. A thread's first turn is stored; the disk fills while the second turn runs (at the Market
Analyst's first call); then:

* the run stops with the plain sentence `explain` gives ("The server's disk is full: …"), neither a
  traceback nor "Something went wrong";
* the thread's first turn still reads back, from the checkpoints and from the chat history;
* every SQLite file passes `PRAGMA integrity_check`;
* the history write made while the disk was full waits in the writer (nothing is dropped) and lands once
  space is back, and the run resumes from its last checkpoint to a decision.

Two disks: a real 8 MB tmpfs when this process may mount one (root with CAP_SYS_ADMIN, as in the dev
container), filled with a file until the kernel says ENOSPC; and, where mounting is not allowed (a CI
runner without root), a simulated one. Python's sqlite3 offers no VFS to inject SQLITE_FULL below SQLite,
so the simulation raises at the desk's points of write instead: the checkpointer's `aput`/`aput_writes`
raise `sqlite3.OperationalError("database or disk is full")` (what SQLite raises on ENOSPC, seen on the
real disk) and the history writer's transaction raises it wrapped as SQLAlchemy does.
"""
from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import sqlite3
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError as SQLAlchemyOperationalError

from chat import storage
from chat.history import HistoryWriter
from graph.core.errors import explain
from graph.core.settings import Settings
from graph.persistence.database import open_checkpointer, open_store
from tests.support.desk import Desk
from tests.support.models import ScriptedChatModel

pytestmark = pytest.mark.faults

DISK_FULL = "database or disk is full"


class RealDisk:
    """A small tmpfs: filled by a file written until ENOSPC, freed by deleting it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.filler = path / "filler"

    def install(self, checkpointer: Any, writer: HistoryWriter) -> None:
        pass

    def fill(self) -> None:
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b"\0" * 65536)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
        try:  # the last few blocks
            while True:
                os.write(fd, b"\0" * 512)
        except OSError:
            pass
        finally:
            os.close(fd)

    def free(self) -> None:
        self.filler.unlink()


class SimulatedDisk:
    """No mount allowed: the points of write raise what a full disk makes SQLite raise (module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.full = False

    def install(self, checkpointer: Any, writer: HistoryWriter) -> None:
        def guarded(write: Callable[..., Any]) -> Callable[..., Any]:
            async def refused(*args: Any, **kwargs: Any) -> Any:
                if self.full:
                    raise sqlite3.OperationalError(DISK_FULL)
                return await write(*args, **kwargs)
            return refused

        checkpointer.aput = guarded(checkpointer.aput)
        checkpointer.aput_writes = guarded(checkpointer.aput_writes)
        apply = writer._apply

        def applied(*args: Any) -> Any:
            if self.full:
                raise SQLAlchemyOperationalError("COMMIT", {}, sqlite3.OperationalError(DISK_FULL))
            return apply(*args)

        writer._apply = applied  # type: ignore[method-assign]

    def fill(self) -> None:
        self.full = True

    def free(self) -> None:
        self.full = False


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root here (the simulated disk covers the same checks)")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", str(disk)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.strip()} (the simulated disk covers the same checks)")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def step(thread_id: str, output: str, kind: str = "user_message") -> dict[str, Any]:
    return {"id": str(uuid.uuid4()), "threadId": thread_id, "name": "alice", "type": kind, "output": output,
            "createdAt": "2026-11-28T10:00:00Z", "metadata": "{}", "generation": "{}"}


def history(chat_db: Path, thread_id: str) -> list[str]:
    with contextlib.closing(sqlite3.connect(f"file:{chat_db}?mode=ro", uri=True)) as db:
        return [o for (o,) in db.execute('SELECT "output" FROM steps WHERE "threadId" = ? ORDER BY "createdAt", '
                                         '"output"', (thread_id,))]


def intact(data_dir: Path) -> dict[str, str]:
    """Each SQLite file's `PRAGMA integrity_check` (opened read-only: checking must not need space)."""
    checked = {}
    for path in sorted(data_dir.glob("*.sqlite")) + sorted(data_dir.glob("*.db")):
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            checked[path.name] = db.execute("PRAGMA integrity_check").fetchone()[0]
    return checked


async def full_disk_scenario(disk: RealDisk | SimulatedDisk) -> None:
    data_dir = disk.path
    settings = Settings(DESK_DATA_DIR=data_dir, DESK_DEMO_DELAY_MS=0)
    chat_db = storage.chat_db_path(data_dir)
    storage.create_schema(chat_db)
    writer = HistoryWriter(f"sqlite:///{chat_db}")
    armed = {"on": False}

    def fill_at_the_analyst(persona: str | None, messages: Any, tools: Any) -> None:
        if armed["on"] and persona == "Market Analyst":
            armed["on"] = False
            disk.fill()
        return None

    try:
        async with open_checkpointer(settings) as checkpointer, open_store(settings) as store:
            disk.install(checkpointer, writer)
            desk = Desk(settings, ScriptedChatModel(script=fill_at_the_analyst), checkpointer, store=store)
            thread = desk.thread
            writer.put_step(next(writer.stamps), (asked := step(thread, "should I buy NVDA today?"))["id"], asked)
            await desk.ask(asked["output"])
            first = await desk.state()
            assert first["final_decision"].ticker == "NVDA"
            writer.put_step(next(writer.stamps), (said := step(thread, "NVDA: decided", "assistant_message"))["id"],
                            said)
            await writer.flush()

            armed["on"] = True
            with pytest.raises(Exception) as failed:
                await desk.ask("and what about AAPL?")
            told = explain(failed.value)
            assert told.startswith("The server's disk is full: "), told
            assert "Something went wrong" not in told and "Traceback" not in told
            assert "disk is full" in explain(failed.value, "zh") or "磁盘已满" in explain(failed.value, "zh")

            # The user's next message while the disk is full: the history writer keeps it and retries.
            writer.put_step(next(writer.stamps), (later := step(thread, "and what about AAPL?"))["id"], later)
            await asyncio.sleep(0.5)
            if isinstance(disk, SimulatedDisk):  # a real disk may find a page freed by a rolled back write
                assert writer.pending() > 0, "a write the disk refused waits in the writer, it is not dropped"
            assert writer.pending() > 0 or "and what about AAPL?" in history(chat_db, thread)

            # The thread reads back, from the checkpoints and from the history, while the disk is full.
            now = await desk.state()
            decided = first["final_decision"]
            assert decided == now["final_decision"] or decided in now["past_decisions"], "the first turn's call"
            assert [m.content for m in now["messages"][: len(first["messages"])]] == [
                m.content for m in first["messages"]]
            assert {"NVDA: decided", "should I buy NVDA today?"} <= set(history(chat_db, thread))
            assert set(intact(data_dir).values()) == {"ok"}, intact(data_dir)

            disk.free()
            await asyncio.wait_for(writer.flush(), 10)
            assert sorted(history(chat_db, thread)) == sorted(
                ["should I buy NVDA today?", "NVDA: decided", "and what about AAPL?"]), "no message lost"
            await desk.ask(None)  # resumed from the last checkpoint the full disk left
            assert (await desk.state())["final_decision"].ticker == "AAPL"
    finally:
        await writer.close()
    checked = intact(data_dir)
    assert {"checkpoints.sqlite", "store.sqlite", chat_db.name} <= set(checked) and set(checked.values()) == {"ok"}


async def test_a_real_small_filesystem_fills_mid_run(small_disk: Path) -> None:
    await full_disk_scenario(RealDisk(small_disk))


async def test_a_simulated_full_disk_at_the_points_of_write(tmp_path: Path) -> None:
    await full_disk_scenario(SimulatedDisk(tmp_path / "data"))


def test_a_file_write_refused_for_space_is_told_plainly() -> None:
    """Element files and any other file the desk writes fail with ENOSPC: the same sentence."""
    told = explain(OSError(errno.ENOSPC, "No space left on device", "/data/files/chart.png"))
    assert told.startswith("The server's disk is full: no space left on device.")
    assert "/data/files" not in told


def test_a_private_file_cut_short_by_a_full_disk_keeps_what_it_held(tmp_path: Path, monkeypatch) -> None:
    """An element file (chat/history/files.py) or the login secret written again on a full disk: the old
    bytes stay whole and no part of the new ones is left. Simulated: the write raises ENOSPC half-way."""
    from graph.core import private

    path = tmp_path / "files" / "chart.png"
    private.write_private(path, b"the chart as it was")
    real_fdopen = os.fdopen

    class HalfWritten:
        def __init__(self, fd: int, mode: str) -> None:
            self.file = real_fdopen(fd, mode)

        def __enter__(self) -> HalfWritten:
            return self

        def __exit__(self, *exc: object) -> None:
            self.file.close()

        def write(self, data: bytes) -> int:
            self.file.write(data[: len(data) // 2])
            self.file.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(private.os, "fdopen", HalfWritten)
    with pytest.raises(OSError) as refused:
        private.write_private(path, b"a new chart, twice as long as the old one")
    assert explain(refused.value).startswith("The server's disk is full: no space left on device.")
    assert path.read_bytes() == b"the chart as it was"
    assert sorted(p.name for p in path.parent.iterdir()) == ["chart.png"], "no part of the new file is left"
    monkeypatch.setattr(private.os, "fdopen", real_fdopen)
    private.write_private(path, b"the new chart")  # space is back
    assert path.read_bytes() == b"the new chart" and path.stat().st_mode & 0o777 == 0o600
