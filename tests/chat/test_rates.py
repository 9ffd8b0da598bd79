"""The message rate a person may send at (issue 20, point 1): the buckets' arithmetic."""
from __future__ import annotations

from chat.web.rates import BURST, PER_S, Rates, Refusals


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_one_message_every_two_seconds():
    clock = Clock()
    rates = Rates(clock=clock)
    assert [rates.take("user:a") for _ in range(BURST)] == [0.0] * BURST
    wait = rates.take("user:a")
    assert wait == 1 / PER_S  # refused: the next one in two seconds
    clock.now += 1 / PER_S
    assert rates.take("user:a") == 0.0
    assert rates.take("user:a") > 0
    assert rates.take("user:b") == 0.0, "another user has a bucket of their own"


def test_a_message_needs_room_in_every_bucket_and_a_refusal_takes_none():
    clock = Clock()
    rates = Rates(burst=2, per_s=1, clock=clock)
    assert rates.take("user:a", "thread:t") == 0.0
    assert rates.take("user:b", "thread:t") == 0.0
    assert rates.take("user:c", "thread:t") > 0  # the thread's bucket is empty
    assert rates.take("user:c") == 0.0, "the refusal took nothing from user c"


def test_idle_buckets_are_forgotten(monkeypatch):
    monkeypatch.setattr("graph.persistence.rates.MAX_BUCKETS", 3)
    clock = Clock()
    rates = Rates(clock=clock)
    for key in ("a", "b", "c"):
        rates.take(key)
    clock.now += 3600
    rates.take("d")
    assert set(rates.buckets) == {"d"}


def test_refusals_are_counted_until_a_message_goes_through():
    refusals = Refusals()
    assert [refusals.refused("s") for _ in range(3)] == [1, 2, 3]
    assert refusals.passed("s") == 3 and refusals.passed("s") == 0
