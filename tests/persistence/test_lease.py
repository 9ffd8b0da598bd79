"""Run leases (graph/persistence/lease.py): one run per thread across processes, and a crashed holder's lease
expires. Each store the desk can use: Postgres (a real server), SQLite (two connections to one
file, as two processes on one machine have), and the in-memory one of a single process."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import pytest

from graph.core.settings import Settings
from graph.persistence.database import open_leases
from graph.persistence.lease import Held, LeaseHeld, Leases, MemoryLeases, SqliteLeases
from tests.support.clock import python_path

ROOT = Path(__file__).resolve().parents[2]

# Opens one "process's" leases (each call a new connection or pool to the same database).
Opener = Callable[[], Awaitable[Leases]]


@pytest.fixture(params=[pytest.param("postgres", marks=pytest.mark.postgres), "sqlite", "memory"])
async def leases_of(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Opener]:
    """A way to open the leases of another process on the same database."""
    async with AsyncExitStack() as stack:
        if request.param == "memory":
            shared = MemoryLeases()

            async def memory() -> Leases:
                return shared
            yield memory
            return
        if request.param == "postgres":
            settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DATABASE_URL=request.getfixturevalue(
                "fresh_postgres_url"))
        else:
            settings = Settings(DESK_DATA_DIR=tmp_path / "data")

        async def opener() -> Leases:
            return await stack.enter_async_context(open_leases(settings))
        yield opener


def thread() -> str:
    return str(uuid.uuid4())


async def test_two_owners_contend_for_a_thread(leases_of: Opener):
    a, b = await leases_of(), await leases_of()
    t = thread()

    got = await a.acquire(t, "A", ttl_s=30)
    assert got is not None and got.owner == "A"
    assert await b.acquire(t, "B", ttl_s=30) is None, "B is refused while A holds it"
    assert (await b.holder(t)).owner == "A"
    assert await b.renew(t, "B", ttl_s=30) is None, "B cannot renew what it does not hold"
    assert await b.release(t, "B") is False, "nor release it"
    assert (await a.acquire(t, "A", ttl_s=30)) is not None, "the holder may take it again (extends it)"

    assert await a.release(t, "A") is True
    assert await b.holder(t) is None
    got = await b.acquire(t, "B", ttl_s=30)
    assert got is not None and got.owner == "B", "free again once released"
    other = thread()
    assert await a.acquire(other, "A", ttl_s=30) is not None, "another thread is another lease"


async def test_an_expired_lease_is_taken_over_and_its_old_holder_told(leases_of: Opener):
    a, b = await leases_of(), await leases_of()
    t = thread()
    first = await a.acquire(t, "A", ttl_s=0.2)
    assert first is not None
    await asyncio.sleep(0.6)  # A "crashed": it renews no more

    assert await b.holder(t) is None, "an expired lease is in force for nobody"
    taken = await b.acquire(t, "B", ttl_s=30)
    assert taken is not None and taken.owner == "B" and taken.expires_at > first.expires_at
    assert await a.renew(t, "A", ttl_s=30) is None, "A, back from its stall, learns it lost the thread"
    assert await a.acquire(t, "A", ttl_s=30) is None


async def test_an_expired_lease_not_taken_over_is_renewed(leases_of: Opener):
    a = await leases_of()
    t = thread()
    await a.acquire(t, "A", ttl_s=0.2)
    await asyncio.sleep(0.6)
    renewed = await a.renew(t, "A", ttl_s=30)
    assert renewed is not None and renewed.owner == "A"
    assert (await a.holder(t)).owner == "A"


async def test_many_owners_racing_for_one_thread_one_wins(leases_of: Opener):
    racers = [await leases_of() for _ in range(6)]
    t = thread()
    results = await asyncio.gather(*(r.acquire(t, f"owner-{i}", ttl_s=30) for i, r in enumerate(racers)))
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    assert (await racers[0].holder(t)).owner == winners[0].owner


async def test_hold_renews_while_the_run_goes_on_and_releases_at_the_end(leases_of: Opener):
    a, b = await leases_of(), await leases_of()
    t = thread()
    async with a.hold(t, "A", ttl_s=0.3) as held:
        await asyncio.sleep(1.0)  # three TTLs: only the renewals keep it
        with pytest.raises(LeaseHeld) as refused:
            async with b.hold(t, "B", ttl_s=0.3):
                pass
        assert refused.value.holder is not None and refused.value.holder.owner == "A"
        assert not held.lost.is_set()
    assert await b.holder(t) is None, "released when the run ended"
    async with b.hold(t, "B", ttl_s=30):
        assert (await a.holder(t)).owner == "B"


async def test_hold_releases_when_the_run_fails(leases_of: Opener):
    a = await leases_of()
    t = thread()
    with pytest.raises(RuntimeError, match="model died"):
        async with a.hold(t, "A", ttl_s=30):
            raise RuntimeError("model died")
    assert await a.holder(t) is None


async def take_over(a: Leases, b: Leases, t: str) -> None:
    """As if A stalled past its expiry and B took the thread: the lease row now names B."""
    await b.release(t, "A")
    assert await b.acquire(t, "B", ttl_s=30) is not None


async def test_a_run_whose_lease_was_taken_over_is_cancelled(leases_of: Opener):
    a, b = await leases_of(), await leases_of()
    t = thread()
    reached_the_end = False

    async def run() -> Held:
        nonlocal reached_the_end
        async with a.hold(t, "A", ttl_s=0.3) as held:
            await take_over(a, b, t)
            await asyncio.sleep(30)  # the run goes on, until its lease is found lost
            reached_the_end = True
        return held

    task = asyncio.create_task(run())
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)
    assert task.cancelled() and not reached_the_end
    assert (await b.holder(t)).owner == "B", "A's exit does not release B's lease"


async def test_hold_only_tells_when_asked_not_to_cancel(leases_of: Opener):
    a, b = await leases_of(), await leases_of()
    t = thread()
    async with a.hold(t, "A", ttl_s=0.3, cancel_on_loss=False) as held:
        await take_over(a, b, t)
        await asyncio.wait_for(held.lost.wait(), 5)
    assert (await b.holder(t)).owner == "B"


async def test_sqlite_leases_expire_by_their_clock(tmp_path: Path):
    now = [1000.0]
    async with SqliteLeases.open(tmp_path / "leases.sqlite", clock=lambda: now[0]) as leases:
        t = thread()
        assert await leases.acquire(t, "A", ttl_s=10)
        now[0] += 9.9
        assert await leases.acquire(t, "B", ttl_s=10) is None
        now[0] += 0.1
        assert (await leases.acquire(t, "B", ttl_s=10)).owner == "B"


def test_a_ttl_must_be_positive():
    with pytest.raises(ValueError):
        asyncio.run(MemoryLeases().acquire(thread(), "A", ttl_s=0))


HOLDER = textwrap.dedent("""
    import asyncio, sys
    from graph import Settings
    from graph.persistence.database import open_leases

    async def main():
        async with open_leases(Settings()) as leases:
            async with leases.hold(sys.argv[1], "crasher", ttl_s=float(sys.argv[2])):
                print("held", flush=True)
                await asyncio.sleep(3600)

    asyncio.run(main())
