"""The paper book in words for the user (`python -m graph paper`; the chat's /paper later), in the reader's
language (the [paper] section of prompts/words_<code>.md): positions, cash, open orders, trades with their
reasons and threads, the Table 1 figures since the book began beside those of the benchmark of each asset class it
traded (with the book's alpha over each), and the calibration of the track record. Figures, tickers, signals,
dates and thread ids are shown as they are."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Protocol

from ..book.holdings import money, shares
from ..book.sizing import fractional
from ..core.personas import persona_label
from ..core.words import DEFAULT_LANGUAGE, phrase
from ..track.calibration import Calibration
from ..track.horizon import due_date, sessions
from .book import NEW_YORK, PaperBook
from .keeper import Paper
from .ledger import Position, Trade, Unfilled

Link = Callable[[str], str]  # a thread id as the reader reaches it (the chat: a Markdown link to /thread/<id>)
RATIONALE_CHARS = 160  # of a call's rationale beside its trade; the thread has it whole


class Scored(Protocol):
    """Table 1's figures over a curve (graph/backtest/metrics.py's CurveMetrics)."""

    @property
    def cumulative_return(self) -> float | None: ...
    @property
    def annualized_return(self) -> float | None: ...
    @property
    def sharpe(self) -> float | None: ...
    @property
    def max_drawdown(self) -> float | None: ...
    @property
    def days(self) -> int: ...


# Table 1's figures of a curve from the stated amount (graph/backtest/metrics.py's curve_metrics, passed in by those
# above the paper room: the CLI, the chat, the graph LangGraph Server serves).
Score = Callable[[float, list[tuple[date, float]]], Scored]


def figures(paper: Paper, score: Score) -> tuple[Scored | None, dict[str, Scored]]:
    """Table 1's figures of the book's curve, and of each class benchmark's (by name), each from the stated amount."""
    start = float(paper.book.start_amount)
    mine = score(start, [(d, float(v)) for d, v in paper.ledger.curve]) if paper.ledger.curve else None
    return mine, {b.name: score(start, [(d, float(v)) for d, v in b.curve]) for b in paper.benchmarks if b.curve}


paper_figures = figures  # the public face's name for it (graph/__init__.pyi)


def _say(language: str, key: str, **fields: object) -> str:
    return phrase(language, f"paper.{key}", **fields)


def _day(iso: str) -> str:
    return datetime.fromisoformat(iso).astimezone(NEW_YORK).date().isoformat()


def _price(value: Decimal) -> str:
    return f"{value.normalize():f}" if value == value.to_integral_value() else f"{value:f}".rstrip("0")


def _pct(value: float | None, language: str) -> str:
    return f"{value * 100:+.2f} %" if value is not None else _say(language, "na")


def heading(book: PaperBook, language: str = DEFAULT_LANGUAGE) -> str:
    fields = dict(since=_day(book.since), amount=money(book.start_amount), cost=book.cost_bps)
    if book.following:
        return _say(language, "following", **fields)
    return _say(language, "stopped_on", stopped=_day(book.stopped), **fields)


paper_heading = heading  # the public face's name for it (graph/__init__.pyi)


def expected_end(p: Position) -> date:
    """The horizon's last session on the listing's own exchange calendar, before the data has reached it."""
    return due_date(date.fromisoformat(p.order.decided), sessions(p.order.horizon), p.ticker)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= RATIONALE_CHARS else text[:RATIONALE_CHARS - 1].rstrip() + "…"


def position_line(p: Position, language: str) -> str:
    key = "position_units" if fractional(p.ticker) else "position"  # a coin is not counted in shares
    return _say(language, key, ticker=p.ticker, side=_say(language, "long" if p.side > 0 else "short"),
                shares=shares(p.shares), price=_price(p.price), filled=p.filled.isoformat(),
                stop=_price(p.stop) if p.stop is not None else _say(language, "no_stop"),
                ends=(p.ends or expected_end(p)).isoformat(),
                value=money(p.value), mark=_price(p.mark))


