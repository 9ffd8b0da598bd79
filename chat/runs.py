"""One chat's runs: the detached graph task, its inbox, interjections and stop.

Chainlit disables the composer while `on_message` runs, so `on_message` only starts a run as
a background task and returns. While the task runs, new messages are interjections: they go
to the chat's inbox (the graph reads it through its runtime context) and are acknowledged at
once. Stop cancels the task; the checkpoint keeps everything up to the last finished node.

A run is the kit's `ThreadTask` (chat/kit/tasks.py), as a backtest and a comparison are: its task
and own context, its pages, Stop, its four endings and a page joining it are the kit's. Here, as
one piece, is what the desk's run says and keeps at each of them (streaming its turns, interjections,
a stop, a failure, the notes left unread and the run that answers them, resuming); DeskService is
here because every ChatRun registers itself in it and it makes them.
"""
from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable
from typing import Any

import chainlit as cl
from chainlit.emitter import BaseChainlitEmitter
from chainlit.logger import logger
from chainlit.step import StepDict

from graph import (
    ALL_PERSONAS,
    DESK,
    NOTES_PER_TURN,
    DatabaseUnavailable,
    DeskRuntime,
    DeskTurn,
    Interrupted,
    ModelRegistry,
    NodeDone,
    Note,
    Settings,
    Vendor,
    acknowledgement,
    clock,
    explain,
    found_in,
    language_of,
    live_holder,
    make_vendor,
    persona_label,
    phrase,
    post_note,
    quoted_note,
    thread_language,
    to_simplified,
    unread_in,
)

from .edits import offer_edits
from .kit.say import said, signed_in
from .kit.tasks import Outcome, ThreadTask, ThreadTasks, quietly
from .languages import DEFAULT
from .pages import Pages
from .panel import NextAnalysis
from .speakers import label_metadata
from .views.card import show_decision, spend
from .views.render import Renderer
from .views.thread_names import NAME_RUNNING, NAME_STOPPED, name_thread
from .views.track_view import show_alpha_curve

# A message to a thread whose run just ended in another process waits this long for its lease
# (released a moment after that run's last word) before it is passed on as a note.
LEASE_WAIT_S = 5.0
STOP_ACTION = "stop_run"
RESUME_ACTION = "resume_run"
# What a person types to go on with a stopped run, in English and Chinese (read in Simplified: 繼續 too).
RESUME_WORDS = frozenset({"resume", "continue", "go on", "resume the run", "继续", "继续运行", "恢复", "接着来"})


def asks_to_resume(text: str) -> bool:
    return to_simplified(text.lower().strip(" .!。！")) in RESUME_WORDS
RESUME_OFFER = phrase(DEFAULT, "chat.resume_offer")  # how a page finds an offer already in a thread
# The chat's own sentences are the catalogue's (prompts/words_<code>.md, section [chat]), in the
# thread's language.


def _asked(turn: DeskTurn) -> str:
    """The message a run answers ("" when it continues an interrupted run)."""
    said = (turn.graph_input or {}).get("messages") or []
    return str(said[0].content) if said else ""


def resume_action(thread_id: str, language: str = DEFAULT) -> cl.Action:
    # Labelled in the chat's language, as the sentences that offer it name it ("点击“继续”").
    return cl.Action(name=RESUME_ACTION, payload={"thread_id": thread_id}, label=phrase(language, "chat.resume"),
                     icon="play", tooltip=phrase(language, "chat.resume_tooltip"))


def _spent_line(spent: str) -> str:
    """The run's token total under a message that ends it early ("" when there is none)."""
    return f"\n\n_{spent}_" if spent else ""


_JOINS: set[asyncio.Task[None]] = set()  # a page's message to another page's run, kept until done


def _kept(task: asyncio.Task[None]) -> asyncio.Task[None]:
    """Keep a detached task alive until it ends, and log how it failed (the page gets no answer)."""
    _JOINS.add(task)

    def done(t: asyncio.Task[None]) -> None:
        _JOINS.discard(t)
        if not t.cancelled() and (exc := t.exception()) is not None:
            logger.error("A message to the thread's run failed: %s", exc, exc_info=exc)

    task.add_done_callback(done)
    return task


