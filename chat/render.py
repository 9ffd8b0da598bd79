"""The graph's events as Chainlit UI: one message per persona turn, tool steps, progress.

Parallel analysts stream into their own messages at the same time; every later speaker opens
its message when its first token (or tool call) arrives and closes it when its node is done.
"""
from __future__ import annotations

import asyncio

from dataclasses import dataclass, field

import chainlit as cl
from chainlit.step import check_add_step_in_cot, stub_step
from chainlit.utils import utc_now

from graph.events import Custom, Event, NodeDone, Token
from graph.personas import ANALYST_BY_KIND, ANALYSTS, DEBATERS, DESK, INVESTMENT_SIDES, RESEARCH_MANAGER, \
    RISK_JUDGE, RISK_SIDES, TRADER

ANALYST_PERSONAS = {a.persona for a in ANALYSTS}
TOOL_OUTPUT_CHARS = 400


@dataclass
class Plan:
    """Who speaks, in which order, for the analysis this run may start."""
    analysts: list[str] = field(default_factory=lambda: [a.kind for a in ANALYSTS])
    debate_rounds: int = 1
    risk_rounds: int = 1
    parallel_analysts: bool = True
    models: tuple[str, str] | None = None   # live only: (quick, deep) model names

    @property
    def analyst_personas(self) -> list[str]:
        return [ANALYST_BY_KIND[k].persona for k in self.analysts if k in ANALYST_BY_KIND]

    @property
    def turns(self) -> list[str]:
        """The speakers after the analysts, one at a time."""
        investment = [DEBATERS[s].persona for s in INVESTMENT_SIDES] * self.debate_rounds
        risk = [DEBATERS[s].persona for s in RISK_SIDES] * self.risk_rounds
        return [*investment, RESEARCH_MANAGER, TRADER, *risk, RISK_JUDGE]

    def stages(self) -> list[tuple[str, set[str]]]:
        """Progress stages: a title and the personas that speak in it."""
        n, m = self.debate_rounds, self.risk_rounds
        return [
            *((p, {p}) for p in self.analyst_personas),
            (f"Bull ⇄ Bear debate ({n} round{'s' * (n > 1)})", {DEBATERS[s].persona for s in INVESTMENT_SIDES}),
            (RESEARCH_MANAGER, {RESEARCH_MANAGER}),
            (TRADER, {TRADER}),
            (f"Risk debate ({m} round{'s' * (m > 1)})", {DEBATERS[s].persona for s in RISK_SIDES}),
            (RISK_JUDGE, {RISK_JUDGE}),
        ]


class Progress:
    """A TaskList of the stages: ready → running → done (or failed when stopped)."""

    def __init__(self, plan: Plan):
        self.stages = plan.stages()
        self.tasks = [cl.Task(title=title) for title, _ in self.stages]
        self.tasklist = cl.TaskList(tasks=self.tasks, status="Deliberating…")
        self.sent = False
        self._dirty = False
        self._worker: asyncio.Task | None = None

    def _index(self, persona: str) -> int | None:
        return next((i for i, (_, who) in enumerate(self.stages) if persona in who), None)

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

    def __init__(self, plan: Plan, *, stop_action: cl.Action | None = None, on_pickup=None):
        self.plan = plan
        self.open: dict[str, cl.Message] = {}        # persona -> its message for the current turn
        self.steps: dict[str, cl.Step] = {}          # tool call id -> step
        self.paragraph: set[str] = set()             # personas whose next token starts a paragraph
        self.progress: Progress | None = None
        self.stop_action = stop_action
        self.on_pickup = on_pickup                   # async (seq, persona) when a speaker takes a note
        self.turns_started = 0                       # sequential speakers after the analysts
        self.analysts_started: list[str] = []
        self.decided = False                         # the Risk Judge finished: a new decision exists
        self.said: list[cl.Message] = []
        self.opened: list[str] = []
        self.pending: dict[str, list[str]] = {}      # persona -> words not yet sent
        self.flushed_at: dict[str, float] = {}       # persona -> loop time of its last send                  # personas whose turn just opened, for the stage list
        self.lookback_days = 90                      # the market analyst's price window, for the chart

    # -- who is next -------------------------------------------------------

    def next_speaker(self) -> str | None:
        """The speaker that will read a note posted now (speakers read notes when their turn starts)."""
        if not self.analysts_started and not self.turns_started:
            return None
        if not self.plan.parallel_analysts and not self.turns_started:
            waiting = [p for p in self.plan.analyst_personas if p not in self.analysts_started]
            if waiting:
                return waiting[0]
        turns = self.plan.turns
        return turns[self.turns_started] if self.turns_started < len(turns) else None

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
            if isinstance(ev, Custom):
                await self._custom(ev)
            elif isinstance(ev, NodeDone):
                await self._node_done(ev)
        # The stage list is redrawn after the event itself, so a speaker's first word reaches
        # the user before the progress update (it was the larger part of the first-token time).
        while self.opened:
            await self._started(self.opened.pop(0))

    async def _custom(self, ev: Custom) -> None:
        data = ev.data
        if ev.event == "say":
            msg = cl.Message(content=data.get("text", ""), author=ev.persona or DESK,
                             actions=[self.stop_action] if self.stop_action else [])
            await msg.send()
            self.said.append(msg)
        elif ev.event == "tool_start":
            parent = await self._message(ev.persona)
            if data.get("tool") == "get_price_history":
                self.lookback_days = int((data.get("args") or {}).get("lookback_days") or self.lookback_days)
            step = cl.Step(name=data.get("tool", "tool"), type="tool", parent_id=parent.id, show_input="json")
            step.input = data.get("args") or {}
            step.start = utc_now()
            self.steps[str(data.get("id"))] = step
            self.paragraph.add(ev.persona)
            # Shown now, persisted once when it ends: a create and an update written as two
            # detached tasks can land in either order and leave the stored step empty.
            await cl.context.emitter.send_step(step.to_dict() if check_add_step_in_cot(step) else stub_step(step))
        elif ev.event == "tool_end":
            step = self.steps.pop(str(data.get("id")), None)
            if step is None:
                return
            result = str(data.get("result", ""))
            step.output = result if len(result) <= TOOL_OUTPUT_CHARS else result[:TOOL_OUTPUT_CHARS] + " …"
            step.is_error = result.startswith("no data")
            step.end = utc_now()
            await step.send()
        elif ev.event == "intervention":
            await self._message(ev.persona)
            if self.on_pickup:
                await self.on_pickup(data.get("seq"), ev.persona)

    async def _node_done(self, ev: NodeDone) -> None:
        messages = ev.update.get("messages") or []
        last = messages[-1] if messages else None
        persona = getattr(last, "name", None)
        if not persona or ev.node == "coordinator":  # the coordinator already spoke through "say"
            return
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
        if ev.node == "risk_judge":
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
        if persona in ANALYST_PERSONAS:
            self.analysts_started.append(persona)
        else:
            self.turns_started += 1
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
