"""What the chat server's event loop takes back from Chainlit before it starts: asyncio's C tasks and
futures, and the millisecond each Message and Step constructor slept.

`chainlit run` calls `nest_asyncio.apply()` before it loads the app (chainlit/cli/__init__.py), so that
a session's config can run the app's `set_chat_profiles` with `run_until_complete` inside the running
loop. To make the loop reentrant, nest_asyncio swaps asyncio's C `Task` and `Future` for the
pure-Python ones of the standard library, and every step of every task (each streamed word passes
several) then runs in Python: a few per cent of the server's CPU. The desk sets no chat profiles and
nothing of it runs a loop inside the loop, so the C classes are put back before the loop starts. The
loop's reentrant methods stay: with C tasks a nested `run_until_complete` fails loudly ("Cannot enter
into task … while another task … is being executed") instead of running.

Chainlit's `Message` and `Step` constructors call `time.sleep(0.001)` (message.py, step.py), so that two
steps made one after the other never share a creation time (it came from Literal AI's client, whose
times were in milliseconds). On the event loop that sleep stops every chat of the process: ~30 times
an analysis, 1–2 ms each under load. The chat's history orders a thread's steps by that time, written
to the microsecond; here the clock those two modules read is made strictly increasing instead, so the
order holds without the pause, on any platform's clock.
"""
from __future__ import annotations

import asyncio
import asyncio.futures
import asyncio.tasks
import importlib
import threading
import types
from datetime import datetime, timedelta

from graph import clock

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


_last = datetime.min
_clock_lock = threading.Lock()  # steps are made on the loop, and some from threads (cl.run_sync)


def strictly_increasing_utc_now() -> str:
    """Chainlit's `utc_now` ("2026-11-29T03:24:56.123456Z"), one microsecond past the last one when the
    clock has not moved on (or went back)."""
    global _last
    with _clock_lock:
        now = clock.now().replace(tzinfo=None)
        _last = now if now > _last else _last + timedelta(microseconds=1)
        return _last.isoformat(timespec="microseconds") + "Z"


def no_constructor_sleep() -> None:
    """Chainlit's Message and Step constructors without their 1 ms sleep, their creation times strictly
    increasing instead (the module docstring says why)."""
    # By their module names: the package's `chainlit.step` is the `step` decorator, not the module.
    for module in map(importlib.import_module, ("chainlit.message", "chainlit.step")):
        module.time = types.SimpleNamespace(sleep=lambda _seconds: None)  # type: ignore[attr-defined]
        module.utc_now = strictly_increasing_utc_now  # type: ignore[attr-defined]
