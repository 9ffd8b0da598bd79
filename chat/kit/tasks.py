"""Work on a thread in a task of its own: the desk's own run (chat/runs.py), a backtest, a comparison.

Never inside a socket handler (Chainlit answers the button or message when the handler returns): the task gets a
context of its own whose emitter is every page of the thread (chat/pages.py), so a reload, a second tab or a
connection that came back gets the rest too. `ThreadTask` is the task's life: started, stopped (Stop or /stop), a
page joining it, and its end, one of four: done, stopped, run elsewhere (another process holds the thread's lease),
failed; then its closing up, and what follows it, if anything. A feature writes `run` and what each ending says;
`ThreadTasks` keeps one task per thread for it.
"""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any, Generic, Literal, TypeVar, cast

import chainlit as cl
from chainlit.context import ChainlitContext, context_var, local_steps
from chainlit.emitter import BaseChainlitEmitter
from chainlit.logger import logger
from chainlit.step import StepDict

from graph import LeaseHeld

from ..background import after_shown, cancel
from ..pages import Pages

# A page that opens the thread mid-task joins it at the latest this long after asking.
ATTACH_LATEST_S = 10.0

Outcome = Literal["done", "stopped", "elsewhere", "failed"]


async def quietly(aw: Awaitable[Any]) -> None:
    """Showing an ending must not raise another (a page gone, the history unreachable)."""
    with contextlib.suppress(Exception):
        await aw


