"""One chat's runs: the detached graph task, its inbox, interjections and stop.

Chainlit disables the composer while `on_message` runs, so `on_message` only starts a run as
a background task and returns. While the task runs, new messages are interjections: they go
to the chat's inbox (the graph reads it through its runtime context) and are acknowledged at
once. Stop cancels the task; the checkpoint keeps everything up to the last finished node.
"""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

import chainlit as cl
from chainlit.context import local_steps
from langchain_core.messages import HumanMessage

from graph.data import make_vendor
from graph.data.vendor import Vendor
from graph.errors import explain
from graph.inbox import Inbox, Note
from graph.models.registry import ModelRegistry
from graph.personas import ANALYST_KINDS, DESK
from graph.plan import RunPlan
from graph.record import report_markdown
from graph.runtime import DeskRuntime
from graph.settings import Settings

from .card import card_markdown, price_chart
from .render import Renderer

STOP_ACTION = "stop_run"


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
        self.chats: dict[str, ChatRun] = {}

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
        """The chat for a thread: the one in flight, or a fresh one whose inbox continues the thread's."""
        if (chat := self.chats.get(thread_id)) is not None:
            return chat
        seen = (await self.state(thread_id)).get("inbox_seen") or 0
        return ChatRun(self, thread_id, Inbox(next_seq=seen + 1))


@dataclass(frozen=True)
class NextAnalysis:
    """What the settings panel asks of the next analysis: its plan and, live, the model names."""
    plan: RunPlan = field(default_factory=RunPlan)
    models: tuple[str, str] | None = None   # (quick, deep)


def next_analysis(values: dict[str, Any] | None, settings: Settings) -> NextAnalysis:
    """The chat settings panel (switches, sliders, model names) as the next analysis' shape."""
    values = values or {}
    models = None
    if settings.live:  # model names are a live-mode setting; the demo has one model
        models = ((values.get("quick_model") or settings.quick_model).strip(),
                  (values.get("deep_model") or settings.deep_model).strip())
    plan = RunPlan.of(settings,
                      analysts=[k for k in ANALYST_KINDS if values.get(f"analyst_{k}", k in settings.analysts)],
                      debate_rounds=int(values.get("debate_rounds") or 0) or None,
                      risk_rounds=int(values.get("risk_rounds") or 0) or None)
    return NextAnalysis(plan, models)


