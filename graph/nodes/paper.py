"""The paper book asked for in a run of the desk itself (`/paper`, `/paper start 100000`, "my paper book", "停止模拟").

The chat and the CLI route such a message to their own paper book first (graph/routing.py), so the coordinator only
meets it on LangGraph Server, where no one routes before the graph. There the book is the run's user's
(graph/core/context.py user_of: the authenticated user, whatever a client sends) and lives in the run's store, the one
the server's runs log their calls into (graph/track/log.py): each call a user's server run makes is followed by that
user's paper book, and by no one else's. Starting needs no button here, as with `python -m graph paper --start`: the
words are the user's own request, and the answer states the rules.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from langgraph.config import get_config
from langgraph.runtime import Runtime

from ..book.holdings import money
from ..core import clock
from ..core.context import DeskContext, user_of
from ..core.events import Said, emit
from ..core.personas import DESK
from ..core.words import phrase
from ..data.vendor import Vendor
from ..models.registry import ModelRegistry
from ..paper.ask import PaperAsk
from ..paper.broker import paper_broker
from ..paper.keeper import PaperError, PaperKeeper, amount_of
from ..paper.words import Score, figures, heading, paper_answer
from ..track.calibration import calibration
from ..track.keeper import TrackRecord
from .speaking import spoken

DEFAULT_AMOUNT = "100000"  # as the chat's (chat/features/paper.py) when the words give none


def _say(language: str, key: str, **fields: object) -> str:
    return phrase(language, f"paper.{key}", **fields)


async def paper_in_run(runtime: Runtime[DeskContext], vendor: Vendor, models: ModelRegistry, asked: PaperAsk,
                       today: date, language: str, score: Score | None) -> dict[str, Any]:
    """Start, stop or show the run's user's paper book; the answer in `language`. Table 1's figures when `score` is
    given (the server's graph passes graph/backtest/metrics.py's curve_metrics)."""
    if runtime.store is None:
        say = phrase(language, "track.no_store")
    else:
        user, _ = user_of(get_config(), runtime.context)
        keeper = PaperKeeper(runtime.store, vendor, paper_broker())
        say = await _answer(keeper, TrackRecord(runtime.store, vendor, models), user, asked, today, language, score)
    emit(runtime.stream_writer, Said(DESK, say, language))
    return {"intent": "paper", "pending_ticker": None, "messages": [spoken(DESK, say)]}


async def _answer(keeper: PaperKeeper, track: TrackRecord, user: str, asked: PaperAsk, today: date, language: str,
                  score: Score | None) -> str:
    if asked.action == "stop":
        return _say(language, "stopped_now" if await keeper.stop(user, clock.now()) is not None else "not_started")
    if asked.action == "start":
        current = await keeper.books.get(user)
        if current is not None and current.following:
            return _say(language, "chat_already", since=heading(current, language))
        try:
            book = await keeper.start(user, amount_of(asked.amount or DEFAULT_AMOUNT), clock.now())
        except PaperError:
            return _say(language, "bad_amount", amount=asked.amount)
        parts = [_say(language, "started", amount=money(book.start_amount), cost=book.cost_bps)]
        if not asked.amount:
            parts.append(_say(language, "chat_default_amount", amount=money(book.start_amount)))
        return "\n\n".join([*parts, _say(language, "rules")])
    paper = await keeper.settle(user, today)
    if paper is None:
        return _say(language, "chat_none")
    mine, benchmarks = figures(paper, score) if score is not None else (None, {})
    return paper_answer(paper, mine, benchmarks, calibration(await track.calls(user, today)), language)
