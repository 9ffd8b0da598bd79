"""What a message is for, decided in one place, for the chat (chat/app.py) and the CLI (graph/cli.py).

A message is the book's (`/book …`, "I hold 200 NVDA at 95"), a backtest's ("backtest NVDA from January to March
2024", "resume backtest 1a2b3c4d"), a watch's (`/watch …`, "watch NVDA every trading day after the close"), a
comparison's ("NVDA or AMD?") or, when it is none of these, the desk's: its coordinator reads it as a new analysis,
a follow-up to the thread's, or asks back. `ROUTES` is the order those readings are tried in, and so the routing
policy: a message that reads as two things is the first one's ("backtest NVDA and AMD" is a backtest, not a
comparison). Each reader runs once; what it read travels with the route, so nothing parses the message again.

What the chat knows besides the words (a run going on takes notes, a comparison running takes its notes, a follow-up
to a stored comparison) is the chat's and the CLI's to weigh; this module reads words only.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from .backtest.ask import Ask, read_ask
from .book.words import tells_holdings
from .compare.ask import CompareAsk, read_comparison
from .watchlist.words import WatchAsk, WatchCommand, read_command, read_watch


class Purpose(StrEnum):
    BOOK = "book"
    BACKTEST = "backtest"
    WATCH = "watch"
    COMPARE = "compare"
    DESK = "desk"


@dataclass(frozen=True)
class BookAsk:
    """`/book …` (`command` True, `words` what follows it) or holdings told in words (`words` the message)."""

    words: str
    command: bool = False


@dataclass(frozen=True)
class ResumeBacktest:
    """"resume backtest 1a2b3c4d", "继续回测 1a2b3c4d": the stored backtest to go on with."""

    backtest_id: str


@dataclass(frozen=True)
class Situation:
    """What the words are read against: the real today, whether the thread holds an analysis already (two names are
    then a comparison only when asked as one), and DESK_LANGUAGE."""

    today: date
    in_analysis: bool = False
    language_setting: str = "auto"


Read = BookAsk | ResumeBacktest | Ask | WatchCommand | WatchAsk | CompareAsk | None


@dataclass(frozen=True)
class Route:
    purpose: Purpose
    read: Read = None  # what the purpose's reader made of the message (None for the desk's)


_BOOK_COMMAND = re.compile(r"^/book\b(.*)$", re.IGNORECASE | re.DOTALL)
_RESUME_BACKTEST = re.compile(r"^\W*(?:resume|continue)\s+(?:the\s+)?back[\s-]?test\s+([0-9a-f]{8})\W*$"
                              r"|^\W*继续回[测測]\s*([0-9a-f]{8})\W*$", re.I)


def _book(text: str, situation: Situation) -> Read:
    if (m := _BOOK_COMMAND.match(text)) is not None:
        return BookAsk(m[1].strip(), command=True)
    return BookAsk(text) if tells_holdings(text) else None


def _backtest(text: str, situation: Situation) -> Read:
    if (m := _RESUME_BACKTEST.match(text)) is not None:
        return ResumeBacktest(m[1] or m[2])
    return read_ask(text, situation.today)


def _watch(text: str, situation: Situation) -> Read:
    return read_command(text) or read_watch(text, situation.today)


def _compare(text: str, situation: Situation) -> Read:
    return read_comparison(text, situation.today, in_analysis=situation.in_analysis,
                           language_setting=situation.language_setting)


# The order a message's readings are tried in: the first that reads it takes it.
ROUTES: tuple[tuple[Purpose, Callable[[str, Situation], Read]], ...] = (
    (Purpose.BOOK, _book),
    (Purpose.BACKTEST, _backtest),
    (Purpose.WATCH, _watch),
    (Purpose.COMPARE, _compare),
)


def route(text: str, situation: Situation) -> Route:
    """What `text` (cleaned: graph's `clean_message`) is for; the desk's when no reading takes it."""
    text = text.strip()
    if text:
        for purpose, reader in ROUTES:
            if (read := reader(text, situation)) is not None:
                return Route(purpose, read)
    return Route(Purpose.DESK)
