"""The track record in words for the user: the answer to "how have your calls done?" and the
"Track record" step an analysis shows before its debate."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from .calls import Call
from .summary import pct, record_table


def last_call(calls: Sequence[Call], ticker: str) -> str:
    """'Last time on NVDA (2024-05-06) the desk said BUY …, and it was right: alpha +1.84 % …'."""
    mine = [c for c in calls if c.ticker == ticker]
    if not mine:
        return ""
    c = mine[-1]
    said = f"Last time on **{ticker}** ({c.trade_date}) the desk said **{c.signal}** ({c.position_size or 'size n/a'})"
    if c.outcome is None:
        return f"{said}; it is not scored yet: {c.pending or 'its window is not over'}."
    o = c.outcome
    return (f"{said}, and it was **{o.verdict}**: {ticker} {pct(o.raw_return)} against {o.benchmark} "
            f"{pct(o.benchmark_return)} over {o.sessions} sessions, alpha {pct(o.alpha)}.")


def record_answer(calls: Sequence[Call], ticker: str | None, today: date) -> str:
    title = f"**Your track record on {ticker}**" if ticker else "**Your track record**"
    parts = [title, record_table(calls, today=today)]
    if ticker and (last := last_call(calls, ticker)):
        parts.insert(1, last)
    return "\n\n".join(parts)


def recalled_markdown(track_record: dict[str, Any]) -> str:
    """What the analysis recalled, for the chat's collapsible "Track record" step and the CLI."""
    ticker, day = track_record.get("ticker", ""), track_record.get("trade_date", "")
    same = [Call.model_validate(c) for c in track_record.get("same", [])]
    lessons = [Call.model_validate(c) for c in track_record.get("lessons", [])]
    pending = [Call.model_validate(c) for c in track_record.get("pending", [])]
    if not (same or lessons or pending):
        return (f"No call on record was scored on or before {day}, so the desk starts from nothing. "
                "Each decision is logged and scored once its horizon has passed.")
    out = [f"Calls scored on or before **{day}** (nothing later is recalled)."]
    if line := track_record.get("line"):
        out.append(f"On {ticker}: {line}.")
    for title, group in ((f"Past calls on {ticker}", same), ("Lessons from other tickers", lessons)):
        if group:
            out.append(f"**{title}**\n" + "\n".join(_entry(c) for c in group))
    if pending:
        out.append(f"**Not scored yet on {ticker}**\n" + "\n".join(
            f"- {c.trade_date} {c.signal}: {c.pending or 'its window is not over'}" for c in pending))
    return "\n\n".join(out)


def _entry(c: Call) -> str:
    o = c.outcome
    assert o is not None
    stop = f", stop hit {o.stop_hit}" if o.stop_hit else ""
    return (f"- {c.trade_date} **{c.ticker} {c.signal}** → {o.verdict}: {pct(o.raw_return)}, alpha {pct(o.alpha)} "
            f"vs {o.benchmark} over {o.sessions} sessions{stop}. {o.reflection}")