def unfilled_reason(u: Unfilled, language: str, prefix: str) -> str:
    fields = dict(u.fields)
    key = fields.pop("key", "")
    try:
        return _say(language, f"{prefix}{key}", **fields)
    except KeyError:
        return u.reason


def _as_is(thread_id: str) -> str:
    return thread_id


def order_line(u: Unfilled, reason: str, language: str, link: Link = _as_is) -> str:
    o = u.order
    return _say(language, "order", ticker=o.ticker, signal=o.signal, size=o.position_size or "n/a",
                decided=o.decided, thread=link(o.thread_id), reason=reason)


def trade_line(t: Trade, signal: str, language: str, link: Link = _as_is) -> str:
    if t.why == "call":
        why = (_say(language, "why_call_reason", signal=signal, rationale=_short(t.rationale)) if t.rationale.strip()
               else _say(language, "why_call", signal=signal))
    else:
        why = _say(language, f"why_{t.why}")
    key = "trade_units" if fractional(t.ticker) else "trade"
    return _say(language, key, date=t.day.isoformat(), action=_say(language, f"action_{t.action}"),
                shares=shares(t.shares), ticker=t.ticker, price=_price(t.price), amount=money(t.amount),
                fee=money(t.fee), cash=money(t.cash_after), why=why, thread=link(t.thread_id))


def _section(title: str, lines: Sequence[str], language: str) -> list[str]:
    return [title, *(lines or [f"- {_say(language, 'nothing')}"])]


def _row(language: str, key: str, m: Scored, **fields: object) -> str:
    return _say(language, key, cr=_pct(m.cumulative_return, language), arr=_pct(m.annualized_return, language),
                sharpe=f"{m.sharpe:.2f}" if m.sharpe is not None else _say(language, "na"),
                mdd=f"{m.max_drawdown * 100:.2f} %" if m.max_drawdown is not None else _say(language, "na"), **fields)


def joined(names: Sequence[str], language: str) -> str:
    """Tickers in a list as the language writes one ("SPY, BTC-USD"; "SPY、BTC-USD")."""
    return _say(language, "tickers_joiner").join(names)


def alpha_of(mine: Scored, benchmark: Scored) -> float | None:
    """The book's cumulative return less the benchmark's, over the same sessions."""
    if mine.cumulative_return is None or benchmark.cumulative_return is None:
        return None
    return mine.cumulative_return - benchmark.cumulative_return


def metrics_lines(paper: Paper, mine: Scored | None, benchmarks: Mapping[str, Scored | None],
                  language: str) -> list[str]:
    """Table 1's figures of the book, then of each class benchmark (`benchmarks`, by name) with the book's alpha
    over it; the currency pairs, which have none, said so."""
    if mine is None or not mine.days:
        return [_say(language, "metrics_none")]
    lines = [_say(language, "metrics", since=_day(paper.book.since), days=mine.days),
             _row(language, "metrics_row", mine, name=_say(language, "paper_name"))]
    for b in paper.benchmarks:
        if (m := benchmarks.get(b.name)) is None:
            continue
        alpha = alpha_of(mine, m)
        lines.append(_row(language, "metrics_benchmark_row" if b.measures else "metrics_default_row", m, name=b.name,
                          of=joined(b.measures, language), alpha=_pct(alpha, language)))
    if paper.unbenchmarked:
        lines.append(_say(language, "no_benchmark", tickers=joined(paper.unbenchmarked, language)))
    return lines


