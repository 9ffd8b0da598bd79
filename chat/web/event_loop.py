"""The server's asyncio back on its C tasks and futures.

`chainlit run` calls `nest_asyncio.apply()` before it loads the app (chainlit/cli/__init__.py), so that
a session's config can run the app's `set_chat_profiles` with `run_until_complete` inside the running
loop. To make the loop reentrant, nest_asyncio swaps asyncio's C `Task` and `Future` for the
pure-Python ones of the standard library, and every step of every task (each streamed word passes
several) then runs in Python: a few per cent of the server's CPU. The desk sets no chat profiles and
nothing of it runs a loop inside the loop, so the C classes are put back before the loop starts. The
loop's reentrant methods stay: with C tasks a nested `run_until_complete` fails loudly ("Cannot enter
into task … while another task … is being executed") instead of running.
"""
from __future__ import annotations

import asyncio
import asyncio.futures
import asyncio.tasks

try:
    import _asyncio
except ImportError:  # an interpreter without the C accelerator: nothing to put back
    _asyncio = None  # type: ignore[assignment]


def native_tasks() -> bool:
    """Put asyncio's C Task and Future back where nest_asyncio left the Python ones; True if it did."""
    if _asyncio is None or asyncio.Task is _asyncio.Task:
        return False
    asyncio.Task = asyncio.tasks.Task = asyncio.tasks._CTask = _asyncio.Task  # type: ignore[misc,attr-defined]
    asyncio.Future = asyncio.futures.Future = asyncio.futures._CFuture = _asyncio.Future  # type: ignore[misc,attr-defined]
    return True