class ThreadTask:
    """One piece of work for a thread. Subclasses write `run`, and may say more at `stopped`, `elsewhere` and
    `failed`, close up at `closed` and go on at `ended`; `stop_action`, once set, is taken off the pages when the
    task ends. A task that streams turns says what a joining page must be shown (`in_progress`, `held`, `catch_up`).
    """

    kind = "task"  # the asyncio task's name: "<kind>-<thread id>"
    # A failure is unexpected: logged with its traceback (the page gets a sentence). Off for the desk's run, whose
    # failures are the models' and the vendors', expected and worded for the page (chat/runs.py).
    log_failures = True

    def __init__(self, tasks: ThreadTasks[Any], thread_id: str, language: str) -> None:
        self.tasks, self.thread_id, self.language = tasks, thread_id, language
        self.task: asyncio.Task[None] | None = None
        self.pages: Pages | None = None
        self.stop_action: cl.Action | None = None

    @property
    def active(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def joinable(self) -> bool:
        """Whether a page can join it now: it runs and streams to its pages."""
        return self.active and self.pages is not None

    def launch(self) -> asyncio.Task[None]:
        """Run it in a task of its own (`ThreadTasks.begin` registers it first)."""
        self.task = asyncio.create_task(self._main(), name=f"{self.kind}-{self.thread_id}")
        return self.task

    async def stop(self, timeout: float = 15.0) -> bool:
        """Cancel it (its ending is `stopped`); False when it was not running."""
        return await cancel(self.task, timeout)

    # -- what a feature writes ------------------------------------------------------------------------------

    async def run(self) -> None:
        raise NotImplementedError

    async def stopped(self) -> None:
        """Stop was pressed (the task is cancelled): close what is open and say so."""

    async def elsewhere(self) -> None:
        """Another process runs the thread."""

    async def failed(self, exc: Exception) -> None:
        """It failed: say so in a sentence (never a traceback)."""

    async def closed(self, outcome: Outcome) -> bool:
        """Its ending is said: close up what is left. True when something follows it (`ended` says or starts it):
        it stays the thread's task meanwhile (ThreadTasks), so no page starts another; else it is forgotten now."""
        return False

    async def ended(self, outcome: Outcome) -> None:
        """After closing up (unless it was stopped again meanwhile): what follows, when `closed` said something
        does; a task that goes on `launch`es again, one that does not `forget`s itself (ThreadTasks)."""

    # -- what a joining page is shown (a task that streams turns writes these) --------------------------------

    def in_progress(self) -> list[StepDict]:
        """What a page opening the thread now must be shown beyond its stored history: the open turns with their
        words so far."""
        return []

    def held(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """Held while a page's view of the task is put together: nothing of it is sent meanwhile."""
        return contextlib.nullcontext()

    async def catch_up(self, emitter: BaseChainlitEmitter, messages: bool = True) -> None:
        """Bring one page up to date: the open turns (`messages`; a page just shown the stored thread with them
        put in needs none), and what Chainlit does not store, Stop."""
        if self.stop_action is not None and self.stop_action.forId and self.active:
            await emitter.emit("action", self.stop_action.to_dict())

    async def on_new_socket(self, emitter: BaseChainlitEmitter) -> None:
        """A page whose connection dropped and came back (the same page, a new socket) missed what was sent
        meanwhile: a task that can tell it again does so here."""

    # -- pages joining -------------------------------------------------------------------------------------

    async def join(self, steps: list[Any]) -> None:
        """A page opened the thread while the task runs (a reload, a second tab): call in on_chat_resume with the
        thread's stored steps, which Chainlit sends the page next.

        The open turns (stored empty or with their first words) are put in those steps with their words so far,
        and from then on everything the task sends is kept for the page; once Chainlit has sent it the steps, what
        was kept follows, then the rest of its catching up (the stage list, Stop), and it is one of the pages."""
        pages, emitter, session = self.pages, cl.context.emitter, cl.context.session
        if not self.joinable or pages is None or isinstance(emitter, Pages):
            return
        async with self.held():  # nothing is sent while the page's view is put together
            now = {str(step["id"]): step for step in self.in_progress()}
            for i, step in enumerate(steps):
                if step.get("id") in now:
                    steps[i] = {**step, **now.pop(step["id"])}
            steps.extend(now.values())
            pages.expect(session, emitter)
        after_shown(emitter, lambda: self._attach(emitter))
        # Should Chainlit not send the thread (on_chat_resume failed after this), attach anyway.
        asyncio.get_running_loop().call_later(ATTACH_LATEST_S, lambda: asyncio.ensure_future(self._attach(emitter)))

    async def join_page(self) -> None:
        """A page of the thread that was open before the task began (a second tab) speaks while it goes on: the
        page is brought up to date and gets the rest, with Stop."""
        pages, emitter, session = self.pages, cl.context.emitter, cl.context.session
        # A page is its session: Chainlit makes a new emitter for each event a page sends.
        if not self.joinable or pages is None or isinstance(emitter, Pages) \
                or any(s.id == session.id for s, _ in pages.pages):
            return
        async with self.held():  # nothing is sent while the page is brought up to date
            pages.expect(session, emitter)
            await self.catch_up(emitter)
            await pages.attach(emitter)

    async def _attach(self, emitter: BaseChainlitEmitter) -> None:
        if self.pages is None or id(emitter) not in self.pages.expecting:
            return
        await self.pages.attach(emitter)
        await self.catch_up(emitter, messages=False)

    # -- the life ------------------------------------------------------------------------------------------------

    def _own_context(self) -> None:
        local_steps.set(None)  # or the messages would nest under the step of the button or message that started it
        emitter = cl.context.emitter
        # A task launched again from its own task (the desk's run for the notes left over) keeps its pages.
        if isinstance(emitter, Pages):
            self.pages = pages = emitter
        else:
            self.pages = pages = Pages(cl.context.session, emitter, on_new_socket=self.on_new_socket)
        own = ChainlitContext(pages.session, cast(BaseChainlitEmitter, pages))
        pages.context = own
        context_var.set(own)

    async def _main(self) -> None:
        self._own_context()
        outcome: Outcome = "done"
        try:
            await self.run()
        except asyncio.CancelledError:
            outcome = "stopped"
            await quietly(self.stopped())
        except LeaseHeld:
            outcome = "elsewhere"
            await quietly(self.elsewhere())
        except Exception as exc:  # the user gets a sentence, never a traceback
            outcome = "failed"
            if self.log_failures:
                logger.exception("%s on thread %s failed", self.kind, self.thread_id)
            await quietly(self.failed(exc))
        finally:
            if self.stop_action is not None:
                await quietly(self.stop_action.remove())
            if not await self.closed(outcome):
                self.tasks.forget(self)
        await self.ended(outcome)


T = TypeVar("T", bound=ThreadTask)


class ThreadTasks(Generic[T]):
    """Tasks in flight, one per thread (the thread that started it)."""

    def __init__(self) -> None:
        self.running: dict[str, T] = {}

    def begin(self, task: T) -> T:
        self.running[task.thread_id] = task
        task.launch()
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

    async def reattach(self, thread_id: str, steps: list[Any]) -> T | None:
        """A page opened the thread (call in on_chat_resume with the stored steps Chainlit sends it next): it joins
        the thread's task, if one runs (`ThreadTask.join`). The task, if one runs."""
        task = self.active(thread_id)
        if task is not None:
            await task.join(steps)
        return task

    async def close(self) -> None:
        for task in list(self.running.values()):
            await task.stop()
