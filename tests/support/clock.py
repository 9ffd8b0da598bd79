"""The suite on a simulated date: `DESK_TEST_NOW=2026-12-25T15:00:00Z pytest` runs every test as if
the machine's clock said so, in this process and in every process it starts (see
tests/support/travel/sitecustomize.py). `.ci/run` runs the date-sensitive tests this way on other
days than today's, so a test that reads the real clock fails on the day it is written."""
from __future__ import annotations

import os
import sys
import time
from datetime import datetime
from pathlib import Path

TRAVEL_DIR = Path(__file__).parent / "travel"
NOW, SET_AT = "DESK_TEST_NOW", "DESK_TEST_NOW_SET_AT"


def travel_suite() -> datetime | None:
    """Move this process's clock, and pass the move on to its children; the simulated start, or None."""
    if not os.environ.get(NOW):
        return None
    os.environ.setdefault(SET_AT, repr(time.time()))  # before the clock moves: the real start
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(TRAVEL_DIR) not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(TRAVEL_DIR), *paths])
    if str(TRAVEL_DIR) not in sys.path:
        sys.path.insert(0, str(TRAVEL_DIR))
    import sitecustomize  # the same module a child imports at start-up

    return sitecustomize.travel()


def python_path(*first: object) -> str:
    """A child's PYTHONPATH: `first`, then this process's own (which carries the suite's simulated date:
    a child given only the repository would run on the real clock, a month apart from its parent)."""
    return os.pathsep.join([*(str(p) for p in first), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                          if p]])


def on_day(day: str) -> dict[str, str]:
    """The environment of a child (a chat server) whose clock says `day`, an ISO instant, moving on from there."""
    return {NOW: day, SET_AT: repr(time.time()), "PYTHONPATH": python_path(TRAVEL_DIR)}
