"""Editing the past in the chat (issue 13): an Edit action on every finished contribution.

Pressing Edit asks for the new words (the current ones are shown in a code block, whose copy
button makes small corrections easy); the desk then forks right after that turn
(graph/runtime/branches.py, LangGraph time travel) and the thread's ChatRun continues the fork like a
resumed run: only the speakers after the edited turn speak again, streaming as usual.

- An edit during a run is refused; stop first. Pressing Edit (or answering its question) while
  the desk runs on the thread gets a word to the user ("stop the run first"): a fork under a
  running task would race it for the thread's next checkpoint, and stopping is one action away.
  Switching branches is refused the same way.
- The page shows the current branch. Every message is tagged, in its stored metadata, with the
  keys of the branches it is on (`Branch.key`): a message is on the branch it was said on, and a
  fork puts every message of the branch it leaves on the new one too, but the edited turn and
  what came after it there. Messages of other branches are collapsed to one line (their first
  words), the rest kept in the metadata; switching branches collapses the branch left and
  restores the words of the branch switched to. The collapse is stored (Chainlit's data layer),
  so a reloaded or reopened thread shows the same. Tags are written lazily, at each edit or
  switch: a message without tags was said on the branch current since the last one. Desk notes
  about edits and switches are on every branch.
- Collapsed messages lose their Edit buttons (a stale one pressed anyway is refused: its turn is
  not on the current branch).
- The re-run's decision card says what changed against the branch it forked from ("was SELL 1.8%
  at 0.80 → now HOLD at 0.55", `card_change`), with a button back to the earlier branch.
- Only the session's own thread: an action naming another thread is refused. Chainlit binds an
  action to the session of the user who pressed it, and the socket's thread was checked at the
  door (chat/app.py), so another user cannot edit or see a fork.

Chainlit stores no actions: a reopened thread gets its Edit buttons (and the card's way back)
from on_chat_resume.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import chainlit as cl
from chainlit.context import local_steps
from chainlit.data import get_data_layer
from chainlit.logger import logger
from chainlit.step import StepDict

from graph.core.errors import explain
from graph.core.personas import DESK
from graph.runtime.branches import EditRefused, Step, edit_change

if TYPE_CHECKING:
    from .runs import ChatRun

EDIT_ACTION = "edit_turn"
SWITCH_ACTION = "switch_branch"
EDIT_TIMEOUT_S = 900       # time to write the new words
CANCEL_WORDS = frozenset({"cancel", "/cancel", "keep", "never mind"})
SUPERSEDED = "Superseded by your edit"
OTHER_BRANCH = "On another branch of this thread"
EDITED = "✏️ *Edited by you"
FOLDED_WORDS = 12          # of a collapsed message's words, on its one line
CHANGED = "✏️ After your edit of the"
RUNNING_SWITCH = ("The desk is running on this thread: stop the run first (type /stop or press Stop), then "
                  "switch branches.")
RUNNING = ("The desk is running on this thread, so an edit now would race it. Stop the run first "
           "(type /stop or press Stop), then press Edit again.")
SENT = "edit_actions"      # user-session key: the Edit and Switch actions sent in this session
# Step metadata (stored with each message by Chainlit's data layer):
BRANCHES = "desk_branches"      # the keys of the branches the message is on
WORDS = "desk_words"            # a collapsed message's words, put back when its branch is current again
NOTE = "desk_note"              # a Desk note about edits and branches: on every branch


def edit_action(thread_id: str, step: Step) -> cl.Action:
    return cl.Action(name=EDIT_ACTION, label="Edit", icon="pencil",
                     tooltip="Change these words; the desk re-runs only what comes after them",
                     payload={"thread_id": thread_id, "step": step.id, "checkpoint": step.checkpoint_id})


def switch_action(thread_id: str, to: str, label: str) -> cl.Action:
    return cl.Action(name=SWITCH_ACTION, label=label, icon="git-branch", payload={"thread_id": thread_id, "to": to},
                     tooltip="Make that branch current: its messages come back, follow-ups answer from it")


# -- which message shows which step (pure) ------------------------------------------------


OPENING = 160  # characters of a turn that identify its message


def _flat(text: str) -> str:
    return " ".join(str(text or "").split())


def _opening(text: str) -> str:
    """A turn's opening words, table rows left out (the chat shows key-figure tables apart)."""
    return _flat("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|")))[:OPENING]


