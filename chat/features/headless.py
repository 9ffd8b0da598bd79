"""Threads the server runs without a page: a backtest's day (chat/features/backtest_days.py) and a watch's scheduled run
(chat/features/watches.py). Each is an ordinary LangGraph thread with checkpoints; it gets its Chainlit row (its owner,
its name in the sidebar) from the server, never from a page (chat/web/door.py refuses a page that names one first),
and it has no stored messages until it is first opened.

`own_thread` makes the row, owned by the run's user, or says whose it already is. `tell_on_first_open`, called in
on_chat_resume, tells the thread from its checkpoint once Chainlit has shown the (empty) thread: the request,
each persona's turn, the decision card with its chart and report. Those messages are stored with the thread, so
the next opening is the history's.
"""
from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import chainlit as cl
from chainlit.logger import logger

from graph import DESK, RISK_JUDGE, DeskRuntime, inert_links, language_of, phrase

from ..speakers import label_metadata
from ..views.card import show_decision
from ..web.door import history

# The thread's first words, from its state and language: what this thread is ("Backtest … · NVDA · 2024-01-03").
Intro = Callable[[str, dict[str, Any]], str]


async def own_thread(thread_id: str, user: str, name: str, metadata: dict[str, Any]) -> bool:
    """Give the thread its row, owned by `user` (the first time); whether the thread is `user`'s (False too
    without a history). The caller vouches for `user`: the signed-in user, or the user whose watch ran."""
    layer = history()
    if layer is None:
        return False
    owner = await layer.thread_owner(thread_id)
    if owner is not None:
        return owner == user
    # A user's row is made at their first login; a watch's slot can run before this history's first one
    # (a fresh database, a user moved from another server).
    persisted = await layer.get_user(user) or await layer.create_user(cl.User(identifier=user))
    if persisted is None:
        return False
    await layer.update_thread(thread_id, name=name, user_id=persisted.id, metadata=metadata)
    await layer.flush()  # stored before a page asks for it
    return True


def tell_on_first_open(desk: DeskRuntime, thread_id: str, steps: list[Any], intro: Intro, gone: str) -> None:
    """On the thread's first opening (no stored messages), tell it from its checkpoint once Chainlit has shown
    the page the thread (what is sent before that, the page's resume would wipe). `gone`: the catalogue key
    said when the checkpoint is no longer there."""
    if any(str(s.get("type", "")).endswith("_message") for s in steps):
        return
    _after_shown(lambda: _tell(desk, thread_id, intro, gone), thread_id)


def tell_follow_ups(desk: DeskRuntime, thread_id: str, steps: list[Any]) -> None:
    """A thread told before, opened again: the follow-ups asked since without a page (over MCP, on the CLI) are
    told after what is stored, each question and the Desk's answer, once."""
    told = sum(1 for s in steps if s.get("type") == "user_message")
    if told:
        _after_shown(lambda: _tell_follow_ups(desk, thread_id, told), thread_id)


def _after_shown(tell: Callable[[], Awaitable[None]], thread_id: str) -> None:
    emitter = cl.context.emitter
    shown = emitter.resume_thread

    async def shown_then_told(thread: Any) -> None:
        await shown(thread)
        try:
            await tell()
        except Exception:
            logger.exception("Could not show the thread %s from its checkpoint", thread_id)

    emitter.resume_thread = shown_then_told  # type: ignore[method-assign,assignment]


def _exchanges(state: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Each question in the thread's messages, and what the Desk answered it (a follow-up's answer)."""
    found: list[tuple[str, list[str]]] = []
    for message in state.get("messages") or []:
        kind = getattr(message, "type", "")
        if kind == "human":
            found.append((str(message.content), []))
        elif kind == "ai" and found and getattr(message, "name", None) == DESK and message.content:
            found[-1][1].append(str(message.content))
    return found


async def _tell_exchanges(exchanges: list[tuple[str, list[str]]], language: str) -> None:
    for question, answers in exchanges:
        await cl.Message(content=question, author="User", type="user_message").send()
        for answer in answers:
            await cl.Message(content=inert_links(answer), author=DESK,
                             metadata=label_metadata(DESK, language=language)).send()


async def _tell_follow_ups(desk: DeskRuntime, thread_id: str, told: int) -> None:
    state = await desk.state(thread_id)
    await _tell_exchanges(_exchanges(state)[told:], language_of(state))


async def _tell(desk: DeskRuntime, thread_id: str, intro: Intro, gone: str) -> None:
    state = await desk.state(thread_id)
    language = language_of(state)
    if not state:
        await cl.Message(content=phrase(language, gone), author=DESK).send()
        return
    await cl.Message(content=intro(language, state), author=DESK, metadata=label_metadata(DESK, language=language)
                     ).send()
    asked = next((str(m.content) for m in state.get("messages") or [] if getattr(m, "type", "") == "human"), "")
    if asked:
        await cl.Message(content=asked, author="User", type="user_message").send()
    turns = [(step.persona, step.round, step.text) for step in await desk.history(thread_id)]
    # The judge's words are the last turn; the thread's steps (made for Edit) end before the ruling.
    judged = str(getattr(state.get("risk_debate"), "judge_decision", "") or "")
    if judged and RISK_JUDGE not in (persona for persona, _, _ in turns):
        turns.append((RISK_JUDGE, 0, judged))
    for persona, round_, text in turns:
        # A model's words: links made inert, as every turn is shown (chat/views/render.py).
        await cl.Message(content=inert_links(text), author=persona,
                         metadata=label_metadata(persona, round_, language)).send()
    with contextlib.suppress(Exception):  # no card (a run that failed) leaves the turns as they are
        await show_decision(thread_id, state, desk.vendor)
    await _tell_exchanges(_exchanges(state)[1:], language)  # follow-ups asked before this opening
