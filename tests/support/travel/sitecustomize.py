"""Moves the real clock of this process when the suite runs on a simulated date (issue 33).

`DESK_TEST_NOW` is the instant the suite pretends to start at ("2026-12-25T15:00:00+00:00");
`DESK_TEST_NOW_SET_AT` the real time (seconds since the epoch) when it did. Every process of the
run — pytest, its xdist workers, the chat servers, CLIs and `langgraph dev` it starts — travels to
the same moving "now" with time-machine, as if the machine's clock had been set. tests/conftest.py
sets both variables and puts this folder on PYTHONPATH, where Python imports `sitecustomize` at
start-up; a process started without them runs on the real clock.
"""
from __future__ import annotations

import os
import time
from datetime import datetime, timedelta

NOW = "DESK_TEST_NOW"
SET_AT = "DESK_TEST_NOW_SET_AT"
_travelling: object | None = None


def travel() -> datetime | None:
    """Start this process's travel (once); the simulated now, or None on the real clock."""
    global _travelling
    wanted = os.environ.get(NOW)
    if not wanted:
        return None
    import time_machine

    at = datetime.fromisoformat(wanted.replace("Z", "+00:00"))
    if at.tzinfo is None:
        raise ValueError(f"{NOW} must name its time zone: {wanted!r}")
    set_at = float(os.environ.get(SET_AT) or time.time())
    if _travelling is None:
        traveller = time_machine.travel(at + timedelta(seconds=time.time() - set_at), tick=True)
        traveller.start()
        _travelling = traveller
    return at


travel()
