"""The track record read as figures: the chat card's line, the /record table, the CLI's summary.

Returns and alpha are stored as fractions, unrounded; they are rounded here, for display only. The
words around the figures are in the thread's language (the [track] section of prompts/words_<code>.md);
figures, tickers, signals and dates are shown as they are, and what is stored (a verdict, a pending
reason) stays English: it is worded for the reader here.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from ..core.personas import DEBATERS, RESEARCH_MANAGER, RISK_JUDGE, TRADER, persona_label
from ..core.words import DEFAULT_LANGUAGE, phrase, ruling_value, word_list
from .calls import Call, Outcome
from .horizon import due_date, sessions
from .settle import verdict


def benchmark_name(benchmark: str, language: str) -> str:
    """A call's benchmark as the thread's language names it: the symbol, or that it had none."""
    return benchmark or phrase(language, "track.no_benchmark")

BULL = DEBATERS["bull"].persona
BEAR = DEBATERS["bear"].persona
# The reasons graph/track/settle.py stores for a pending call (in English) and the table gives one never
# tried, with the catalogue's key that words each for the reader; a reason none matches (an older
# wording) is shown as stored.
_REASONS = (
    (r"settles on or after (?P<date>\S+) \((?P<n>\d+) trading days after the trade date\)", "pending_settles"),
    (r"settles on or after (?P<date>\S+)", "settles_on"),
    (r"made on (?P<data>.+); this desk reads (?P<vendor>.+), so it is scored only when the desk runs on "
     r"that data again", "pending_other_data"),
    (r"its trade date (?P<trade_date>.+) cannot be read", "pending_bad_date"),
    (r"the data vendor failed: (?P<error>.+); will retry", "pending_vendor_failed"),
    (r"no close for (?P<symbol>\S+) on (?P<date>\S+) from (?P<vendor>.+)", "pending_no_close"),
    (r"the data has only (?P<have>\d+) of (?P<n>\d+) sessions after (?P<date>\S+) for (?P<ticker>\S+) "
     r"from (?P<vendor>.+); will retry", "pending_short_data"),
    (r"its window is not over", "pending_window_open"),
    (r"due: scored at the next settlement pass", "due_now"),
    (r"pending", "verdict_pending"),
)
_PENDING_REASONS = tuple((re.compile(pattern, re.S), key) for pattern, key in _REASONS)


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


def verdict_word(verdict: str, language: str = DEFAULT_LANGUAGE) -> str:
    """A verdict as the reader's language says it ("right" -> "正确"); the stored value stays English."""
    try:
        return phrase(language, f"track.verdict_{verdict}")
    except KeyError:  # a verdict the catalogue does not know: shown as stored
        return verdict


def pending_words(reason: str, language: str = DEFAULT_LANGUAGE) -> str:
    """Why a call is not scored yet, as settle.py stored it (English), in the reader's language."""
    for pattern, key in _PENDING_REASONS:
        if match := pattern.fullmatch(reason):
            return phrase(language, f"track.{key}", **match.groupdict())
    return reason


def card_line(summary: Summary, language: str = DEFAULT_LANGUAGE) -> str:
    """"4 past calls: 3 right, mean alpha +1.8 %; 2 pending" (the count is every call, settled or not)."""
    if not summary.calls:
        return ""
    head = phrase(language, "track.calls_one" if summary.calls == 1 else "track.calls_many", n=summary.calls)
    if summary.mean_alpha is None:
        return phrase(language, "track.none_settled", head=head)
    line = phrase(language, "track.settled", head=head, right=summary.right, alpha=pct(summary.mean_alpha, 1))
    return phrase(language, "track.with_pending", line=line, pending=summary.pending) if summary.pending else line


def sides_line(summary: Summary, language: str = DEFAULT_LANGUAGE) -> str:
    """"Bull Researcher 3/4 right · Bear Researcher 1/4 · Risk Judge 3/4" (personas with a settled call)."""
    parts = [(persona_label(persona, language), right, of) for persona, (right, of) in summary.sides.items() if of]
    return phrase(language, "track.sides_joiner").join(
        phrase(language, "track.side_first" if i == 0 else "track.side", persona=p, right=right, of=of)
        for i, (p, right, of) in enumerate(parts))


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
    """The reason the settlement pass gave, or (never tried yet) when the call settles (English, as
    settle.py words it: pending_words words it for the reader)."""
    if call.pending:
        return call.pending
    try:
        due = due_date(date.fromisoformat(call.trade_date), sessions(call.horizon), call.ticker)
    except ValueError:
        return "pending"
    return f"settles on or after {due.isoformat()}" if today < due else "due: scored at the next settlement pass"


def _settles_after(reason: str) -> str | None:
    """The date a pending call settles on or after, when its reason says it."""
    when = re.match(r"settles on or after (\S+)", reason)
    return when[1] if when else None


def _row(call: Call, today: date, language: str) -> str:
    """Seven short cells: a chat column is narrow (a pending call's reason goes under the table)."""
    o = call.outcome
    size = f" {ruling_value(language, 'position_size', call.position_size)}" if call.position_size else ""
    if o is None:
        when = _settles_after(_pending_text(call, today))
        settled = phrase(language, "track.after", date=when) if when else verdict_word("pending", language)
        ret, alpha, verdict = "", "", verdict_word("pending", language)
    else:
        settled = o.settle_date
        ret = pct(o.raw_return) + (phrase(language, "track.stop_hit_cell", date=o.stop_hit) if o.stop_hit else "")
        alpha = phrase(language, "track.alpha_vs", alpha=pct(o.alpha), benchmark=benchmark_name(o.benchmark, language))
        verdict = verdict_word(o.verdict, language)
    cells = (call.trade_date, call.ticker, call.signal + size, settled, ret, alpha, verdict)
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def record_table(calls: Sequence[Call], *, today: date, language: str = DEFAULT_LANGUAGE) -> str:
    """The calls as a Markdown table, newest trade date first, then the summary's line and each side's
    accuracy; `today` dates a pending call that was never tried. The words are in `language`."""
    if not calls:
        return phrase(language, "track.no_calls", how=phrase(language, "track.how_to_log"))
    ordered = sorted(calls, key=lambda c: (c.trade_date, c.recorded_at, c.id), reverse=True)
    columns = word_list(language, "track.columns")
    lines = ["| " + " | ".join(columns) + " |",
             "|" + "---|" * len(columns),
             *(_row(c, today, language) for c in ordered)]
    waiting = [c for c in ordered if c.outcome is None and not _pending_text(c, today).startswith("settles on")]
    if waiting:  # why a due call is not scored yet: a vendor failure, a missing close
        lines += ["", *(f"- {c.trade_date} {c.ticker}: {pending_words(_pending_text(c, today), language)}"
                        for c in waiting)]
    summary = summarize(calls)
    lines += ["", card_line(summary, language)]
    if sides := sides_line(summary, language):
        lines.append(sides)
    return "\n".join(lines)
