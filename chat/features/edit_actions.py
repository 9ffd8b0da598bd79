"""The Edit and Switch buttons, pressed (chat/edits.py offers them and keeps the branch tags).

Edit asks for the new words (the current ones in a code block), forks the thread right after that
turn and has the thread's ChatRun continue the fork like a resumed run; the earlier branch's
messages are collapsed. Switch makes another branch current: its messages come back, the branch
left is collapsed. Both are refused while the desk runs on the thread, and for another thread than
the pressing session's own. Chainlit answers a button's HTTP call when its callback returns, so the
work goes on in a task of its own (`edit_pressed`, `switch_pressed`: chat/app.py registers them).
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, cast

import chainlit as cl
from chainlit.context import local_steps
from chainlit.logger import logger
from chainlit.step import StepDict

from graph import DESK, DeskRuntime, EditRefused, Step, explain, phrase

from ..edits import (
    CANCEL_WORDS,
    EDIT_TIMEOUT_S,
    NOTE,
    WORDS,
    Change,
    branch_change,
    drop_actions,
    folded_line,
    match_messages,
    offer,
    offer_way_back,
    step_words,
    superseded_after,
    switch_action,
    thread_messages,
)
from ..kit.say import thread_language
from ..kit.tasks import quietly
from ..panel import next_analysis
from ..runs import ChatRun


def turn_label(step: Step, language: str, desk: str = "") -> str:
    """A step as the user reads it: "Bull Researcher, round 2" ("多头研究员，第 2 轮"); in a comparison its desk's
    ticker first ("AMD Bull Researcher")."""
    said = step_words(step.persona, step.round, language)
    return f"{desk} {said}" if desk else said


def edit_prompt(step: Step, language: str, desk: str = "") -> str:
    """The question for a turn's new words, its words now in a code block (`desk`: a comparison's ticker)."""
    fence = "~~~~" if "~~~" in step.text else "~~~"
    start = phrase(language, "chat.edit_prompt_start")
    return (phrase(language, "chat.edit_prompt", start=start, label=turn_label(step, language, desk))
            + f"\n\n{fence}text\n{step.text}\n{fence}")


_label, _prompt = turn_label, edit_prompt


def note(key: str, language: str | None = None, actions: list[cl.Action] | None = None,
         **fields: object) -> cl.Message:
    """A Desk note about edits and branches (the text `chat.<key>`), in the thread's language (or `language`):
    its metadata keeps it on every branch (chat/edits.py NOTE). Not the kit's `said()`: an edit's notes, like
    its question, have always shown the Desk unlabelled, and a label would change how they look in Chinese."""
    return cl.Message(content=phrase(language or thread_language(), "chat." + key, **fields), author=DESK,
                      metadata={NOTE: True}, actions=actions or [])


def _session_chat(action: cl.Action) -> ChatRun | None:
    """The pressing session's chat, when the action names its thread (never another's): the thread's
    run in flight here if another tab of it started one, so an edit is refused while it runs."""
    chat = cl.user_session.get("chat")
    thread_id = cl.context.session.thread_id
    if chat is None or chat.thread_id != thread_id or (action.payload or {}).get("thread_id") != thread_id:
        return None
    return chat.service.current(chat)


async def _current_key(desk: DeskRuntime, thread_id: str) -> str:
    return str(next(b for b in await desk.branches(thread_id) if b.current).key)


async def _edit(action: cl.Action) -> None:
    chat = _session_chat(action)
    if chat is None:
        await note("edit_not_yours").send()
        return
    if chat.active:
        await note("edit_running").send()
        return
    desk = await chat.service.runtime()
    payload = action.payload or {}
    step = next((s for s in await desk.history(chat.thread_id) if s.id == payload.get("step")), None)
    if step is None or step.checkpoint_id != payload.get("checkpoint"):
        await note("edit_gone").send()
        return
    messages = await thread_messages(chat.thread_id)  # before the question: what the earlier branch showed
    lang = chat.language
    answer = await cl.AskUserMessage(content=edit_prompt(step, lang), author=DESK, timeout=EDIT_TIMEOUT_S).send()
    # Chainlit marks a task as running once the answer is in (an ask is meant for a handler that
    # goes on): this one goes on in a run of its own, so the composer is handed back.
    await cl.context.emitter.task_end()
    text = str((answer or {}).get("output") or "")
    if not text.strip() or text.strip().lower() in CANCEL_WORDS:
        await note("edit_kept", label=turn_label(step, lang)).send()
        return
    if chat.active:
        await note("edit_running").send()
        return
    leaving = await _current_key(desk, chat.thread_id)
    try:
        fork = await desk.fork(chat.thread_id, step.id, text)
    except EditRefused as exc:
        await note("edit_failed", reason=exc.told(lang)).send()
        return
    entering = await _current_key(desk, chat.thread_id)
    kept = match_messages([s for s in await _steps_before(desk, chat.thread_id, step)], messages).values()
    edited = match_messages([step], messages).get(step.id) or (action.forId or "")
    left = [str(m["id"]) for m in superseded_after(messages, edited, kept)]
    now = next(s for s in await desk.history(chat.thread_id) if s.id == step.id)
    await cl.Message(content=f"{now.text}\n\n{phrase(lang, 'chat.edited')}", author=step.persona).send()
    if chat.active:  # a message sent meanwhile started a run: it continues the fork itself
        return
    chat.start(None, next_analysis(cl.user_session.get("chat_settings"), chat.service.settings))
    # The messages read before the question are the earlier branch's; those said since are the fork's.
    changes = branch_change(messages, leaving, entering, superseded=left)
    await apply_changes(messages, changes, lambda words: folded_line(words, lang, turn_label(step, lang)))
    logger.info("thread %s: edit of %s forked at %s (%d messages collapsed, %d tagged)", chat.thread_id, step.id,
                fork.checkpoint_id, *(sum(1 for c in changes if c.show is show) for show in (False, None)))


async def _steps_before(desk: DeskRuntime, thread_id: str, step: Step) -> list[Step]:
    steps = await desk.history(thread_id)
    ids = [s.id for s in steps]
    return steps[:ids.index(step.id)] if step.id in ids else []


async def apply_changes(messages: Sequence[dict[str, Any]], changes: Sequence[Change],
                        fold: Callable[[str], str]) -> list[dict[str, Any]]:
    """Store and show each change: a collapsed message becomes one line (`fold` of its words: chat/edits.py's
    `folded_line`, in the thread's language), its words kept in its metadata; a restored one gets them back.
    Returns `messages` as they are now."""
    for change in changes:
        m, meta = change.message, change.message["metadata"]
        msg = cl.Message.from_dict(cast(StepDict, m))  # the stored id, author, time and parent: it stays in its place
        if change.show is False:
            # The words wait in the metadata, not in an element: Chainlit 2 opens a side panel
            # with every "side" element of the thread as soon as there is one (spreading all the
            # folded words out again), and an element page leaves the chat.
            words = str(m.get("output") or "")
            meta[WORDS] = words
            msg.content = fold(words)
            await drop_actions(str(m["id"]))
        elif change.show is True:
            msg.content = str(meta.pop(WORDS, "") or "")
        msg.metadata = meta
        await msg.update()
        m["output"] = msg.content
    now = {str(c.message["id"]): c.message for c in changes}
    return [now.get(str(m["id"]), m) for m in messages]


async def edit_pressed(action: cl.Action) -> None:
    # Chainlit answers the button's HTTP call when this returns: the question waits in a task.
    detach(_edit(action), "desk-edit")


async def switch_pressed(action: cl.Action) -> None:
    detach(_switch(action), "desk-switch")


_TASKS: set[asyncio.Task[None]] = set()  # held until done, so none is collected half-way


def detach(work: Any, name: str) -> None:
    task = asyncio.create_task(_guarded(work), name=name)
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


async def _guarded(work: Any) -> None:
    local_steps.set(None)  # our messages belong to the thread, not under the action's step
    try:
        await work
    except Exception as exc:  # the user gets a sentence, never a traceback
        logger.exception("edit failed")
        await quietly(note("edit_failed", reason=explain(exc, thread_language())).send())


async def _switch(action: cl.Action) -> None:
    chat = _session_chat(action)
    if chat is None or chat.active:
        await note("switch_not_yours" if chat is None else "switch_running").send()
        return
    desk = await chat.service.runtime()
    leaving = next(b for b in await desk.branches(chat.thread_id) if b.current)
    target = await desk.branch_of(chat.thread_id, str((action.payload or {}).get("to") or ""))
    if target is None:
        await note("switch_unknown").send()
        return
    if target.current:
        await note("switch_current").send()
        return
    now = await desk.switch_branch(chat.thread_id, target.head)
    messages = await thread_messages(chat.thread_id)
    changes = branch_change(messages, leaving.key, now.key)
    messages = await apply_changes(messages, changes, lambda words: folded_line(words, chat.language))
    logger.info("thread %s: switched to branch %s (%d messages restored, %d collapsed, %d tagged)", chat.thread_id,
                now.key, *(sum(1 for c in changes if c.show is show) for show in (True, False, None)))
    lang = chat.language
    what = (phrase(lang, "chat.switched_edit", label=now.forked["label"]) if now.forked
            else phrase(lang, "chat.switched_original"))
    back = switch_action(chat.thread_id, leaving.head, phrase(lang, "chat.switch_back"), lang)
    await note("switched", actions=[back], what=what, title=now.title.split(" → ")[-1]).send()
    await offer(desk, chat.thread_id, messages)          # the restored turns can be edited again
    await offer_way_back(desk, chat.thread_id, messages)
