"""Editing the past in the chat (issue 13): an Edit action on every finished contribution.

Pressing Edit asks for the new words (the current ones are shown in a code block, whose copy
button makes small corrections easy); the desk then forks right after that turn
(graph/branches.py, LangGraph time travel) and the thread's ChatRun continues the fork like a
resumed run: only the speakers after the edited turn speak again, streaming as usual.

- The messages the fork leaves behind (the rest of the earlier branch: later turns, the old card,
  follow-ups) are not deleted: each is collapsed to one line, its words kept in a side panel.
- After the re-run decision, the Desk says what changed ("was SELL 1.8% at 0.80 → now HOLD at
  0.55") and offers to switch back to the earlier branch (and forward again).
- An edit while a run is in flight is refused with a word to the user (stop the run first): a
  fork under a running task would race it for the thread's next checkpoint.
- Only the session's own thread: an action naming another thread is refused. Chainlit binds an
  action to the session of the user who pressed it, and the socket's thread was checked at the
  door (chat/app.py), so another user cannot edit or see a fork.

Chainlit stores no actions: a reopened thread gets its Edit buttons back from on_chat_resume.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import chainlit as cl
from chainlit.context import local_steps
from chainlit.data import get_data_layer
from chainlit.logger import logger
from chainlit.step import StepDict

from graph.branches import EditRefused, Step, edit_change
from graph.errors import explain
from graph.personas import DESK

if TYPE_CHECKING:
    from .runs import ChatRun

EDIT_ACTION = "edit_turn"
SWITCH_ACTION = "switch_branch"
EDIT_TIMEOUT_S = 900       # time to write the new words
CANCEL_WORDS = frozenset({"cancel", "/cancel", "keep", "never mind"})
SUPERSEDED = "Superseded by your edit"
EDITED = "✏️ *Edited by you"
EARLIER_WORDS = "words on the earlier branch"
RUNNING_SWITCH = ("The desk is running on this thread: stop the run first (type /stop or press Stop), then "
                  "switch branches.")
OFFERED = "edit_offered"   # user-session key: message ids that got their Edit button in this session
RUNNING = ("The desk is running on this thread, so an edit now would race it. Stop the run first "
           "(type /stop or press Stop), then press Edit again.")


def edit_action(thread_id: str, step: Step) -> cl.Action:
    return cl.Action(name=EDIT_ACTION, label="Edit", icon="pencil",
                     tooltip="Change these words; the desk re-runs only what comes after them",
                     payload={"thread_id": thread_id, "step": step.id, "checkpoint": step.checkpoint_id})


def switch_action(thread_id: str, to: str, label: str) -> cl.Action:
    return cl.Action(name=SWITCH_ACTION, label=label, icon="git-branch", payload={"thread_id": thread_id, "to": to},
                     tooltip="Make that branch current: follow-ups answer from it")


# -- which message shows which step (pure) ------------------------------------------------


OPENING = 160  # characters of a turn that identify its message


def _flat(text: str) -> str:
    return " ".join(str(text or "").split())


def _opening(text: str) -> str:
    """A turn's opening words, table rows left out (the chat shows key-figure tables apart)."""
    return _flat("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|")))[:OPENING]


def _said(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if str(m.get("type", "")).endswith("_message")]


