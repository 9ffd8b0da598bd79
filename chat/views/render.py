"""The graph's events as Chainlit UI: one message per persona turn, tool steps, progress.

Parallel analysts stream into their own messages at the same time; every later speaker opens
its message when its first token (or tool call) arrives and closes it when its node is done.

The page is the bottleneck, not the server: Chainlit's page re-renders the chat and re-parses
the whole Markdown of a message on every streamed update (~20-50 ms of a browser's CPU each,
whatever its size), so words go out in a paced stream (about ten updates a second for the
whole chat, shared by the messages streaming at once), and Markdown tables are held back while
they stream and arrive whole; a long one is folded into a step under its message (chat/views/tables.py).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import chainlit as cl
from chainlit.chat_context import chat_context
from chainlit.emitter import BaseChainlitEmitter
from chainlit.step import StepDict, check_add_step_in_cot, stub_step
from chainlit.utils import utc_now

from graph import (
    DESK,
    RISK_JUDGE_NODE,
    AlphaCurve,
    Event,
    NodeDone,
    NotePickedUp,
    RunPlan,
    Said,
    Token,
    ToolFinished,
    ToolStarted,
    TurnRestarted,
    clock,
    inert_links,
    language_of,
    persona_label,
    phrase,
    recalled_markdown,
    unverified_note,
)

from ..kit.commands import declare
from ..languages import DEFAULT
from ..speakers import label_metadata, speaker_metadata
from .stages import StageList
from .tables import figures_in_language, fold_name, shown_so_far, split_tables

TOOL_OUTPUT_CHARS = 400
# The chat's streaming pace: after words of k messages went out, the next words wait k times this.
STREAM_GAP_S = 0.1
# A tool call still running after this long is shown running; a quicker one is shown once, ended.
TOOL_SHOW_S = 0.3
# What ended this recently is shown to a page opening the thread even if it is stored already.
RECENT_S = 10.0
# The closed step under the Desk's "Analyzing …" that shows what the analysis recalled of the user's calls.
TRACK_RECORD_STEP = "Track record"

_WORD = re.compile(r"[A-Za-z0-9]+")



async def fold_under(parent: cl.Message, name: str, text: str) -> cl.Step:
    """Text folded into a closed step under a message (a long table, the tokens per persona, the
    track record an analysis recalled)."""
    step = cl.Step(name=name, type="undefined", parent_id=parent.id)
    step.output = text
    step.start = step.end = utc_now()
    await step.send()
    return step

class StreamTrace:
    """A debug hook for benchmarks/browser.py, on when DESK_TRACE_STREAM names a file: one JSON
    line per send of a persona message's words (stream or update), with the wall-clock time it
    left the server, the time its oldest word reached the chat, the message id and how many words
    (runs of letters and digits, which survive Markdown rendering unchanged) the message holds
    after it. A page that shows that many words of the message has painted that send."""

    def __init__(self, path: str | None):
        self.path = path

    def __call__(self, msg: cl.Message, kind: str, since: float | None = None) -> None:
        if not self.path:
            return
        now = clock.epoch()
        line = json.dumps({"t": now, "since": since or now, "id": msg.id, "author": msg.author, "kind": kind,
                           "words": len(_WORD.findall(msg.content or ""))})
        with open(self.path, "a") as out:  # appends of one short line: whole lines with many writers
            out.write(line + "\n")


TRACE = StreamTrace(os.environ.get("DESK_TRACE_STREAM"))


# -- one run ---------------------------------------------------------------------------------------

@dataclass
class Stream:
    """One persona's turn being streamed: what it said, and what of it the page has."""
    msg: cl.Message
    raw: str = ""          # every word of the turn so far
    page: str = ""         # what the page shows of it
    shown: bool = False    # the message is on the page
    since: float = 0.0     # wall-clock time the oldest unsent word arrived (0: none waiting)

    # (words, their view): the last view, reused until a word arrives
    _viewed: tuple[str, str] = field(default=("", ""), init=False, repr=False)

    def view(self) -> str:
        """What may be shown of the turn so far: its tables held back (chat/views/tables.py), its links
        and images inert (graph/core/links.py). Remembered for the words it was made of: a tick asks
        for it several times (waiting, rewritten, what is still waiting), and each asking went over
        the whole turn again."""
        raw, view = self._viewed
        if raw is not self.raw and raw != self.raw:
            view = inert_links(shown_so_far(self.raw))
            self._viewed = (self.raw, view)
        return view

    def waiting(self) -> str:
        """The words the page does not have yet; all of the view when the page's text is no
        longer its start (an address completed by the last words is now shown as code)."""
        view = self.view()
        return view[len(self.page):] if view.startswith(self.page) else view

    def rewritten(self) -> bool:
        return not self.view().startswith(self.page)


