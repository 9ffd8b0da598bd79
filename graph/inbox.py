"""The inbox that carries user messages into a running graph.

The chat layer posts; speakers read through LangGraph's runtime context. Notes are
numbered for the whole thread and never removed, so reading is idempotent: the state
records the highest number consumed, and a run that is cancelled between "read" and
"checkpointed" simply reads the same notes again next time.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Note:
    seq: int
    text: str


@dataclass
class Inbox:
    # A new inbox for a stored thread starts after what the thread already consumed.
    next_seq: int = 1
    notes: list[Note] = field(default_factory=list)

    def post(self, text: str) -> Note:
        note = Note(self.next_seq, text)
        self.notes.append(note)
        self.next_seq += 1
        return note

    def since(self, seen: int) -> list[Note]:
        return [n for n in self.notes if n.seq > seen]
