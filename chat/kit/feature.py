"""What a chat feature offers app.py, which loops over the features instead of wiring each by hand.

A feature (the book, backtests, watches, comparisons) answers the messages that are its own, stops what it runs
for a thread, puts back what a reopened thread shows (its offers' buttons, a run's progress), closes on shutdown
and registers its own buttons. The order of the features in app.py's list is the order in which a message is
offered to them: the first that takes it answers it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import chainlit as cl

from graph import Purpose, Route


@dataclass
class Message:
    """A message the person sent, as the features read it: its text (trimmed), the Chainlit message (its files),
    the page's chat (chat/runs.py ChatRun: its thread and language), the next analysis' shape, and what the words
    are for, read once by graph's router (graph/routing.py) for every feature."""

    message: cl.Message
    text: str
    chat: Any  # ChatRun: not imported here, runs.py builds on the kit
    next_analysis: Any  # NextAnalysis
    route: Route = field(default_factory=lambda: Route(Purpose.DESK))  # what the words are for (graph's `route`)

    @property
    def thread_id(self) -> str:
        return str(self.chat.thread_id)

    @property
    def language(self) -> str:
        return str(self.chat.language)


class Feature(Protocol):
    def install(self) -> None:
        """Register the feature's buttons (Chainlit action callbacks)."""

    async def answer(self, said: Message) -> bool:
        """Answer `said` when it is this feature's; False for any other message."""

    async def stop(self, thread_id: str) -> bool:
        """Stop what the feature runs for the thread; False when nothing was running."""

    async def reopened(self, thread_id: str, steps: list[Any]) -> None:
        """A page opened the thread (a reload, another tab, a restart): what the feature shows there comes back."""

    async def close(self) -> None:
        """The server stops: what runs keeps its checkpoints, to go on after the restart."""
