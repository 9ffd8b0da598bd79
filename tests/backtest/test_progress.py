"""The headless progress bar: a line per day into a file, a bar redrawn under each day on a terminal."""
from __future__ import annotations

import io

from graph.backtest.progress import CLEAR, ProgressBar, stopwatch
from graph.backtest.record import Day
from graph.backtest.runner import Progress


def _landed(progress: Progress, day: Day) -> None:
    progress.ran += 1
    progress.failed += day.status == "failed"
    progress.tokens += day.tokens


def test_a_line_per_day_when_not_on_a_terminal() -> None:
    out = io.StringIO()
    bar = ProgressBar(out, tty=False)
    progress = Progress(total=4, kept=1, tokens=14_000)
    bar.start(progress)
    day = Day("AAPL", "2024-01-03", "t", "done", "BUY", "2%", 0.7, "2-6 weeks", 14_100, 17, 0.84)
    _landed(progress, day)
    bar.day(day, progress)
    failed = Day("AAPL", "2024-01-04", "t", "failed", reason="the data vendor failed: rate limited", wall_s=1.0)
    _landed(progress, failed)
    bar.day(failed, progress)
    bar.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "1 days already done, kept"
    assert lines[1].startswith("2/4 days · ") and "28,100 tokens" in lines[1]
    assert lines[1].endswith("AAPL 2024-01-03 BUY (2% · 0.70) 0.8 s")
    assert lines[2].startswith("3/4 days (1 failed)") and "FAILED: the data vendor failed: rate limited" in lines[2]
    assert CLEAR not in out.getvalue()


def test_on_a_terminal_the_bar_redraws_under_each_day() -> None:
    out = io.StringIO()
    bar = ProgressBar(out, tty=True)
    progress = Progress(total=2)
    bar.start(progress)
    day = Day("NVDA", "2024-01-03", "t", "done", "SELL", "", None, "", 100, 17, 2.0)
    _landed(progress, day)
    bar.day(day, progress)
    bar.close()
    text = out.getvalue()
    assert text.startswith("[........................] 0/2 days")
    assert f"{CLEAR}  NVDA 2024-01-03 SELL 2.0 s\n[############............] 1/2 days" in text
    assert text.endswith("\n")


def test_clock() -> None:
    assert (stopwatch(None), stopwatch(5), stopwatch(65.4), stopwatch(3725)) == ("?", "0:05", "1:05", "1:02:05")