class DeskService:
    """What one server process shares: the desk's runtime (models, vendor, checkpointer, the one
    compiled graph), opened lazily inside the running loop, and the chats with a run in flight."""

    def __init__(self, settings: Settings | None = None, models: ModelRegistry | None = None,
                 vendor: Vendor | None = None):
        self.settings = settings or Settings()
        self.models = models or ModelRegistry(self.settings)
        self.vendor = vendor or make_vendor(self.settings)
        self._runtime: DeskRuntime | None = None
        self._stack = contextlib.AsyncExitStack()
        self._lock: asyncio.Lock | None = None
        # Chats with a run in flight, by thread: a reconnecting browser must not start a second run.
        self.runs: ThreadTasks[ChatRun] = ThreadTasks()
        self.chats = self.runs.running

    async def runtime(self) -> DeskRuntime:
        if self._runtime is None:
            self._lock = self._lock or asyncio.Lock()
            async with self._lock:
                if self._runtime is None:
                    self._runtime = await self._stack.enter_async_context(
                        DeskRuntime.open(self.settings, models=self.models, vendor=self.vendor))
        return self._runtime

    async def close(self) -> None:
        await self._stack.aclose()
        self._runtime = None

    async def state(self, thread_id: str) -> dict[str, Any]:
        return await (await self.runtime()).state(thread_id)

    async def delete_thread(self, thread_id: str) -> None:
        """Stop a run in flight on the thread, then forget the desk's side of it (checkpoints,
        interjections). Chainlit's data layer deletes its own rows."""
        if (chat := self.chats.pop(thread_id, None)) is not None:
            await chat.stop()
        await (await self.runtime()).delete_thread(thread_id)

    async def chat(self, thread_id: str) -> ChatRun:
        """The chat for a thread: the one in flight, or a fresh one."""
        return self.chats.get(thread_id) or ChatRun(self, thread_id)

    def current(self, chat: ChatRun) -> ChatRun:
        """The chat a page's message or Stop goes to: the thread's run in flight here, which another
        page of the thread (a second tab, idle when it began) may have started, or the page's own."""
        running = self.runs.active(chat.thread_id)
        return running if running is not None and running is not chat else chat


