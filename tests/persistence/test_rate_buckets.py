"""Message rates counted across processes (graph/persistence/rates.py, issue 36 point 5): each store
the desk can use — Postgres (a real server), SQLite (separate connections to one file, as separate
processes have) and the in-memory one of a single process — on an injected clock, never sleeping."""
from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from graph.core.settings import Settings
from graph.persistence import rates as rates_module
from graph.persistence.database import open_rates
from graph.persistence.rates import BURST, PER_S, MemoryRates, RateBuckets

ATTACKS = ("user:x' OR 1=1 --", "thread:'); DROP TABLE rate_buckets; --",
           'user:"; DELETE FROM desk_rate_buckets; --', "user:%(keys)s", "user:?")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


# Opens one "process's" buckets on the same store (each call a new connection or pool), all on one clock.
Opener = Callable[[], Awaitable[RateBuckets]]


@pytest.fixture(params=[pytest.param("postgres", marks=pytest.mark.postgres), "sqlite", "memory"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[Opener, Clock]]:
    clock = Clock()
    async with AsyncExitStack() as stack:
        if request.param == "memory":
            shared = MemoryRates(clock=clock)

            async def memory() -> RateBuckets:
                return shared
            yield memory, clock
            return
        settings = Settings(DESK_DATA_DIR=tmp_path / "data")
        if request.param == "postgres":
            settings = Settings(DESK_DATA_DIR=tmp_path / "data",
                                DESK_DATABASE_URL=request.getfixturevalue("fresh_postgres_url"))

        async def opener() -> RateBuckets:
            buckets = await stack.enter_async_context(open_rates(settings))
            buckets.clock = clock
            return buckets
        yield opener, clock


async def test_a_burst_then_one_message_every_two_seconds(store):
    opener, clock = store
    rates = await opener()
    assert [await rates.take("user:a") for _ in range(BURST)] == [0.0] * BURST
    assert await rates.take("user:a") == 1 / PER_S  # refused: the next one in two seconds
    clock.now += 1 / PER_S
    assert await rates.take("user:a") == 0.0
    assert await rates.take("user:a") > 0
    assert await rates.take("user:b") == 0.0, "another user has a bucket of their own"


async def test_two_processes_count_in_one_bucket(store):
    opener, clock = store
    one, two = await opener(), await opener()
    taken = [await (one if i % 2 else two).take("user:a", f"thread:{i % 2}") for i in range(BURST)]
    assert taken == [0.0] * BURST
    assert await one.take("user:a", "thread:1") > 0, "the 11th, wherever it arrives, is refused"
    assert await two.take("user:a", "thread:0") > 0
    clock.now += 1 / PER_S
    assert await one.take("user:a", "thread:1") == 0.0


async def test_a_message_needs_room_in_every_bucket_and_a_refusal_takes_none(store):
    opener, _clock = store
    rates = await opener()
    for i in range(BURST):
        assert await rates.take(f"user:{i}", "thread:t") == 0.0
    assert await rates.take("user:c", "thread:t") > 0  # the thread's bucket is empty
    assert [await rates.take("user:c") for _ in range(BURST)] == [0.0] * BURST, "the refusal took nothing from c"


async def test_the_wait_is_until_every_bucket_has_a_message(store):
    opener, clock = store
    rates = await opener()
    for _ in range(BURST):
        await rates.take("user:a")
    clock.now += 0.5
    assert await rates.take("user:a", "thread:t") == pytest.approx((1 - 0.5 * PER_S) / PER_S)


async def test_many_takes_at_once_from_several_processes_pass_a_burst_and_no_more(store):
    opener, _clock = store
    processes = [await opener() for _ in range(3)]
    waits = await asyncio.gather(*(processes[i % 3].take("user:a", f"thread:{i % 3}") for i in range(3 * BURST)))
    assert waits.count(0.0) == BURST


async def test_a_clock_running_backwards_mints_no_messages(store):
    opener, clock = store
    ahead, behind = await opener(), await opener()
    for _ in range(BURST):
        assert await ahead.take("user:a") == 0.0
    clock.now -= 60  # another machine's clock, a minute slow
    assert await behind.take("user:a") > 0


async def test_a_key_with_sql_in_it_is_only_a_key(store):
    opener, _clock = store
    rates = await opener()
    for attack in ATTACKS:
        assert [await rates.take(attack) for _ in range(BURST)] == [0.0] * BURST, attack
        assert await rates.take(attack) > 0, attack
    assert await rates.take("user:x") == 0.0, "a bucket of its own, the others untouched"
    assert [await rates.take("user:y") for _ in range(BURST - 1)] == [0.0] * (BURST - 1), "nothing deleted or reset"
    assert await rates.take(*ATTACKS[:2]) > 0


async def test_idle_buckets_are_forgotten_and_come_back_full(store, monkeypatch):
    monkeypatch.setattr(rates_module, "PRUNE_EVERY", 4)
    opener, clock = store
    rates = await opener()
    for key in ("a", "b", "c"):
        await rates.take(f"user:{key}")
    clock.now += rates.full_after_s - 1
    await rates.take("user:d")  # the 4th take: idle ones pruned, but none is full yet
    clock.now += 1
    assert await rates.forget_idle() == 3, "a, b and c are full again: forgotten"
    assert await rates.forget_idle() == 0
    assert [await rates.take("user:a") for _ in range(BURST)] == [0.0] * BURST


async def test_the_sqlite_buckets_sit_beside_the_leases(tmp_path: Path):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data")
    async with open_rates(settings) as rates:
        await rates.take("user:a", "thread:t")
    with sqlite3.connect(settings.data_dir / "leases.sqlite") as db:
        assert sorted(db.execute("SELECT key FROM rate_buckets")) == [("thread:t",), ("user:a",)]


def test_a_bucket_holds_a_message_and_refills():
    with pytest.raises(ValueError):
        MemoryRates(burst=0)
    with pytest.raises(ValueError):
        MemoryRates(per_s=0)


async def test_a_take_its_caller_stops_waiting_for_still_ends_its_transaction(tmp_path: Path):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data")
    async with open_rates(settings) as rates, open_rates(settings) as other:
        taking = asyncio.ensure_future(rates.take("user:a"))
        await asyncio.sleep(0)  # the take's transaction has begun
        taking.cancel()  # the door gave up on the database
        with pytest.raises(asyncio.CancelledError):
            await taking
        while rates._running:  # it ends by itself
            await asyncio.sleep(0.01)
        assert await other.take("user:a") == 0.0, "no transaction left open: the file is writable"
        assert await rates.take("user:a") == 0.0
