"""Polling for something a background task will do."""
from __future__ import annotations

import asyncio
from collections.abc import Callable


async def wait_until(predicate: Callable[[], object], timeout: float = 20.0, what: str = "condition") -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if predicate():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"timed out waiting for {what}")
