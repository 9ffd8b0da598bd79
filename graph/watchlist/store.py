"""Watches and notices in the desk's Store (SQLite/Postgres), per user:

- ("watchlist", <user>) → one item per watch: its tickers (or the whole book), its rule, paused or not,
  when it was made and the last slot it ran;
- ("notices", <user>) → one item per notice, keyed by the scheduled thread it came from (so a slot run twice
  after a crash leaves one notice), with whether the user has seen it and whether the webhook took it.

Only the user's own namespace is ever read or written for a user; the scheduler lists the users that have
watches (`users`) to know whose to run, as the track record's settler lists users to settle.
"""
from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from langgraph.store.base import BaseStore

from graph.core import clock

from ..persistence.namespaces import user_label, user_of
from .rules import Rule

WATCHLIST = "watchlist"
NOTICES = "notices"
MAX_WATCHES = 20  # a user's watches; each slot of each is a run per ticker


@dataclass(frozen=True)
class Watch:
    id: str
    user: str
    tickers: tuple[str, ...]  # empty: the whole book, read at each slot
    rule: Rule
    book: bool = False
    paused: bool = False
    created: str = ""  # ISO, UTC
    last_slot: str = ""  # ISO of the last slot run ("" none yet)
    language: str = "en"

    @property
    def created_at(self) -> datetime:
        return datetime.fromisoformat(self.created)

    @property
    def last_run(self) -> datetime | None:
        return datetime.fromisoformat(self.last_slot) if self.last_slot else None

    def what(self) -> str:
        return "your whole book" if self.book else ", ".join(self.tickers)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "tickers": list(self.tickers), "rule": self.rule.as_dict()}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Watch:
        rule = Rule.from_dict(value.get("rule") or {})
        return cls(**{**value, "tickers": tuple(value.get("tickers") or ()), "rule": rule})


@dataclass(frozen=True)
class Notice:
    """A scheduled run's signal that differs from the call before it on the ticker (or a stop crossed)."""

    id: str  # the scheduled thread's id
    user: str
    watch: str
    ticker: str
    slot: str  # ISO
    signal: str
    previous: str  # the earlier call's signal ("" none)
    previous_thread: str = ""
    reason: str = ""  # in words: "BUY → SELL", "the stop 120 of the 2024-05-01 call was crossed (close 118.2)"
    seen: bool = False
    posted: bool = False  # the webhook took it
    made: str = field(default_factory=lambda: clock.now().isoformat())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class WatchStore:
    def __init__(self, store: BaseStore):
        self.store = store

    @staticmethod
    def namespace(user: str, kind: str = WATCHLIST) -> tuple[str, str]:
        if not user:
            raise ValueError("a watch belongs to a user: no user given")
        return (kind, user_label(user))

    async def add(self, user: str, tickers: tuple[str, ...], rule: Rule, *, book: bool = False,
                  language: str = "en", now: datetime | None = None) -> Watch:
        if len(await self.watches(user)) >= MAX_WATCHES:
            raise ValueError(f"You have {MAX_WATCHES} watches, the most a user may keep: remove one with "
                             "`/watch remove N` first.")
        made = (now or clock.now()).isoformat()
        watch = Watch(secrets.token_hex(4), user, tickers, rule, book, created=made, language=language)
        await self.put(watch)
        return watch

    async def put(self, watch: Watch) -> None:
        await self.store.aput(self.namespace(watch.user), watch.id, watch.to_json(), index=False)

    async def get(self, user: str, watch_id: str) -> Watch | None:
        item = await self.store.aget(self.namespace(user), watch_id)
        return Watch.from_json(item.value) if item is not None else None

    async def watches(self, user: str) -> list[Watch]:
        """The user's watches, oldest first (their numbers in `/watch`)."""
        items = await self.store.asearch(self.namespace(user), limit=1000)
        return sorted((Watch.from_json(i.value) for i in items), key=lambda w: w.created)

    async def find(self, user: str, which: str) -> Watch | None:
        """A watch by its number in the list (1-based) or its id."""
        watches = await self.watches(user)
        if which.isdigit() and 1 <= int(which) <= len(watches):
            return watches[int(which) - 1]
        return next((w for w in watches if w.id == which), None)

    async def set_paused(self, watch: Watch, paused: bool) -> Watch:
        changed = replace(watch, paused=paused)
        await self.put(changed)
        return changed

    async def ran(self, watch: Watch, slot: datetime) -> Watch:
        """Record the slot as run, unless a later one already was (two processes, one slow)."""
        current = await self.get(watch.user, watch.id) or watch
        if current.last_run is not None and current.last_run >= slot:
            return current
        changed = replace(current, last_slot=slot.isoformat())
        await self.put(changed)
        return changed

    async def remove(self, watch: Watch) -> None:
        await self.store.adelete(self.namespace(watch.user), watch.id)

    async def users(self) -> list[str]:
        """The users with a watch (the scheduler's round)."""
        spaces = await self.store.alist_namespaces(prefix=(WATCHLIST,), max_depth=2, limit=100_000)
        return [user_of(space[1]) for space in spaces if len(space) == 2]

    # --- notices -------------------------------------------------------------------------------------

    async def kept(self, user: str, thread: str) -> Notice | None:
        """The notice kept for a slot's thread, if one was."""
        item = await self.store.aget(self.namespace(user, NOTICES), thread)
        return Notice(**item.value) if item is not None else None

    async def notice(self, notice: Notice) -> Notice:
        """Keep a notice once: the one kept before for the same slot's thread (run again) when there is one."""
        if (kept := await self.kept(notice.user, notice.id)) is not None:
            return kept
        await self.store.aput(self.namespace(notice.user, NOTICES), notice.id, notice.to_json(), index=False)
        return notice

    async def notices(self, user: str, *, unseen: bool = False) -> list[Notice]:
        items = await self.store.asearch(self.namespace(user, NOTICES), limit=1000)
        found = sorted((Notice(**i.value) for i in items), key=lambda n: (n.slot, n.ticker))
        return [n for n in found if not n.seen] if unseen else found

    async def mark(self, notice: Notice, *, seen: bool | None = None, posted: bool | None = None) -> Notice:
        changed = replace(notice, seen=notice.seen if seen is None else seen,
                          posted=notice.posted if posted is None else posted)
        await self.store.aput(self.namespace(notice.user, NOTICES), notice.id, changed.to_json(), index=False)
        return changed
