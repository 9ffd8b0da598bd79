"""Calibration and the Brier score on a hand-made set of calls, every figure worked by hand."""
from __future__ import annotations

from decimal import Decimal

import pytest

from graph.track.calibration import brier, bucket_index, calibration
from graph.track.calls import Call, Outcome


def call(n: int, confidence: float | None, verdict: str | None, signal: str = "BUY", alpha: float = 0.01,
         **extra) -> Call:
    outcome = None if verdict is None else Outcome(
        settle_date="2024-05-30", sessions=5, entry_close=100, exit_close=101, raw_return=0.01, benchmark="SPY",
        benchmark_return=0.0, alpha=alpha, verdict=verdict)
    return Call(id=f"t:{n}", user="ann", thread_id="t", ticker="ACME", trade_date="2024-05-22", signal=signal,
                confidence=confidence, outcome=outcome, **extra)


CALLS = [
    call(1, 0.55, "right"), call(2, 0.58, "wrong", alpha=-0.01),      # 0.5–0.6: 1 of 2
    call(3, 0.8, "right"), call(4, 0.85, "right"),                     # 0.8–0.9: 2 of 2
    call(5, 0.9, "wrong", alpha=-0.01), call(6, 1.0, "right"),         # 0.9–1.0: 1 of 2
    call(7, 0.3, "wrong", alpha=-0.01),                                # below 0.5: 0 of 1
    call(8, None, "right"),                                            # no confidence: counted apart
    call(9, 0.95, None),                                               # not settled: left out
]


@pytest.mark.parametrize(("confidence", "index"), [(0.0, 0), (0.49, 0), (0.5, 1), (0.6, 2), (0.7, 3), (0.79, 3),
                                                   (0.8, 4), (0.9, 5), (1.0, 5)])
def test_each_bucket_holds_its_lower_end_and_not_its_upper_one(confidence, index):
    assert bucket_index(confidence) == index


def test_hit_rate_by_confidence_bucket_with_counts():
    c = calibration(CALLS)
    rows = [(b.label, b.calls, b.right, b.hit_rate) for b in c.buckets]
    assert rows == [("0.0–0.5", 1, 0, 0.0), ("0.5–0.6", 2, 1, 0.5), ("0.6–0.7", 0, 0, None), ("0.7–0.8", 0, 0, None),
                    ("0.8–0.9", 2, 2, 1.0), ("0.9–1.0", 2, 1, 0.5)]
    assert c.buckets[1].mean_confidence == pytest.approx(0.565)  # (0.55 + 0.58) / 2
    assert (c.scored, c.without_confidence) == (7, 1)


def test_the_brier_score_by_hand():
    # (0.55−1)² + (0.58−0)² + (0.8−1)² + (0.85−1)² + (0.9−0)² + (1−1)² + (0.3−0)²
    # = 0.2025 + 0.3364 + 0.04 + 0.0225 + 0.81 + 0 + 0.09 = 1.5014, over 7 calls = 0.214486 (to 6 places)
    assert calibration(CALLS).brier == pytest.approx(1.5014 / 7)
    assert brier([(0.5, True), (0.5, False)]) == 0.25  # always saying 0.5
    assert brier([]) is None and calibration([]).brier is None


def test_per_persona_accuracy_from_the_stances_the_record_keeps():
    calls = [call(1, 0.7, "right", argued={"Bull Researcher": "up", "Bear Researcher": "down"},
                  plan_calls={"Research Manager": "BUY", "Trader": "SELL"}),
             call(2, 0.7, "wrong", alpha=-0.02, argued={"Bull Researcher": "up"}, plan_calls={"Trader": "SELL"})]
    sides = calibration(calls).sides
    # Bull right when alpha > 0 (call 1 of 2), Bear when < 0 (0 of 1); the manager's BUY on call 1 right;
    # the Trader's SELLs: wrong at +1 %, right at −2 %; the judge: 1 of 2.
    assert sides == {"Bull Researcher": (1, 2), "Bear Researcher": (0, 1), "Research Manager": (1, 1),
                     "Trader": (1, 2), "Risk Judge": (1, 2)}
    assert Decimal("0.5") in {b.low for b in calibration(calls).buckets}
