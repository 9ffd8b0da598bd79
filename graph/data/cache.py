"""A SQLite cache in front of any :class:`~graph.data.vendor.Vendor`.

``CachedVendor(inner, path)`` answers the same protocol. Each method call is
keyed by ``vendor name + method + JSON of its arguments`` and the result is
stored pickled (DataFrames keep their ``attrs``, e.g. statement filing dates;
news items and posts keep their dataclass types). Every hit unpickles a fresh
object, so callers can never mutate a cached answer.

Freshness rule, by the call's ``end`` / ``as_of`` date:

* A **closed past period** -- that date is more than ``settle_days`` before
  ``today()`` -- cannot change any more, so the answer is kept forever.
  ``settle_days`` defaults to 1: "yesterday" is still treated as open, since
  in a timezone ahead of New York yesterday's US session may not have closed
  (or been finalised by Yahoo) yet. Use ``settle_days=0`` to keep anything
  dated before today.
* Anything else (today, yesterday, the future) expires ``ttl_seconds`` after
  it was stored.

Errors are **not cached**: a :class:`VendorError` (rate limit, outage, unknown
ticker) propagates and the next call asks the inner vendor again. Nor is an answer
its caller gave up on (it came after the tools' time limit, or the run was
stopped) or one the vendor marked partial (``answered_in_part``: one feed of two
failed): see :class:`~graph.data.vendor.VendorCall` (issue 36). A vendor
that swallows a transient failure into an empty answer defeats this, which is
why the yfinance vendor always raises on transient failures.

Thread safety: the tools call vendors from worker threads, so one connection
(``check_same_thread=False``) is shared under a lock; the lock is *not* held
while the inner vendor works, so slow fetches run in parallel. Two threads
missing the same key at once may both fetch it; the later write wins.

The cache file is trusted local state (it is unpickled), written only by this
class under the desk's data directory.

One cache per machine, also with DESK_DATABASE_URL (issue #12): the app processes of a
machine share the file (SQLite's locks), and it is deliberately not moved into Postgres:

* Unpickling runs code. A cache in the shared database would let whoever can write that
  database (any app process, a leaked URL) run code in every process that reads it; a
  file under the data directory trusts only this machine's desk.
* What it holds is public and cheap to fetch again: a miss is one Yahoo request, so N
  machines cost at most N requests per key per TTL.
* Copies cannot disagree for long: a closed period never changes, and an open one is
  refetched after ``ttl_seconds`` (15 minutes), the staleness a single process already has.
* Demo mode uses no cache at all (synthetic data is computed).
"""

from __future__ import annotations

import json
import pickle
import sqlite3
import threading
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd

from graph.core import clock
from graph.core.assets import AssetClass
from graph.data.vendor import Event, NewsItem, Observation, OptionChain, Post, StatementKind, Vendor, vendor_call

