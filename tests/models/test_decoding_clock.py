"""The demo model's words come on one decoding clock for the whole process, as a batching server makes one
token of every running answer per step: a call's first word is due on the next tick (never more than one
step late), and answers that run together are due on the same ticks."""
from __future__ import annotations

import math

import pytest

from graph.models.policy import _on_step

STEP = 0.008


@pytest.mark.parametrize("t", [0.0, 1.0031, 1.008, 7.99999, 123.4567])
def test_the_first_word_is_due_on_the_next_tick_at_most_one_step_late(t: float) -> None:
    due = _on_step(t, STEP)
    assert t - 1e-9 <= due < t + STEP
    assert math.isclose(due / STEP, round(due / STEP), abs_tol=1e-6)  # a tick of the common clock


def test_answers_started_apart_within_a_step_share_their_ticks() -> None:
    """Two analysts' calls started 3 ms apart: their words are due together from then on."""
    a, b = _on_step(10.0001 + 0.2, STEP), _on_step(10.0031 + 0.2, STEP)
    assert a == b
    assert [a + i * STEP for i in range(5)] == [b + i * STEP for i in range(5)]


def test_the_latency_benchmark_keeps_each_call_on_its_own_deadlines() -> None:
    from benchmarks.latency import Latency, LatencyModel
    from graph.models.demo import DemoChatModel
    assert DemoChatModel().on_clock
    assert not LatencyModel(Latency(200, 8, 250)).on_clock
