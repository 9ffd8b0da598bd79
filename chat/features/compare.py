"""Several tickers at once in the chat: "NVDA or AMD?", "compare AAPL and MSFT", "比较苹果和微软".

The flow is the CLI's (graph's `read_comparison`, `Comparison`: graph/compare/), shown the chat's way:

1. The ask is read; what cannot run (more than five tickers, a date refused, a company listed twice) is said back.
   A live model and more than two tickers: the cost is stated with Run and Cancel, and nothing runs before Run.
2. The comparison runs in a task of its own (as a desk run, chat/runs.py: never inside a socket handler), with a
   context whose emitter is every page of the thread (chat/pages.py). Every desk streams into this thread at once,
   each speaker labelled with its ticker ("Bear Researcher · AMD": chat/views/compare_view.py), one stage list for all.
3. A message meanwhile is an interjection: naming a compared ticker ("Bear on AMD, what about the MI400 delay?")
   it goes to that desk's inbox, else to every desk still deliberating; each is acknowledged with who will answer.
4. /stop (or Stop) stops every desk at its last checkpoint; "resume" (or Resume) goes on: decided desks are kept,
   stopped ones continue, never repeating a finished speaker.
5. Once every desk has ended, the Comparison turn streams, then the side-by-side card with its chart. Later
   messages that stay within the comparison ("which was riskier?") are answered by the Desk from its record.
6. Then every desk's finished turns have an Edit button here (`compare_edit`). Editing one (chat/edits.py's
   edit-the-past, in one desk) forks that desk's thread right after the turn; the comparison runs again as a
   resumed one: the other desks are kept as decided, untouched, the edited desk goes on from the fork (only the
   speakers after the edited turn speak again), then the Comparison turn and the card are made anew from the
   desks' rulings, the card saying what the edit changed. The edited desk's later turns, the earlier Comparison
   turn and card are folded to one line here (the desk's own thread keeps both branches). Refused while anything
   runs on the comparison, and for another chat's button (the record is the user's, the thread the page's).
7. A page that opens the thread while the comparison runs (a reload, a second tab) joins it as a desk run's page
   does (the kit's `ThreadTask.join`): the open turns with their words so far, then everything as it happens, the
   stage list and Stop.

Each desk is an ordinary thread of the user's (its row made here, owned by them: another user's page is refused
by the door), opened from the card's links like any analysis: its card, follow-ups, Edit.
"""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import date
from typing import Any, cast

import chainlit as cl
from chainlit.emitter import BaseChainlitEmitter
from chainlit.logger import logger
from chainlit.step import StepDict

from graph import (
    COMPARISON,
    DESK,
    CompareAsk,
    Comparison,
    DeskRuntime,
    Event,
    RunPlan,
    Step,
    Token,
    TurnRestarted,
    clock,
    comparison_cost,
    edit_change,
    explain,
    followup_of,
    mentions,
    needs_confirmation,
    persona_label,
    phrase,
    post_note,
)

from ..edits import (
    Change,
    change_words,
    collapsed,
    match_messages,
    thread_messages,
)
from ..history import COMPARED_DESK
from ..kit.feature import Message
from ..kit.offers import Answer, Button, Offers
from ..kit.say import page_user, said, thread_language
from ..kit.tasks import ThreadTask, ThreadTasks, quietly
from ..panel import NextAnalysis, next_analysis
from ..runs import DeskService, asks_to_resume, signed_in
from ..speakers import SEPARATOR, label_metadata
from ..views.compare_view import CompareStages, TickerRenderer, is_card, show_card
from ..views.thread_names import rename_thread
from .edit_actions import Edit, detach, note
from .headless import own_thread, tell_on_first_open

RUN_ACTION = "compare_run"
CANCEL_ACTION = "compare_cancel"
STOP_ACTION = "compare_stop"
RESUME_ACTION = "compare_resume"
EDIT_ACTION = "compare_edit"  # Edit on a desk's turn in the comparison's thread: {"thread_id", "ticker", "step", …}
EDITS_SENT = "compare_edits"  # user-session key: the compare_edit actions sent in this session
COMPARED = COMPARED_DESK  # a desk thread's metadata: {"parent", "ticker"} (left out of the sidebar's list)



