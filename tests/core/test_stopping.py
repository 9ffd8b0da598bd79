"""SIGTERM stops a headless run as Ctrl-C does (graph/core/stopping.py): the main task cancelled, so its `finally`
blocks run (a lease released, a store closed), then Terminated, which the CLIs answer as a stop with exit 143."""
from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import pytest

from graph.core import stopping

pytestmark = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                reason="signal handlers are the main thread's")


def test_sigterm_cancels_the_run_its_cleanup_runs_and_it_ends_as_a_stop() -> None:
    cleaned: list[str] = []
    before = signal.getsignal(signal.SIGTERM)

    async def run() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.Event().wait()
        finally:
            cleaned.append("lease released")

    with pytest.raises(stopping.Terminated) as stopped:
        stopping.run(run())
    assert cleaned == ["lease released"]
    assert isinstance(stopped.value, KeyboardInterrupt) and stopping.exit_code(stopped.value) == 143
    assert stopping.exit_code(KeyboardInterrupt()) == 130
    assert signal.getsignal(signal.SIGTERM) == before  # handed back: a later SIGTERM is the process's again


def test_a_run_that_ends_gives_its_value_and_leaves_sigterm_as_it_was() -> None:
    before = signal.getsignal(signal.SIGTERM)

    async def answer() -> int:
        return 42

    assert stopping.run(answer()) == 42
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_second_sigterm_ends_a_run_the_first_could_not_reach() -> None:
    """A prompt waiting for a person blocks the loop, so the cancel of the first SIGTERM waits; the second ends it."""
    async def prompt() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)  # as input() blocks: the loop gets no turn

    with pytest.raises(stopping.Terminated):
        stopping.run(prompt())