def calibration_lines(c: Calibration, language: str) -> list[str]:
    lines = [_say(language, "calibration")]
    if c.brier is None:
        lines.append(_say(language, "calibration_none"))
    else:
        lines += [_say(language, "bucket", bucket=b.label, right=b.right, calls=b.calls,
                       hit=f"{b.hit_rate * 100:.0f} %" if b.hit_rate is not None else _say(language, "na"),
                       mean=f"{b.mean_confidence:.2f}" if b.mean_confidence is not None else _say(language, "na"))
                  for b in c.buckets if b.calls]
        lines.append(_say(language, "brier", brier=f"{c.brier:.4f}", n=c.scored))
    if c.without_confidence:
        lines.append(_say(language, "without_confidence", n=c.without_confidence))
    if c.sides:
        line = phrase(language, "track.sides_joiner").join(
            phrase(language, "track.side_first" if i == 0 else "track.side", persona=persona_label(p, language),
                   right=right, of=of) for i, (p, (right, of)) in enumerate(c.sides.items()))
        lines.append(_say(language, "personas", line=line))
    else:
        lines.append(_say(language, "personas_none"))
    return lines


def _when(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone(NEW_YORK).date().isoformat()
    except ValueError:
        return iso


def broker_lines(paper: Paper, language: str) -> list[str]:
    """The book's orders as mirrored to Alpaca's paper account, each fill beside the book's own."""
    fills = {t.call_id: t for t in paper.ledger.trades if t.why == "call"}
    lines = [_say(language, "broker_title")]
    for s in paper.mirrored:
        side = _say(language, "action_buy" if s.side == "buy" else "action_short") if s.side else ""
        fields = dict(ticker=s.ticker, side=side, qty=s.qty)
        if s.not_sent:
            lines.append(_say(language, f"broker_{s.not_sent}", why=s.refusal, **fields))
        elif s.filled_price and s.status in ("filled", "partially_filled"):
            book = fills.get(s.call_id)
            lines.append(_say(language, "broker_filled", filled=s.filled_qty, price=s.filled_price,
                              date=_when(s.filled_at), book=f"{_price(book.price)} ({shares(book.shares)})" if book
                              else _say(language, "broker_book_none"), **fields))
        else:
            lines.append(_say(language, "broker_open", client=s.client_id, status=s.status, **fields))
    return lines


def paper_answer(paper: Paper, mine: Scored | None, benchmarks: Mapping[str, Scored | None], calibration: Calibration,
                 language: str = DEFAULT_LANGUAGE, link: Link = _as_is) -> str:
    """Everything the user sees of the paper book, as Markdown-ish text (one block per part); each thread id as
    `link` makes it (the chat's: a link to the thread); `benchmarks` Table 1's figures of each class benchmark (by
    name, as `paper.benchmarks` lists them)."""
    ledger = paper.ledger
    book = paper.book
    signals = {o.call_id: o.signal for o in book.orders}
    blocks = [[_say(language, "title"), heading(book, language), _say(language, "rules")]]
    if ledger.curve:
        blocks[0].append(_say(language, "as_of", date=ledger.curve[-1][0].isoformat(), cash=money(ledger.cash),
                              equity=money(ledger.equity)))
    else:
        blocks[0].append(_say(language, "not_yet", since=_day(book.since)))
    blocks.append(_section(_say(language, "positions"), [position_line(p, language) for p in ledger.positions],
                           language))
    blocks.append(_section(_say(language, "orders"), [
        order_line(u, unfilled_reason(u, language, "order_"), language, link) for u in ledger.waiting], language))
    if ledger.skipped:
        blocks.append([_say(language, "skipped_title"), *(
            order_line(u, unfilled_reason(u, language, "skipped_"), language, link) for u in ledger.skipped)])
    blocks.append(_section(_say(language, "trades"), [trade_line(t, signals.get(t.call_id, ""), language, link)
                                                      for t in ledger.trades], language))
    notes = [_say(language, "problem", ticker=ticker) for ticker, _ in paper.problems]
    if ledger.gaps:
        notes.append(_say(language, "gaps", days=", ".join(f"{d.isoformat()} ({t})" for d, t in ledger.gaps)))
    if notes:
        blocks.append(notes)
    if paper.mirrored:
        blocks.append(broker_lines(paper, language))
    blocks.append(metrics_lines(paper, mine, benchmarks, language))
    blocks.append(calibration_lines(calibration, language))
    return "\n\n".join("\n".join(b) for b in blocks)


paper_tickers = joined  # the public face's name for it (graph/__init__.pyi)
