"""Offers waiting for a person's yes or no: a backtest's plan, a change of the book, a watch, a costly comparison.

An offer is kept in the desk's Store (SQLite or Postgres, as the notes and the track record), so that a restart or
another process of the same database still honours its buttons. It is answered once: `take` claims it with a lease
on its key (graph/persistence/lease.py: one holder across processes) before it reads and deletes it, so two presses
at once, in one process or two, find it once. Each user keeps their last `kept` offers of a kind (the oldest are
forgotten first), so nobody fills the Store with offers never answered.

What an offer holds is its feature's: a JSON object (`body`) that the feature writes and reads back.
"""
from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from langgraph.store.base import BaseStore

from ..core import clock
from .lease import Leases

NAMESPACE = "offers"
KEPT = 200          # per user and kind
CLAIM_TTL_S = 120.0  # how long a press holds an offer while it answers it


@dataclass(frozen=True)
class Offered:
    """An offer as stored: whose it is, the thread and language it was made in, its feature's `body`, and the
    page elements that show it (its message and its buttons' ids, so an answer removes them after a restart)."""

    key: str
    kind: str
    user: str
    thread_id: str
    language: str
    body: dict[str, Any]
    message_id: str = ""
    buttons: tuple[dict[str, str], ...] = ()  # as shown: each action's name, id, label, icon, tooltip
    at: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "user": self.user, "thread_id": self.thread_id, "language": self.language,
                "body": self.body, "message_id": self.message_id, "buttons": list(self.buttons), "at": self.at}

    @classmethod
    def from_json(cls, key: str, value: dict[str, Any]) -> Offered:
        buttons = tuple({str(k): str(v) for k, v in b.items()}
                        for b in value.get("buttons") or () if isinstance(b, dict))
        return cls(key, str(value["kind"]), str(value["user"]), str(value.get("thread_id") or ""),
                   str(value.get("language") or "en"), dict(value.get("body") or {}),
                   str(value.get("message_id") or ""), buttons, str(value.get("at") or ""))


Taken = tuple[Literal["taken", "gone", "not_yours"], Offered | None]


class OfferStore:
    """The offers of the desk's Store, under ("offers", <kind>): keyed by a random key that the buttons carry."""

    def __init__(self, store: BaseStore, leases: Leases, *, kept: int = KEPT) -> None:
        self.store, self.leases, self.kept = store, leases, kept

    @staticmethod
    def new_key() -> str:
        return uuid.uuid4().hex

    async def put(self, offered: Offered) -> Offered:
        """Keep the offer (stamped now), then forget the user's oldest of its kind beyond `kept`."""
        offered = Offered(**{**offered.__dict__, "at": clock.now().isoformat()})
        await self.store.aput((NAMESPACE, offered.kind), offered.key, offered.to_json())
        mine = await self.store.asearch((NAMESPACE, offered.kind), filter={"user": offered.user},
                                        limit=self.kept + 100)
        if len(mine) > self.kept:
            mine.sort(key=lambda item: (str(item.value.get("at") or ""), item.key))
            for item in mine[: len(mine) - self.kept]:
                await self.store.adelete((NAMESPACE, offered.kind), item.key)
        return offered

    async def take(self, kind: str, key: str, user: str) -> Taken:
        """The offer `key` of `kind` answered by `user`: ("taken", it) once, and it is gone from the Store;
        ("gone", None) when it was answered already, is being answered right now, or never was; ("not_yours", it)
        when it is another user's (it stays on offer to them)."""
        if not key or len(key) > 64 or not key.isalnum():  # the buttons carry our own hex keys: nothing else is one
            return "gone", None
        claim = f"offer-{kind}-{key}"
        owner = f"press-{uuid.uuid4().hex}"  # every press its own claimant: a second press in this process waits too
        if await self.leases.acquire(claim, owner, CLAIM_TTL_S) is None:
            return "gone", None
        try:
            item = await self.store.aget((NAMESPACE, kind), key)
            if item is None:
                return "gone", None
            offered = Offered.from_json(key, item.value)
            if offered.user != user:
                return "not_yours", offered
            await self.store.adelete((NAMESPACE, kind), key)
            return "taken", offered
        finally:
            with contextlib.suppress(Exception):  # it expires by itself; the offer is deleted already
                await self.leases.release(claim, owner)

    async def get(self, kind: str, key: str) -> Offered | None:
        item = await self.store.aget((NAMESPACE, kind), key)
        return Offered.from_json(key, item.value) if item is not None else None

    async def open_in(self, kind: str, user: str, thread_id: str) -> list[Offered]:
        """`user`'s offers of `kind` still open in a thread, oldest first (a reopened page shows their buttons)."""
        items = await self.store.asearch((NAMESPACE, kind), filter={"user": user, "thread_id": thread_id},
                                         limit=self.kept)
        return sorted((Offered.from_json(i.key, i.value) for i in items), key=lambda o: (o.at, o.key))
