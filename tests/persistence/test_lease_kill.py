"""A lease held by a killed process is taken over within its timeout (issue 36 point 5), across real
processes: a process takes a thread's lease (and renews it), is killed with SIGKILL (no release), and
this process takes the thread over.

Two ways it ends, both tested on SQLite (the folder the processes of one machine share) and Postgres:
- the holder was a process of this machine (the default owner, `run_owner`: host and pid): it no longer
  exists, so `live_holder` (which the chat, the CLI and the MCP server ask first) lets its lease go at
  once, long before DEFAULT_TTL_S;
- the holder cannot be told dead from here (another machine's): its lease is in force until its expiry,
  which is at most `ttl_s` after its last renewal, and no longer: taken at that instant. On SQLite the
  taker's clock is moved to the expiry (no sleeping); then, with a short TTL, the real clock passes it too.
"""
from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pytest

from graph.core import clock
from graph.core.settings import Settings
from graph.persistence.database import open_leases
from graph.persistence.lease import DEFAULT_TTL_S, SqliteLeases, hold_run, live_holder
from tests.support.clock import python_path

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

ROOT = Path(__file__).resolve().parents[2]

# Holds the thread's lease as a run does (`hold_run`, renewed every ttl/3) until it is killed. OWNER "" is
# the run's own name (this machine, this pid); another is a holder this machine cannot see.
HOLDER = textwrap.dedent("""
    import asyncio, sys
    from graph import Settings
    from graph.persistence.database import open_leases

    async def main():
        thread, ttl, owner = sys.argv[1], float(sys.argv[2]), sys.argv[3] or None
        async with open_leases(Settings()) as leases:
            async with leases.hold(thread, owner, ttl_s=ttl) as held:
                print(held.lease.owner, flush=True)
                await asyncio.sleep(3600)

    asyncio.run(main())
""")


@contextmanager
def killed_holder(settings: Settings, thread_id: str, ttl_s: float, owner: str = "") -> Iterator[str]:
    """Another process holds the thread's lease, then is killed with SIGKILL and reaped; its owner name."""
    env = {**os.environ, "DESK_DATA_DIR": str(settings.data_dir), "PYTHONPATH": python_path(ROOT)}
    if settings.database_url:
        env["DESK_DATABASE_URL"] = settings.database_url
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, thread_id, str(ttl_s), owner], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        held_by = proc.stdout.readline().strip()
        assert held_by, "the holder took the lease"
        os.killpg(proc.pid, signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
        yield held_by
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    if request.param == "postgres":
        url = request.getfixturevalue("fresh_postgres_url")
        return Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DATABASE_URL=url)
    return Settings(DESK_DATA_DIR=tmp_path / "data")


async def test_a_killed_local_holders_lease_is_let_go_at_once(settings: Settings):
    thread = str(uuid.uuid4())
    async with open_leases(settings) as leases:
        with killed_holder(settings, thread, DEFAULT_TTL_S) as owner:
            holder = await leases.holder(thread)
            assert holder is not None and holder.owner == owner, "the dead process's lease is still in the table"
            assert await leases.acquire(thread, "survivor") is None, "a plain acquire waits for its expiry"
            assert await live_holder(leases, thread) is None, "its process is gone: let go now, not in 30 s"
            assert await leases.holder(thread) is None
            async with hold_run(leases, thread) as held:  # as the next run of the thread takes it
                assert held.lease.owner != owner


async def test_a_killed_holder_this_machine_cannot_see_is_taken_over_at_its_expiry(settings: Settings):
    thread, ttl = str(uuid.uuid4()), 1.0
    async with open_leases(settings) as leases:
        with killed_holder(settings, thread, ttl, owner="another-host:1:dead") as owner:
            killed_at = clock.epoch()
            holder = await leases.holder(thread)
            assert holder is not None and holder.owner == owner
            assert await live_holder(leases, thread) is not None, "not this machine's: left to expire"
            assert holder.expires_at <= datetime.fromtimestamp(killed_at + ttl, holder.expires_at.tzinfo), \
                "it expires within its TTL of the kill"
            if settings.database_url is None:  # SQLite: the taker's clock at the expiry, no waiting
                with sqlite3.connect(settings.data_dir / "leases.sqlite") as db:  # as stored, not rounded
                    [(expiry,)] = db.execute("SELECT expires_at FROM run_leases WHERE thread_id = ?", (thread,))
                async with SqliteLeases.open(settings.data_dir / "leases.sqlite",
                                             clock=lambda: expiry - 0.001) as before:
                    assert await before.acquire(thread, "survivor") is None
                async with SqliteLeases.open(settings.data_dir / "leases.sqlite", clock=lambda: expiry) as at:
                    taken = await at.acquire(thread, "survivor", ttl_s=ttl)
                    assert taken is not None and taken.owner == "survivor"
                    assert await at.release(thread, "survivor")

        async def expired() -> None:  # on the real clock (Postgres: the server's) the expiry passes too
            while await leases.holder(thread) is not None:
                await asyncio.sleep(0.1)
        await asyncio.wait_for(expired(), 60)
        async with hold_run(leases, thread) as held:
            assert held.lease.owner != owner
