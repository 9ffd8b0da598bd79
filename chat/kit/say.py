"""One way to say a Desk message: in the thread's language, labelled for the page, with its buttons.

The thread's language is the chat's (chat/runs.py `ChatRun.language`: the thread's once its first request is read,
the page's before), found from the page's session: a feature says `said("watch_saved", n=2)` and does not carry
a language through its calls. A message about something made in another language (an offer answered after the
chat's language changed) is said in that language: the kit answers an offer's button inside `speaking(offer's
language)`, and a feature that answers a message in the message's own language (the book's words) does the same.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import chainlit as cl

from graph import DESK, LOCAL_USER, phrase

from ..speakers import label_metadata

DEFAULT = "en"
# The language said in for now (`speaking`), when it is not the thread's: an offer answered in its own.
_SPEAKING: ContextVar[str | None] = ContextVar("desk_speaking", default=None)


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """Say everything inside in `language` instead of the thread's (said, desk_message, thread_language)."""
    token = _SPEAKING.set(language)
    try:
        yield
    finally:
        _SPEAKING.reset(token)


def thread_language() -> str:
    """The language the Desk speaks in here: `speaking`'s, else the page's chat's (its thread's, else its page's),
    English outside a page."""
    if spoken := _SPEAKING.get():
        return spoken
    try:
        chat = cl.user_session.get("chat")
    except Exception:  # no Chainlit context: a test or a task of its own
        return DEFAULT
    return str(getattr(chat, "language", "") or DEFAULT)


def signed_in(session: Any) -> str | None:
    """The identifier of a page's signed-in user (None without a login: the desk's local user)."""
    user = getattr(session, "user", None)
    return str(user.identifier) if user is not None and user.identifier else None


def page_user() -> str:
    """Whose page this is: the signed-in user, else the desk's local user (the user the chat's runs, the book,
    the watches and the backtests are kept under)."""
    return signed_in(cl.context.session) or LOCAL_USER


# Message metadata: a Desk message beside the deliberation (a feature's offer or answer, a word about a run), not
# part of any branch of it: an edit never folds it (chat/edits.py), as it never folds the person's own words.
ASIDE = "desk_aside"


def desk_message(text: str, *, language: str | None = None, actions: list[cl.Action] | None = None,
                 message_id: str | None = None) -> cl.Message:
    """A message of the Desk with `text`, labelled in the thread's language (or `language`), on every branch."""
    lang = language or thread_language()
    message = cl.Message(content=text, author=DESK, actions=actions or [],
                         metadata={**label_metadata(DESK, language=lang), ASIDE: True})
    if message_id:
        message.id = message_id
    return message


def said(key: str, *, language: str | None = None, actions: list[cl.Action] | None = None,
         message_id: str | None = None, **fields: object) -> cl.Message:
    """The Desk's own words: `key` of the catalogue ("watch_saved" is [chat] watch_saved; "compare.cost" names its
    section), in the thread's language (or `language`)."""
    lang = language or thread_language()
    return desk_message(phrase(lang, key if "." in key else "chat." + key, **fields), language=lang,
                        actions=actions, message_id=message_id)
