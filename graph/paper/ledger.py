"""The paper book worked out, session by session, from its orders and the vendor's daily prices.

**The rules** (what the user is told, prompts/words_<code>.md [paper] rules_*):

* **When an order fills.** A BUY or SELL decided on day D fills at the **open of the first session after D**
  for its ticker: never at D's open or close, nor any price before. A session of the book's calendar (any
  day one of its tickers or its benchmark has a row) on which the ticker has no open is a gap: the order
  waits, and says so; no price is filled in.
* **Size.** The ruling's size is a percent of the book's value at that open (cash plus each open position
  at its open that session, or its last close when it has none): quantity = value × % / (open × multiplier)
  rounded down in the units of the ticker's class, as the user's book is sized (graph/book/sizing.py's
  in_units): whole shares, a coin to 8 decimals (0.00000001 BTC), a currency pair to 2 decimals of its base
  currency, a future in whole contracts of its multiplier (its notional counted; a future whose multiplier is
  unknown is not traded); a BUY is capped at what the cash covers with its cost, in the same units. A HOLD, a
  size without a percent, or a size that comes to 0 units is not traded, and says why.
* **Sides.** BUY opens a long position, SELL a short one (its proceeds credited to the cash; no margin limit
  is modelled). One position per ticker: a new BUY or SELL on a ticker with an open position first closes it
  at the same open ("replaced by a newer call"), then opens its own.
* **Cost.** cost_bps basis points of each fill's amount, on every fill (opening and closing), in cents
  rounded half-up. Prices are kept to 4 decimals; amounts (shares × price) and cash are in cents, half-up.
* **Stops**, on the daily bars: a long is closed when a session's low reaches its stop, at the stop; when the
  session **opens** at or through the stop (a gap), at that open, the worse price, which is what a stop
  order gets. A short mirrors it with the high. A stop on the wrong side of the fill price (at or above it for
  a long) is no stop and is not used, said so. The fill session's own open cannot gap through it.
* **Horizon.** A position still open is closed at the **close of the last session of its horizon**: the
  n-th session of its ticker after D, n read from the ruling's horizon as the track record scores a call's
  window (graph/track/horizon.py: the same end as the call's settle date). An order still unfilled when
  that session has passed expires.
* **Marks.** The equity curve is the book's value at each session's close (positions at their close; a short
  counts negative). A session on which an open position has no close is a gap in the curve, listed, not a
  point made up; unless its own market had no session that day (a Saturday, when the book also holds a coin;
  graph/core/trading_days.py on its listing's calendar): its last close is its value then, as it is a
  broker's. An order waiting through such a day is not waiting through a gap either.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from ..book.holdings import CENT
from ..book.sizing import fractional, in_units, multiplier, percent_of
from ..core.assets import market_of
from ..core.trading_days import is_trading_day
from ..track.horizon import sessions as horizon_sessions
from ..track.settle import price_in
from .book import Order, PaperBook

PRICE = Decimal("0.0001")
BPS = Decimal(10_000)
Action = Literal["buy", "sell", "short", "cover"]
Why = Literal["call", "stop", "stop_gap", "horizon", "replaced"]


@dataclass(frozen=True)
class Bar:
    """One session of one ticker; None where the vendor gave no finite number."""

    open: Decimal | None
    high: Decimal | None
    low: Decimal | None
    close: Decimal | None


Bars = Mapping[str, Mapping[date, Bar]]


@dataclass(frozen=True)
class Trade:
    day: date
    ticker: str
    action: Action
    shares: Decimal
    price: Decimal
    amount: Decimal       # shares × price, in cents
    fee: Decimal          # amount × cost_bps / 10,000, in cents
    cash_after: Decimal
    why: Why
    call_id: str
    thread_id: str
    rationale: str = ""


@dataclass
class Position:
    order: Order
    side: int             # +1 long, -1 short
    shares: Decimal
    price: Decimal        # the fill price
    filled: date
    stop: Decimal | None
    ends: date | None     # the horizon's last session, once the data has it
    mark: Decimal         # the last price seen (the fill, then each close)
    note: str = ""        # why the ruling's stop is not used, when it is not
    unit: Decimal = Decimal(1)  # a future's contract multiplier (its notional per point of price), else 1

    @property
    def ticker(self) -> str:
        return self.order.ticker

    @property
    def value(self) -> Decimal:
        return _cents(self.side * self.shares * self.mark * self.unit)


@dataclass(frozen=True)
class Unfilled:
    order: Order
    reason: str           # English; words.py says it in the reader's language
    fields: tuple[tuple[str, str], ...] = ()


@dataclass
class Ledger:
    book: PaperBook
    cash: Decimal
    positions: list[Position] = field(default_factory=list)
    waiting: list[Unfilled] = field(default_factory=list)     # open orders and why they wait
    skipped: list[Unfilled] = field(default_factory=list)     # orders not traded, and why
    trades: list[Trade] = field(default_factory=list)
    curve: list[tuple[date, Decimal]] = field(default_factory=list)
    gaps: list[tuple[date, str]] = field(default_factory=list)  # sessions off the curve, and the ticker why
    as_of: date | None = None

    @property
    def equity(self) -> Decimal:
        return self.curve[-1][1] if self.curve else self.book.start_amount


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def price_of(value: Decimal | float | None) -> Decimal | None:
    """A vendor's number as a price kept to 4 decimals; None for none."""
    if value is None:
        return None
    return Decimal(repr(value) if isinstance(value, float) else value).quantize(PRICE, rounding=ROUND_HALF_UP)