class ChatRun:
    """One chat: at most one run at a time, an inbox for what the user says meanwhile."""

    def __init__(self, service: DeskService, thread_id: str, inbox: Inbox):
        self.service = service
        self.thread_id = thread_id
        self.inbox = inbox
        self.task: asyncio.Task | None = None
        self.renderer: Renderer | None = None
        self.acks: dict[int, tuple[cl.Message, list[str]]] = {}

    @property
    def active(self) -> bool:
        return self.task is not None and not self.task.done()

    # -- starting ----------------------------------------------------------

    def start(self, text: str, nxt: NextAnalysis | None = None) -> asyncio.Task[None]:
        assert not self.active, "one run at a time"
        self.service.chats[self.thread_id] = self
        self.task = asyncio.create_task(self._run(text, nxt or NextAnalysis()), name=f"desk-run-{self.thread_id}")
        return self.task

    async def _run(self, text: str, nxt: NextAnalysis) -> None:
        # The task inherits on_message's step stack; without a reset every persona message
        # would nest under that finished "on_message" run step.
        local_steps.set(None)
        stop = cl.Action(name=STOP_ACTION, payload={"thread_id": self.thread_id}, label="Stop",
                         icon="square", tooltip="Stop the desk (or type /stop)")
        renderer = self.renderer = Renderer(nxt.plan, stop_action=stop, on_pickup=self._picked_up)
        outcome = "done"
        try:
            desk = await self.service.runtime()
            graph_input = {"messages": [HumanMessage(text)], **nxt.plan.state_fields()}
            quick, deep = nxt.models or (None, None)
            context = desk.context(inbox=self.inbox, quick_model=quick, deep_model=deep)
            async for ev in desk.events(graph_input, self.thread_id, context):
                await renderer.handle(ev)
            await renderer.close_open()
            if renderer.decided:
                await self._show_decision()
            await renderer.finish("Decision ready" if renderer.decided else "Done")
        except asyncio.CancelledError:
            outcome = "stopped"
            await self._quietly(renderer.close_open(" — *stopped*"))
            await self._quietly(renderer.finish("Stopped", failed=True))
            await self._quietly(cl.Message(
                content="Stopped. Everything up to the last finished turn is kept; ask a follow-up, "
                        "or send a new request.", author=DESK).send())
        except Exception as exc:  # the user gets a sentence, never a traceback
            outcome = "failed"
            await self._quietly(renderer.close_open(" — *interrupted*"))
            await self._quietly(renderer.finish("Failed", failed=True))
            await self._quietly(cl.Message(content=f"⚠️ {explain(exc)}", author=DESK).send())
        finally:
            self.renderer = None
            leftover = await self._leftover()
            if self.service.chats.get(self.thread_id) is self and not leftover:
                self.service.chats.pop(self.thread_id, None)
        if leftover and outcome == "done":
            # Interjections nobody could answer (they came as the run ended): answer them now.
            self.task = asyncio.create_task(self._run("\n".join(n.text for n in leftover), nxt))
        elif leftover:
            await self._quietly(cl.Message(
                content="Not answered before the run ended: " + "; ".join(f"“{n.text}”" for n in leftover)
                        + ". Send it again if it still matters.", author=DESK).send())
            self.service.chats.pop(self.thread_id, None)

    async def _leftover(self) -> list[Note]:
        """Notes no speaker read; taken out of the inbox so a later run does not read them twice."""
        try:
            seen = (await self.service.state(self.thread_id)).get("inbox_seen") or 0
        except Exception:
            seen = 0
        leftover = self.inbox.since(seen)
        self.inbox.notes = [n for n in self.inbox.notes if n.seq <= seen]
        return leftover

    @staticmethod
    async def _quietly(aw: Awaitable[Any]) -> None:
        with contextlib.suppress(Exception):  # showing an error must not raise another
            await aw

    async def _show_decision(self) -> None:
        state = await self.service.state(self.thread_id)
        decision = state.get("final_decision")
        if decision is None:
            return
        label = self.service.vendor.label
        elements: list[cl.Element] = []
        note = ""
        try:
            svg = await price_chart(self.service.vendor, decision, state.get("chart_window_days") or 90)
            elements.append(cl.Image(name=f"{decision.ticker}-{decision.trade_date}-chart.svg",
                                     content=svg.encode(), mime="image/svg+xml", display="inline", size="large"))
        except Exception as exc:
            note = f"\n\n_No chart: {explain(exc)}_"
        report = report_markdown(state, label)
        elements.append(cl.File(name=f"{decision.ticker}-{decision.trade_date}-desk-report.md",
                                content=report.encode(), mime="text/markdown", display="inline"))
        await cl.Message(content=card_markdown(decision, label) + note, author=DESK, elements=elements).send()

    # -- while running -----------------------------------------------------

    async def interject(self, text: str) -> cl.Message:
        """Post to the inbox and acknowledge at once, naming who will answer."""
        note = self.inbox.post(text)
        nxt = self.renderer.next_speaker() if self.renderer else None
        if nxt:
            body = f"Noted — the **{nxt}** will answer this next."
        else:
            body = "Noted — the desk will take this up as soon as the current step finishes."
        msg = cl.Message(content=f"{body}\n\n> {text}", author=DESK)
        self.acks[note.seq] = (msg, [])
        await msg.send()
        return msg

    async def _picked_up(self, seq: int, persona: str) -> None:
        if seq not in self.acks:
            return
        msg, who = self.acks[seq]
        if persona in who:
            return
        who.append(persona)
        first = msg.content.split("\n\n", 1)
        quote = first[1] if len(first) > 1 else ""
        msg.content = f"Noted — picked up by the **{', '.join(who)}**.\n\n{quote}".rstrip()
        await msg.update()

    async def stop(self, timeout: float = 10.0) -> bool:
        """Cancel the run; returns False when nothing was running."""
        task = self.task
        if task is None or task.done():
            return False
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError, Exception):
            await asyncio.wait_for(asyncio.shield(task), timeout)
        return True
