"""The headless progress bar: days done / total, elapsed and remaining time, tokens so far, and each day's
signal as it lands. Plain text (no dependency): on a terminal each landed day is a line and the bar redraws
under it; into a file or a pipe each landed day is one line carrying the counts, so a log reads the same."""
from __future__ import annotations

from typing import TextIO

from .record import Day
from .runner import Progress

WIDTH = 24
CLEAR = "\r\x1b[K"  # back to the line's start, and clear it


def stopwatch(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def landed(day: Day) -> str:
    """A day as it lands: "AAPL 2024-01-02 BUY (2% · 0.72) 3.1 s", or why it failed."""
    if day.status == "failed":
        return f"{day.ticker} {day.day} FAILED: {day.reason}"
    extra = " · ".join(x for x in (day.size, f"{day.confidence:.2f}" if day.confidence is not None else "") if x)
    seconds = f" {day.wall_s:.1f} s" if day.wall_s is not None else ""
    return f"{day.ticker} {day.day} {day.signal}" + (f" ({extra})" if extra else "") + seconds


def counts(progress: Progress) -> str:
    done = f"{progress.finished}/{progress.total} days"
    if progress.failed:
        done += f" ({progress.failed} failed)"
    return (f"{done} · {stopwatch(progress.elapsed)} elapsed · ~{stopwatch(progress.remaining_s())} left · "
            f"{progress.tokens:,} tokens")


def bar(progress: Progress) -> str:
    filled = round(WIDTH * progress.finished / progress.total) if progress.total else WIDTH
    return f"[{'#' * filled}{'.' * (WIDTH - filled)}] {counts(progress)}"


class ProgressBar:
    def __init__(self, out: TextIO, tty: bool | None = None):
        self.out = out
        self.tty = out.isatty() if tty is None else tty
        self.drawn = False

    def start(self, progress: Progress) -> None:
        if progress.kept:
            self.out.write(f"{progress.kept} days already done, kept\n")
        if self.tty:
            self.out.write(bar(progress))
            self.drawn = True
        self.out.flush()

    def day(self, day: Day, progress: Progress) -> None:
        if self.tty:
            self.out.write(f"{CLEAR}  {landed(day)}\n{bar(progress)}")
            self.drawn = True
        else:
            self.out.write(f"{counts(progress)} · {landed(day)}\n")
        self.out.flush()

    def close(self) -> None:
        if self.drawn:
            self.out.write("\n")
            self.out.flush()
            self.drawn = False
