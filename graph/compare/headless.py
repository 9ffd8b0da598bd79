"""`python -m graph "NVDA or AMD?"`: the comparison in a terminal. Every desk's personas print as they speak, each
headed with its ticker ("▶ Bear Researcher · AMD"), the Comparison turn after them, then the side-by-side table and
each desk's thread. graph/cli.py hands over its printer and its way of showing a run's events, so a comparison's
turns print exactly as an analysis's do (tool calls, figures flagged, the words kept).

Stopped (Ctrl-C) or failed, `python -m graph --thread <parent> --resume` goes on: decided desks are kept, stopped
ones continue from their last step, and the comparison follows. Exit codes: 0 every desk decided and the
comparison made; 1 a desk ended without a decision; 2 nothing ran (a refused ask, the cost not confirmed).
"""
from __future__ import annotations

import sys
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Protocol

from ..core.events import Event, TurnRestarted
from ..core.personas import COMPARISON
from ..core.plan import RunPlan
from ..core.words import phrase
from ..runtime.desk import DeskRuntime
from .ask import CompareAsk
from .comparison import DeskOutcome, side_by_side
from .flow import Comparison, comparison_cost, needs_confirmation


class Printer(Protocol):
    language: str

    def write(self, persona: str, text: str) -> None: ...

    def done(self, persona: str) -> None: ...

    def void(self, persona: str, text: str, line: str) -> None: ...


Show = Callable[[AsyncIterator[Event], str], Awaitable[None]]  # one desk's events, its ticker


def _plain(text: str) -> str:
    return text.replace("**", "")


def confirm_cost(ask: CompareAsk, plan: RunPlan, live: bool, yes: bool) -> bool:
    """A live comparison of more than two tickers states its cost, and runs only on a yes."""
    if not needs_confirmation(len(ask.tickers), live=live):
        return True
    c = comparison_cost(plan, len(ask.tickers), live=live)
    print(_plain(phrase(ask.language, "compare.cost", n=len(ask.tickers), tokens=f"{c.tokens:,}", calls=c.calls,
                        per=f"{c.per_analysis.tokens:,}", source=c.per_analysis.source_in(ask.language))))
    if yes:
        return True
    if not sys.stdin.isatty():
        print(phrase(ask.language, "cli.no_terminal"), file=sys.stderr)
        return False
    try:
        return input(phrase(ask.language, "cli.run_it")).strip().lower() in ("y", "yes", "是", "好")
    except EOFError:
        return False


async def run(desk: DeskRuntime, comparison: Comparison, printer: Printer, show: Show, *, resumed: bool = False) -> int:
    """Run the comparison's desks side by side and its Comparison turn; print the table."""
    record = comparison.record
    lang = record.language
    if resumed:
        hows = await comparison.runner.survey()
        words = {"kept": "compare.resume_kept", "resumed": "compare.resume_from", "new": "compare.resume_new"}
        separator = phrase(lang, "chat.list_separator")
        desks = separator.join(phrase(lang, words[how], ticker=t) for t, how in hows.items())
        print(_plain(phrase(lang, "compare.resuming", tickers=separator.join(record.tickers), desks=desks)))
    else:
        print(_plain(phrase(lang, "compare.starting", tickers=phrase(lang, "chat.list_separator").join(record.tickers),
                            trade_date=record.trade_date.isoformat(), last=record.tickers[-1])))
    for ticker, thread in record.threads.items():
        print(phrase(lang, "cli.desk_thread", ticker=ticker, thread=thread))
    await comparison.run_desks(lambda ticker, events: show(events, ticker))
    turn = comparison.turn()
    async for token in turn.stream():
        if isinstance(token, TurnRestarted):
            printer.void(COMPARISON, token.text, phrase(lang, "cli.restarted_" + token.reason))
        else:
            printer.write(COMPARISON, token.text)
    printer.done(COMPARISON)
    assert turn.result is not None
    await comparison.finish(turn.result)
    outcomes = turn.outcomes
    print()
    print(table_text(outcomes, turn.result.rows(), lang))
    if not turn.result.read:
        print(phrase(lang, "compare.card_read_none"))
    question = phrase(lang, "cli.your_question")
    for o in outcomes:
        print(phrase(lang, "cli.ask_desk", ticker=o.ticker, thread=o.thread, question=question))
    example = phrase(lang, "cli.compare_example")
    print("\n" + phrase(lang, "cli.compare_followups", thread=record.parent, example=example))
    return 0 if all(o.decided for o in outcomes) else 1


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def table_text(outcomes: Sequence[DeskOutcome], rows: Sequence[dict[str, object]], language: str) -> str:
    """The side-by-side table, its columns lined up (a CJK character takes two columns)."""
    headers, body = side_by_side(outcomes, rows, language)
    widths = [max(_width(r[i]) for r in [headers, *body]) for i in range(len(headers))]
    return "\n".join("  ".join(c + " " * (w - _width(c)) for c, w in zip(r, widths)).rstrip()
                     for r in [headers, *body])
