"""A comparison's record in the desk's Store, under its user: ("compare", user) → parent thread id.

Written when the comparison starts (so a stop, a crash or another process finds its desks to resume) and again
when it ends, with the Comparison turn's words and its ranking (so the parent thread's follow-ups, "which was
riskier?", are answered from it, and the chat can show the card again). Another user's comparison is not found:
the namespace is the user's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from langgraph.store.base import BaseStore

from ..core import clock
from ..persistence.namespaces import user_label

COMPARE = "compare"
WRITTEN = "written"  # the record's own time of writing, kept beside its fields


@dataclass
class Record:
    parent: str
    tickers: tuple[str, ...]
    trade_date: date
    threads: dict[str, str]
    language: str = "en"
    asked: str = ""
    status: str = "running"  # "running" (or stopped half-way: its desks say which), "done"
    text: str = ""           # the Comparison turn's words
    ranking: list[dict[str, Any]] = field(default_factory=list)  # graph/compare/comparison.py Ranked rows
    read: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"parent": self.parent, "tickers": list(self.tickers), "trade_date": self.trade_date.isoformat(),
                "threads": self.threads, "language": self.language, "asked": self.asked, "status": self.status,
                "text": self.text, "ranking": self.ranking, "read": self.read}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Record:
        return cls(str(value["parent"]), tuple(value["tickers"]), date.fromisoformat(value["trade_date"]),
                   dict(value["threads"]), str(value.get("language") or "en"), str(value.get("asked") or ""),
                   str(value.get("status") or "running"), str(value.get("text") or ""),
                   list(value.get("ranking") or []), str(value.get("read") or ""))


class Comparisons:
    """The comparisons of the desk's Store, per user."""

    def __init__(self, store: BaseStore):
        self.store = store

    @staticmethod
    def _space(user: str) -> tuple[str, ...]:
        return (COMPARE, user_label(user))

    async def put(self, user: str, record: Record) -> None:
        # When, to the microsecond: the Store's own updated_at is whole seconds on SQLite, and a comparison that
        # ended in the same second as the thread's last checkpoint read as older than it (its follow-ups lost).
        value = record.to_json() | {WRITTEN: clock.now().isoformat()}
        await self.store.aput(self._space(user), record.parent, value, index=False)

    async def get(self, user: str, parent: str) -> Record | None:
        item = await self.store.aget(self._space(user), parent)
        return Record.from_json(item.value) if item is not None else None

    async def updated(self, user: str, parent: str) -> datetime | None:
        """When the record was last written (its start, its end)."""
        item = await self.store.aget(self._space(user), parent)
        if item is None:
            return None
        written = item.value.get(WRITTEN)
        at = datetime.fromisoformat(written) if isinstance(written, str) else item.updated_at  # older records: none
        return at if at.tzinfo is not None else at.replace(tzinfo=UTC)  # a store may give it without its zone: UTC
