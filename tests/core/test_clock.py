"""One clock for the real now (graph/core/clock.py, issue 33): the desk's "today" is what the clock
says, a test moves it with time-machine, and the suite's simulated date (tests/support/clock.py)
reaches the processes it starts."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, date, datetime

import time_machine

from graph import clock
from graph.request import parse_request
from graph.track.settle import last_close_day
from tests.support.clock import NOW, SET_AT, TRAVEL_DIR
from tests.support.env import demo_env


def test_the_desk_reads_today_from_the_clock_a_test_moves() -> None:
    with time_machine.travel(datetime(2026, 12, 25, 15, 0, tzinfo=UTC), tick=False):
        assert clock.today() == date(2026, 12, 25) and clock.now().tzinfo is not None
        # Christmas: the NYSE is closed, so "today" is the last session before it
        assert parse_request("should I buy NVDA today?", clock.today()).trade_date == date(2026, 12, 24)
        assert last_close_day(clock.today()) == date(2026, 12, 24)


def test_the_last_close_follows_new_york_not_the_server() -> None:
    # 2027-03-15 02:00 UTC is still the 14th in New York (after the clock change, UTC-4)
    with time_machine.travel(datetime(2027, 3, 15, 2, 0, tzinfo=UTC), tick=False):
        assert last_close_day(date(2027, 3, 13)) == date(2027, 3, 13)  # a day before New York's: closed
        assert last_close_day(date(2027, 3, 14)) == date(2027, 3, 13)
        assert last_close_day(date(2027, 3, 15)) == date(2027, 3, 13)  # a client's later today


def test_a_process_the_suite_starts_lives_on_the_suite_s_date(tmp_path) -> None:
    """What `DESK_TEST_NOW=… pytest` does to every child: the CLI reads "today" as that day."""
    hatch = time_machine.escape_hatch  # the machine's own clock, whatever the suite's date
    real = hatch.time.time() if hatch.is_travelling() else time.time()
    env = demo_env(**{NOW: "2027-01-13T15:00:00+00:00", SET_AT: repr(real),
                      "PYTHONPATH": os.pathsep.join([str(TRAVEL_DIR), os.environ.get("PYTHONPATH", "")])})
    out = subprocess.run([sys.executable, "-m", "graph", "--parse", "should I buy NVDA today?"], env=env,
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1])["trade_date"] == "2027-01-13"
