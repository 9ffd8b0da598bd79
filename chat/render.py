"""The graph's events as Chainlit UI: one message per persona turn, tool steps, progress.

Parallel analysts stream into their own messages at the same time; every later speaker opens
its message when its first token (or tool call) arrives and closes it when its node is done.
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import chainlit as cl
from chainlit.step import check_add_step_in_cot, stub_step
from chainlit.utils import utc_now

from graph.events import Event, NodeDone, NotePickedUp, Said, Token, ToolFinished, ToolStarted
from graph.personas import ANALYST_PERSONAS, DESK, RISK_JUDGE
from graph.plan import RISK_JUDGE_NODE, RunPlan

TOOL_OUTPUT_CHARS = 400


class Progress:
    """A TaskList of the stages: ready → running → done (or failed when stopped)."""

    def __init__(self, plan: RunPlan):
        self.stages = plan.stages()
        self.tasks = [cl.Task(title=stage.title) for stage in self.stages]
        self.tasklist = cl.TaskList(tasks=self.tasks, status="Deliberating…")
        self.sent = False
        self._dirty = False
        self._worker: asyncio.Task | None = None

    def _index(self, persona: str) -> int | None:
        return next((i for i, stage in enumerate(self.stages) if persona in stage.personas), None)

    async def started(self, persona: str) -> None:
        i = self._index(persona)
        if i is None:
            return
        changed = self.tasks[i].status != cl.TaskStatus.RUNNING
        self.tasks[i].status = cl.TaskStatus.RUNNING
        if persona not in ANALYST_PERSONAS:  # sequential stages: everything before is finished
            for task in self.tasks[:i]:
                changed |= task.status != cl.TaskStatus.DONE
                task.status = cl.TaskStatus.DONE
        if changed or not self.sent:
            await self._send()

    async def finished(self, persona: str) -> None:
        i = self._index(persona)
        if i is not None and (persona in ANALYST_PERSONAS or persona == RISK_JUDGE):
            self.tasks[i].status = cl.TaskStatus.DONE
            await self._send()

    async def close(self, status: str, failed: bool = False) -> None:
        for task in self.tasks:
            if failed and task.status == cl.TaskStatus.RUNNING:
                task.status = cl.TaskStatus.FAILED
            elif not failed:
                task.status = cl.TaskStatus.DONE
        self.tasklist.status = status
        await self._send()
        await self.drained()

    async def _send(self) -> None:
        """Redraw in the background, coalescing: Chainlit writes the list to a file on every send
        (~40 ms here), which must not hold up the speakers' tokens."""
        self.sent = True
        self._dirty = True
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._redraw())

    async def _redraw(self) -> None:
        while self._dirty:
            self._dirty = False
            await self.tasklist.send()

    async def drained(self) -> None:
        if self._worker is not None:
            await self._worker


FLUSH_S = 0.03  # streamed words are sent in batches at most this far apart


