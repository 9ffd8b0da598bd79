"""The track record read as figures: the chat card's line, the /record table, the CLI's summary.

Returns and alpha are stored as fractions, unrounded; they are rounded here, for display only.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from ..core.personas import DEBATERS, RESEARCH_MANAGER, RISK_JUDGE, TRADER
from .calls import Call, Outcome
from .horizon import due_date, sessions
from .settle import verdict

BULL = DEBATERS["bull"].persona
BEAR = DEBATERS["bear"].persona
_HOW_TO_LOG = "Ask, e.g., “should I buy NVDA today?”"


@dataclass(frozen=True)
class Summary:
    calls: int                  # every logged call
    settled: int
    right: int                  # settled calls the Risk Judge got right
    mean_alpha: float | None    # the calls' own alpha (call_alpha), over the settled calls (None when none is)
    hit_rate: float | None      # right / settled (None when none is settled)
    pending: int
    # Persona -> (right, of): the Bull was right on a settled call it argued when the stock beat its
    # benchmark (alpha > 0), the Bear when it lagged (alpha < 0), the Risk Judge when its verdict is right.
    sides: dict[str, tuple[int, int]] = field(default_factory=dict, hash=False)


def pct(x: float, digits: int = 2) -> str:
    """A fraction as a signed percent: 0.0184 -> "+1.84 %"."""
    return f"{x * 100:+.{digits}f} %"


def call_alpha(signal: str, o: Outcome) -> float:
    """The alpha a call earned as a position: the stock's alpha for a BUY, its opposite for a SELL
    (a short gains when the stock lags), none for a HOLD (no position). A right SELL of a stock that
    lagged by 5 % earned +5 %, not -5 %."""
    return o.alpha if signal == "BUY" else -o.alpha if signal == "SELL" else 0.0


def _settled(calls: Sequence[Call]) -> list[tuple[Call, Outcome]]:
    return [(c, c.outcome) for c in calls if c.outcome is not None]


def summarize(calls: Sequence[Call]) -> Summary:
    settled = _settled(calls)
    right = sum(o.verdict == "right" for _, o in settled)
    alphas = [call_alpha(c.signal, o) for c, o in settled]
    bull = [o.alpha > 0 for c, o in settled if BULL in c.argued]
    bear = [o.alpha < 0 for c, o in settled if BEAR in c.argued]
    # The manager's and the trader's own calls, scored by the judge's rule (graph/track/settle.py).
    planners = {persona: [verdict(signal, o.alpha) == "right" for c, o in settled
                          if (signal := c.plan_calls.get(persona)) is not None]
                for persona in (RESEARCH_MANAGER, TRADER)}
    return Summary(
        calls=len(calls), settled=len(settled), right=right,
        mean_alpha=sum(alphas) / len(alphas) if alphas else None,
        hit_rate=right / len(settled) if settled else None,
        pending=len(calls) - len(settled),
        sides={BULL: (sum(bull), len(bull)), BEAR: (sum(bear), len(bear)),
               **{p: (sum(v), len(v)) for p, v in planners.items()}, RISK_JUDGE: (right, len(settled))},
    )


def card_line(summary: Summary) -> str:
    """"4 past calls: 3 right, mean alpha +1.8 %; 2 pending" (the count is every call, settled or not)."""
    if not summary.calls:
        return ""
    head = f"{summary.calls} past call{'' if summary.calls == 1 else 's'}"
    if summary.mean_alpha is None:
        return f"{head}, none settled yet"
    line = f"{head}: {summary.right} right, mean alpha {pct(summary.mean_alpha, 1)}"
    return f"{line}; {summary.pending} pending" if summary.pending else line


def sides_line(summary: Summary) -> str:
    """"Bull Researcher 3/4 right · Bear Researcher 1/4 · Risk Judge 3/4" (personas with a settled call)."""
    parts = [f"{persona} {right}/{of}" for persona, (right, of) in summary.sides.items() if of]
    if parts:
        parts[0] += " right"
    return " · ".join(parts)


def cumulative_alpha(calls: Sequence[Call]) -> list[tuple[str, float]]:
    """(settle date, the running sum of the calls' own alpha after it, call_alpha) over the settled calls,
    in the order they settled."""
    settled = sorted(_settled(calls), key=lambda co: (co[1].settle_date, co[0].trade_date, co[0].id))
    out: list[tuple[str, float]] = []
    total = 0.0
    for c, o in settled:
        total += call_alpha(c.signal, o)
        out.append((o.settle_date, total))
    return out


def _cell(text: str) -> str:
    """Table-safe text: a "|" would end the cell and a line break the row."""
    return " ".join(str(text).split()).replace("|", "\\|") or "—"


def _pending_text(call: Call, today: date) -> str:
    """The reason the settlement pass gave, or (never tried yet) when the call settles."""
    if call.pending:
        return call.pending
    try:
        due = due_date(date.fromisoformat(call.trade_date), sessions(call.horizon), call.ticker)
    except ValueError:
        return "pending"
    return f"settles on or after {due.isoformat()}" if today < due else "due: scored at the next settlement pass"


def _row(call: Call, today: date) -> str:
    """Seven short cells: a chat column is narrow (a pending call's reason goes under the table)."""
    o = call.outcome
    size = f" {call.position_size}" if call.position_size else ""
    if o is None:
        due = _pending_text(call, today)
        when = re.match(r"settles on or after (\S+)", due)
        settled = f"after {when[1]}" if when else "pending"
        ret, alpha, verdict = "", "", "pending"
    else:
        settled = o.settle_date
        ret = pct(o.raw_return) + (f" (stop hit {o.stop_hit})" if o.stop_hit else "")
        alpha, verdict = f"{pct(o.alpha)} vs {o.benchmark}", o.verdict
    cells = (call.trade_date, call.ticker, call.signal + size, settled, ret, alpha, verdict)
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def record_table(calls: Sequence[Call], *, today: date) -> str:
    """The calls as a Markdown table, newest trade date first, then the summary's line and each side's
    accuracy; `today` dates a pending call that was never tried."""
    if not calls:
        return ("No calls are logged yet. " + _HOW_TO_LOG + ": the Risk Judge's decision is logged, "
                "and scored here once its horizon has passed.")
    ordered = sorted(calls, key=lambda c: (c.trade_date, c.recorded_at, c.id), reverse=True)
    lines = ["| Date | Ticker | Call | Settled | Return | Alpha | Verdict |",
             "|---|---|---|---|---|---|---|",
             *(_row(c, today) for c in ordered)]
    waiting = [c for c in ordered if c.outcome is None and not _pending_text(c, today).startswith("settles on")]
    if waiting:  # why a due call is not scored yet: a vendor failure, a missing close
        lines += ["", *(f"- {c.trade_date} {c.ticker}: {_pending_text(c, today)}" for c in waiting)]
    summary = summarize(calls)
    lines += ["", card_line(summary)]
    if sides := sides_line(summary):
        lines.append(sides)
    return "\n".join(lines)
