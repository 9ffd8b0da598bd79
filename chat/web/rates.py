"""How fast one person may send messages: a token bucket per user and per thread.

A person types a message every few seconds; a script on a socket sent 10,000 in a minute, and each
one became a note that loaded the thread's checkpoint, so the server grew by 2 GB and another
user's run waited a minute for its first word. The door (chat/web/door.py) asks `Rates.take` before a
message reaches Chainlit: within the rate it goes on; beyond it, it is refused at once, costing
nothing, and the sender is told (`Refusals` says so once per burst, then counts).

Each bucket holds BURST messages and refills at PER_S a second: ten in a row, then one every two
seconds. Idle buckets are forgotten, so the memory is bounded by the people sending now.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

BURST = 10
PER_S = 0.5
MAX_BUCKETS = 10_000  # beyond this, full (idle) buckets are dropped


@dataclass
class _Bucket:
    tokens: float
    at: float


class Rates:
    """Token buckets by key ("user:…", "thread:…")."""

    def __init__(self, burst: int = BURST, per_s: float = PER_S, clock: Callable[[], float] = time.monotonic):
        self.burst, self.per_s, self.clock = float(burst), per_s, clock
        self.buckets: dict[str, _Bucket] = {}

    def _level(self, key: str, now: float) -> _Bucket:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= MAX_BUCKETS:
                self._forget_idle(now)
            bucket = self.buckets[key] = _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.per_s)
        bucket.at = now
        return bucket

    def _forget_idle(self, now: float) -> None:
        full_after = self.burst / self.per_s
        self.buckets = {k: b for k, b in self.buckets.items() if now - b.at < full_after}

    def take(self, *keys: str) -> float:
        """Take one message from every key's bucket: 0.0 if each had one, else the seconds until
        they all will (and nothing is taken)."""
        now = self.clock()
        buckets = [self._level(key, now) for key in keys]
        short = [b for b in buckets if b.tokens < 1]
        if short:
            return max((1 - b.tokens) / self.per_s for b in short)
        for b in buckets:
            b.tokens -= 1
        return 0.0


class Refusals:
    """What a sender is told about refused messages: once per burst of refusals, then a count."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}  # session -> refused since the last message that went through

    def refused(self, session: str) -> int:
        self.counts[session] = self.counts.get(session, 0) + 1
        return self.counts[session]

    def passed(self, session: str) -> int:
        """A message went through: how many were refused before it (then forgotten)."""
        return self.counts.pop(session, 0)


def refusal_text(wait_s: float) -> str:
    return (f"You are sending messages faster than the desk can take them (more than {BURST} in a row, "
            f"then one every {1 / PER_S:g} seconds), so this one was not delivered. Wait "
            f"{max(1, round(wait_s))} s and send it again; the run goes on.")


def refused_since_text(count: int) -> str:
    return f"{count} message{'s' if count != 1 else ''} sent too fast {'were' if count != 1 else 'was'} not delivered."