class Renderer:
    """Consumes desk events for one run and keeps what the chat needs to know about it."""

    def __init__(self, plan: RunPlan, *, stop_action: cl.Action | None = None,
                 on_pickup: Callable[[int, str], Awaitable[None]] | None = None):
        self.plan = plan
        self.open: dict[str, cl.Message] = {}        # persona -> its message for the current turn
        self.steps: dict[str, cl.Step] = {}          # tool call id -> step
        self.paragraph: set[str] = set()             # personas whose next token starts a paragraph
        self.progress: Progress | None = None
        self.stop_action = stop_action
        self.on_pickup = on_pickup                   # async (seq, persona) when a speaker takes a note
        self.started: list[str] = []                 # personas whose turns have started, in plan order
        self.decided = False                         # the Risk Judge finished: a new decision exists
        self.said: list[cl.Message] = []
        self.opened: list[str] = []                  # personas whose turn just opened, for the stage list
        self.pending: dict[str, list[str]] = {}      # persona -> words not yet sent
        self.flushed_at: dict[str, float] = {}       # persona -> loop time of its last send

    def next_speaker(self) -> str | None:
        """The speaker that will read a note posted now, from the run plan."""
        slot = self.plan.next_reader(self.started)
        return slot.persona if slot else None

    # -- events ------------------------------------------------------------

    async def handle(self, ev: Event) -> None:
        if isinstance(ev, Token):
            msg = await self._message(ev.persona)
            text = ev.text
            waiting = self.pending.setdefault(ev.persona, [])
            if ev.persona in self.paragraph:
                self.paragraph.discard(ev.persona)
                shown = msg.content + "".join(waiting)
                if shown and not shown.endswith("\n"):
                    text = "\n\n" + text.lstrip()
            waiting.append(text)
            # Words go out at most every FLUSH_S per message (the first at once): one socket
            # message per word was the chat server's largest cost with many chats at once.
            now = asyncio.get_running_loop().time()
            if now - self.flushed_at.get(ev.persona, -1.0) >= FLUSH_S:
                await self._flush(ev.persona, now)
        else:
            await self._flush_all()
            if isinstance(ev, NodeDone):
                await self._node_done(ev)
            else:
                await self._node_event(ev)
        # The stage list is redrawn after the event itself, so a speaker's first word reaches
        # the user before the progress update (it was the larger part of the first-token time).
        while self.opened:
            await self._started(self.opened.pop(0))

    async def _node_event(self, ev: Said | ToolStarted | ToolFinished | NotePickedUp) -> None:
        if isinstance(ev, Said):
            msg = cl.Message(content=ev.text, author=ev.persona or DESK,
                             actions=[self.stop_action] if self.stop_action else [])
            await msg.send()
            self.said.append(msg)
        elif isinstance(ev, ToolStarted):
            parent = await self._message(ev.persona)
            step = cl.Step(name=ev.tool, type="tool", parent_id=parent.id, show_input="json")
            step.input = ev.args
            step.start = utc_now()
            self.steps[ev.call_id] = step
            self.paragraph.add(ev.persona)
            # Shown now, persisted once when it ends: a create and an update written as two
            # detached tasks can land in either order and leave the stored step empty.
            await cl.context.emitter.send_step(step.to_dict() if check_add_step_in_cot(step) else stub_step(step))
        elif isinstance(ev, ToolFinished):
            finished = self.steps.pop(ev.call_id, None)
            if finished is None:
                return
            result = ev.result
            finished.output = result if len(result) <= TOOL_OUTPUT_CHARS else result[:TOOL_OUTPUT_CHARS] + " …"
            finished.is_error = ev.failed
            finished.end = utc_now()
            await finished.send()
        else:
            await self._message(ev.persona)
            if self.on_pickup:
                await self.on_pickup(ev.seq, ev.persona)

    async def _node_done(self, ev: NodeDone) -> None:
        last = ev.spoken
        if last is None or ev.node == "coordinator":  # the coordinator already spoke through Said
            return
        persona = str(last.name)
        text = last.content if isinstance(last.content, str) else str(last.content)
        msg = self.open.pop(persona, None)
        if msg is None:  # a speaker that streamed nothing (a non-streaming model): show its turn whole
            msg = cl.Message(content=text, author=persona)
            await msg.send()
        else:
            if text.strip() and text.strip() not in msg.content:
                msg.content = text
            await msg.update()
        if self.progress:
            await self.progress.finished(persona)
        if ev.node == RISK_JUDGE_NODE:
            self.decided = True

    async def _message(self, persona: str) -> cl.Message:
        msg = self.open.get(persona)
        if msg is not None:
            return msg
        msg = cl.Message(content="", author=persona)
        self.open[persona] = msg
        await msg.send()  # sent empty first, so tool steps have a parent to nest under
        self.opened.append(persona)
        return msg

    async def _started(self, persona: str) -> None:
        if persona == DESK:
            return
        self.started.append(persona)
        if self.progress is None:
            self.progress = Progress(self.plan)
        await self.progress.started(persona)
    # -- endings -----------------------------------------------------------

    async def _flush(self, persona: str, now: float | None = None) -> None:
        words = self.pending.pop(persona, None)
        msg = self.open.get(persona)
        if words and msg is not None:
            await msg.stream_token("".join(words))
        self.flushed_at[persona] = now if now is not None else asyncio.get_running_loop().time()

    async def _flush_all(self) -> None:
        for persona in [p for p, words in self.pending.items() if words]:
            await self._flush(persona)

    async def close_open(self, suffix: str = "") -> None:
        """Close whatever is still streaming (a stop or a failure mid-turn)."""
        await self._flush_all()
        for step in self.steps.values():
            step.output = step.output or "(stopped)"
            step.end = utc_now()
            await step.send()
        self.steps.clear()
        for msg in self.open.values():
            if suffix:
                msg.content = (msg.content + suffix) if msg.content else suffix.strip()
            await msg.update()
        self.open.clear()

    async def finish(self, status: str, failed: bool = False) -> None:
        if self.progress:
            await self.progress.close(status, failed=failed)
        if self.stop_action:
            await self.stop_action.remove()
