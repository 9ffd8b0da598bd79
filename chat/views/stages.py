"""The run's stage list (ready → running → done, or failed when the run stops), sent to the page
as a "desk_stages" socket event that public/desk.js draws beside the chat.

It was Chainlit's TaskList: every change had the server write the list to a file and the page
fetch it, re-render it through React with each title parsed as Markdown, and spin an animated
icon per running stage, ~0.3 s of the browser's CPU per analysis (benchmarks/browser.py). The
page now draws the event's data as plain elements. The list is not stored: a page that opens
the thread mid-run is sent it again (Renderer.catch_up), and a finished run's card says what was
decided. Its titles are in the thread's language (the plan's are English: graph/core/plan.py).
"""
from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import chainlit as cl

from graph import ANALYST_PERSONAS, RISK_JUDGE, RunPlan, persona_label, phrase

from ..languages import DEFAULT

EVENT = "desk_stages"
READY, RUNNING, DONE, FAILED = "ready", "running", "done", "failed"
# Changes this close together go out as one event (the four analysts start within milliseconds).
GAP_S = 0.25


def _rounds(language: str, n: int) -> str:
    return phrase(language, "chat.rounds_one" if n == 1 else "chat.rounds_many", n=n)


def stage_title(plan: RunPlan, title: str, language: str) -> str:
    """A stage's title in `language`: a debate's says its rounds, any other stage is a persona's."""
    if language == DEFAULT:
        return title
    for stage, key, rounds in ((plan.investment_stage, "chat.investment_stage", plan.debate_rounds),
                               (plan.risk_stage, "chat.risk_stage", plan.risk_rounds)):
        if title == stage:
            return phrase(language, key, rounds=_rounds(language, rounds))
    return persona_label(title, language)


class StageList:
    def __init__(self, plan: RunPlan, language: str = DEFAULT):
        self.stages = plan.stages()
        self.titles = [stage_title(plan, stage.title, language) for stage in self.stages]
        self.status = [READY] * len(self.stages)
        self.title = phrase(language, "chat.deliberating")
        self.name = phrase(language, "chat.stages")  # the list's header, in the thread's language
        self.sent = False
        self._dirty = False
        self._worker: asyncio.Task | None = None

    def payload(self) -> dict[str, Any]:
        return {"title": self.title, "name": self.name,
                "stages": [{"title": title, "status": status}
                           for title, status in zip(self.titles, self.status, strict=True)]}

    def _index(self, persona: str) -> int | None:
        return next((i for i, stage in enumerate(self.stages) if persona in stage.personas), None)

    async def started(self, persona: str) -> None:
        i = self._index(persona)
        if i is None:
            return
        changed = self.status[i] != RUNNING
        self.status[i] = RUNNING
        if persona not in ANALYST_PERSONAS:  # sequential stages: everything before is finished
            changed |= any(s != DONE for s in self.status[:i])
            self.status[:i] = [DONE] * i
        if changed or not self.sent:
            await self._send()

    async def finished(self, persona: str) -> None:
        i = self._index(persona)
        if i is not None and (persona in ANALYST_PERSONAS or persona == RISK_JUDGE):
            self.status[i] = DONE
            await self._send()

    async def close(self, title: str, failed: bool = False) -> None:
        if failed:
            self.status = [FAILED if s == RUNNING else s for s in self.status]
        else:
            self.status = [DONE] * len(self.status)
        self.title = title
        await self._send(now=True)
        await self.drained()

    async def resend(self) -> None:
        """Draw the list again (a page that reattached to the run has none)."""
        if self.sent:
            await self._send(now=True)

    async def _send(self, now: bool = False) -> None:
        """Send in the background, coalescing changes within GAP_S of a send, so a speaker's
        words never wait for the list."""
        self.sent = True
        self._dirty = True
        if now and self._worker is not None and not self._worker.done():
            self._worker.cancel()  # the pause before the next send: the last state goes now
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._dirty = True
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._sender(pause=not now))

    async def _sender(self, pause: bool) -> None:
        while self._dirty:
            self._dirty = False
            await cl.context.emitter.emit(EVENT, self.payload())
            if pause:
                await asyncio.sleep(GAP_S)

    async def drained(self) -> None:
        if self._worker is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
