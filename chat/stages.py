"""The run's stage list (ready → running → done, or failed when the run stops), sent to the page
as a "desk_stages" socket event that public/desk.js draws beside the chat.

It was Chainlit's TaskList: every change had the server write the list to a file and the page
fetch it, re-render it through React with each title parsed as Markdown, and spin an animated
icon per running stage, ~0.3 s of the browser's CPU per analysis (benchmarks/browser.py). The
page now draws the event's data as plain elements. The list is not stored: a page that opens
the thread mid-run is sent it again (Renderer.catch_up), and a finished run's card says what was
decided.
"""
from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import chainlit as cl

from graph import ANALYST_PERSONAS, RISK_JUDGE, RunPlan

EVENT = "desk_stages"
READY, RUNNING, DONE, FAILED = "ready", "running", "done", "failed"
# Changes this close together go out as one event (the four analysts start within milliseconds).
GAP_S = 0.25


class StageList:
    def __init__(self, plan: RunPlan):
        self.stages = plan.stages()
        self.status = [READY] * len(self.stages)
        self.title = "Deliberating…"
        self.sent = False
        self._dirty = False
        self._worker: asyncio.Task | None = None

    def payload(self) -> dict[str, Any]:
        return {"title": self.title,
                "stages": [{"title": stage.title, "status": status}
                           for stage, status in zip(self.stages, self.status, strict=True)]}

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
