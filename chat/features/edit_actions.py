"""The Edit and Switch buttons, pressed (chat/edits.py offers them and keeps the branch tags).

Edit asks for the new words (the current ones in a code block), forks the thread right after that
turn and has the thread's ChatRun continue the fork like a resumed run; the earlier branch's
messages are collapsed. Switch makes another branch current: its messages come back, the branch
left is collapsed. Both are refused while the desk runs on the thread, and for another thread than
the pressing session's own. Chainlit answers a button's HTTP call when its callback returns, so the
work goes on in a task of its own (`edit_pressed`, `switch_pressed`: chat/app.py registers them).

The Edit's steps are `Edit`'s, shared with the Edit of one desk of a comparison (chat/features/compare.py):
each says only what is its own (what runs that a fork would race, which messages the edit leaves behind,
how the re-run starts).
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
from ..kit.say import signed_in, thread_language
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
EDIT_EVENT = "desk_edit"  # the page's cue: which turn is being edited, which message asks for its words


def note(key: str, language: str | None = None, actions: list[cl.Action] | None = None,
         **fields: object) -> cl.Message:
    """A Desk note about edits and branches (the text `chat.<key>`), in the thread's language (or `language`):
    its metadata keeps it on every branch (chat/edits.py NOTE). Not the kit's `said()`: an edit's notes, like
    its question, have always shown the Desk unlabelled, and a label would change how they look in Chinese."""
    return cl.Message(content=phrase(language or thread_language(), "chat." + key, **fields), author=DESK,
                      metadata={NOTE: True}, actions=actions or [])


class Edit:
    """One press of Edit under a past persona turn of the desk thread `thread_id`, shown in the chat thread
    `shown_in` (that thread, or a comparison's), its notes and question in `language` (`ticker`: a comparison's
    desk, named before the turn). The steps every Edit takes are `run`'s; a subclass says what differs."""

    def __init__(self, action: cl.Action, desk: DeskRuntime, thread_id: str, shown_in: str, language: str,
                 ticker: str = "") -> None:
        self.action, self.desk, self.thread_id, self.shown_in = action, desk, thread_id, shown_in
        self.language, self.ticker = language, ticker
        # Whose book the re-run sizes against, as it is now (the pressing page's user: the thread is theirs).
        self.user = signed_in(cl.context.session)

    async def run(self) -> None:
        lang, payload = self.language, self.action.payload or {}
        if self.busy():
            await note("edit_running", lang).send()
            return
        step = next((s for s in await self.desk.history(self.thread_id) if s.id == payload.get("step")), None)
        if step is None or step.checkpoint_id != payload.get("checkpoint"):
            await note("edit_gone", lang).send()
            return
        messages = await thread_messages(self.shown_in)  # before the question: what the earlier branch showed
        label = turn_label(step, lang, self.ticker)
        ask = cl.AskUserMessage(content=edit_prompt(step, lang, self.ticker), author=DESK, timeout=EDIT_TIMEOUT_S)
        try:
            # The question comes at the end of the thread, maybe far below the turn pressed: the page marks that
            # turn as the one being edited and brings the question into view (public/desk.js: desk_edit).
            await cl.context.emitter.emit(EDIT_EVENT, {"turn": self.action.forId or "", "question": ask.id,
                                                       "label": phrase(lang, "chat.edit_marker")})
            answer = await ask.send()
        finally:
            await quietly(cl.context.emitter.emit(EDIT_EVENT, {"turn": self.action.forId or "", "done": True}))
        # Chainlit marks a task as running once the answer is in (an ask is meant for a handler that
        # goes on): this one goes on in a run of its own, so the composer is handed back.
        await cl.context.emitter.task_end()
        text = str((answer or {}).get("output") or "")
        if not text.strip() or text.strip().lower() in CANCEL_WORDS:
            await note("edit_kept", lang, label=label).send()
            return
        if self.busy():  # started while the question waited
            await note("edit_running", lang).send()
            return
        try:
            await self.fork(step, text)
        except EditRefused as exc:
            await note("edit_failed", lang, reason=exc.told(lang)).send()
            return
        after = await self.desk.history(self.thread_id)
        now = next(s for s in after if s.id == step.id)
        changes = self.changes(messages, step, after[:after.index(now)])
        edited = cl.Message(content=f"{now.text}\n\n{phrase(lang, 'chat.edited')}", author=step.persona,
                            metadata=self.edited_metadata(step))
        await edited.send()
        if not await self.rerun(edited.id):
            return
        # The messages read before the question are the earlier branch's; those said since are the fork's.
        await apply_changes(messages, changes, lambda words: folded_line(words, lang, label, self.ticker or None))
        await self.done(step, changes)

    def superseded(self, mine: list[dict[str, Any]], step: Step, before: list[Step]) -> list[dict[str, Any]]:
        """What the edit of `step` leaves behind of `mine` (one desk's messages): its turn and those after it,
        not the desk's turns `before` it (parallel analysts that ended later)."""
        kept = match_messages(before, mine).values()
        edited = match_messages([step], mine).get(step.id) or (self.action.forId or "")
        return superseded_after(mine, edited, kept)

    # -- what differs ---------------------------------------------------------------------------------------

    def busy(self) -> bool:
        """Something runs that a fork would race for the thread's next checkpoint: stop it first."""
        raise NotImplementedError

    async def fork(self, step: Step, text: str) -> None:
        await self.desk.fork(self.thread_id, step.id, text, user=self.user)

    def changes(self, messages: list[dict[str, Any]], step: Step, before: list[Step]) -> list[Change]:
        """What the fork changes among `messages` (`before`: the fork's turns before `step`)."""
        raise NotImplementedError

    def edited_metadata(self, step: Step) -> dict[str, Any]:
        """The edited turn's message metadata: none in a desk's own thread, whose turns are known by their author."""
        return {}

    async def rerun(self, edited: str) -> bool:
        """Start the re-run of what follows the edited turn (`edited`: its message, "the desk goes on from here",
        where the re-run's Stop goes); False when one already goes on."""
        raise NotImplementedError

    async def done(self, step: Step, changes: list[Change]) -> None:
        """What follows the fold."""