def _said(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if str(m.get("type", "")).endswith("_message")]


def _meta(message: Mapping[str, Any]) -> dict[str, Any]:
    meta = message.get("metadata")
    return dict(meta) if isinstance(meta, Mapping) else {}


def collapsed(message: Mapping[str, Any]) -> bool:
    """Folded away: it is not on the current branch (or an earlier build collapsed it for an edit)."""
    return WORDS in _meta(message) or str(message.get("output", "")).startswith(SUPERSEDED)


def match_messages(steps: Sequence[Step], messages: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Step id -> the id of the message that shows it. Per persona, its steps and its messages
    are paired from the newest back: a message shows a step when it holds the step's opening
    words (the stream may add paragraph breaks, and the chat shows an analyst's key-figure
    table apart), so earlier analyses and collapsed turns never match."""
    out: dict[str, str] = {}
    said = [m for m in _said(messages) if not collapsed(m)]
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


def _note(message: Mapping[str, Any]) -> bool:
    """A Desk note about edits and branches (the question for the new words among them)."""
    return bool(_meta(message).get(NOTE) or message.get("waitForAnswer")
                or str(message.get("output", "")).startswith(EDIT_PROMPT_START))


def superseded_after(messages: Sequence[dict[str, Any]], edited: str, kept: Iterable[str]) -> list[dict[str, Any]]:
    """The messages an edit of the message `edited` leaves on the earlier branch: it and every
    message after it, but those of turns before the edited one (parallel analysts that finished
    later), Desk notes, and what is already collapsed."""
    said = _said(messages)
    ids = [str(m["id"]) for m in said]
    if edited not in ids:
        return []
    keep = set(kept)
    return [m for m in said[ids.index(edited):] if str(m["id"]) not in keep and not _note(m) and not collapsed(m)]


@dataclass
class Change:
    """A message whose tags or visibility a branch change alters."""
    message: dict[str, Any]   # the stored step, its metadata carrying the new tags
    show: bool | None         # True: its words come back; False: it is collapsed; None: only the tags


def branch_change(messages: Sequence[dict[str, Any]], leaving: str, entering: str,
                  superseded: Iterable[str] | None = None) -> list[Change]:
    """What making branch `entering` current changes on the page, the branch `leaving` having
    been current. `superseded` (the ids of messages an edit leaves behind) says `entering` is a
    new fork of `leaving`: every message on `leaving` is on it too, but those."""
    left = set(superseded) if superseded is not None else None
    out = []
    for m in _said(messages):
        meta = _meta(m)
        if _note(m) or (BRANCHES not in meta and collapsed(m)):
            continue  # on every branch; or collapsed before messages were tagged: left as it is
        tags = list(meta.get(BRANCHES) or [leaving])  # untagged: said since the last branch change
        if left is not None and leaving in tags and str(m["id"]) not in left and entering not in tags:
            tags.append(entering)
        show = entering in tags
        visibility_changes = show == collapsed(m)
        if not visibility_changes and tags == meta.get(BRANCHES):
            continue
        out.append(Change({**m, "metadata": {**meta, BRANCHES: tags}}, show if visibility_changes else None))
    return out


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


class _Sent:
    """The Edit and Switch actions sent in this session. Chainlit keeps the user session in the
    thread's metadata and hands it back on resume: an object JSON cannot write comes back as
    None, so a reopened thread starts with none sent (which is true: actions are not stored)."""

    def __init__(self) -> None:
        self.actions: list[cl.Action] = []


def _sent() -> list[cl.Action]:
    sent = cl.user_session.get(SENT)
    if not isinstance(sent, _Sent):
        sent = _Sent()
        cl.user_session.set(SENT, sent)
    return sent.actions


async def _send(action: cl.Action, message_id: str) -> None:
    _sent().append(action)
    await action.send(for_id=message_id)


async def _drop_actions(message_id: str) -> None:
    """A collapsed message keeps no Edit or Switch button."""
    sent = _sent()
    for action in [a for a in sent if a.forId == message_id]:
        sent.remove(action)
        await action.remove()


async def _offer(chat: ChatRun, messages: Sequence[dict[str, Any]]) -> None:
    """Edit buttons on the current branch's finished turns that have none in this session yet."""
    desk = await chat.service.runtime()
    steps = await desk.history(chat.thread_id)
    offered = {a.forId for a in _sent() if a.name == EDIT_ACTION}
    by_id = {s.id: s for s in steps}
    for step_id, message_id in match_messages(steps, messages).items():
        if message_id not in offered:
            await _send(edit_action(chat.thread_id, by_id[step_id]), message_id)


async def _offer_way_back(chat: ChatRun, messages: Sequence[dict[str, Any]]) -> None:
    """The card of a re-run decision gets its button back to the earlier branch (a reopened
    thread, or the card's branch current again)."""
    state = await (await chat.service.runtime()).state(chat.thread_id)
    cards = [m for m in _said(messages) if m.get("name") == DESK and CHANGED in str(m.get("output", ""))
             and not collapsed(m)]
    if not cards or not (actions := card_actions(chat.thread_id, state, register=False)):
        return
    card = str(cards[-1]["id"])
    if not any(a.forId == card and a.name == SWITCH_ACTION for a in _sent()):
        for action in actions:
            await _send(action, card)


async def offer_edits(chat: ChatRun) -> None:
    """After a run (chat/runs.py): Edit buttons on its finished turns."""
    try:
        await _offer(chat, await thread_messages(chat.thread_id))
    except Exception:  # a convenience after the run: logged, never in the user's way
        logger.exception("Could not offer edits on thread %s", chat.thread_id)


async def offer_on_resume(chat: ChatRun, steps: Sequence[Any]) -> None:
    """A reopened thread (its stored steps, as Chainlit read them): its turns get their Edit
    buttons back (Chainlit stores no actions), and the re-run decision's card its way back."""
    messages = cast(list[dict[str, Any]], list(steps))
    try:
        await _offer(chat, messages)
        await _offer_way_back(chat, messages)
    except Exception:  # the buttons are a convenience: reopening the thread must not fail on them
        logger.exception("Could not offer edits on thread %s", chat.thread_id)


# -- the decision card of a re-run (chat/runs.py sends it) ------------------------------------------


def card_change(state: Mapping[str, Any]) -> str | None:
    """The card's line on what the edit changed, once the fork's run has its decision."""
    forked = state.get("forked")
    if not forked or (change := edit_change(state)) is None:
        return None
    if change.startswith("unchanged: "):
        change = f"the decision stands, {change.removeprefix('unchanged: ')}"
    return (f"{CHANGED} **{forked['label']}**: {change}. The earlier branch is kept: "
            f"*Back to the earlier branch* shows it again.")


def card_actions(thread_id: str, state: Mapping[str, Any], *, register: bool = True) -> list[cl.Action]:
    """The card's button back to the branch the edit forked from (none on an unedited branch)."""
    forked = state.get("forked")
    if not forked or edit_change(state) is None:
        return []
    actions = [switch_action(thread_id, str(forked["parent_head"]), "Back to the earlier branch")]
    if register:  # sent with the card: kept, so collapsing the card removes it
        _sent().extend(actions)
    return actions


# -- pressing Edit -----------------------------------------------------------------------------------

EDIT_PROMPT_START = "✏️ Editing"


def _prompt(step: Step) -> str:
    fence = "~~~~" if "~~~" in step.text else "~~~"
    return (f"{EDIT_PROMPT_START} the **{step.label}**. Send the words it should have said: they replace its "
            f"turn, and the desk re-runs only what comes after it (the earlier branch is kept). "
            f"Type “cancel” to keep it as it is. Its words now (the block's copy button copies them):\n\n"
            f"{fence}text\n{step.text}\n{fence}")


async def _say(text: str, actions: list[cl.Action] | None = None) -> None:
    """A Desk note about edits and branches: shown whichever branch is current."""
    await cl.Message(content=text, author=DESK, metadata={NOTE: True}, actions=actions or []).send()


def _session_chat(action: cl.Action) -> ChatRun | None:
    """The pressing session's own chat, when the action names its thread (never another's)."""
    chat = cl.user_session.get("chat")
    thread_id = cl.context.session.thread_id
    if chat is None or chat.thread_id != thread_id or (action.payload or {}).get("thread_id") != thread_id:
        return None
    return chat


async def _current_key(desk: Any, thread_id: str) -> str:
    return str(next(b for b in await desk.branches(thread_id) if b.current).key)


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
    leaving = await _current_key(desk, chat.thread_id)
    try:
        fork = await desk.fork(chat.thread_id, step.id, text)
    except EditRefused as exc:
        await _say(str(exc))
        return
    entering = await _current_key(desk, chat.thread_id)
    kept = match_messages([s for s in await _steps_before(desk, chat.thread_id, step)], messages).values()
    edited = match_messages([step], messages).get(step.id) or (action.forId or "")
    left = [str(m["id"]) for m in superseded_after(messages, edited, kept)]
    now = next(s for s in await desk.history(chat.thread_id) if s.id == step.id)
    await cl.Message(content=f"{now.text}\n\n{EDITED} — the desk goes on from here.*", author=step.persona).send()
    if chat.active:  # a message sent meanwhile started a run: it continues the fork itself
        return
    from .runs import next_analysis  # runs.py imports this module
    chat.start(None, next_analysis(cl.user_session.get("chat_settings"), chat.service.settings))
    # The messages read before the question are the earlier branch's; those said since are the fork's.
    changes = branch_change(messages, leaving, entering, superseded=left)
    await _apply(messages, changes, f"{SUPERSEDED} of the {step.label} — on the earlier branch this",
                 "(*Back to the earlier branch* on the new card shows it in full)")
    logger.info("thread %s: edit of %s forked at %s (%d messages collapsed, %d tagged)", chat.thread_id, step.id,
                fork.checkpoint_id, *(sum(1 for c in changes if c.show is show) for show in (False, None)))


async def _steps_before(desk: Any, thread_id: str, step: Step) -> list[Step]:
    steps = await desk.history(thread_id)
    ids = [s.id for s in steps]
    return steps[:ids.index(step.id)] if step.id in ids else []


async def _apply(messages: Sequence[dict[str, Any]], changes: Sequence[Change],
                 collapsed_as: str, reading: str) -> list[dict[str, Any]]:
    """Store and show each change: a collapsed message becomes one line ("<collapsed_as> said
    “<its first words> …” <reading>."), its words kept in its metadata; a restored one gets them
    back. Returns `messages` as they are now."""
    for change in changes:
        m, meta = change.message, change.message["metadata"]
        msg = cl.Message.from_dict(cast(StepDict, m))  # the stored id, author, time and parent: it stays in its place
        if change.show is False:
            # The words wait in the metadata, not in an element: Chainlit 2 opens a side panel
            # with every "side" element of the thread as soon as there is one (spreading all the
            # folded words out again), and an element page leaves the chat.
            words = str(m.get("output") or "")
            meta[WORDS] = words
            msg.content = f"{collapsed_as} said “{' '.join(words.split()[:FOLDED_WORDS])} …” {reading}."
            await _drop_actions(str(m["id"]))
        elif change.show is True:
            msg.content = str(meta.pop(WORDS, "") or "")
        msg.metadata = meta
        await msg.update()
        m["output"] = msg.content
    now = {str(c.message["id"]): c.message for c in changes}
    return [now.get(str(m["id"]), m) for m in messages]


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
    messages = await thread_messages(chat.thread_id)
    changes = branch_change(messages, leaving.key, now.key)
    messages = await _apply(messages, changes, f"{OTHER_BRANCH} — there this", "(switching to it shows it in full)")
    logger.info("thread %s: switched to branch %s (%d messages restored, %d collapsed, %d tagged)", chat.thread_id,
                now.key, *(sum(1 for c in changes if c.show is show) for show in (True, False, None)))
    what = f"the edit of the {now.forked['label']}" if now.forked else "the original deliberation"
    await _say(f"Now on {what} ({now.title.split(' → ')[-1]}): its messages are back in place and the other "
               f"branch's are folded away. Follow-ups answer from this branch.",
               [switch_action(chat.thread_id, leaving.head, "Switch back")])
    await _offer(chat, messages)          # the restored turns can be edited again
    await _offer_way_back(chat, messages)
