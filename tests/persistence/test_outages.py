"""Riding out a database blip (graph/persistence/outages.py): which failures are retried, for how long, what the
listeners hear, and the fast failure once the database is out. Faults made by hand: psycopg's own error classes,
raised where the connection would fail (the real server's crash is tests/chat/test_db_outage_e2e.py)."""
from __future__ import annotations

import psycopg
import pytest
from psycopg import errors
from psycopg_pool import PoolTimeout

from graph.core.errors import explain
from graph.persistence.outages import DatabaseUnavailable, Outages, connection_lost

pytestmark = pytest.mark.faults


class Clock:
    """Time that moves only when the code under test sleeps: the backoff is counted, never waited."""

    def __init__(self) -> None:
        self.now = 0.0
        self.pauses: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr("graph.persistence.outages.time.monotonic", lambda: clock.now)
    return clock


def failing(times: int, exc: Exception, result: str = "stored"):
    calls = []

    async def operation() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise exc
        return result
    return operation, calls


def test_connection_failures_are_told_apart_from_a_statements_own():
    assert connection_lost(psycopg.OperationalError("server closed the connection unexpectedly"))  # no SQLSTATE
    assert connection_lost(PoolTimeout("couldn't get a connection after 2.00 sec"))
    assert connection_lost(errors.AdminShutdown("terminating connection due to administrator command"))  # 57P01
    assert connection_lost(errors.CannotConnectNow("the database system is starting up"))  # 57P03
    assert connection_lost(errors.ConnectionFailure("connection failure"))  # 08006
    assert not connection_lost(errors.QueryCanceled("canceling statement due to statement timeout"))  # 57014
    assert not connection_lost(errors.UniqueViolation("duplicate key"))
    assert not connection_lost(errors.UndefinedTable("no such table"))
    assert not connection_lost(RuntimeError("something else"))


async def test_a_blip_is_retried_with_backoff_and_the_listeners_hear_it_come_and_go(clock):
    outages, heard = Outages(30.0, sleep=clock.sleep), []
    outages.listen(heard.append)
    operation, calls = failing(4, PoolTimeout("couldn't get a connection"))
    assert await outages.retried(operation) == "stored"
    assert len(calls) == 5
    assert clock.pauses == [0.25, 0.5, 1.0, 2.0]  # doubling from a quarter second, at most 2 s apart
    assert heard == ["reconnecting", "back"]  # once each, however many tries
    assert (outages.out, outages.reconnecting, outages.blips) == (False, False, 1)


async def test_a_statements_own_error_is_raised_at_once(clock):
    outages = Outages(30.0, sleep=clock.sleep)
    operation, calls = failing(1, errors.UniqueViolation("duplicate key"))
    with pytest.raises(errors.UniqueViolation):
        await outages.retried(operation)
    assert len(calls) == 1 and clock.pauses == []


async def test_past_the_budget_the_database_is_out_and_each_operation_fails_fast_until_one_succeeds(clock):
    outages, heard = Outages(3.0, sleep=clock.sleep), []
    outages.listen(heard.append)
    operation, calls = failing(99, psycopg.OperationalError("connection refused"))
    with pytest.raises(DatabaseUnavailable) as raised:
        await outages.retried(operation)
    # 0.25 + 0.5 + 1 + 1.25 (the budget's rest) = 3 s of pauses, then out.
    assert clock.pauses == [0.25, 0.5, 1.0, 1.25] and len(calls) == 5
    assert heard == ["reconnecting", "out"] and outages.out
    assert "has not answered for 3 s" in explain(raised.value)
    assert "数据库已有 3 秒没有响应" in explain(raised.value, "zh")
    # Out: tried once, no backoff.
    pauses = len(clock.pauses)
    with pytest.raises(DatabaseUnavailable):
        await outages.retried(operation)
    assert len(clock.pauses) == pauses and len(calls) == 6
    # Back: the next operation that succeeds says so.
    ok, _ = failing(0, RuntimeError())
    assert await outages.retried(ok) == "stored"
    assert heard[-1] == "back" and not outages.out


async def test_waiting_for_the_database_probes_until_it_answers(clock):
    probes = []

    async def probe() -> None:
        probes.append(1)
        if len(probes) < 3:
            raise psycopg.OperationalError("connection refused")

    outages, heard = Outages(1.0, probe=probe, sleep=clock.sleep), []
    outages.out = True
    outages.listen(heard.append)
    await outages.wait_until_back(every_s=2.0)
    assert len(probes) == 3 and clock.pauses == [2.0, 2.0]
    assert heard == ["back"] and not outages.out


async def test_a_listener_that_fails_does_not_fail_the_operation(clock):
    outages = Outages(30.0, sleep=clock.sleep)

    def broken(state: str) -> None:
        raise RuntimeError("a page that went away")
    outages.listen(broken)
    operation, _ = failing(1, PoolTimeout("no connection"))
    assert await outages.retried(operation) == "stored"