class DeskEdit(Edit):
    """Edit on a desk thread's own page: the fork is a new branch of the thread, its ChatRun re-runs it."""

    def __init__(self, action: cl.Action, desk: DeskRuntime, chat: ChatRun) -> None:
        # The pressing page's language (its chat's: `chat` may be another tab's run, refused as busy).
        super().__init__(action, desk, chat.thread_id, chat.thread_id, thread_language())
        self.chat = chat
        self.leaving = self.entering = self.forked_at = ""

    def busy(self) -> bool:
        return self.chat.active

    async def fork(self, step: Step, text: str) -> None:
        # The branch left and the one made: the messages' tags say which branches each is on.
        self.leaving = await _current_key(self.desk, self.thread_id)
        self.forked_at = (await self.desk.fork(self.thread_id, step.id, text, user=self.user)).checkpoint_id
        self.entering = await _current_key(self.desk, self.thread_id)

    def changes(self, messages: list[dict[str, Any]], step: Step, before: list[Step]) -> list[Change]:
        left = [str(m["id"]) for m in self.superseded(messages, step, before)]
        return branch_change(messages, self.leaving, self.entering, superseded=left)

    async def rerun(self, edited: str) -> bool:
        if self.chat.active:  # a message sent meanwhile started a run: it continues the fork itself
            return False
        # Its Stop under the edited turn at once, as a run's is under the Desk's opening: the first speaker's
        # message, streaming, shows no buttons until its turn ends.
        self.chat.start(None, next_analysis(cl.user_session.get("chat_settings"), self.chat.service.settings),
                        stop_under=edited)
        return True

    async def done(self, step: Step, changes: list[Change]) -> None:
        logger.info("thread %s: edit of %s forked at %s (%d messages collapsed, %d tagged)", self.thread_id, step.id,
                    self.forked_at, *(sum(1 for c in changes if c.show is show) for show in (False, None)))


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
    await DeskEdit(action, await chat.service.runtime(), chat).run()


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