""")


@asynccontextmanager
async def killed_holder(thread_id: str, ttl_s: float, env: dict[str, str]) -> AsyncIterator[None]:
    """Another process takes the thread's lease, then is killed with SIGKILL (no release)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, thread_id, str(ttl_s)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        yield
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.mark.postgres
async def test_a_killed_process_holds_its_thread_only_until_its_lease_expires(tmp_path, fresh_postgres_url):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DATABASE_URL=fresh_postgres_url)
    env = {**os.environ, "DESK_DATA_DIR": str(settings.data_dir), "DESK_DATABASE_URL": fresh_postgres_url,
           "PYTHONPATH": python_path(ROOT)}
    t = thread()
    async with open_leases(settings) as leases:
        async with killed_holder(t, 2.0, env):
            holder = await leases.holder(t)
            assert holder is not None and holder.owner == "crasher", "the dead process's lease is still in force"
            assert await leases.acquire(t, "survivor", ttl_s=30) is None
        async def expired() -> None:  # the server's clock passes the lease's expiry
            while (await leases.holder(t)) is not None:
                await asyncio.sleep(0.2)
        await asyncio.wait_for(expired(), 30)
        taken = await leases.acquire(t, "survivor", ttl_s=30)
        assert taken is not None and taken.owner == "survivor"
