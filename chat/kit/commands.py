"""The chat's commands, declared once as Chainlit commands so the composer offers them when a person types "/".

A command picked from the composer's menu arrives as `message.command` with the rest of the words as its content;
the same command typed out in full ("/stop", "/book clear NVDA") arrives as plain text. `typed()` makes both one
text, so the router (graph/routing.py) and the features read a command one way, whichever way it was sent.

Each command's description is the catalogue's `command_<id>` ([chat]), in the thread's language: the menu is
declared again when a thread's language is known (a reopened thread, a first request in another language).
"""
from __future__ import annotations

from typing import Any

import chainlit as cl
from chainlit.types import CommandDict

from graph import phrase

from .say import thread_language

# (id, lucide icon): the order the composer lists them in. What each does is the router's and its feature's.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("stop", "square"),        # the run on this thread (chat/app.py)
    ("book", "briefcase"),     # the user's holdings (chat/features/book.py)
    ("watch", "eye"),          # scheduled analyses (chat/features/watches.py)
    ("record", "chart-line"),  # the desk's track record (chat/views/track_view.py)
    ("paper", "wallet"),       # the user's paper book (chat/features/paper.py)
    ("token", "key-round"),    # the user's personal tokens for MCP clients (chat/features/tokens.py)
)


def declared(language: str) -> list[CommandDict]:
    return [CommandDict(id=name, icon=icon, description=phrase(language, f"chat.command_{name}"), button=False,
                        persistent=False, selected=False) for name, icon in COMMANDS]


async def declare(language: str | None = None) -> None:
    """Offer the commands to the page, described in `language` (else the thread's)."""
    await cl.context.emitter.set_commands(declared(language or thread_language()))


def typed(message: Any) -> str:
    """A message's words as if typed: a command picked from the menu becomes "/<id> <words>"."""
    text = str(getattr(message, "content", "") or "").strip()
    command = str(getattr(message, "command", "") or "").strip().lower()
    # Only the commands declared here: a client's made-up command is its words alone.
    if command not in {name for name, _ in COMMANDS} or text.lower().startswith("/" + command):
        return text
    return f"/{command} {text}".strip()
