"""A backtest's durable record, in the desk's Store (the one the track record and the inbox use: SQLite
under DESK_DATA_DIR, or Postgres), so a killed backtest is found again by its id (`--resume ID`).

Namespaces, per user as the decision log's are (graph/track/log.py):

- ("backtest", <user>) → the backtest: its id, its plan, when it was made;
- ("backtest", <user>, <id>) → one item per day, "<TICKER>:<YYYY-MM-DD>": its status, signal, tokens, wall
  time. One item per day rather than one list, so days finishing at once never overwrite each other.

The day's thread is the truth about its deliberation; the record is what the runner learnt of it. A day
written "done" is done; a day the record does not know yet (killed between the thread's last checkpoint and
this write) is read from its thread when the backtest resumes (graph/backtest/runner.py).
"""
from __future__ import annotations

import re
import uuid
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any, Literal

from langgraph.store.base import BaseStore

from graph.core import clock

from ..core.context import backtest_user
from ..core.state import Signal
from ..core.words import DEFAULT_LANGUAGE, phrase
from ..persistence.namespaces import user_label
from .plan import Plan

BACKTEST = "backtest"
Status = Literal["done", "failed"]
_PAGE = 500


def new_id() -> str:
    return uuid.uuid4().hex[:8]


def thread_id(backtest: str, ticker: str, day: date) -> str:
    """The day's own thread, grouped under the backtest by its prefix: bt-<id>-<TICKER>-<YYYYMMDD>. A
    symbol's dots and other marks become "_" (0700.HK → 0700_HK) so the id stays one plain word."""
    return f"bt-{backtest}-{re.sub(r'[^A-Za-z0-9-]', '_', ticker)}-{day:%Y%m%d}"


def memory_user(user: str, backtest: str) -> str:
    """Whose track record the backtest's days write and recall: the backtest's own, not the user's.

    A backtest starts with no memory and learns from its own settled calls as it goes, as a desk would have
    live over that window; its hundreds of calls never crowd the user's own record (`/record`, and the
    lessons a live analysis recalls), and running the same window twice does not teach the second run
    what the first one decided. On LangGraph Server the server makes it from the authenticated user
    (graph/core/context.py user_of), the same way."""
    return backtest_user(user, backtest)


REASONS = ("lease", "run", "vendor", "undecided")  # why a day fails: `[backtest] reason_…`


def failure(kind: str, detail: str = "") -> str:
    """A failed day's reason as its record keeps it (in English): `[backtest] reason_<kind>`."""
    return phrase(DEFAULT_LANGUAGE, f"backtest.reason_{kind}", detail=detail)


@dataclass
class Day:
    """One (ticker, day) of a backtest, as the runner left it."""

    ticker: str
    day: str  # YYYY-MM-DD
    thread: str
    status: Status
    signal: Signal | None = None
    size: str = ""
    confidence: float | None = None
    horizon: str = ""
    tokens: int = 0  # as the run's usage counts them (graph/core/usage.py)
    calls: int = 0
    wall_s: float | None = None  # None: not timed (found finished in its thread on a resume)
    reason: str = ""  # why it failed, in English (`failure`); `reason_in` words it for a reader
    # Earlier days whose call could have been recalled by this one but were still running when it started
    # (graph/backtest/runner.py, "point in time"): this day knew less than it could have, never more.
    unseen: list[str] = field(default_factory=list)
    finished_at: str = ""

    @property
    def key(self) -> str:
        return f"{self.ticker}:{self.day}"

    def reason_in(self, language: str) -> str:
        """Why the day failed, in `language`: a reason the runner wrote (`failure`) in its words, its detail (an
        error's own text) as it was; any other as recorded."""
        for kind in REASONS:
            head, detail, tail = phrase(DEFAULT_LANGUAGE, f"backtest.reason_{kind}", detail="\0").partition("\0")
            if self.reason == head or (detail and self.reason.startswith(head) and self.reason.endswith(tail)):
                said = self.reason[len(head):len(self.reason) - len(tail)]
                return phrase(language, f"backtest.reason_{kind}", detail=said)
        return self.reason

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Day:
        known = {k: v for k, v in value.items() if k in cls.__dataclass_fields__}
        return cls(**known)


@dataclass(frozen=True)
class Backtest:
    id: str
    user: str
    plan: Plan
    created: str = ""

    @property
    def memory_user(self) -> str:
        return memory_user(self.user, self.id)

    def thread(self, ticker: str, day: date) -> str:
        return thread_id(self.id, ticker, day)


class Records:
    """The backtests of the desk's Store."""

    def __init__(self, store: BaseStore):
        self.store = store

    @staticmethod
    def _space(user: str, *more: str) -> tuple[str, ...]:
        return (BACKTEST, user_label(user), *more)

    async def create(self, user: str, plan: Plan) -> Backtest:
        backtest = Backtest(new_id(), user, plan, clock.now().isoformat())
        await self.store.aput(self._space(user), backtest.id,
                              {"id": backtest.id, "user": user, "plan": plan.to_json(), "created": backtest.created},
                              index=False)
        return backtest

    async def get(self, user: str, backtest_id: str) -> Backtest | None:
        item = await self.store.aget(self._space(user), backtest_id)
        if item is None:
            return None
        value = item.value
        return Backtest(str(value["id"]), str(value["user"]), Plan.from_json(value["plan"]), str(value.get("created")))

    async def days(self, backtest: Backtest) -> dict[str, Day]:
        """The days recorded so far, by key (TICKER:YYYY-MM-DD)."""
        out: dict[str, Day] = {}
        offset = 0
        while True:
            page = await self.store.asearch(self._space(backtest.user, backtest.id), limit=_PAGE, offset=offset)
            for item in page:
                day = Day.from_json(item.value)
                out[day.key] = day
            if len(page) < _PAGE:
                return out
            offset += _PAGE

    async def save_day(self, backtest: Backtest, day: Day) -> None:
        day.finished_at = day.finished_at or clock.now().isoformat()
        await self.store.aput(self._space(backtest.user, backtest.id), day.key, asdict(day), index=False)
