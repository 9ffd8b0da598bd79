"""One user's message rate holds across two real chat servers on one database (issue 36 point 5): the
messages of a burst alternate between the servers, and the 11th is refused, whichever server it reaches.
Each server alone saw six; before the buckets were shared each would have let all of them through.

No wall clock decides the outcome: the user's bucket is dated an hour ahead before the burst, and a
bucket refills nothing for a time before its last take (graph/persistence/rates.py: a slow clock mints no
messages), so however slowly a loaded machine delivers the burst, exactly BURST messages pass."""
from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chat.web.rates import BURST
from graph.core import clock
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

USER = "ann"


def toasts(client: DeskClient) -> list[str]:
    return [d["message"] for name, d in client.events if name == "toast"]


@contextlib.contextmanager
def servers(*dirs: Path, **env: str) -> Iterator[tuple[Server, ...]]:
    started: list[Server] = []
    try:
        for data_dir in dirs:
            server = Server(data_dir, DESK_DEMO_DELAY_MS="200", **env)  # slow runs: the burst's messages are notes
            data_dir.mkdir(exist_ok=True)
            server.start()  # one after the other: the first makes the shared folder's secret and tables
            started.append(server)
        yield tuple(started)
    finally:
        for server in started:
            server.stop()
    for server in started:
        assert "Traceback" not in server.log_text()


async def burst_across(first: Server, second: Server, seed: Callable[[], None],
                       tokens: Callable[[], float | None]) -> None:
    one, two = DeskClient(first.base, USER), DeskClient(second.base, USER)
    try:
        await one.connect()
        await two.connect()
        seed()
        clients = [one, two]
        for i in range(BURST):
            await clients[i % 2].send(f"message {i} — what about the China export ban?")
        await one.wait_for(lambda: tokens() == 0, 60, "the burst counted in the shared bucket")
        eleventh = clients[BURST % 2]
        await eleventh.send("one more")
        [toast] = await eleventh.wait_for(lambda: toasts(eleventh), 30, "the refusal")
        assert "faster than the desk can take them" in toast
        assert not toasts(clients[(BURST + 1) % 2]), "none of the first ten was refused"
        assert tokens() == 0
    finally:
        for client in (one, two):
            with contextlib.suppress(Exception):
                await client.close()


async def test_a_users_eleventh_message_is_refused_though_the_burst_alternates_between_two_servers(tmp_path):
    data = tmp_path / "data"
    with servers(data, data) as (first, second):
        path = data / "leases.sqlite"

        def seed() -> None:  # a full bucket that refills nothing for an hour
            with contextlib.closing(sqlite3.connect(path, timeout=30)) as db, db:
                db.execute("INSERT OR REPLACE INTO rate_buckets (key, tokens, at) VALUES (?, ?, ?)",
                           (f"user:{USER}", BURST, clock.epoch() + 3600))

        def tokens() -> float | None:
            with contextlib.closing(sqlite3.connect(path, timeout=30)) as db:
                row = db.execute("SELECT tokens FROM rate_buckets WHERE key = ?", (f"user:{USER}",)).fetchone()
            return row[0] if row else None

        await burst_across(first, second, seed, tokens)


@pytest.mark.postgres
async def test_on_postgres_too(tmp_path, fresh_postgres_url):
    import psycopg

    def seed() -> None:
        with psycopg.connect(fresh_postgres_url, autocommit=True) as db:
            db.execute("INSERT INTO desk_rate_buckets (key, tokens, at) VALUES (%s, %s, %s) ON CONFLICT (key) "
                       "DO UPDATE SET tokens = excluded.tokens, at = excluded.at",
                       (f"user:{USER}", BURST, clock.epoch() + 3600))

    def tokens() -> float | None:
        with psycopg.connect(fresh_postgres_url, autocommit=True) as db:
            row = db.execute("SELECT tokens FROM desk_rate_buckets WHERE key = %s", (f"user:{USER}",)).fetchone()
        return row[0] if row else None

    # Each server its own folder: all they share is the database.
    with servers(tmp_path / "one", tmp_path / "two", DESK_DATABASE_URL=fresh_postgres_url) as (first, second):
        await asyncio.wait_for(burst_across(first, second, seed, tokens), 180)
