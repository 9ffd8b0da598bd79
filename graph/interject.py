"""Interjections from outside the desk's process: the store item that a client of LangGraph
Server's store API (`client.store.put_item`) writes into a thread's inbox.

The same namespace, key and value as graph/inbox.py's `Inbox.post`, so the next speaker's
`take_notes` reads it like a note typed in the chat. Numbering is read-then-write, as in the
inbox: one poster per thread at a time (a second poster with the same number overwrites).
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, NamedTuple

from .inbox import MAX_NOTES

__all__ = ["MAX_NOTES", "NoteItem", "note_item"]


class NoteItem(NamedTuple):
    """A store item: `client.store.put_item(*item)` (its namespace argument is positional-only)."""
    namespace: list[str]
    key: str
    value: dict[str, Any]


def note_item(thread_id: str, existing: list[dict[str, Any]], text: str) -> NoteItem:
    """The item that posts `text` to a thread's inbox, numbered after the `existing` notes' values:
    what `client.store.search_items(["inbox", thread_id], limit=MAX_NOTES)` returned."""
    seq = max((int(v["seq"]) for v in existing), default=0) + 1
    return NoteItem(["inbox", thread_id], f"{seq:08d}",
                    {"seq": seq, "text": text, "posted": datetime.now(UTC).isoformat()})