class ChatRun(ThreadTask):
    """One chat: at most one run at a time; what the user says meanwhile goes to the thread's inbox.

    Each run is a `ThreadTask` life of the one chat (chat/kit/tasks.py): its task, its pages (a reload adds
    one: join), Stop and its four endings are the kit's. A run's inputs (`text`, `nxt`) are set as it starts,
    and a run for the notes left over follows it in the same chat (`closed`, `ended`)."""

    kind = "desk-run"
    # A run's failures are the models' and the vendors' (a timeout, a vendor down), expected and worded on the
    # page by graph's `explain`: not logged with a traceback as a feature's unexpected ones are.
    log_failures = False

    def __init__(self, service: DeskService, thread_id: str):
        # The language the chat words itself in on this thread (`language`): the page's until the thread has its
        # own (chat/app.py sets both), then the thread's, kept as each run's coordinator says it.
        super().__init__(service.runs, thread_id, DEFAULT)
        self.service = service
        self.renderer: Renderer | None = None  # the run's, while it runs (a page joins only then)
        self.text: str | None = None  # what the run answers (None: it continues the interrupted run)
        self.nxt = NextAnalysis()     # its shape: the plan and the models
        self.stop_under: str | None = None  # an edit's re-run: the message that carries its Stop from the start
        self.values: dict[str, Any] | None = None  # the thread's state as the message that starts a run found it
        self.lost: asyncio.Event | None = None  # set if this server loses the thread's lease mid-run
        self.leftover: list[Note] = []  # the notes nobody read when the run closed up
        # note seq -> its acknowledgement, who picked it up, and the persona it named that had already spoken last
        self.acks: dict[int, tuple[cl.Message, list[str], str | None]] = {}
        self.analysing: dict[str, Any] | None = None  # the ticker and date of the run's analysis
        self.began = clock.now()  # when it began (thread_names.py: the thread's name says it)
        self._naming: asyncio.Task[None] | None = None  # the running name being written (`_name_soon`)
        self.closing = False   # the run is past its last event: a note now would find no reader
        # The database went away for longer than a blip (graph/persistence/outages.py): the run stopped and waits
        # for it, then resumes by itself; what the user types meanwhile is kept here until it can be posted.
        self.db_out: DatabaseUnavailable | None = None
        self.kept: list[str] = []
        # The signed-in user of the page that started the run: whose track record it reads and writes.
        self.user: str | None = None

    @property
    def joinable(self) -> bool:
        # A run streams: not before its first step (a chat's pages are its last run's until then) nor once
        # it closes up.
        return self.renderer is not None

    async def busy(self) -> bool:
        """Whether a new message is an interjection. A run only closing up (its last event is
        past, so no speaker would read a note) is waited for: the message is then a run of its
        own, or a note to the run that closing started for notes left over."""
        task = self.task
        if self.active and self.closing and task is not None:
            await asyncio.wait({task}, timeout=10)  # never raises what the run ended with
        return self.active

    # -- starting ----------------------------------------------------------

    def start(self, text: str | None, nxt: NextAnalysis | None = None, *,
              stop_under: str | None = None, values: dict[str, Any] | None = None) -> asyncio.Task[None]:
        """Run the desk on a new message, or, with `text` None, continue the thread's
        interrupted run from its last checkpoint. One run per thread: when another page of the
        thread started one here meanwhile (two tabs sending at once), the message is a note to
        that run instead (checked and registered without a pause, so two pages cannot both start).
        `stop_under`: a message already in the thread that carries the run's Stop from its start (an edit's
        re-run has no opening of the Desk to carry it). `values`: the thread's state as the message's handler
        has just read it, so the run does not read it again before its first words."""
        running = self.service.current(self)
        if running is not self or self.active:  # another page's run, or this page's (Resume twice)
            return _kept(asyncio.create_task(running.join_with(text)))
        self.text, self.nxt, self.stop_under, self.values = text, nxt or NextAnalysis(), stop_under, values
        # The starting page's user, taken before the run's context replaces the page's (a run that follows
        # one, for the notes left over, does not start here: it keeps the user its page's run had).
        if not isinstance(cl.context.emitter, Pages):
            self.user = signed_in(cl.context.session)
        self.service.runs.begin(self)  # registered before anything awaits: two pages cannot both start
        assert self.task is not None
        return self.task

    async def join_with(self, text: str | None) -> None:
        """Another page's message for a thread whose run began meanwhile: a note to the run (a
        resume is refused: the run is going on)."""
        if text is not None:
            await self.interject(text)
            return
        await self.join_page()
        await said("already_running", language=self.language).send()

    async def speak_as(self, page: str) -> None:
        """The chat's language on a reopened thread: the thread's own, else the page's."""
        try:
            state = await self.service.state(self.thread_id)
        except Exception:  # the thread is gone or the store is closing: the page's language will do
            state = {}
        self.language = language_of(state) if state.get("language") else page

    async def interrupted(self) -> Interrupted | None:
        """The thread's interrupted run, if it has one and it is not running here."""
        if self.active:
            return None
        desk = await self.service.runtime()
        if await live_holder(desk.leases, self.thread_id) is not None:  # it runs in another process
            return None
        return await desk.interrupted(self.thread_id)

    async def offer_resume(self, stopped: Interrupted, steps: list[Any] | None = None, reason: str = "") -> None:
        """Offer to resume. On a reopened thread pass its (mutable) steps list: Chainlit sends the UI
        the steps it read *before* on_chat_resume and does not store actions, so an offer already in
        the thread only gets its button back, and a new one is added to those steps."""
        messages = [s for s in (steps or []) if str(s.get("type", "")).endswith("_message")]
        offer_text = phrase(self.language, "chat.resume_offer")
        if messages and (RESUME_OFFER in (last := str(messages[-1].get("output") or "")) or offer_text in last):
            await resume_action(self.thread_id, self.language).send(for_id=str(messages[-1]["id"]))
            return
        # A crash or a restart left the thread named "… · running"; its decision, if the
        # interrupted run is a follow-up to one, keeps the name it gave.
        with contextlib.suppress(Exception):
            state = await self.service.state(self.thread_id)
            if not state.get("final_decision"):
                await self._name(state, NAME_STOPPED)
        lang = self.language
        who = phrase(lang, "chat.list_separator").join(
            f"**{persona_label(p, lang)}**" for p in dict.fromkeys(stopped.personas))
        offer = said("interrupted_before", language=lang, reason=reason or phrase(lang, "chat.interrupted"), who=who,
                     offer=offer_text)
        offer.actions = [resume_action(self.thread_id, lang)]
        await offer.send()
        if steps is not None:
            steps.append(offer.to_dict())

    async def close_cut_off_turns(self, steps: list[Any]) -> None:
        """A persona message left empty by a crash (created when its turn began, its words never
        stored) says so, instead of staying a blank in the history; not one still being written."""
        writing = {m.id for m in self.renderer.open.values()} if self.active and self.renderer else set()
        for step in steps:
            if (step.get("type") == "assistant_message" and step.get("name") in ALL_PERSONAS
                    and step.get("id") not in writing and not str(step.get("output") or "").strip()):
                # Its metadata kept: the update replaces the stored message whole (its label, its round).
                cut_off = phrase(self.language, "chat.cut_off")
                await cl.Message(content=cut_off, author=str(step["name"]), id=str(step["id"]),
                                 parent_id=step.get("parentId"),
                                 metadata=meta if isinstance(meta := step.get("metadata"), dict) else {}).update()
                step["output"] = cut_off  # the UI is shown these steps, read before this update

    # -- the run (a ThreadTask's life: chat/kit/tasks.py) ------------------------------------------

    async def run(self) -> None:
        text, nxt = self.text, self.nxt
        renderer = self.renderer = self._open_run(nxt)
        self.lost = None
        desk = await self.service.runtime()
        # The Desk speaks before the coordinator's update says the thread's language: reckoned here
        # as the coordinator does (the CLI does the same), then taken from that update.
        values, self.values = self.values, None
        if values is None:
            values = await desk.state(self.thread_id)
        renderer.language = self.language = thread_language(
            self.service.settings.language, values.get("language"), text or "")
        # One run per thread across processes: another window's process may run this thread.
        deaf = self._hear_outages(desk)
        try:
            async with desk.turn(self.thread_id, text, nxt.plan, wait_s=LEASE_WAIT_S) as turn:
                self.lost = turn.held.lost
                renderer.continued = text is None
                if self.stop_under:  # an edit's re-run: its Stop under the edited turn from the start
                    await renderer.stop_under(self.stop_under)
                await self._deliberate(turn, renderer, nxt)
        finally:
            deaf()
        # Past its last event: the decision stands; Stop now waits for the closing up (stop()).
        self.closing = True
        self.language = renderer.language
        if renderer.decided:
            await self._show_decision()
        await renderer.finish(phrase(self.language, "chat.decision_ready" if renderer.decided else "chat.done"))
        await quietly(offer_edits(desk, self.thread_id))  # Edit buttons on the finished turns

    async def elsewhere(self) -> None:
        """The thread's lease is held by another process (another window's run): a new message is
        passed on to that run's inbox, a resume is refused."""
        lang, text = self.language, self.text
        if text is None:
            body = phrase(lang, "chat.elsewhere_running")
        else:
            posted = await post_note(await self.service.runtime(), self.thread_id, text)
            body = phrase(lang, "chat.elsewhere_passed_on", ack=acknowledgement(posted, lang)) + f"\n\n> {text}"
        await cl.Message(content=body, author=DESK, metadata=label_metadata(DESK, language=lang)).send()

    async def stopped(self) -> None:
        renderer = self._running()
        lang = self.language = renderer.language
        spent = await self._cut_short(renderer, "cut_off_suffix", "stopped_status")
        key = "stopped_lease_lost" if self.lost is not None and self.lost.is_set() else "stopped"
        await quietly(cl.Message(content=phrase(lang, "chat." + key) + _spent_line(spent), author=DESK,
                                 metadata=label_metadata(DESK, language=lang)).send())

    async def failed(self, exc: Exception) -> None:
        renderer = self._running()
        lang = self.language = renderer.language
        if (out := found_in(exc, DatabaseUnavailable)) is not None:  # it resumes by itself once it is back (ended)
            self.db_out = out  # said first: closing up reads the thread, which waits for the database
            await quietly(cl.Message(content=f"⚠️ {explain(out, lang)}", author=DESK,
                                     metadata=label_metadata(DESK, language=lang)).send())
            await self._cut_short(renderer, "failed_suffix", "failed_status")
            return
        spent = await self._cut_short(renderer, "failed_suffix", "failed_status")
        await quietly(cl.Message(content=f"⚠️ {explain(exc, lang)}\n\n{phrase(lang, 'chat.failed')}"
                                 + _spent_line(spent), author=DESK, metadata=label_metadata(DESK, language=lang),
                                 actions=[resume_action(self.thread_id, lang)]).send())

    async def closed(self, outcome: Outcome) -> bool:
        """The run is over: the notes nobody read (none when the run was another process's: notes
        posted for it are that run's to read); the chat stays the thread's while they are answered."""
        self.renderer = None
        if outcome == "failed" and self.db_out is not None:  # it waits for the database, and goes on (ended)
            self.leftover = []
            return True
        self.closing = True
        self.leftover = await self._leftover() if outcome != "elsewhere" else []
        return bool(self.leftover)

    async def ended(self, outcome: Outcome) -> None:
        if outcome == "failed" and self.db_out is not None:
            await self._resume_when_back()
            return
        leftover = self.leftover
        if leftover and outcome == "done":
            # Interjections nobody could answer (they came as the run ended): answer them now, a
            # turn's worth at a time (a flood of them must not become one enormous request).
            asked = "\n".join(quoted_note(n.text) for n in leftover[:NOTES_PER_TURN])
            if (more := len(leftover) - NOTES_PER_TURN) > 0:  # a new run marks every note read
                key = "notes_overflow_one" if more == 1 else "notes_overflow_many"
                await quietly(said(key, language=self.language, more=more, n=NOTES_PER_TURN).send())
            self.text, self.stop_under = asked, None
            self.launch()  # from this task's context: the run goes on to the same pages
        elif leftover:
            lang = self.language
            listed = phrase(lang, "chat.note_separator").join(
                phrase(lang, "chat.note_quoted", text=quoted_note(n.text)) for n in leftover[:NOTES_PER_TURN])
            more = len(leftover) - NOTES_PER_TURN
            tail = phrase(lang, "chat.not_answered_more", more=more) if more > 0 else ""
            await quietly(said("not_answered", language=lang, listed=listed, more=tail).send())
            self.tasks.forget(self)

    async def _resume_when_back(self) -> None:
        """After a database outage: wait for it (Stop gives up), post what the user typed meanwhile, and go on
        from the last saved step (or run the message again if the run stopped before its first one)."""
        desk = await self.service.runtime()
        lang = self.language
        try:
            while True:
                if desk.outages is not None:
                    await desk.outages.wait_until_back()
                with contextlib.suppress(DatabaseUnavailable):  # gone again: waited for again
                    stopped = await desk.interrupted(self.thread_id)
                    break
        except asyncio.CancelledError:  # Stop
            self.db_out = None
            await quietly(said("db_wait_stopped", language=lang).send())
            self.tasks.forget(self)
            raise
        kept, self.kept = self.kept, []
        self.db_out = None
        if stopped is not None:
            for text in kept:  # the resumed run's next speakers read them
                await post_note(desk, self.thread_id, text)
            self.text = None
        elif self.text is not None:  # it stopped before its input was saved: asked again, with the notes
            self.text = "\n\n".join([self.text, *kept])
        else:
            self.tasks.forget(self)
            return
        await quietly(said("db_resuming", language=lang).send())
        self.launch()  # from this task's context: the run goes on to the same pages

    def _hear_outages(self, desk: DeskRuntime) -> Callable[[], None]:
        """While the run runs: a short note when the database connection is lost and it reconnects, updated once
        it is back. Returns the call that stops listening."""
        if desk.outages is None:
            return lambda: None
        context, loop = contextvars.copy_context(), asyncio.get_running_loop()
        note: list[cl.Message] = []
        lock = asyncio.Lock()

        async def tell(state: str) -> None:
            async with lock:  # in the order heard: "reconnecting" is sent before "back" updates it
                lang = self.renderer.language if self.renderer else self.language
                if state == "reconnecting" and not note:
                    note.append(said("db_reconnecting", language=lang))
                    await note[0].send()
                elif state == "back" and note:
                    note[0].content = phrase(lang, "chat.db_back")
                    await note[0].update()
                    note.clear()

        def heard(state: str) -> None:
            if state != "out":  # an outage past the budget is the run's failure, said there
                loop.create_task(quietly(tell(state)), context=context)
        return desk.outages.listen(heard)

    def _running(self) -> Renderer:
        """The run's renderer, at its ending (set as it begins: run, cleared once it has closed up: closed)."""
        assert self.renderer is not None
        return self.renderer

    def _open_run(self, nxt: NextAnalysis) -> Renderer:
        """The run's renderer, in the run's own context (the kit's: every page showing the thread)."""
        # In the page's language until the request is read (the renderer relabels it then): public/desk.js
        # finds the action by its label in any language (chat/web/serving.py: stop_words).
        stop = cl.Action(name=STOP_ACTION, payload={"thread_id": self.thread_id},
                         label=phrase(self.language, "chat.stop"),
                         icon="square", tooltip=phrase(self.language, "chat.stop_tooltip"))
        self.closing = False
        self.analysing = None
        return Renderer(nxt.plan, stop_action=stop, on_pickup=self._picked_up, on_curve=show_alpha_curve,
                        language=self.language)

    async def _deliberate(self, turn: DeskTurn, renderer: Renderer, nxt: NextAnalysis) -> None:
        """Stream the run's events to the pages, naming the thread after its analysis."""
        if turn.resumed is not None:  # resume: the plan and who already spoke come from the checkpoint
            renderer.plan, renderer.started = turn.plan, turn.plan.spoken(turn.resumed)
            self._name_soon(turn.resumed, NAME_RUNNING)
        quick, deep = nxt.models or (None, None)
        context = turn.desk.context(quick_model=quick, deep_model=deep, user=self.user, source="chat")
        async for ev in turn.events(context):
            await renderer.handle(ev)
            if isinstance(ev, NodeDone) and ev.node == "coordinator":
                self._name_soon(ev.update, NAME_RUNNING, _asked(turn))
        await renderer.close_open()

    async def _cut_short(self, renderer: Renderer, suffix: str, status: str) -> str:
        """A run stopped or failed: its open turns (their `suffix`) and stage list (its `status`: keys of
        the catalogue's [chat]) closed, the thread named "· stopped" (unless a decision was made just
        before: it stands). Returns its token total."""
        lang = renderer.language
        if not renderer.decided:
            await quietly(self._name(self.analysing, NAME_STOPPED))
        await quietly(renderer.close_open(phrase(lang, "chat." + suffix)))
        await quietly(renderer.finish(phrase(lang, "chat." + status), failed=True))
        return await self._spent()

    # -- pages that open the thread mid-run (the kit's join: these say what they are shown) -----------

    def in_progress(self) -> list[StepDict]:
        return self.renderer.in_progress() if self.renderer is not None else []

    def held(self) -> contextlib.AbstractAsyncContextManager[Any]:
        return self.renderer.lock if self.renderer is not None else contextlib.nullcontext()

    async def catch_up(self, emitter: BaseChainlitEmitter, messages: bool = True) -> None:
        # Stop is the renderer's (sent with the stage list): the kit's `stop_action` stays unset.
        if self.renderer is not None:
            await self.renderer.catch_up(emitter, messages)

    async def on_new_socket(self, emitter: BaseChainlitEmitter) -> None:
        await self.catch_up(emitter)

    async def _leftover(self) -> list[Note]:
        """Notes no speaker read (a new run or a resume takes care of them)."""
        try:
            desk = await self.service.runtime()
            read, seen = unread_in(await desk.state(self.thread_id))
            return await desk.inbox.unread(self.thread_id, read, seen)
        except Exception:  # the thread is gone (deleted) or the store is closing
            return []

    async def _show_decision(self) -> None:
        """The decision's card, and the thread named after it."""
        state = await self.service.state(self.thread_id)
        await show_decision(self.thread_id, state, self.service.vendor)
        await self._named()
        await quietly(name_thread(self.thread_id, state, at=self.began if self.analysing else None))

    async def _name(self, values: dict[str, Any] | None, status: str, asked: str = "") -> None:
        """Name the thread (thread_names.py) after its analyses, the one under way (the coordinator's
        update, or a resumed run's state) while it runs or once it stopped, or after `asked` when the
        coordinator read a thread's first message as no analysis; a decision names it after the card."""
        if not values:
            return
        await self._named()
        self._track(values)
        await self._write_name(values, status, asked)

    def _name_soon(self, values: dict[str, Any] | None, status: str, asked: str = "") -> None:
        """`_name` in a task of its own, for the run's name while it runs: naming reads the history once its
        queued writes are stored (the other threads' names), which on a busy server held up the run's
        events, its first words among them, for as long as every chat's writes took. A later name waits
        for it (`_named`), so the running name never lands after the stopped or the decided one."""
        if not values:
            return
        self._track(values)
        earlier = self._naming

        async def write() -> None:
            if earlier is not None:  # names land in the order they were given
                await quietly(asyncio.shield(earlier))
            await self._write_name(values, status, asked)
        self._naming = asyncio.create_task(quietly(write()))

    async def _named(self) -> None:
        if self._naming is not None:
            await quietly(asyncio.shield(self._naming))  # a stop of the one waiting does not cut the name short
            self._naming = None

    def _track(self, values: dict[str, Any]) -> None:
        if values.get("intent", "analyze") == "analyze" and values.get("ticker"):
            if self.analysing is None:
                self.began = clock.now()
            self.analysing = values

    async def _write_name(self, values: dict[str, Any], status: str, asked: str) -> None:
        await name_thread(self.thread_id, await self.service.state(self.thread_id), values, status=status,
                          asked=asked, at=self.began if self.analysing else None)

    async def _spent(self) -> str:
        """The run's token total, for a run that ended without a decision (a stop, a failure)."""
        try:
            return spend(await self.service.state(self.thread_id))[0]
        except Exception:  # the thread is gone or the store is closing
            return ""

    # -- while running -----------------------------------------------------

    async def interject(self, text: str) -> cl.Message:
        """Post to the thread's inbox (stored before it is acknowledged) and acknowledge at once,
        naming who will answer."""
        await self.join_page()
        lang = self.renderer.language if self.renderer else self.language
        posted = None
        if self.db_out is None:  # else the run waits for the database: the note is kept until it is back
            # Who has started, read between two events: a turn whose message is on the page is counted started
            # (the renderer shows a turn's first words, then marks it started, under its lock).
            async with self.held():
                started = list(self.renderer.started) if self.renderer else None
            with contextlib.suppress(DatabaseUnavailable):
                posted = await post_note(await self.service.runtime(), self.thread_id, text, started)
        if posted is None:
            self.kept.append(text)
            kept = said("db_note_kept", language=lang)
            kept.content += f"\n\n> {text}"
            await kept.send()
            return kept
        msg = cl.Message(content=f"{acknowledgement(posted, lang)}\n\n> {text}", author=DESK,
                         metadata=label_metadata(DESK, language=lang))
        self.acks[posted.note.seq] = (msg, [], posted.finished if not posted.note.to else None)
        await msg.send()
        return msg

    async def _picked_up(self, seq: int, persona: str) -> None:
        if seq not in self.acks:
            return
        msg, who, finished = self.acks[seq]
        if persona in who:
            return
        who.append(persona)
        first = msg.content.split("\n\n", 1)
        quote = first[1] if len(first) > 1 else ""
        lang = self.renderer.language if self.renderer else self.language
        names = phrase(lang, "chat.list_separator").join(persona_label(p, lang) for p in who)
        # A note to a persona that had had its last turn keeps saying so: who answers it is not whom it named.
        line = (phrase(lang, "chat.picked_up_finished", named=persona_label(finished, lang), who=names) if finished
                else phrase(lang, "chat.picked_up", who=names))
        msg.content = f"{line}\n\n{quote}".rstrip()
        await msg.update()

    async def stop(self, timeout: float = 10.0) -> bool:
        """Cancel the run; returns False when nothing was running. A run past its last event (showing
        its card, offering edits, reading the notes left over) is not cut short: a cancel there would
        leave a decided run named "stopped", or end it while it closes up with no word to the user."""
        task = self.task
        if self.active and self.closing and task is not None:
            await asyncio.wait({task}, timeout=timeout)
            if self.task is task:  # no run for leftover notes followed it: nothing is running now
                return False
        return await super().stop(timeout)
