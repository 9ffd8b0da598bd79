"""Whose each thread is, for the ways of running the desk that have no history of their own (the CLI, the MCP
server): a thread is claimed by the user it first ran for, and only that user lists it and reads it.

Kept in the desk's Store (SQLite or Postgres, beside the notes and the track record): ("threads", <user>) holds a
user's threads, newest first when listed, and ("thread-owner",) whose each thread is, so that a thread id someone
names is checked with one read. The chat keeps its own owners (its history's threads table); this is the headless
side's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langgraph.store.base import BaseStore

from ..core import clock
from .namespaces import user_label

THREADS = "threads"
OWNERS = ("thread-owner",)
LISTED = 100  # the most a listing returns


@dataclass(frozen=True)
class OwnedThread:
    thread_id: str
    user: str
    source: str   # where it was made: "cli", "mcp"
    title: str    # what it was asked, its first words
    at: str       # ISO UTC, when it was claimed

    def to_json(self) -> dict[str, Any]:
        return {"user": self.user, "source": self.source, "title": self.title, "at": self.at}


class ThreadOwners:
    def __init__(self, store: BaseStore) -> None:
        self.store = store

    @staticmethod
    def namespace(user: str) -> tuple[str, str]:
        if not user:
            raise ValueError("a thread belongs to a user: no user given")
        return (THREADS, user_label(user))

    async def owner(self, thread_id: str) -> str | None:
        item = await self.store.aget(OWNERS, thread_id)
        return str(item.value["user"]) if item is not None else None

    async def owns(self, user: str, thread_id: str) -> bool:
        return await self.owner(thread_id) == user

    async def claim(self, user: str, thread_id: str, *, source: str, title: str = "") -> bool:
        """The thread is `user`'s from now on if nobody's yet; whether it is `user`'s (False: another's). The Store
        has no compare-and-set: two users claiming one new thread id at once is left to the ids being random."""
        owner = await self.owner(thread_id)
        if owner is not None:
            return owner == user
        owned = OwnedThread(thread_id, user, source, " ".join(title.split())[:120], clock.now().isoformat())
        await self.store.aput(self.namespace(user), thread_id, owned.to_json(), index=False)
        await self.store.aput(OWNERS, thread_id, {"user": user}, index=False)
        return True

    async def threads(self, user: str, limit: int = LISTED) -> list[OwnedThread]:
        """`user`'s threads, newest first (the Store lists the last written first; a claim is written once)."""
        items = await self.store.asearch(self.namespace(user), limit=max(1, min(limit, LISTED)))
        owned = [OwnedThread(i.key, user, str(i.value.get("source") or ""), str(i.value.get("title") or ""),
                             str(i.value.get("at") or "")) for i in items]
        return sorted(owned, key=lambda t: (t.at, t.thread_id), reverse=True)[:limit]