def trades_on(ticker: str, day: date) -> bool:
    """Whether the ticker's own market has a session on `day` (a coin every day, a US stock not on a Saturday)."""
    return is_trading_day(day, market_of(ticker))


def horizon_end(order: Order, rows: Mapping[date, Bar]) -> date | None:
    """The n-th session of the ticker after the decision's day (None while the data has fewer)."""
    after = sorted(d for d in rows if d > date.fromisoformat(order.decided))
    n = horizon_sessions(order.horizon)
    return after[n - 1] if len(after) >= n else None


class _Run:
    def __init__(self, book: PaperBook, bars: Bars, last: date):
        self.book, self.bars, self.last = book, bars, last
        self.ledger = Ledger(book=book, cash=book.start_amount)
        self.open: dict[str, Position] = {}
        self.marks: dict[str, Decimal] = {}
        self.pending: list[Order] = []
        for order in sorted(book.orders, key=lambda o: (o.recorded_at, o.call_id)):
            if order.signal == "HOLD":
                self._skip(order, "a HOLD: nothing to trade", "hold")
            elif (pct := percent_of(order.position_size)) is None:
                self._skip(order, f"its size {order.position_size!r} gives no percent", "no_size",
                           size=order.position_size or "n/a")
            elif pct <= 0:
                self._skip(order, "its size is 0 %", "zero_size")
            else:
                self.pending.append(order)

    def _skip(self, order: Order, reason: str, key: str, **fields: str) -> None:
        self.ledger.skipped.append(Unfilled(order, reason, (("key", key), *fields.items())))

    # -- one session -----------------------------------------------------------

    def session(self, day: date) -> None:
        for order in list(self.pending):
            if day > date.fromisoformat(order.decided):
                self._try_fill(order, day)
        for position in list(self.open.values()):
            self._watch(position, day)
        self._mark(day)

    def _try_fill(self, order: Order, day: date) -> None:
        rows = self.bars.get(order.ticker, {})
        end = horizon_end(order, rows)
        if end is not None and end < day:
            self.pending.remove(order)
            self._skip(order, f"its horizon ended on {end.isoformat()} before it could fill", "expired",
                       date=end.isoformat())
            return
        bar = rows.get(day)
        if bar is None or bar.open is None:
            return  # a gap: it waits (said at the end)
        self.pending.remove(order)
        if (held := self.open.get(order.ticker)) is not None:
            self._close(held, day, bar.open, "replaced", by=order)
        self._open(order, day, bar.open, end)

    def _value_at_open(self, day: date) -> Decimal:
        total = self.ledger.cash
        for p in self.open.values():
            bar = self.bars.get(p.ticker, {}).get(day)
            price = bar.open if bar is not None and bar.open is not None else p.mark
            total += p.side * p.shares * price * p.unit
        return total

    def _open(self, order: Order, day: date, price: Decimal, end: date | None) -> None:
        value = self._value_at_open(day)
        pct = percent_of(order.position_size) or Decimal(0)
        side = 1 if order.signal == "BUY" else -1
        if (unit := multiplier(order.ticker)) is None:
            self._skip(order, f"the contract multiplier of {order.ticker} is unknown, so its notional is too",
                       "no_multiplier", ticker=order.ticker)
            return
        count = in_units(order.ticker, value * pct / 100 / (price * unit)) if value > 0 else Decimal(0)
        if side > 0:
            per_unit = price * unit * (1 + self.book.cost / BPS)
            count = min(count, in_units(order.ticker, max(self.ledger.cash, Decimal(0)) / per_unit))
        if count <= 0:
            if unit != 1:
                self._skip(order, f"{pct.normalize():f} % of the book's value buys no whole contract at {price} "
                           f"(notional {price * unit:f} a contract)", "no_contract", pct=f"{pct.normalize():f}",
                           price=f"{price.normalize():f}", notional=f"{(price * unit).normalize():f}")
                return
            units = "no_units" if fractional(order.ticker) else "no_shares"
            self._skip(order, f"{pct.normalize():f} % of the book's value buys "
                       f"{'not even the smallest unit' if units == 'no_units' else 'no whole share'} at {price}",
                       units, pct=f"{pct.normalize():f}", price=f"{price.normalize():f}")
            return
        stop, note = price_in(order.stop), ""
        stop_d = price_of(stop) if stop is not None else None
        if stop_d is not None and ((side > 0 and stop_d >= price) or (side < 0 and stop_d <= price)):
            note, stop_d = f"stop {stop_d.normalize():f} is on the wrong side of the fill: not used", None
        position = Position(order, side, count, price, day, stop_d, end, price, note, unit)
        self._trade(position, day, price, "buy" if side > 0 else "short", "call")
        self.open[order.ticker] = position

    def _trade(self, p: Position, day: date, price: Decimal, action: Action, why: Why,
               by: Order | None = None) -> None:
        amount = _cents(p.shares * price * p.unit)
        fee = _cents(amount * self.book.cost / BPS)
        paying = action in ("buy", "cover")
        self.ledger.cash = _cents(self.ledger.cash - amount - fee if paying else self.ledger.cash + amount - fee)
        order = by or p.order
        self.ledger.trades.append(Trade(day, p.ticker, action, p.shares, price, amount, fee, self.ledger.cash, why,
                                        order.call_id, order.thread_id, order.rationale if why == "call" else ""))

    def _close(self, p: Position, day: date, price: Decimal, why: Why, by: Order | None = None) -> None:
        self._trade(p, day, price, "sell" if p.side > 0 else "cover", why, by)
        del self.open[p.ticker]

    def _watch(self, p: Position, day: date) -> None:
        bar = self.bars.get(p.ticker, {}).get(day)
        if bar is None:
            return
        if p.ends is None:
            p.ends = horizon_end(p.order, self.bars.get(p.ticker, {}))
        if p.stop is not None:
            crossed = bar.open is not None and day > p.filled and (
                bar.open <= p.stop if p.side > 0 else bar.open >= p.stop)
            if crossed and bar.open is not None:
                self._close(p, day, bar.open, "stop_gap")
                return
            touched = bar.low if p.side > 0 else bar.high
            if touched is not None and (touched <= p.stop if p.side > 0 else touched >= p.stop):
                self._close(p, day, p.stop, "stop")
                return
        if p.ends is not None and day >= p.ends and bar.close is not None:
            self._close(p, day, bar.close, "horizon")

    def _mark(self, day: date) -> None:
        missing = []
        for p in self.open.values():
            bar = self.bars.get(p.ticker, {}).get(day)
            if bar is not None and bar.close is not None:
                p.mark = bar.close
            elif trades_on(p.ticker, day):
                missing.append(p.ticker)
        if missing:
            self.ledger.gaps.append((day, ", ".join(sorted(missing))))
            return
        self.ledger.curve.append((day, _cents(self.ledger.cash + sum(
            (p.side * p.shares * p.mark * p.unit for p in self.open.values()), Decimal(0)))))

    # -- the end -------------------------------------------------------------

    def finish(self, calendar: Sequence[date]) -> Ledger:
        for order in self.pending:
            decided = date.fromisoformat(order.decided)
            rows = self.bars.get(order.ticker, {})
            missed = next((d for d in calendar if d > decided and trades_on(order.ticker, d)
                           and (rows.get(d) is None or rows[d].open is None)), None)
            if missed is not None:
                reason = f"no open for {order.ticker} on {missed.isoformat()}: waits for the next one"
                fields = (("key", "gap"), ("date", missed.isoformat()))
            else:
                reason = f"waits for the open of the first session after {decided.isoformat()}"
                fields = (("key", "next_open"), ("date", decided.isoformat()))
            self.ledger.waiting.append(Unfilled(order, reason, fields))
        self.ledger.positions = sorted(self.open.values(), key=lambda p: (p.filled, p.ticker))
        self.ledger.as_of = self.last
        return self.ledger


def calendar_of(book: PaperBook, bars: Bars, last: date) -> list[date]:
    """The book's sessions: every day after it began, up to `last`, on which any of its series has a row."""
    since = book.since_date
    return sorted({d for rows in bars.values() for d in rows if since < d <= last})


def replay(book: PaperBook, bars: Bars, last: date) -> Ledger:
    """The book as of the close of `last` (see the module's rules). `bars` must hold no row after `last`
    that matters: rows after it are ignored."""
    bars = {ticker: {d: bar for d, bar in rows.items() if d <= last} for ticker, rows in bars.items()}
    run = _Run(book, bars, last)
    calendar = calendar_of(book, bars, last)
    for day in calendar:
        run.session(day)
    return run.finish(calendar)
