"""How well the desk's confidence is calibrated, over the settled calls of the track record.

* **Confidence** is read as the probability the call is right (its verdict, graph/track/settle.py).
* **Buckets**: below 0.5, then 0.5–0.6, 0.6–0.7, 0.7–0.8, 0.8–0.9 and 0.9–1.0; each holds the confidences from
  its lower end up to, not including, its upper end (the last one includes 1.0). For each: the calls, how many
  were right, the hit rate (right / calls) and the mean confidence, side by side: a desk that says 0.8 and is
  right half the time shows 0.8 beside 50 %.
* **Brier score**: the mean of (confidence − outcome)², outcome 1 for a right call and 0 for a wrong one;
  0 is perfect, 0.25 is what always saying 0.5 scores.
* Calls with no confidence stated are counted apart and left out of both; calls not settled are left out.
* **Per persona**: the stances the record keeps, scored as the /record table scores them (summary.py): the
  Bull Researcher right when the stock beat its benchmark, the Bear when it lagged (the record keeps their
  last words, whose stance is their role's), the Research Manager's and the Trader's own calls, and the Risk
  Judge's ruling. The risk debaters state no call of their own in the record, so they have no accuracy here.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .calls import Call
from .summary import summarize

EDGES = (Decimal("0"), Decimal("0.5"), Decimal("0.6"), Decimal("0.7"), Decimal("0.8"), Decimal("0.9"), Decimal("1"))


@dataclass(frozen=True)
class Bucket:
    low: Decimal
    high: Decimal
    calls: int
    right: int
    mean_confidence: float | None

    @property
    def hit_rate(self) -> float | None:
        return self.right / self.calls if self.calls else None

    @property
    def label(self) -> str:
        return f"{self.low:.1f}–{self.high:.1f}"


@dataclass(frozen=True)
class Calibration:
    buckets: tuple[Bucket, ...]
    brier: float | None           # None when no settled call stated a confidence
    scored: int                   # settled calls with a confidence
    without_confidence: int       # settled calls that stated none
    sides: dict[str, tuple[int, int]] = field(default_factory=dict, hash=False)  # persona -> (right, of)


def bucket_index(confidence: float) -> int:
    """Which bucket a confidence falls in (0: below 0.5; the last includes 1.0)."""
    value = Decimal(repr(confidence))
    for i in range(len(EDGES) - 2, -1, -1):
        if value >= EDGES[i]:
            return i
    return 0


def brier(pairs: Sequence[tuple[float, bool]]) -> float | None:
    """The mean of (confidence − outcome)² over (confidence, right) pairs; None for none."""
    if not pairs:
        return None
    return sum((p - (1.0 if right else 0.0)) ** 2 for p, right in pairs) / len(pairs)


def calibration(calls: Sequence[Call]) -> Calibration:
    settled = [c for c in calls if c.outcome is not None]
    pairs = [(float(c.confidence), c.outcome.verdict == "right") for c in settled
             if c.confidence is not None and c.outcome is not None]
    grouped: list[list[tuple[float, bool]]] = [[] for _ in EDGES[:-1]]
    for p, right in pairs:
        grouped[bucket_index(p)].append((p, right))
    buckets = tuple(Bucket(EDGES[i], EDGES[i + 1], len(g), sum(r for _, r in g),
                           sum(p for p, _ in g) / len(g) if g else None) for i, g in enumerate(grouped))
    sides = {p: s for p, s in summarize(settled).sides.items() if s[1]}
    return Calibration(buckets, brier(pairs), len(pairs), len(settled) - len(pairs), sides)


def calibration_payload(c: Calibration) -> dict[str, Any]:
    """The calibration as JSON (an event's field: the chat draws it): each bucket [low, high, calls, right, mean]."""
    return {"buckets": [[str(b.low), str(b.high), b.calls, b.right, b.mean_confidence] for b in c.buckets],
            "brier": c.brier, "scored": c.scored, "without_confidence": c.without_confidence,
            "sides": {p: [right, of] for p, (right, of) in c.sides.items()}}


def calibration_from(payload: dict[str, Any]) -> Calibration:
    """`calibration_payload`'s JSON read back."""
    buckets = tuple(Bucket(Decimal(str(low)), Decimal(str(high)), int(calls), int(right),
                           None if mean is None else float(mean))
                    for low, high, calls, right, mean in payload.get("buckets") or [])
    brier_score = payload.get("brier")
    return Calibration(buckets, None if brier_score is None else float(brier_score), int(payload.get("scored") or 0),
                       int(payload.get("without_confidence") or 0),
                       {str(p): (int(s[0]), int(s[1])) for p, s in (payload.get("sides") or {}).items()})
