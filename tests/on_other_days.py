"""The date-sensitive tests on other days than today's (issue 33): `python -m tests.on_other_days`.

A test that pins a date and reads the real clock passes on the day it is written and fails some day
later (the backtest test that broke CI on 2026-11-27). This runs the unit tests — every test that
starts no server, where dates are read, counted and scheduled — once more on each simulated day
below, moving the clock of every process with time-machine (tests/support/clock.py), so such a test
fails on the day it is written. The days are counted from the real today:

- tomorrow at 21:30 UTC, after the New York close (a pinned "today" is now in the past);
- 45 days on at 05:30 UTC, when the server's day is already the next one and New York's is not
  (months, quarters, often a year end or a holiday in between).

Extra arguments go to pytest (`-x`, `-k calendar`); the exit code is the first failing run's.
"""
from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, time, timedelta

UNITS = "not llama and not e2e and not browser and not postgres and not slow"


def other_days(today: datetime) -> list[str]:
    day = today.date()
    return [datetime.combine(day + timedelta(days=1), time(21, 30), UTC).isoformat(),
            datetime.combine(day + timedelta(days=45), time(5, 30), UTC).isoformat()]


def main(args: list[str]) -> int:
    failed = 0
    for when in other_days(datetime.now(UTC)):
        print(f"== the unit tests on {when} (DESK_TEST_NOW) ==", flush=True)
        env = {k: v for k, v in os.environ.items() if k not in ("DESK_TEST_NOW", "DESK_TEST_NOW_SET_AT")}
        env["DESK_TEST_NOW"] = when
        code = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", UNITS, *args],
                               env=env)
        failed = failed or code
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
