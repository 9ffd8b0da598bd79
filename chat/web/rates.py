"""How fast one person may send messages: a token bucket per user and per thread.

A person types a message every few seconds; a script on a socket sent 10,000 in a minute, and each
one became a note that loaded the thread's checkpoint, so the server grew by 2 GB and another
user's run waited a minute for its first word. The door (chat/web/door.py) takes from the buckets
before a message reaches Chainlit: within the rate it goes on; beyond it, it is refused at once,
costing nothing, and the sender is told (`Refusals` says so once per burst, then counts).

Each bucket holds BURST messages and refills at PER_S a second: ten in a row, then one every two
seconds. The buckets are the desk runtime's (`DeskRuntime.rates`, graph/persistence/rates.py): kept
beside the run leases in the database, so several chat processes on one database count together.
`Rates` here is this process's own, which the door counts in while the database does not answer.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from graph import BURST, PER_S, MemoryRates

__all__ = ["BURST", "PER_S", "Rates", "Refusals", "refusal_text", "refused_since_text"]


class Rates:
    """This process's token buckets by key ("user:…", "thread:…"); idle ones are forgotten."""

    def __init__(self, burst: int = BURST, per_s: float = PER_S, clock: Callable[[], float] = time.monotonic):
        self.memory = MemoryRates(burst, per_s, clock)

    @property
    def buckets(self) -> dict[str, object]:
        return dict(self.memory.buckets)

    def take(self, *keys: str) -> float:
        """Take one message from every key's bucket: 0.0 if each had one, else the seconds until
        they all will (and nothing is taken)."""
        return self.memory.take_now(*keys)


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
