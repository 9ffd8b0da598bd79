"""A feature's work on a thread, in a task of its own: a backtest, a comparison (the desk's own run is chat/runs.py).

Never inside a socket handler (Chainlit answers the button or message when the handler returns): the task gets a
context of its own whose emitter is every page of the thread (chat/pages.py), so a reload, a second tab or a
connection that came back gets the rest too. `ThreadTask` is the task's life: started, stopped (Stop or /stop), a
page joining it, and its end, one of four: done, stopped, run elsewhere (another process holds the thread's lease),
failed. A feature writes `run` and what each ending says; `ThreadTasks` keeps one task per thread for it.
"""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any, Generic, TypeVar, cast

import chainlit as cl
from chainlit.context import ChainlitContext, context_var, local_steps
from chainlit.emitter import BaseChainlitEmitter
from chainlit.logger import logger

from graph import LeaseHeld

from ..background import after_shown, cancel
from ..pages import Pages


async def quietly(aw: Awaitable[Any]) -> None:
    """Showing an ending must not raise another (a page gone, the history unreachable)."""
    with contextlib.suppress(Exception):
        await aw


class ThreadTask:
    """One feature's work for a thread. Subclasses write `run`, and may say more at `stopped`, `elsewhere` and
    `failed`; `stop_action`, once set, is taken off the pages when the task ends."""

    kind = "task"  # the asyncio task's name: "<kind>-<thread id>"

    def __init__(self, tasks: ThreadTasks[Any], thread_id: str, language: str) -> None:
        self.tasks, self.thread_id, self.language = tasks, thread_id, language
        self.task: asyncio.Task[None] | None = None
        self.pages: Pages | None = None
        self.stop_action: cl.Action | None = None

    @property
    def active(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self) -> None:
        self.task = asyncio.create_task(self._main(), name=f"{self.kind}-{self.thread_id}")

    async def stop(self, timeout: float = 15.0) -> bool:
        """Cancel it (its ending is `stopped`); False when it was not running."""
        return await cancel(self.task, timeout)

    async def attach(self, emitter: BaseChainlitEmitter) -> None:
        """A page that opened the thread joins: what the task sends from now on, and its Stop (Chainlit stores no
        actions)."""
        if self.pages is None:
            return
        await self.pages.attach(emitter)
        if self.stop_action is not None and self.stop_action.forId:
            await emitter.emit("action", self.stop_action.to_dict())

    # -- what a feature writes ------------------------------------------------------------------------------

    async def run(self) -> None:
        raise NotImplementedError

    async def stopped(self) -> None:
        """Stop was pressed (the task is cancelled): close what is open and say so."""

    async def elsewhere(self) -> None:
        """Another process runs the thread."""

    async def failed(self, exc: Exception) -> None:
        """It failed: say so in a sentence (never a traceback)."""

    # -- the life ------------------------------------------------------------------------------------------------

    def _own_context(self) -> None:
        local_steps.set(None)  # or the messages would nest under the step of the button that started it
        self.pages = pages = Pages(cl.context.session, cl.context.emitter)
        own = ChainlitContext(pages.session, cast(BaseChainlitEmitter, pages))
        pages.context = own
        context_var.set(own)

    async def _main(self) -> None:
        self._own_context()
        try:
            await self.run()
        except asyncio.CancelledError:
            await quietly(self.stopped())
        except LeaseHeld:
            await quietly(self.elsewhere())
        except Exception as exc:  # the user gets a sentence, never a traceback
            logger.exception("%s on thread %s failed", self.kind, self.thread_id)
            await quietly(self.failed(exc))
        finally:
            if self.stop_action is not None:
                await quietly(self.stop_action.remove())
            self.tasks.forget(self)


T = TypeVar("T", bound=ThreadTask)


class ThreadTasks(Generic[T]):
    """A feature's tasks in flight, one per thread (the thread that started it)."""

    def __init__(self) -> None:
        self.running: dict[str, T] = {}

    def begin(self, task: T) -> T:
        self.running[task.thread_id] = task
        task.start()
        return task

    def active(self, thread_id: str) -> T | None:
        task = self.running.get(thread_id)
        return task if task is not None and task.active else None

    def forget(self, task: ThreadTask) -> None:
        if self.running.get(task.thread_id) is task:
            self.running.pop(task.thread_id, None)

    async def stop(self, thread_id: str) -> bool:
        """Stop the thread's task; False when none runs."""
        task = self.running.get(thread_id)
        return task is not None and await task.stop()

    async def stop_pressed(self, action: cl.Action) -> None:
        """A Stop button: only the page's own thread's task."""
        thread_id = str((action.payload or {}).get("thread_id") or "")
        if thread_id == cl.context.session.thread_id:
            await self.stop(thread_id)

    def reattach(self, thread_id: str) -> T | None:
        """A page opened the thread while its task runs (a reload, a second tab): call in on_chat_resume. Once
        Chainlit has shown the page the stored thread, it gets what follows, and Stop. The task, if one runs."""
        task = self.active(thread_id)
        emitter, session = cl.context.emitter, cl.context.session
        if task is None or task.pages is None or isinstance(emitter, Pages):
            return None
        task.pages.expect(session, emitter)
        after_shown(emitter, lambda: task.attach(emitter))
        return task

    async def close(self) -> None:
        for task in list(self.running.values()):
            await task.stop()