def match_messages(steps: Sequence[Step], messages: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Step id -> the id of the message that shows it. Per persona, its steps and its messages
    are paired from the newest back: a message shows a step when it holds the step's opening
    words (the stream may add paragraph breaks, and the chat shows an analyst's key-figure
    table apart), so earlier analyses and collapsed turns never match."""
    out: dict[str, str] = {}
    said = _said(messages)
    for persona in dict.fromkeys(s.persona for s in steps):
        mine = [m for m in said if m.get("name") == persona and m.get("type") == "assistant_message"]
        j = len(mine) - 1
        for step in reversed([s for s in steps if s.persona == persona]):
            words = _opening(step.text)
            while j >= 0 and words not in _flat(mine[j].get("output", "")):
                j -= 1
            if j < 0:
                break
            out[step.id] = str(mine[j]["id"])
            j -= 1
    return out


def superseded_after(messages: Sequence[dict[str, Any]], edited: str, kept: Iterable[str]) -> list[dict[str, Any]]:
    """The messages an edit of the message `edited` leaves on the earlier branch: it and every
    message after it, but those of turns before the edited one (parallel analysts that finished
    later), the edit prompts, and what is already collapsed."""
    said = _said(messages)
    ids = [str(m["id"]) for m in said]
    if edited not in ids:
        return []
    keep = set(kept)
    return [m for m in said[ids.index(edited):]
            if str(m["id"]) not in keep and not str(m.get("output", "")).startswith((SUPERSEDED, EDIT_PROMPT_START))
            and not m.get("waitForAnswer")]


# -- the thread's messages, as stored -------------------------------------------------------------


async def thread_messages(thread_id: str) -> list[dict[str, Any]]:
    """The thread's stored steps in order (the history writer flushes before the read); [] without a data layer."""
    layer = get_data_layer()
    if layer is None:
        return []
    thread = await layer.get_thread(thread_id)
    steps = list((thread or {}).get("steps") or [])
    for step in steps:
        if isinstance(step.get("metadata"), str):  # SQLite hands metadata back as JSON text
            try:
                step["metadata"] = json.loads(step["metadata"] or "{}")
            except json.JSONDecodeError:
                step["metadata"] = {}
    return steps


async def _offer(chat: ChatRun, messages: Sequence[dict[str, Any]]) -> None:
    """Edit buttons on the current branch's finished turns that have none in this session yet."""
    desk = await chat.service.runtime()
    steps = await desk.history(chat.thread_id)
    offered: set[str] = cl.user_session.get(OFFERED) or set()
    cl.user_session.set(OFFERED, offered)
    by_id = {s.id: s for s in steps}
    for step_id, message_id in match_messages(steps, messages).items():
        if message_id not in offered:
            offered.add(message_id)
            await edit_action(chat.thread_id, by_id[step_id]).send(for_id=message_id)


async def offer_edits(chat: ChatRun, decided: bool) -> None:
    """After a run (chat/runs.py): Edit buttons on its finished turns; after a re-run decision on a
    forked branch, what the edit changed and a way back."""
    try:
        await _offer(chat, await thread_messages(chat.thread_id))
        if decided:
            await _say_change(chat)
    except Exception:  # a convenience after the run: logged, never in the user's way
        logger.exception("Could not offer edits on thread %s", chat.thread_id)


async def offer_on_resume(chat: ChatRun, steps: list[dict[str, Any]]) -> None:
    """A reopened thread: its turns get their Edit buttons back (Chainlit stores no actions)."""
    try:
        await _offer(chat, steps)
    except Exception:  # the buttons are a convenience: reopening the thread must not fail on them
        logger.exception("Could not offer edits on thread %s", chat.thread_id)


async def _say_change(chat: ChatRun) -> None:
    desk = await chat.service.runtime()
    state = await desk.state(chat.thread_id)
    forked = state.get("forked")
    if not forked or (change := edit_change(state)) is None:
        return
    await cl.Message(content=f"**What your edit of the {forked['label']} changed:** {change}.\n\n"
                             "The branch before the edit is kept; follow-ups answer from this one.",
                     author=DESK, actions=[switch_action(chat.thread_id, str(forked["parent_head"]),
                                                         "Back to the earlier branch")]).send()


# -- pressing Edit -----------------------------------------------------------------------------------

EDIT_PROMPT_START = "✏️ Editing"


def _prompt(step: Step) -> str:
    fence = "~~~~" if "~~~" in step.text else "~~~"
    return (f"{EDIT_PROMPT_START} the **{step.label}**. Send the words it should have said: they replace its "
            f"turn, and the desk re-runs only what comes after it (the earlier branch is kept). "
            f"Type “cancel” to keep it as it is. Its words now (the block's copy button copies them):\n\n"
            f"{fence}text\n{step.text}\n{fence}")


async def _say(text: str) -> None:
    await cl.Message(content=text, author=DESK).send()


def _session_chat(action: cl.Action) -> ChatRun | None:
    """The pressing session's own chat, when the action names its thread (never another's)."""
    chat = cl.user_session.get("chat")
    thread_id = cl.context.session.thread_id
    if chat is None or chat.thread_id != thread_id or (action.payload or {}).get("thread_id") != thread_id:
        return None
    return chat


async def _edit(action: cl.Action) -> None:
    local_steps.set(None)  # our messages belong to the thread, not under the action's step
    chat = _session_chat(action)
    if chat is None:
        await _say("That Edit belongs to another chat.")
        return
    if chat.active:
        await _say(RUNNING)
        return
    desk = await chat.service.runtime()
    payload = action.payload or {}
    step = next((s for s in await desk.history(chat.thread_id) if s.id == payload.get("step")), None)
    if step is None or step.checkpoint_id != payload.get("checkpoint"):
        await _say("That turn is not on this thread's current branch any more (an edit or a new analysis "
                   "came after it), so it cannot be edited from here.")
        return
    messages = await thread_messages(chat.thread_id)  # before the question: what the earlier branch showed
    answer = await cl.AskUserMessage(content=_prompt(step), author=DESK, timeout=EDIT_TIMEOUT_S).send()
    # Chainlit marks a task as running once the answer is in (an ask is meant for a handler that
    # goes on): this one goes on in a run of its own, so the composer is handed back.
    await cl.context.emitter.task_end()
    text = str((answer or {}).get("output") or "")
    if not text.strip() or text.strip().lower() in CANCEL_WORDS:
        await _say(f"No edit made: the {step.label}'s words stay as they were.")
        return
    if chat.active:
        await _say(RUNNING)
        return
    try:
        fork = await desk.fork(chat.thread_id, step.id, text)
    except EditRefused as exc:
        await _say(str(exc))
        return
    kept = match_messages([s for s in await _steps_before(desk, chat.thread_id, step)], messages).values()
    edited = match_messages([step], messages).get(step.id) or (action.forId or "")
    now = next(s for s in await desk.history(chat.thread_id) if s.id == step.id)
    await cl.Message(content=f"{now.text}\n\n{EDITED} — the desk goes on from here.*", author=step.persona).send()
    if chat.active:  # a message sent meanwhile started a run: it continues the fork itself
        return
    from .runs import next_analysis  # runs.py imports this module
    chat.start(None, next_analysis(cl.user_session.get("chat_settings"), chat.service.settings))
    await _collapse(superseded_after(messages, edited, kept), step)
    logger.info("thread %s: edit of %s forked at %s", chat.thread_id, step.id, fork.checkpoint_id)


async def _steps_before(desk: Any, thread_id: str, step: Step) -> list[Step]:
    steps = await desk.history(thread_id)
    ids = [s.id for s in steps]
    return steps[:ids.index(step.id)] if step.id in ids else []


async def _collapse(messages: Sequence[dict[str, Any]], step: Step) -> None:
    """Each message left on the earlier branch becomes one line; its words go to a side panel."""
    for m in messages:
        words = str(m.get("output") or "")
        first = " ".join(words.split()[:8])
        msg = cl.Message.from_dict(cast(StepDict, m))  # the stored id, author, time and parent: it stays in its place
        msg.content = (f"{SUPERSEDED} of the {step.label} — on the earlier branch this said “{first} …” "
                       f"(the {EARLIER_WORDS}).")
        msg.elements = [cl.Text(name=EARLIER_WORDS, content=words, display="side")] if words else []
        await msg.update()


@cl.action_callback(EDIT_ACTION)
async def edit_pressed(action: cl.Action) -> None:
    # Chainlit answers the button's HTTP call when this returns: the question waits in a task.
    _detach(_edit(action), "desk-edit")


@cl.action_callback(SWITCH_ACTION)
async def switch_pressed(action: cl.Action) -> None:
    _detach(_switch(action), "desk-switch")


_TASKS: set[asyncio.Task[None]] = set()  # held until done, so none is collected half-way


def _detach(work: Any, name: str) -> None:
    task = asyncio.create_task(_guarded(work), name=name)
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


async def _guarded(work: Any) -> None:
    try:
        await work
    except Exception as exc:  # the user gets a sentence, never a traceback
        logger.exception("edit failed")
        with contextlib.suppress(Exception):
            await _say(f"⚠️ The edit did not go through: {explain(exc)}")


async def _switch(action: cl.Action) -> None:
    local_steps.set(None)
    chat = _session_chat(action)
    if chat is None:
        await _say("That belongs to another chat.")
        return
    if chat.active:
        await _say(RUNNING_SWITCH)
        return
    desk = await chat.service.runtime()
    leaving = next(b for b in await desk.branches(chat.thread_id) if b.current)
    target = await desk.branch_of(chat.thread_id, str((action.payload or {}).get("to") or ""))
    if target is None:
        await _say("That branch is not in this thread.")
        return
    if target.current:
        await _say("That branch is already the current one.")
        return
    now = await desk.switch_branch(chat.thread_id, target.head)
    what = f"the edit of the {now.forked['label']}" if now.forked else "the original deliberation"
    await cl.Message(content=f"Now on {what} ({now.title.split(' → ')[-1]}). Follow-ups answer from this branch; "
                             f"the messages above are unchanged.",
                     author=DESK, actions=[switch_action(chat.thread_id, leaving.head, "Switch back")]).send()