DEFAULT_TTL_S = 900.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vendor_cache (
    key        TEXT PRIMARY KEY,
    value      BLOB NOT NULL,
    stored_at  REAL NOT NULL,
    expires_at REAL            -- NULL: closed past period, kept forever
)
"""


def _json_default(value: object) -> str:
    if isinstance(value, (date, datetime, pd.Timestamp)):
        return value.isoformat()
    return repr(value)


class CachedVendor:
    """Caches every answer of ``inner`` in a SQLite file; see the module docstring."""

    def __init__(
        self,
        inner: Vendor,
        path: Path | str,
        ttl_seconds: float = DEFAULT_TTL_S,
        today: Callable[[], date] = clock.today,
        *,
        clock: Callable[[], float] = clock.epoch,
        settle_days: int = 1,
        timeout_s: float | None = None,
    ) -> None:
        self.inner = inner
        # How long a tool waits for one call (graph/tools/guarded.py), DESK_VENDOR_TIMEOUT_S; None: the inner's.
        self.timeout_s = timeout_s if timeout_s is not None else getattr(inner, "timeout_s", None)
        self.path = Path(path)
        self.ttl_seconds = float(ttl_seconds)
        self.settle_days = int(settle_days)
        self._today = today
        self._clock = clock
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30.0)
        with self._lock, self._db:
            self._db.execute(_SCHEMA)

    # ---- the protocol's identity is the inner vendor's ----------------------

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def label(self) -> str:
        return self.inner.label

    @property
    def macro_source(self) -> str | None:
        return getattr(self.inner, "macro_source", None)

    # ---- storage -------------------------------------------------------------

    def _key(self, method: str, args: tuple) -> str:
        return f"{self.inner.name}:{method}:" + json.dumps(list(args), default=_json_default)

    def _lookup(self, key: str) -> tuple[bool, Any]:
        with self._lock:
            row = self._db.execute(
                "SELECT value, expires_at FROM vendor_cache WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return False, None
        value, expires_at = row
        if expires_at is not None and expires_at <= self._clock():
            return False, None
        try:
            return True, pickle.loads(value)
        except Exception:  # unreadable entry (e.g. a class moved): treat as a miss
            return False, None

    def _store(self, key: str, value: Any, closed: bool) -> None:
        now = self._clock()
        expires_at = None if closed else now + self.ttl_seconds
        blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO vendor_cache (key, value, stored_at, expires_at) VALUES (?, ?, ?, ?)",
                (key, blob, now, expires_at),
            )

    def _closed(self, day: date) -> bool:
        """True when ``day`` lies in a period that can no longer change."""
        if isinstance(day, datetime):
            day = day.date()
        return day < self._today() - timedelta(days=self.settle_days)

    def _cached(self, method: str, period_end: date, *args: Any) -> Any:
        key = self._key(method, args)
        hit, value = self._lookup(key)
        if hit:
            return value
        with vendor_call() as call:
            value = getattr(self.inner, method)(*args)  # VendorError propagates, uncached
        if call.abandoned or call.partial:
            return value  # a late answer nobody waits for, or a part of one: not kept (module docstring)
        self._store(key, value, self._closed(period_end))
        return value

    def clear(self) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM vendor_cache")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- the Vendor protocol -------------------------------------------------

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        return self._cached("ohlcv", end, ticker, start, end)

    def profile(self, ticker: str, as_of: date) -> dict:
        return self._cached("profile", as_of, ticker, as_of)

    def statements(self, ticker: str, as_of: date, kind: StatementKind) -> pd.DataFrame:
        return self._cached("statements", as_of, ticker, as_of, kind)

    def news(self, ticker: str, start: date, end: date) -> list[NewsItem]:
        return self._cached("news", end, ticker, start, end)

    def macro_news(self, start: date, end: date) -> list[NewsItem]:
        return self._cached("macro_news", end, start, end)

    def social_posts(self, ticker: str, start: date, end: date) -> list[Post]:
        return self._cached("social_posts", end, ticker, start, end)

    def asset_class(self, ticker: str) -> AssetClass:
        # What an instrument is does not change: stored as a closed period's answer.
        return self._cached("asset_class", date.min, ticker)

    def recommendations(self, ticker: str, as_of: date) -> list[dict]:
        return self._cached("recommendations", as_of, ticker, as_of)

    def events(self, ticker: str, as_of: date, until: date) -> list[Event]:
        # Keyed by the trade date: what was scheduled by a closed past day cannot change.
        return self._cached("events", as_of, ticker, as_of, until)

    def macro_series(self, series_id: str, start: date, as_of: date) -> list[Observation]:
        # A vintage of a closed past day never changes (ALFRED keeps every vintage): kept forever then.
        return self._cached("macro_series", as_of, series_id, start, as_of)

    def option_chain(self, ticker: str, as_of: date) -> OptionChain | None:
        # Today's quotes only: kept for the TTL, as any answer about an open day.
        return self._cached("option_chain", as_of, ticker, as_of)