@dataclass
class ToolCall:
    step: cl.Step
    persona: str
    due: float             # loop time at which a still-running call is shown as running
    shown: bool = False


class Renderer:
    """Consumes desk events for one run and keeps what the chat needs to know about it.

    Every UI update costs the page a re-render of the chat, so updates are merged where the
    page cannot tell the difference: a message goes out with its first words (not empty, then
    its words), its last words go out with its final text, a tool call that ends within
    TOOL_SHOW_S is shown once, ended, and words are paced (STREAM_GAP_S)."""

    def __init__(self, plan: RunPlan, *, stop_action: cl.Action | None = None,
                 on_pickup: Callable[[int, str], Awaitable[None]] | None = None,
                 on_curve: Callable[[cl.Message, AlphaCurve, str], Awaitable[None]] | None = None,
                 language: str = DEFAULT, tag: str = ""):
        self.plan = plan
        self.tag = tag  # a comparison's desk: its ticker, shown after each speaker's name (chat/features/compare.py)
        # The thread's language, for the speakers' labels and the stage list: the chat reckons it before
        # the run (the Desk speaks first), the coordinator's update then says it (chat/runs.py).
        self.language = language
        self.streams: dict[str, Stream] = {}         # persona -> its turn being streamed
        self.steps: dict[str, ToolCall] = {}         # tool call id -> its step
        self.paragraph: set[str] = set()             # personas whose next token starts a paragraph
        self.progress: StageList | None = None
        self.stop_action = stop_action
        self.continued = False                       # the run continues from a checkpoint (no Desk opening)
        self.on_pickup = on_pickup                   # async (seq, persona) when a speaker takes a note
        self.on_curve = on_curve                     # async (message, curve, language): the record's chart
        self.started: list[str] = []                 # personas whose turns have started, in plan order
        self.decided = False                         # the Risk Judge finished: a new decision exists
        self.said: list[cl.Message] = []
        self.opened: list[str] = []                  # personas whose turn just opened, for the stage list
        self.next_send = 0.0                         # loop time before which no words go out
        self._timer: asyncio.Task | None = None
        self.lock = asyncio.Lock()                   # events, the pacing timer and a reattaching page take turns
        self.recent: dict[str, tuple[float, StepDict]] = {}  # id -> (monotonic time, step) of what just ended

    @property
    def open(self) -> dict[str, cl.Message]:
        """persona -> its message for the current turn"""
        return {p: s.msg for p, s in self.streams.items()}

    def next_speaker(self) -> str | None:
        """The speaker that will read a note posted now, from the run plan."""
        slot = self.plan.next_reader(self.started)
        return slot.persona if slot else None

    def in_progress(self) -> list[StepDict]:
        """What a page opening the thread now must be shown beyond the stored history: the open
        turns with their words so far, running tool calls (stored only when they end), and what
        ended in the last seconds (its stored version may still be on its way to the database)."""
        now = time.monotonic()
        out = [step for at, step in self.recent.values() if now - at < RECENT_S]
        out += [stream.msg.to_dict() for stream in self.streams.values() if stream.shown]
        out += [call.step.to_dict() for call in self.steps.values() if call.shown]
        return out

    async def catch_up(self, emitter: BaseChainlitEmitter, messages: bool = True) -> None:
        """Bring one page up to date: the open turns with their words so far (a page whose
        connection dropped missed some), the running tool calls, the stage list and Stop."""
        if messages:
            for step in self.in_progress():
                await (emitter.stream_start(step) if step.get("streaming") else emitter.send_step(step))
        if self.progress is not None and self.progress.sent:
            await self.progress.resend()
        if self.stop_action is not None and self.stop_action.forId:
            await emitter.emit("action", self.stop_action.to_dict())

    # -- events ------------------------------------------------------------

    async def handle(self, ev: Event) -> None:
        async with self.lock:
            await self._handle(ev)

    async def _handle(self, ev: Event) -> None:
        loop = asyncio.get_running_loop()
        if isinstance(ev, Token):
            stream = self._stream(ev.persona)
            text = ev.text
            if ev.persona in self.paragraph:
                self.paragraph.discard(ev.persona)
                if stream.raw and not stream.raw.endswith("\n"):
                    text = "\n\n" + text.lstrip()
            stream.raw += text
            # The oldest waiting word's time (for DESK_TRACE_STREAM): the view is worked out only when
            # nothing waited, not for every word.
            if not stream.since and stream.waiting():
                stream.since = clock.epoch()
            if loop.time() >= self.next_send:
                await self._tick()
            else:
                self._arm_timer()
        elif isinstance(ev, NodeDone):
            await self._tick(finishing=self._finishing(ev))
            await self._node_done(ev)
        elif isinstance(ev, TurnRestarted):
            await self._restarted(ev)
        else:
            await self._tick()
            await self._node_event(ev)
        # The stage list is redrawn after the event itself, so a speaker's first word reaches
        # the user before the progress update (it was the larger part of the first-token time).
        await self._mark_opened()

    async def _mark_opened(self) -> None:
        """The turns opened since: started (a note counts them as speaking from now on) and on the stage list."""
        while self.opened:
            await self._started(self.opened.pop(0))

    async def _restarted(self, ev: TurnRestarted) -> None:
        """A call cut off (or stalled) after some words: they are void, and go from the turn's text and
        the page before the call's words come again (the turn is stored when it ends, without them)."""
        stream = self.streams.get(ev.persona)
        if stream is None:
            return
        raw, void = stream.raw, ev.text
        if raw.endswith(void):
            stream.raw = raw[: len(raw) - len(void)]
        elif raw.endswith(started := "\n\n" + void.lstrip()):  # the call began a paragraph after a tool call
            stream.raw = raw[: len(raw) - len(started)]
            self.paragraph.add(ev.persona)
        else:  # not what streamed last: the turn's end replaces what streamed anyway (_node_done)
            return
        if stream.shown and stream.rewritten():
            await self._rewrite(stream)
        elif not stream.waiting():
            stream.since = 0.0

    @staticmethod
    def _finishing(ev: NodeDone) -> str | None:
        last = ev.spoken
        return str(last.name) if last is not None and ev.node != "coordinator" else None

    async def _node_event(self, ev: Said | AlphaCurve | ToolStarted | ToolFinished | NotePickedUp) -> None:
        if isinstance(ev, Said):
            author = ev.persona or DESK
            if ev.language:  # the request read: its Stop action in the thread's language, before it is shown
                await self._speak(ev.language)
            msg = cl.Message(content=inert_links(ev.text), author=author,
                             actions=[self.stop_action] if self.stop_action else [],
                             metadata=label_metadata(author, language=self.language, tag=self.tag))
            await msg.send()
            self.said.append(msg)
        elif isinstance(ev, AlphaCurve):
            # The chart of the record whose table the Desk just said.
            if self.on_curve is not None and self.said and ev.points:
                await self.on_curve(self.said[-1], ev, self.language)
        elif isinstance(ev, ToolStarted):
            parent = self._stream(ev.persona)
            step = cl.Step(name=ev.tool, type="tool", parent_id=parent.msg.id, show_input="json")
            step.input = ev.args
            step.start = utc_now()
            self.steps[ev.call_id] = ToolCall(step, ev.persona, asyncio.get_running_loop().time() + TOOL_SHOW_S)
            self.paragraph.add(ev.persona)
            self._arm_timer()
        elif isinstance(ev, ToolFinished):
            call = self.steps.pop(ev.call_id, None)
            if call is None:
                return
            result = ev.result if len(ev.result) <= TOOL_OUTPUT_CHARS else ev.result[:TOOL_OUTPUT_CHARS] + " …"
            call.step.output = inert_links(result)  # fetched text, cut first: no address cut out of its code
            call.step.is_error = ev.failed
            call.step.end = utc_now()
            if call.persona in self.streams:
                await self._show(self.streams[call.persona])
            await call.step.send()  # shown (or updated) and persisted once, ended
            self._ended(call.step.to_dict())
        else:
            await self._show(self._stream(ev.persona))
            if self.on_pickup:
                await self.on_pickup(ev.seq, ev.persona)

    async def _speak(self, language: str) -> None:
        """The request was read: the thread's language from now on, for Stop and the composer's "/" menu too."""
        was, self.language = self.language, language_of({"language": language})
        self._stop_in_language()
        if self.language != was:
            with contextlib.suppress(Exception):  # a page gone: the menu is declared again when it reopens
                await declare(self.language)

    def _stop_in_language(self) -> None:
        """The Stop action, made before the request was read (in the page's language), worded in the thread's
        once the coordinator has read it, before the message it goes with is sent: a 中文 thread's Stop says
        停止 (public/desk.js finds it by its label in any language and words the page's Stop button to match)."""
        stop = self.stop_action
        if stop is not None and not stop.forId:  # not on a page yet
            stop.label, stop.tooltip = phrase(self.language, "chat.stop"), phrase(self.language, "chat.stop_tooltip")

    async def _node_done(self, ev: NodeDone) -> None:
        last = ev.spoken
        if ev.node == "coordinator":  # it already spoke through Said
            if "language" in ev.update:
                self.language = language_of(ev.update)
            await self._recalled(ev.update.get("track_record"))
            return
        if last is None:
            return
        persona = str(last.name)
        text = last.content if isinstance(last.content, str) else str(last.content)
        stream = self.streams.pop(persona, None)
        # The turn's own text, not what streamed: that may hold words said before its tool calls
        # or the start of an answer that stalled and was asked again (shown twice otherwise).
        said = text if text.strip() or stream is None else stream.raw
        shown, folded = split_tables(figures_in_language(inert_links(said), self.language), self.language)
        msg = stream.msg if stream is not None else cl.Message(
            content="", author=persona,
            metadata=speaker_metadata(self.plan, self.started, persona, self.language, self.tag))
        msg.content = shown
        if ev.unverified:  # graph/record/figures.py: numbers this turn cites that the run's data lacks
            msg.content += "\n\n⚠ " + unverified_note(ev.unverified)
        if stream is not None and stream.shown:
            await msg.update()     # its last words with its final text
        else:
            if self.continued and (stop := self._stop_unplaced()) is not None:
                msg.actions = [stop]
            await msg.send()       # a turn short enough to go out whole
        self._ended(msg.to_dict())
        TRACE(msg, "end", stream.since if stream else None)
        for table in folded:
            await fold_under(msg, fold_name(table, self.language), table.text)
        if self.progress:
            await self.progress.finished(persona)
        if ev.node == RISK_JUDGE_NODE:
            self.decided = True

    async def _recalled(self, track_record: object) -> None:
        """What the analysis recalled of the user's calls (graph/track/), folded into a closed step
        under the Desk's "Analyzing …", before any analyst speaks. Its reflections are a model's: inert."""
        if not isinstance(track_record, dict) or not track_record:
            return
        text = inert_links(recalled_markdown(track_record, self.language))
        name = persona_label(TRACK_RECORD_STEP, self.language)
        if not self.said:  # the coordinator always announces an analysis; should it not, the text stands alone
            msg = cl.Message(content=f"**{name}**\n\n{text}", author=DESK,
                             metadata=label_metadata(DESK, language=self.language, tag=self.tag))
            await msg.send()
            self.said.append(msg)
            return
        step = await fold_under(self.said[-1], name, text)
        self._ended(step.to_dict())  # a page opening the thread now gets it even if not yet stored

    def _ended(self, step: StepDict) -> None:
        now = time.monotonic()
        self.recent = {k: v for k, v in self.recent.items() if now - v[0] < RECENT_S}
        self.recent[step["id"]] = (now, step)

    def _stream(self, persona: str) -> Stream:
        """The persona's turn, opened (not yet shown) at its first event."""
        stream = self.streams.get(persona)
        if stream is None:
            # A debate turn's message names its round (chat/speakers.py: the page shows it).
            msg = cl.Message(content="", author=persona,
                             metadata=speaker_metadata(self.plan, self.started, persona, self.language, self.tag))
            stream = self.streams[persona] = Stream(msg)
            self.opened.append(persona)
        return stream

    async def _show(self, stream: Stream) -> None:
        """Put the message on the page (with the words it has), so tool steps and a note's
        acknowledgement have it to refer to."""
        if stream.shown:
            return
        words = stream.waiting()
        msg = stream.msg
        stream.page += words
        stream.shown = True
        # Sent once, as Message.send() does (stored, known to the chat's context), but marked as
        # streaming (the page shows it is being written), so its next words are tokens. Stored
        # empty: its words are stored when the turn ends, and a turn a crash cut off stays empty,
        # which a reopened thread shows as cut off (ChatRun.close_cut_off_turns).
        msg.created_at = msg.created_at or utc_now()
        msg.streaming = True
        msg.content = ""
        await msg._create()
        msg.content = words
        chat_context.add(msg)
        await cl.context.emitter.stream_start(msg.to_dict())
        if self.continued and (stop := self._stop_unplaced()) is not None:
            await stop.send(for_id=msg.id)
        if words:
            TRACE(msg, "token", stream.since)
        stream.since = 0.0

    async def stop_under(self, message_id: str) -> None:
        """The run's Stop, in the thread's language, under a message already in the thread (an edit's re-run: the
        edited turn), from the run's start."""
        self._stop_in_language()
        if (stop := self._stop_unplaced()) is not None:
            await stop.send(for_id=message_id)

    def _stop_unplaced(self) -> cl.Action | None:
        """The run's Stop while no message carries it. A run that continues from a checkpoint (`continued`: a
        resume) has no opening of the Desk to put it under: its first speaker's message carries it (Chainlit
        shows a message's buttons once it is written out; an edit's re-run puts it under the edited turn at
        once, `stop_under`). The page's Stop button presses it (public/desk.js)."""
        stop = self.stop_action
        return stop if stop is not None and not stop.forId else None

    async def _rewrite(self, stream: Stream) -> None:
        """The page's text of a streaming turn, replaced by its view (only the page's: the turn
        is stored when it ends)."""
        stream.page = stream.msg.content = stream.view()
        await cl.context.emitter.update_step(stream.msg.to_dict())
        TRACE(stream.msg, "token", stream.since)
        stream.since = 0.0

    async def _started(self, persona: str) -> None:
        if persona == DESK:
            return
        self.started.append(persona)
        if self.progress is None:
            self.progress = StageList(self.plan, self.language)
        await self.progress.started(persona)

    # -- pacing ------------------------------------------------------------

    async def _tick(self, finishing: str | None = None) -> None:
        """Send every message's waiting words (but those of a turn about to end: they go with
        its final text) and show the tool calls still running after TOOL_SHOW_S; the next
        words wait STREAM_GAP_S per message sent."""
        loop = asyncio.get_running_loop()
        sent = 0
        for persona, stream in self.streams.items():
            words = stream.waiting()
            if not words or persona == finishing:
                continue
            if not stream.shown:
                await self._show(stream)
            elif stream.rewritten():
                await self._rewrite(stream)
            else:
                await stream.msg.stream_token(words)
                stream.page += words
                TRACE(stream.msg, "token", stream.since)
                stream.since = 0.0
            sent += 1
        now = loop.time()
        for call in self.steps.values():
            if not call.shown and now >= call.due:
                if call.persona in self.streams:
                    await self._show(self.streams[call.persona])
                call.shown = True
                # Shown now, persisted once when it ends: a create and an update written as two
                # detached tasks can land in either order and leave the stored step empty.
                step = call.step
                await cl.context.emitter.send_step(step.to_dict() if check_add_step_in_cot(step) else stub_step(step))
        if sent:
            self.next_send = now + STREAM_GAP_S * sent
        if any(s.waiting() for s in self.streams.values()) or any(not c.shown for c in self.steps.values()):
            self._arm_timer()

    def _arm_timer(self) -> None:
        """What waits (words, a tool call to show) goes out when due, even if no event comes."""
        if self._timer is None or self._timer.done():
            self._timer = asyncio.create_task(self._tick_later())

    async def _tick_later(self) -> None:
        loop = asyncio.get_running_loop()
        due = [c.due for c in self.steps.values() if not c.shown]
        if any(s.waiting() for s in self.streams.values()):
            due.append(self.next_send)
        await asyncio.sleep(max(0.0, min(due, default=loop.time()) - loop.time()))
        async with self.lock:
            self._timer = None
            await self._tick()
            await self._mark_opened()  # a turn whose first words this showed has started, as after an event

    # -- endings -----------------------------------------------------------

    async def close_open(self, suffix: str = "") -> None:
        """Close whatever is still streaming (a stop or a failure mid-turn)."""
        if self._timer is not None:
            self._timer.cancel()
        async with self.lock:
            await self._close_open(suffix)

    async def _close_open(self, suffix: str) -> None:
        await self._tick()
        for call in self.steps.values():
            call.step.output = call.step.output or "(stopped)"
            call.step.end = utc_now()
            await call.step.send()
        self.steps.clear()
        for stream in self.streams.values():
            msg = stream.msg
            if not stream.shown and not suffix:
                continue
            if suffix:
                msg.content = (msg.content + suffix) if msg.content else suffix.strip()
            await (msg.update() if stream.shown else msg.send())
        self.streams.clear()

    async def finish(self, status: str, failed: bool = False) -> None:
        if self.progress:
            await self.progress.close(status, failed=failed)
        if self.stop_action:
            await self.stop_action.remove()
