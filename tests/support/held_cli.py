"""The headless CLI with one persona's turn held half-way, for a test that kills the process while
that persona speaks (tests/cli/test_cli.py):

    python -m tests.support.held_cli PERSONA[#N] FD ARGS...   # as `python -m graph ARGS...`

PERSONA's first streamed word goes out as usual (the CLI prints the persona's header), then its
model call waits for ever (asynchronously: the rest of the process goes on, the checkpoint of the
step before included). So the run can neither finish that turn nor go past it, however late a
loaded machine lets the test send its kill. Once the word is out, "held" is written to the file
descriptor FD (a pipe the test reads). Run with the repository on PYTHONPATH.

With `#N` only PERSONA's Nth call in the process is held (a backtest's second day, a comparison's second desk):
the calls before it, and every call of the runs not held, go on as usual.
"""
from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

from langchain_core.outputs import ChatGenerationChunk

from graph.cli import main
from graph.models import policy


def hold(persona: str, fd: int) -> None:
    """Every policy model (the demo's) holds `persona`'s call after its first word ("Trader#2": its second
    call only)."""
    stream = policy.PolicyChatModel._astream
    persona, _, nth = persona.partition("#")
    calls = 0

    async def held(self: policy.PolicyChatModel, messages: Any, stop: Any = None, run_manager: Any = None,
                   **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        nonlocal calls
        speaking = policy._persona(run_manager, messages) == persona
        if speaking and nth:
            calls += 1
            speaking = calls == int(nth)
        async for chunk in stream(self, messages, stop, run_manager, **kwargs):
            yield chunk
            if speaking and chunk.message.content:
                os.write(fd, b"held\n")
                await asyncio.Event().wait()  # until the process is killed

    policy.PolicyChatModel._astream = held  # type: ignore[method-assign]


if __name__ == "__main__":
    hold(sys.argv[1], int(sys.argv[2]))
    sys.exit(main(sys.argv[3:]))
