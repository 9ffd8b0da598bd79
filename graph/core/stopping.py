"""A headless process asked to stop (SIGTERM: a service manager, `docker stop`, a deploy, `kill`) stops as Ctrl-C
stops it, not dead on the spot.

Python's default for SIGTERM ends the process at once: no `finally`, no `async with` exit. A run's checkpoints are
safe either way (each step is written when it ends), but a killed process leaves its leases to be let go by the
next one, and a write under way (a backtest day's record, a notice) to be redone. `run` gives SIGTERM the way out
Ctrl-C has: the main task is cancelled, so every run stops at its last checkpoint and its leases are released, the
stores closed; then `Terminated` (a KeyboardInterrupt, so the CLIs' "stopped, resume with …" answers it) is raised.
A second SIGTERM raises it at once, wherever the process waits (a prompt blocks the loop the cancel needs).
SIGKILL cannot be caught: what it leaves is what a resume is built for (graph/backtest/runner.py, graph/compare/
runner.py, graph/watchlist/slots.py).
"""
from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

INTERRUPTED = 130  # the shell's code for a process stopped by Ctrl-C (128 + SIGINT)


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived and the run was stopped at its last checkpoint."""

    exit_code = 128 + signal.SIGTERM


def exit_code(stopped: KeyboardInterrupt) -> int:
    """The process's exit code after a stop: 143 for SIGTERM, 130 for Ctrl-C (as a shell reports them)."""
    return stopped.exit_code if isinstance(stopped, Terminated) else INTERRUPTED


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, SIGTERM stopping it as Ctrl-C does: `main` cancelled, then Terminated raised."""
    return asyncio.run(_stoppable(main))


async def _stoppable(main: Coroutine[Any, Any, T]) -> T:
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    terminated = False

    def stop(signum: int, frame: FrameType | None) -> None:
        # Python's own handler, as asyncio's for Ctrl-C: it runs in the main thread even while the loop is blocked
        # (a terminal prompt waiting for a person), where the cancel waits; a second SIGTERM then ends it there.
        nonlocal terminated
        if terminated:
            raise Terminated
        terminated = True
        if task is not None:
            loop.call_soon_threadsafe(task.cancel)

    try:
        before = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: signals are the main thread's
        return await main
    try:
        return await main
    except asyncio.CancelledError:
        if terminated:
            raise Terminated from None
        raise
    finally:
        signal.signal(signal.SIGTERM, before)
