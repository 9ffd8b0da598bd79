"""The inbox that carries user messages into a running graph, kept in LangGraph's Store.

A note is written to the store before the user is told it was received, so a crash after the
acknowledgement loses nothing, and any process that shares the store can deliver it.

Every note gets its own key — the time it was posted (nanoseconds) and a random uuid — so a post
never reads before it writes and never overwrites another: posts racing from many processes all
land (a per-thread counter would need a lock that spans processes). Notes are never removed while
the thread lives, so reading is idempotent: the state records the keys it has read
(`inbox_read`, a set-like list), and a run cancelled between "read" and "checkpointed" reads the
same notes again when it resumes. Notes are read in (posted time, key) order.

A note may be addressed (`to`): "Bear, what about the export ban?" waits for the Bear's next turn;
the other speakers leave it alone unless the Bear has no turn left in the run (graph/notes/address.py
decides the address when the note is posted).
"""
from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import BaseStore

# Enough for any thread's interjections; one search reads them all.
MAX_NOTES = 10_000
# What one speaker takes from the inbox in a turn, and how much of each note its prompt quotes: a
# flood of notes is answered a few at a time (the rest wait for the next speakers) and never turns
# into a prompt of hundreds of kilobytes.
NOTES_PER_TURN = 5
NOTE_PROMPT_CHARS = 1_000


def quoted_note(text: str) -> str:
    """A note's text as a prompt quotes it: cut at NOTE_PROMPT_CHARS, saying so."""
    if len(text) <= NOTE_PROMPT_CHARS:
        return text
    return text[:NOTE_PROMPT_CHARS].rstrip() + f" … [cut: {len(text) - NOTE_PROMPT_CHARS:,} more characters]"

# A note's number (`seq`) is for people and the chat (acknowledgements, the record): milliseconds
# since 2025 then 20 random bits, so numbers grow with time and two notes share one only if they
# were posted in the same millisecond and drew the same 20 bits. Reading never depends on it (keys
# do), so even that would only merge two notes' acknowledgements.
_EPOCH_MS = 1_735_689_600_000  # 2025-01-01T00:00:00Z
_RANDOM_BITS = 20


@dataclass(frozen=True)
class Note:
    seq: int
    text: str
    key: str = ""
    to: str | None = None      # the persona it waits for; None: the next speaker
    posted: str = ""           # ISO time, UTC

    def for_reader(self, persona: str, waiting: Collection[str]) -> bool:
        """Whether `persona` takes this note, `waiting` being the personas with a turn still to start."""
        return self.to is None or self.to == persona or self.to not in waiting


def _namespace(thread_id: str) -> tuple[str, ...]:
    return ("inbox", thread_id)


def new_note(text: str, to: str | None = None) -> tuple[str, dict[str, Any]]:
    """A new note's store key and value: what `Inbox.post` (and a LangGraph Server client) writes."""
    now_ns = time.time_ns()
    seq = ((now_ns // 1_000_000 - _EPOCH_MS) << _RANDOM_BITS) | secrets.randbits(_RANDOM_BITS)
    key = f"{now_ns:020d}-{uuid.uuid4().hex}"
    posted = datetime.fromtimestamp(now_ns / 1e9, UTC).isoformat()
    return key, {"seq": seq, "text": text, "to": to, "posted": posted}


def _note(key: str, value: dict[str, Any]) -> Note:
    to = value.get("to")
    return Note(int(value["seq"]), str(value["text"]), key, str(to) if to else None, str(value.get("posted") or ""))


def is_read(note: Note, read: Collection[str], seen: int = 0) -> bool:
    """Read if its key is recorded; `seen` is the highest number a thread checkpointed before keys
    were recorded (notes of that time were numbered 1, 2, 3…)."""
    return note.key in read or note.seq <= seen


class Inbox:
    def __init__(self, store: BaseStore):
        self.store = store

    async def post(self, thread_id: str, text: str, to: str | None = None) -> Note:
        key, value = new_note(text, to)
        await self.store.aput(_namespace(thread_id), key, value)
        return _note(key, value)

    async def all(self, thread_id: str) -> list[Note]:
        items = await self.store.asearch(_namespace(thread_id), limit=MAX_NOTES)
        return sorted((_note(i.key, i.value) for i in items), key=lambda n: (n.posted, n.key))

    async def unread(self, thread_id: str, read: Iterable[str] = (), seen: int = 0) -> list[Note]:
        """The thread's notes not yet read, in posting order."""
        done = set(read)
        return [n for n in await self.all(thread_id) if not is_read(n, done, seen)]

    async def since(self, thread_id: str, seen: int) -> list[Note]:
        """Notes numbered above `seen` (for callers that count; `unread` is what runs use)."""
        return [n for n in await self.all(thread_id) if n.seq > seen]

    async def delete(self, thread_id: str) -> None:
        for note in await self.all(thread_id):
            await self.store.adelete(_namespace(thread_id), note.key)


def unread_in(state: dict[str, Any] | Any) -> tuple[list[str], int]:
    """What a state says was read: (keys, the legacy highest number)."""
    return list(state.get("inbox_read") or []), int(state.get("inbox_seen") or 0)