def _thread_link(thread_id: str) -> str:
    return f"/thread/{thread_id}"



def _ask_json(ask: CompareAsk) -> dict[str, Any]:
    return {"tickers": list(ask.tickers), "trade_date": _day(ask.trade_date), "asked_date": _day(ask.asked_date),
            "language": ask.language, "explicit_date": ask.explicit_date}


def _ask_of(value: dict[str, Any]) -> CompareAsk:
    def day(text: object) -> date | None:
        return date.fromisoformat(str(text)) if text else None

    return CompareAsk(tuple(value["tickers"]), day(value.get("trade_date")), day(value.get("asked_date")),
                      str(value["language"]), bool(value.get("explicit_date")))


def _day(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


def _plan_json(plan: RunPlan) -> dict[str, Any]:
    return {"analysts": list(plan.analysts), "debate_rounds": plan.debate_rounds, "risk_rounds": plan.risk_rounds,
            "parallel_analysts": plan.parallel_analysts}


def desk_of(message: dict[str, Any], tickers: tuple[str, ...]) -> str:
    """The compared ticker whose desk said `message` (its label: "Bear Researcher · AMD · round 2"), or ""."""
    label = str((message.get("metadata") or {}).get("avatarName") or "")
    parts = label.split(SEPARATOR)
    return parts[1] if len(parts) > 1 and parts[1] in tickers else ""


def _of_desk(messages: list[dict[str, Any]], ticker: str, tickers: tuple[str, ...]) -> list[dict[str, Any]]:
    return [m for m in messages if desk_of(m, tickers) == ticker]



async def _void(msg: cl.Message, restarted: TurnRestarted) -> None:
    """A cut-off call's words, taken off the streaming message before its words come again."""
    if msg.content.endswith(restarted.text):
        msg.content = msg.content[: len(msg.content) - len(restarted.text)]
        if msg.streaming:  # on the page already: its text replaced (it is stored whole when it ends)
            await cl.context.emitter.update_step(msg.to_dict())

class _Sent:
    """The compare_edit actions sent in this session (as chat/edits.py keeps its own: JSON cannot write this,
    so a reopened thread, whose session Chainlit hands back from its metadata, starts with none)."""

    def __init__(self) -> None:
        self.actions: list[cl.Action] = []


def _sent() -> list[cl.Action]:
    sent = cl.user_session.get(EDITS_SENT)
    if not isinstance(sent, _Sent):
        sent = _Sent()
        cl.user_session.set(EDITS_SENT, sent)
    return sent.actions


def _edit_action(parent: str, ticker: str, step: Step, language: str) -> cl.Action:
    return cl.Action(name=EDIT_ACTION, label=phrase(language, "chat.edit"), icon="pencil",
                     tooltip=phrase(language, "chat.edit_tooltip"),
                     payload={"thread_id": parent, "ticker": ticker, "step": step.id,
                              "checkpoint": step.checkpoint_id})


class Compares:
    """The server's comparisons: the costs offered, the runs in flight (by parent thread)."""

    def __init__(self, service: Callable[[], DeskService]) -> None:
        self.service = service  # the app's service, looked up when used (tests put their own in its place)
        self.offers = Offers("compare", lambda: self.desk(), (
            Button(RUN_ACTION, "compare.run", "play"), Button(CANCEL_ACTION, "compare.cancel", "x")),
            gone="compare.offer_gone", not_yours="compare.offer_gone", same_thread=True)
        self.runs: ThreadTasks[CompareRun] = ThreadTasks()
        self.running = self.runs.running  # parent thread id → its comparison in flight

    def install(self) -> None:
        self.offers.install({RUN_ACTION: self.run_pressed, CANCEL_ACTION: self.cancel_pressed})
        cl.action_callback(STOP_ACTION)(self.runs.stop_pressed)
        cl.action_callback(EDIT_ACTION)(self.edit_pressed)
        cl.action_callback(RESUME_ACTION)(self.resume_pressed)

    async def desk(self) -> DeskRuntime:
        return await self.service().runtime()

    # -- what the user types ------------------------------------------------------------------------

    async def answer(self, said: Message) -> bool:
        """Answer a message about comparisons: an interjection to one running, a resume, a new comparison, a
        follow-up to a finished one. False for any other message (and for every message while the thread's own
        desk run goes on: a note to it)."""
        text, thread_id, nxt = said.text, said.thread_id, said.next_analysis
        if (run := self.running.get(thread_id)) is not None and run.active:
            if run.deliberating:
                await run.interject(text)
                return True
            # The desks are done: the message follows the comparison, once its turn and card are stored (its
            # last steps, the Edit buttons, may still be going; the message waits for the card, never lost).
            await run.card_shown()
        if await said.chat.busy():
            return False
        today = clock.today()
        if asks_to_resume(text):
            return await self.resume(thread_id, nxt, quiet=True)
        desk = await self.desk()
        if (followed := await followup_of(desk, page_user(), thread_id, text, today)) is not None:
            await self._followup(followed, text)
            return True
        # Two tickers ("NVDA or AMD?"; in a thread holding an analysis, only when asked as one): graph's router.
        if not isinstance(ask := said.route.read, CompareAsk):
            return False
        if ask.problem:
            await cl.Message(content=ask.problem, author=DESK, metadata=label_metadata(DESK, language=ask.language)
                             ).send()
            return True
        if needs_confirmation(len(ask.tickers), live=desk.models.live):
            await self._offer(ask, text, thread_id, nxt)
            return True
        await self._start(ask, text, page_user(), thread_id, nxt)
        return True

    async def resume(self, thread_id: str, nxt: NextAnalysis, quiet: bool = False) -> bool:
        """Go on with the thread's stopped comparison; False (said unless `quiet`) when there is none."""
        desk = await self.desk()
        comparison = await Comparison.stored(desk, page_user(), thread_id, plan=nxt.plan)
        if comparison is None or not await comparison.interrupted():
            if not quiet:
                lang = thread_language() if comparison is None else comparison.record.language
                await said("compare.nothing_to_resume", language=lang).send()
            return False
        self._begin(CompareRun(self, comparison, nxt, resumed=True))
        return True

    async def _start(self, ask: CompareAsk, asked: str, user: str, thread_id: str, nxt: NextAnalysis) -> None:
        desk = await self.desk()
        quick, deep = nxt.models or (None, None)
        context = desk.context(quick_model=quick, deep_model=deep, user=user, source="chat")
        comparison = await Comparison.new(desk, user, thread_id, ask, asked, plan=nxt.plan, context=context)
        self._begin(CompareRun(self, comparison, nxt))

    def _begin(self, run: CompareRun) -> None:
        self.runs.begin(run)

    async def _followup(self, comparison: Comparison, question: str) -> None:
        """The Desk's answer from the comparison's record, streamed."""
        lang = comparison.record.language
        msg = cl.Message(content="", author=DESK, metadata=label_metadata(DESK, language=lang))
        async for piece in comparison.followup(question):
            if isinstance(piece, Token):
                await msg.stream_token(piece.text)
            elif isinstance(piece, TurnRestarted):
                await _void(msg, piece)
            else:
                msg.content = piece
        await msg.send()

    async def _offer(self, ask: CompareAsk, asked: str, thread_id: str, nxt: NextAnalysis) -> None:
        """A live comparison of more than two tickers: its cost, with Run and Cancel."""
        desk = await self.desk()
        lang = ask.language
        c = comparison_cost(nxt.plan, len(ask.tickers), live=desk.models.live)
        text = phrase(lang, "compare.cost", n=len(ask.tickers), tokens=f"{c.tokens:,}", calls=c.calls,
                      per=f"{c.per_analysis.tokens:,}", source=c.per_analysis.source_in(lang))
        body = {"ask": _ask_json(ask), "asked": asked, "plan": _plan_json(nxt.plan),
                "models": list(nxt.models) if nxt.models else None}
        await (await self.offers.message(text, body, language=lang, thread_id=thread_id)).send()

    async def run_pressed(self, answer: Answer) -> None:
        body = answer.body
        models = body.get("models")
        nxt = NextAnalysis(RunPlan(**body["plan"]), (str(models[0]), str(models[1])) if models else None)
        await self._start(_ask_of(body["ask"]), str(body.get("asked") or ""), answer.user, answer.thread_id, nxt)

    async def cancel_pressed(self, answer: Answer) -> None:
        await said("compare.cancelled", language=answer.language).send()

    # -- stop -----------------------------------------------------------------------------------------

    async def stop(self, thread_id: str) -> bool:
        return await self.runs.stop(thread_id)

    async def close(self) -> None:
        await self.runs.close()

    # -- a page opening the thread ------------------------------------------------------------------------

    async def resume_pressed(self, action: cl.Action) -> None:
        if str((action.payload or {}).get("thread_id") or "") == cl.context.session.thread_id:
            await self.resume(cl.context.session.thread_id,
                              next_analysis(cl.user_session.get("chat_settings"), self.service().settings))

    async def reopened(self, thread_id: str, steps: list[Any]) -> None:
        """A page opened the thread (call in on_chat_resume with the stored steps Chainlit sends it next): it joins
        a comparison running there; a finished one's turns get their Edit buttons back (Chainlit stores none); a
        costly comparison still on offer, its Run and Cancel."""
        await self.offers.reopened(thread_id, steps)
        if await self.runs.reattach(thread_id, steps) is not None:
            return
        try:
            comparison = await Comparison.stored(await self.desk(), page_user(), thread_id)
            if comparison is not None and comparison.record.status == "done":
                await offer_edits(comparison, cast(list[dict[str, Any]], steps))
        except Exception:  # the buttons are a convenience: reopening the thread must not fail on them
            logger.exception("Could not offer the comparison's edits on thread %s", thread_id)

    # -- editing one desk's past ------------------------------------------------------------------------

    async def edit_pressed(self, action: cl.Action) -> None:
        # Chainlit answers the button's HTTP call when this returns: the question waits in a task.
        detach(self._edit(action), "compare-edit")

    async def _edit(self, action: cl.Action) -> None:
        payload = action.payload or {}
        parent = cl.context.session.thread_id
        desk = await self.desk()
        # The page's own thread (the door checked it is the user's) and the user's own record of it: else refused.
        comparison = await Comparison.stored(desk, page_user(), parent) if payload.get("thread_id") == parent else None
        ticker = str(payload.get("ticker") or "")
        if comparison is None or ticker not in comparison.record.threads:
            await note("edit_not_yours").send()
            return
        await CompareEdit(action, desk, self, comparison, ticker).run()


class CompareEdit(Edit):
    """Edit on one desk's turn in a comparison's thread: the fork is that desk's thread's, the comparison runs
    again as a resumed one (the other desks kept as decided), and the edited desk's later turns, the Comparison
    turn and the card fold to one line here (the desk's own thread keeps both branches). The steps are Edit's."""

    def __init__(self, action: cl.Action, desk: DeskRuntime, compares: Compares, comparison: Comparison,
                 ticker: str) -> None:
        record = comparison.record
        super().__init__(action, desk, record.threads[ticker], record.parent, record.language, ticker)
        self.compares, self.comparison = compares, comparison

    def busy(self) -> bool:
        """Anything running on the comparison: itself, or a run of the thread's own or of the desk's thread."""
        run = self.compares.running.get(self.shown_in)
        chats = self.compares.service().chats
        return (run is not None and run.active) or any(
            (chat := chats.get(t)) is not None and chat.active for t in (self.shown_in, self.thread_id))

    def changes(self, messages: list[dict[str, Any]], step: Step, before: list[Step]) -> list[Change]:
        """The edited turn of the ticker's desk and its desk's turns after it, the Comparison turn and card."""
        mine = _of_desk(messages, self.ticker, self.comparison.record.tickers)
        compared = [m for m in messages if not collapsed(m) and (m.get("name") == COMPARISON or is_card(m))]
        return [Change(m, False) for m in [*self.superseded(mine, step, before), *compared]]

    def edited_metadata(self, step: Step) -> dict[str, Any]:
        # Labelled with its desk's ticker, as the desk's turns are: `desk_of` finds it there (its Edit, a fold).
        return label_metadata(step.persona, step.round, self.language, tag=self.ticker)

    async def rerun(self, edited: str) -> bool:
        nxt = next_analysis(cl.user_session.get("chat_settings"), self.compares.service().settings)
        await self.comparison.reopen()
        self.compares._begin(CompareRun(self.compares, self.comparison, nxt, resumed=True, edited=self.ticker))
        return True

    async def done(self, step: Step, changes: list[Change]) -> None:
        gone = {str(c.message["id"]) for c in changes}
        for shown in [a for a in _sent() if a.forId in gone]:  # the folded turns' Edit buttons
            _sent().remove(shown)
            await quietly(shown.remove())
        logger.info("comparison %s: edit of %s's %s, %d messages folded", self.shown_in, self.ticker, step.id,
                    len(changes))


async def offer_edits(comparison: Comparison, messages: list[dict[str, Any]]) -> None:
    """Edit buttons on every desk's finished turns (on their current branch) that have none in this session yet."""
    record, sent = comparison.record, _sent()
    offered = {a.forId for a in sent}
    for ticker, thread in record.threads.items():
        if not await comparison.desk.has_thread(thread):
            continue
        steps = {s.id: s for s in await comparison.desk.history(thread)}
        for step_id, message_id in match_messages(list(steps.values()), _of_desk(messages, ticker, record.tickers)
                                                  ).items():
            if message_id not in offered:
                action = _edit_action(record.parent, ticker, steps[step_id], record.language)
                sent.append(action)
                await action.send(for_id=message_id)


class CompareRun(ThreadTask):
    """One comparison running for a chat thread: its desks' renderers, the Comparison turn, the card."""

    kind = "compare"

    def __init__(self, compares: Compares, comparison: Comparison, nxt: NextAnalysis, resumed: bool = False,
                 edited: str = "") -> None:
        super().__init__(compares.runs, comparison.record.parent, comparison.record.language)
        self.compares = compares
        self.comparison = comparison
        self.nxt = nxt
        self.resumed = resumed
        self.edited = edited  # the ticker whose desk an edit forked: the card says what it changed
        self.turn_message: cl.Message | None = None  # the Comparison turn while it streams
        self.stages: CompareStages | None = None
        self.renderers: dict[str, TickerRenderer] = {}
        self.finished: set[str] = set()
        self.acks: dict[tuple[str, int], cl.Message] = {}
        self._desks_done = False  # every desk has decided (or failed): the Comparison turn, the card, the Edit buttons
        self._card = asyncio.Event()  # the card is shown (its comparison stored)

    @property
    def deliberating(self) -> bool:
        """A desk still deliberates: a message to the run is a note to it."""
        return self.active and not self._desks_done and bool(self._still_running())

    def _still_running(self) -> list[str]:
        desks = self.comparison.runner.desks
        return [t for t in self.comparison.record.tickers if t not in self.finished and desks[t].how != "kept"]

    async def card_shown(self) -> None:
        """Until the card is shown or the run has ended."""
        if self.task is not None:
            card = asyncio.ensure_future(self._card.wait())
            try:
                await asyncio.wait({card, self.task}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                card.cancel()

    async def run(self) -> None:
        record, lang = self.comparison.record, self.language
        user = self.comparison.user
        self.stop_action = cl.Action(name=STOP_ACTION, payload={"thread_id": self.thread_id},
                                     label=phrase(lang, "chat.stop"),
                                     icon="square", tooltip=phrase(lang, "chat.stop_tooltip"))
        tickers = phrase(lang, "chat.list_separator").join(record.tickers)
        if self.resumed:
            hows = await self.comparison.runner.survey()
            words = {"kept": "resume_kept", "resumed": "resume_from", "new": "resume_new"}
            desks = phrase(lang, "chat.list_separator").join(phrase(lang, "compare." + words[h], ticker=t)
                                                             for t, h in hows.items())
            opening = said("compare.resuming", language=lang, actions=[self.stop_action], tickers=tickers, desks=desks)
        else:
            opening = said("compare.starting", language=lang, actions=[self.stop_action], tickers=tickers,
                           trade_date=record.trade_date.isoformat(), last=record.tickers[-1])
        await opening.send()
        stages = self.stages = CompareStages(phrase(lang, "chat.deliberating"), lang)
        await quietly(self._name_thread())
        if signed_in(cl.context.session):
            for ticker, thread in record.threads.items():  # the desks' rows, the user's: openable, not others'
                await quietly(own_thread(thread, user, f"{ticker} · {record.trade_date.isoformat()} "
                                         f"({' vs '.join(record.tickers)})",
                                         {COMPARED: {"parent": self.thread_id, "ticker": ticker}}))
        self._renderers(stages)
        await self.comparison.run_desks(self._show_desk)
        self._desks_done = True
        await self._compare()
        await stages.close(phrase(lang, "chat.decision_ready"))
        await quietly(offer_edits(self.comparison, await thread_messages(self.thread_id)))

    async def stopped(self) -> None:
        await self._cut_short("cut_off_suffix", "stopped_status")
        await said("compare.stopped", language=self.language, actions=[self._resume_action()]).send()

    async def elsewhere(self) -> None:
        await cl.Message(content=phrase(self.language, "chat.already_running"), author=DESK).send()

    async def failed(self, exc: Exception) -> None:
        await self._cut_short("failed_suffix", "failed_status")
        await said("compare.failed", language=self.language, actions=[self._resume_action()],
                   reason=explain(exc, self.language)).send()

    async def _cut_short(self, suffix: str, status: str) -> None:
        """The desks' open turns closed with `suffix`, the stage list with `status` (keys of [chat])."""
        await self._close_desks(phrase(self.language, "chat." + suffix))
        if self.stages is not None:
            await quietly(self.stages.close(phrase(self.language, "chat." + status), failed=True))

    def _renderers(self, stages: CompareStages) -> None:
        for ticker in self.comparison.record.tickers:
            self.renderers[ticker] = TickerRenderer(ticker, self.nxt.plan, stages, language=self.language,
                                                    on_pickup=self._pickup_of(ticker))
            if self.resumed and self.comparison.runner.desks[ticker].how == "kept":  # decided: its stages done
                kept = stages.member(ticker, self.nxt.plan, self.language)
                kept.status = ["done"] * len(kept.status)

    def _resume_action(self) -> cl.Action:
        return cl.Action(name=RESUME_ACTION, payload={"thread_id": self.thread_id},
                         label=phrase(self.language, "chat.resume"), icon="play",
                         tooltip=phrase(self.language, "chat.resume_tooltip"))

    async def _show_desk(self, ticker: str, events: AsyncIterator[Event]) -> None:
        renderer = self.renderers[ticker]
        run = self.comparison.runner.desks[ticker]
        if run.resumed is not None and run.plan is not None:  # resumed (or forked): rounds go on from who spoke
            renderer.plan, renderer.started = run.plan, run.plan.spoken(run.resumed)
        async for ev in events:
            await renderer.handle(ev)
        await renderer.close_open()
        await renderer.finish(phrase(self.language, "chat.done"))
        self.finished.add(ticker)

    async def _close_desks(self, suffix: str) -> None:
        for renderer in self.renderers.values():
            await quietly(renderer.close_open(suffix))

    async def _compare(self) -> None:
        """The Comparison turn streamed as its own persona, then the card."""
        lang = self.language
        turn = self.comparison.turn()
        msg = self.turn_message = cl.Message(content="", author=COMPARISON,
                                             metadata=label_metadata(COMPARISON, language=lang))
        async for token in turn.stream():
            if isinstance(token, TurnRestarted):
                await _void(msg, token)
            else:
                await msg.stream_token(token.text)
        assert turn.result is not None
        msg.content = turn.result.text
        await msg.send()
        self.turn_message = None
        await self.comparison.finish(turn.result)
        links = {o.ticker: _thread_link(o.thread) for o in turn.outcomes} if signed_in(cl.context.session) else {}
        await show_card(turn.outcomes, turn.result.rows(), self.comparison.record.trade_date.isoformat(),
                        turn.result.read, links, (await self.compares.desk()).vendor, lang, change=self._change())
        self._card.set()

    def _change(self) -> str:
        """The card's line on what the edit of a desk changed ("✏️ AMD — Against the branch before the edit: was
        SELL … → now HOLD …"); "" when no desk was edited."""
        state = self.comparison.runner.desks[self.edited].state if self.edited else None
        if not state or (change := edit_change(state)) is None:
            return ""
        return f"✏️ **{self.edited}** — " + phrase(self.language, "card.edit_change",
                                                   change=change_words(change, self.language))

    # -- pages that open the thread mid-run (the kit's join, as a desk run's: these say what they are shown) --------

    def in_progress(self) -> list[StepDict]:
        """The desks' open turns with their words so far, and the Comparison turn while it streams."""
        now = [step for r in self.renderers.values() for step in r.in_progress()]
        if self.turn_message is not None and self.turn_message.streaming:
            now.append(self.turn_message.to_dict())
        return now

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as held:
            for renderer in self.renderers.values():  # every desk's: nothing is sent while held
                await held.enter_async_context(renderer.lock)
            yield

    async def catch_up(self, emitter: BaseChainlitEmitter, messages: bool = True) -> None:
        """Bring one page up to date: the desks' open turns (`messages`), the stage list, the Comparison turn
        (`messages`), and Stop (Chainlit stores no actions)."""
        for renderer in self.renderers.values():
            await renderer.catch_up(emitter, messages)
        if messages and self.turn_message is not None and self.turn_message.streaming:
            await emitter.stream_start(self.turn_message.to_dict())
        await super().catch_up(emitter, messages)

    async def _name_thread(self) -> None:
        record = self.comparison.record
        await rename_thread(self.thread_id, f"{' vs '.join(record.tickers)} · {record.trade_date.isoformat()}")

    # -- interjections ------------------------------------------------------------------------------------

    async def interject(self, text: str) -> None:
        """A note to the desk whose ticker it names, else to every desk still deliberating; acknowledged at once."""
        lang = self.language
        running = self._still_running()
        named = [t for t in mentions(text, clock.today()).tickers if t in running]
        targets = named or running
        desk = await self.compares.desk()
        posted = []
        for ticker in targets:
            renderer = self.renderers.get(ticker)
            posted.append((ticker, await post_note(desk, self.comparison.record.threads[ticker], text,
                                                   renderer.started if renderer else None)))
        if len(posted) == 1:
            ticker, one = posted[0]
            who = one.note.to or one.reader
            ack = said("compare.noted_one", language=lang, ticker=ticker,
                       who=f"**{persona_label(who, lang)}**" if who else phrase(lang, "chat.noted_desk"))
        else:
            ack = said("compare.noted_all", language=lang, tickers=phrase(lang, "chat.list_separator").join(targets))
        ack.content += f"\n\n> {text}"
        await ack.send()
        for ticker, one in posted:
            self.acks[(ticker, one.note.seq)] = ack

    def _pickup_of(self, ticker: str) -> Any:
        async def picked_up(seq: int, persona: str) -> None:
            ack = self.acks.pop((ticker, seq), None)
            if ack is None:
                return
            lang = self.language
            line = phrase(lang, "compare.picked_up", ticker=ticker, who=persona_label(persona, lang))
            ack.content = f"{ack.content}\n\n✓ {line}"
            await quietly(ack.update())
        return picked_up


def render_desk(desk: DeskRuntime, thread_id: str, metadata: dict[str, Any], steps: list[Any]) -> None:
    """A compared desk's thread opened for the first time: told from its checkpoint (chat/features/headless.py), as a
    backtest's day is. Call in on_chat_resume."""
    compared = metadata.get(COMPARED)
    if not isinstance(compared, dict):
        return

    def intro(language: str, state: dict[str, Any]) -> str:
        return f"{compared.get('ticker', '')} · {state.get('trade_date') or ''}"

    tell_on_first_open(desk, thread_id, steps, intro, "chat.backtest_day_gone")
