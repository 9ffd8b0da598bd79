"""What a chat's stored history lost of what its client was shown (benchmarks.durability counts it
over many chats): persona messages blank, altered or missing, decision cards, other steps, tool
outputs and the question; read from the reopened thread or straight from the history file.
"""
from __future__ import annotations

import contextlib
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graph import PERSONAS

from .support.socket_client import DeskClient

CARD = "**Signal**"


@dataclass
class Chat:
    """One user's chat: what the client saw, and what the store kept of it."""
    user: str
    ticker: str
    client: DeskClient
    sent_at: float = 0.0
    thread_id: str | None = None
    thread_latency_s: float | None = None   # send -> first_interaction; a lower bound when it never came
    thread_id_arrived: bool = False
    finished: bool = False
    stored: dict[str, dict] | None = None   # step id -> stored step, from resume_thread after the restart
    reopen_error: str | None = None         # why the owner could not reopen the thread

    @property
    def question(self) -> str:
        return f"should I buy {self.ticker} today?"

    def seen(self) -> list[dict]:
        """Every step the client was shown, in order, with its final state."""
        return [self.client.messages[i] for i in self.client.order]

    def personas(self) -> list[dict]:
        return [m for m in self.seen() if m.get("type") == "assistant_message" and m.get("name") in PERSONAS]

    def cards(self) -> list[dict]:
        return [m for m in self.seen()
                if m.get("type") == "assistant_message" and m.get("name") == "Desk" and CARD in (m.get("output") or "")]


def compare(chat: Chat, stored: dict[str, Any] | None, examples: list[dict] | None = None) -> Counter:
    """What the store lost of one chat. `stored` maps step id -> output (or a step dict); each
    loss is appended to `examples` when given."""
    audit = _Audit(chat, stored or {}, examples)
    audit.personas()
    audit.cards()
    audit.other_steps()
    audit.question()
    return audit.counts


class _Audit:
    """One chat's comparison, part by part: the counts, and each loss as an example when asked."""

    def __init__(self, chat: Chat, stored: dict[str, Any], examples: list[dict] | None) -> None:
        self.chat, self.stored, self.examples = chat, stored, examples
        self.counts: Counter = Counter()

    def out(self, step_id: str) -> str | None:
        s = self.stored.get(step_id)
        return s.get("output") if isinstance(s, dict) else s

    def lost(self, kind: str, m: dict) -> None:
        if self.examples is not None:
            self.examples.append({"kind": kind, "thread": self.chat.thread_id, "id": m["id"], "type": m.get("type"),
                                  "name": m.get("name"), "streamed": (m.get("output") or "")[:60],
                                  "stored": (self.out(m["id"]) or "")[:60]})

    def persona_loss(self, m: dict) -> str | None:
        if m["id"] not in self.stored:
            return "persona_missing"
        if not (self.out(m["id"]) or "").strip():
            return "persona_blank"
        if self.out(m["id"]) != (m.get("output") or ""):
            return "persona_mismatch"
        return None

    def personas(self) -> None:
        for m in self.chat.personas():
            self.counts["persona_streamed"] += 1
            kind = self.persona_loss(m)
            if kind is not None:
                self.counts[kind] += 1
                self.counts[f"lost:{m['name']}"] += 1
                self.lost(kind, m)

    def cards(self) -> None:
        for m in self.chat.cards():
            self.counts["cards_streamed"] += 1
            if CARD not in (self.out(m["id"]) or ""):
                self.counts["cards_missing"] += 1
                self.lost("card_missing", m)

    def other_steps(self) -> None:
        persona_ids = {m["id"] for m in self.chat.personas()}
        for m in self.chat.seen():
            if m["id"] in persona_ids:
                continue
            self.counts["other_steps_streamed"] += 1
            if m["id"] not in self.stored:
                self.counts["other_steps_missing"] += 1
                self.counts[f"missing:{m.get('type')}"] += 1
                self.lost("step_missing", m)
            elif m.get("type") == "tool" and (m.get("output") or "").strip() and not (self.out(m["id"]) or "").strip():
                self.counts["tool_output_blank"] += 1
                self.lost("tool_output_blank", m)

    def question(self) -> None:
        """The user's question, when the store gave whole steps (the history file gives outputs only)."""
        if not isinstance(next(iter(self.stored.values()), None), dict):
            return
        if not any(s.get("type") == "user_message" and s.get("output") == self.chat.question
                   for s in self.stored.values()):
            self.counts["user_message_missing"] += 1


def ownerless(db: Path, thread_ids: list[str]) -> int:
    """Threads stored without an owner: Chainlit refuses to reopen them for anyone."""
    if not db.exists() or not thread_ids:
        return 0
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as conn:
        rows = conn.execute('SELECT "id" FROM threads WHERE "userIdentifier" IS NULL').fetchall()
    return len({r[0] for r in rows} & set(thread_ids))


def read_db(db: Path, thread_ids: list[str]) -> dict[str, dict[str, str | None]]:
    """thread id -> {step id -> output}, straight from the chat history file (read-only)."""
    out: dict[str, dict[str, str | None]] = {t: {} for t in thread_ids}
    if not db.exists():
        return out
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as conn:
        for step_id, thread_id, output in conn.execute('SELECT "id", "threadId", "output" FROM steps'):
            if thread_id in out:
                out[thread_id][step_id] = output
    return out
