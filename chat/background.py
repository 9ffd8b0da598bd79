"""What a run in a task of its own needs from the chat, the same for a desk run (runs.py), a backtest
(backtests.py) and a comparison (compare.py), all of them the kit's ThreadTask (kit/tasks.py): stopping it,
and joining a page to it once the page has been shown the stored thread."""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from chainlit.emitter import BaseChainlitEmitter


async def cancel(task: asyncio.Task[Any] | None, timeout: float) -> bool:
    """Cancel the task and give it `timeout` to end (its finally blocks store what it had); False when
    nothing was running."""
    if task is None or task.done():
        return False
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError, Exception):
        await asyncio.wait_for(asyncio.shield(task), timeout)
    return True


def after_shown(emitter: BaseChainlitEmitter, then: Callable[[], Awaitable[None]]) -> None:
    """Run `then` once Chainlit has sent this page the stored thread (whatever is sent before that, the page's
    resume wipes), even if sending it failed."""
    shown = emitter.resume_thread

    async def shown_then(thread: Any) -> None:
        try:
            await shown(thread)
        finally:
            await then()

    emitter.resume_thread = shown_then  # type: ignore[method-assign,assignment]
