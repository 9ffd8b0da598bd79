"""The inbox that carries user messages into a running graph, kept in LangGraph's Store.

A note is written to the store before the user is told it was received, so a crash after the
acknowledgement loses nothing, and any process that shares the store can deliver it. Notes
are numbered per thread and never removed while the thread lives, so reading is idempotent:
the state records the highest number consumed (`inbox_seen`), and a run cancelled between
"read" and "checkpointed" reads the same notes again when it resumes.
"""
from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime

from langgraph.store.base import BaseStore

# Enough for any thread's interjections; one search reads them all.
MAX_NOTES = 10_000


@dataclass(frozen=True)
class Note:
    seq: int
    text: str


def _namespace(thread_id: str) -> tuple[str, ...]:
    return ("inbox", thread_id)


class Inbox:
    def __init__(self, store: BaseStore):
        self.store = store
        # Numbering is read-then-write: one poster at a time per thread in this process.
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def post(self, thread_id: str, text: str) -> Note:
        async with self._locks[thread_id]:
            notes = await self.since(thread_id, 0)
            note = Note((notes[-1].seq if notes else 0) + 1, text)
            await self.store.aput(_namespace(thread_id), f"{note.seq:08d}", {
                "seq": note.seq, "text": text, "posted": datetime.now(UTC).isoformat()})
            return note

    async def since(self, thread_id: str, seen: int) -> list[Note]:
        items = await self.store.asearch(_namespace(thread_id), limit=MAX_NOTES)
        notes = [Note(int(i.value["seq"]), str(i.value["text"])) for i in items]
        return sorted((n for n in notes if n.seq > seen), key=lambda n: n.seq)

    async def delete(self, thread_id: str) -> None:
        for note in await self.since(thread_id, 0):
            await self.store.adelete(_namespace(thread_id), f"{note.seq:08d}")
