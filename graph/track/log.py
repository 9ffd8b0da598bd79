"""The decision log: each user's calls in LangGraph's Store, the store the desk already opens (SQLite
under DESK_DATA_DIR, Postgres on DESK_DATABASE_URL, the server's own on LangGraph Server).

One namespace per user, ("track", <user>), so a user's reads never see another's: nothing here
lists calls across users except `users()`, for the settlement pass that runs at server start.
LangGraph Server's store API refuses every namespace but a thread's inbox (graph/server_auth.py),
so a client cannot read the log directly either.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langgraph.store.base import BaseStore

from ..persistence.namespaces import user_label, user_of
from .calls import Call

TRACK = "track"
_PAGE = 500


class DecisionLog:
    def __init__(self, store: BaseStore):
        self.store = store

    @staticmethod
    def namespace(user: str) -> tuple[str, str]:
        return (TRACK, user_label(user))

    async def save(self, call: Call) -> None:
        """Write a call (a new one, or the same id again: an edited branch's decision, a settlement)."""
        await self.store.aput(self.namespace(call.user), call.id, call.model_dump(mode="json"), index=False)

    async def save_all(self, calls: Iterable[Call]) -> None:
        for call in calls:
            await self.save(call)

    async def get(self, user: str, call_id: str) -> Call | None:
        item = await self.store.aget(self.namespace(user), call_id)
        return Call.model_validate(item.value) if item is not None else None

    async def calls(self, user: str, *, ticker: str | None = None) -> list[Call]:
        """The user's calls (one ticker's when given), oldest trade date first."""
        values = await self.values(user, ticker=ticker)
        return sorted((Call.model_validate(v) for v in values), key=lambda c: (c.trade_date, c.recorded_at, c.id))

    async def values(self, user: str, *, ticker: str | None = None) -> list[dict[str, Any]]:
        """The user's calls as stored (plain JSON), unordered: the start of every analysis reads
        them all, and validating a thousand of them only to keep a few cost a third of its time."""
        out: list[dict[str, Any]] = []
        offset = 0
        where = {"ticker": ticker} if ticker else None
        while True:
            page = await self.store.asearch(self.namespace(user), filter=where, limit=_PAGE, offset=offset)
            out += [item.value for item in page]
            if len(page) < _PAGE:
                break
            offset += _PAGE
        return out

    async def users(self) -> list[str]:
        """Every user with a logged call (the settlement pass at server start)."""
        spaces = await self.store.alist_namespaces(prefix=(TRACK,), max_depth=2, limit=100_000)
        return [user_of(ns[1]) for ns in spaces if len(ns) == 2]
