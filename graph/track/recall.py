"""What an analysis recalls of the track record, point in time, and the words the speakers read.

Only calls **settled on or before the trade date** are recalled: a backtest of March must not learn
from April. Of those, the most recent calls on the same ticker, and the most recent lessons from other
tickers, the wrong calls first (a lesson from a mistake says more). Recency, not a text search: the
recall happens before the reports exist, so there is no text yet to match lessons against, and a
market's recent past is what a desk remembers best.

The blocks are bounded (RECALL_CHARS, about 350 tokens) and go after the case file every speaker
shares, so that shared prefix stays cacheable: the Research Manager, the Trader and the Risk Judge
read the whole block, the Bull and the Bear each their own side's record on the ticker.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.personas import RESEARCH_MANAGER, RISK_JUDGE, SIDE_OF, TRADER
from ..core.prompts import render
from .calls import Call
from .summary import card_line, pct, summarize

SAME_TICKER = 3     # calls on the ticker recalled
OTHER_LESSONS = 3   # lessons from other tickers recalled
RECALL_CHARS = 1100  # a block's bound (about 300 tokens)
LESSON_CHARS = 200  # a lesson's bound within it
# Who reads which block (graph/nodes/debate.py): the whole record, or their own side of it.
READS_ALL = (RESEARCH_MANAGER, TRADER, RISK_JUDGE)


def recall(values: Sequence[Mapping[str, Any]], ticker: str, trade_date: str) -> dict[str, Any]:
    """The record an analysis of `ticker` on `trade_date` may know, from the user's calls as stored,
    as plain data for the state (checkpointed as JSON): the calls recalled, the ticker's pending
    ones, the card's line and its figures, and the rendered blocks (their figures count as evidence
    for the figure check). Only the calls it keeps are read into `Call`s."""
    def settled_by(v: Mapping[str, Any]) -> str:
        return str(v["outcome"]["settle_date"])

    known = [v for v in values if v.get("outcome") and settled_by(v) <= trade_date]
    known.sort(key=lambda v: (settled_by(v), str(v.get("trade_date")), str(v.get("id"))), reverse=True)
    on_ticker = [Call.model_validate(v) for v in known if v.get("ticker") == ticker]
    same = on_ticker[:SAME_TICKER]
    others = [v for v in known if v.get("ticker") != ticker and v["outcome"].get("reflection")]
    others.sort(key=lambda v: v["outcome"].get("verdict") == "right")  # stable: the wrong calls first
    lessons = [Call.model_validate(v) for v in others[:OTHER_LESSONS]]
    # Pending calls on the ticker made before this one (the chat says when they settle).
    pending = sorted((Call.model_validate(v) for v in values if v.get("ticker") == ticker and not v.get("outcome")
                      and str(v.get("trade_date")) < trade_date), key=lambda c: (c.trade_date, c.id))
    summary = summarize(on_ticker)
    record: dict[str, Any] = {
        "ticker": ticker, "trade_date": trade_date,
        "same": [c.model_dump(mode="json") for c in same],
        "lessons": [c.model_dump(mode="json") for c in lessons],
        "pending": [c.model_dump(mode="json") for c in pending[-SAME_TICKER:]],
        # The card's line on the ticker, and its figures: the reader's language words them when the line
        # is shown (graph/track/words.py recalled_line); the English line is kept for readers of then.
        "line": card_line(summary),
        "figures": {"calls": summary.calls, "right": summary.right, "mean_alpha": summary.mean_alpha,
                    "pending": summary.pending},
    }
    record["shared"] = shared_block(same, lessons, ticker, trade_date)
    record["bull"] = side_block(same, ticker, "bull")
    record["bear"] = side_block(same, ticker, "bear")
    return record


def _outcome(c: Call) -> str:
    o = c.outcome
    assert o is not None
    stop = f"; stop hit {o.stop_hit}" if o.stop_hit else ""
    return (f"{c.trade_date} {c.ticker} {c.signal} ({c.position_size or 'size n/a'}, {o.sessions} sessions): "
            f"{o.verdict}, {c.ticker} {pct(o.raw_return)}, alpha {pct(o.alpha)} vs {o.against}{stop}")


def _lesson(c: Call) -> str:
    """The reflection's lesson (what follows its last "Lesson:"; all of it when it has none): the
    entry already gives the call's figures, which the reflection repeats."""
    text = " ".join((c.outcome.reflection if c.outcome else "").split())
    text = text.rsplit("Lesson:", 1)[-1].strip()
    return text if len(text) <= LESSON_CHARS else text[:LESSON_CHARS - 1].rstrip() + "…"


def _bounded(lines: list[str]) -> list[str]:
    out: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) > RECALL_CHARS:
            break
        out.append(line)
        used += len(line) + 1
    return out


def shared_block(same: Sequence[Call], lessons: Sequence[Call], ticker: str, trade_date: str) -> str:
    if not same and not lessons:
        return ""
    lines = [f"- {_outcome(c)}. Lesson: {_lesson(c)}" for c in same] or [f"- none settled on {ticker} yet"]
    if lessons:
        lines += ["Lessons from other tickers:"] + [f"- {_outcome(c)}. Lesson: {_lesson(c)}" for c in lessons]
    return render("track_record", ticker=ticker, trade_date=trade_date, entries="\n".join(_bounded(lines)))


def side_block(same: Sequence[Call], ticker: str, side: str) -> str:
    """A researcher's own side's record on the ticker: the bull case won when the stock beat its
    benchmark (alpha > 0), the bear case when it lagged."""
    argued = [c for c in same if c.outcome is not None]
    if not argued:
        return ""
    won = [(c.outcome.alpha > 0) == (side == "bull") for c in argued if c.outcome]
    lines = [f"- {c.trade_date}: the {side} case {'won' if w else 'lost'} (alpha {pct(c.outcome.alpha)} vs "
             f"{c.outcome.against}; the desk said {c.signal})" for c, w in zip(argued, won, strict=True) if c.outcome]
    return render("track_side", ticker=ticker, side=side, won=sum(won), of=len(won),
                  entries="\n".join(_bounded(lines)))


def block_for(track_record: dict[str, Any] | None, persona: str) -> str:
    """The record block a speaker reads after the case file ('' for everyone else, or no record)."""
    if not track_record:
        return ""
    if persona in READS_ALL:
        return str(track_record.get("shared") or "")
    if (side := SIDE_OF.get(persona)) in ("bull", "bear"):
        return str(track_record.get(side) or "")
    return ""
