"""A guard against a hang, not a speed test: the call runs in a thread, and a test fails (instead of the suite
stalling for minutes) when it has not returned long after it should have. The bound is tens of times what the call
takes on a loaded machine: it separates "finishes" from "backtracks for minutes", never fast from slow."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
HANG_S = 30.0


def finishes(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`call(*args, **kwargs)`, failing the test if it has not returned after HANG_S (it is left to finish)."""
    done: dict[str, Any] = {}

    def run() -> None:
        try:
            done["value"] = call(*args, **kwargs)
        except BaseException as exc:  # re-raised in the test's thread
            done["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG_S)
    assert not worker.is_alive(), f"{getattr(call, '__name__', call)} did not return: it hangs (backtracking?)"
    if "error" in done:
        raise done["error"]
    return done["value"]
