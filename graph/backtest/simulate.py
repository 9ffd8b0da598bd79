"""From daily signals and closes to daily positions and strategy returns: the backtest's one simulation.

The rules (also on every result as ``Rules.describe()``, so the chat and the CLI print the very rules used):

- **Signals.** One per trading day at most: BUY, SELL or HOLD; a day without one is "no signal".
- **Positions** (the paper's rule, TradingAgents Table 1): BUY → long (+1), SELL → short (−1), HOLD or no
  signal → keep the position. The long-only variant reads SELL as "go flat" (0). Positions are whole units of
  the portfolio: +1 is fully long, −1 fully short; there is no sizing.
- **Timing.** A signal trades at the close of its own day, so the new position earns from that close to the
  next one, never the move that led to the signal (no look-ahead). The window starts flat.
- **Costs.** ``cost_bps`` basis points of the portfolio per unit of position change: going long from flat
  pays 1 × cost, flipping from long to short pays 2 × cost (and counts as one trade).
- **Returns.** Day *t*'s return is measured from the close before it to its own close:
  ``(1 + p[t-1] × (close[t] / close[t-1] − 1)) × (1 − cost × |p[t] − p[t-1]|) − 1``, so multiplying
  ``1 + return`` over the days gives the equity exactly. The first day of the window has no close before
  it in the window: it has no return, and the cost of a trade at its close is charged on the next counted day.
- **Gaps.** A trading day without a close is a gap, stated on the result and never filled: nothing can trade
  that day (its signal, if any, is listed as not executed), and neither it nor the day after it has a return,
  because the price move across the gap was never observed. The gap's move is left out of every metric rather
  than invented (forward-filled) or folded into one day's return. A cost paid at the close after a gap is
  charged on the next counted day, so costs are never dropped; only a cost with no counted day after it
  (a trade at the last close, right after a gap) is left unpaid, and the result says how much.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Literal, get_args

import pandas as pd

from graph.core.state import Signal
from graph.core.words import DEFAULT_LANGUAGE, phrase

Mode = Literal["long_short", "long_only"]
SIGNALS: frozenset[str] = frozenset(get_args(Signal))
BPS = 10_000.0  # basis points in one


@dataclass(frozen=True)
class Rules:
    """How signals become positions and what a trade costs; ``describe()`` words them for a reader."""

    mode: Mode = "long_short"
    cost_bps: float = 0.0

    def __post_init__(self) -> None:
        if self.mode not in get_args(Mode):
            raise ValueError(f"mode must be one of {get_args(Mode)}, not {self.mode!r}")
        if not math.isfinite(self.cost_bps) or self.cost_bps < 0:
            raise ValueError(f"cost_bps must be a finite number ≥ 0, not {self.cost_bps!r}")

    def target(self, signal: Signal | None, held: float) -> float:
        """The position after a day's close, given its signal and the position held into it."""
        if signal == "BUY":
            return 1.0
        if signal == "SELL":
            return -1.0 if self.mode == "long_short" else 0.0
        return held  # HOLD and no signal keep the position

    def describe(self, language: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
        """The rules in words, one line each, in `language` (prompts/words_<language>.md, `[backtest] rules_…`)."""
        say = lambda key, **f: phrase(language, "backtest.rules_" + key, **f)  # noqa: E731 - one line per rule
        sell = say("sell_short") if self.mode == "long_short" else say("sell_flat")
        return (say("positions", sell=sell), say("timing"), say("start"), say("cost", cost=f"{self.cost_bps:g}"),
                say("gap"))


@dataclass(frozen=True)
class Day:
    """One trading day of the window, as simulated."""

    day: str  # YYYY-MM-DD
    close: float | None  # None: a gap (no close that day)
    signal: Signal | None  # the day's signal; None: no signal
    position: float  # held after this day's close
    change: float  # position change at this close (0 when nothing traded)
    cost: float  # cost of that change, a fraction of the portfolio
    ret: float | None  # the strategy's return over the day, net of costs; None: not counted (see the rules)
    note: str | None = None  # why a day has no return or a signal did not trade


@dataclass(frozen=True)
class Simulation:
    """A strategy's daily positions and returns over a window, with the rules that produced them."""

    rules: Rules
    days: tuple[Day, ...]
    unpaid_cost: float = 0.0  # a cost with no counted day after it (see the module's "Gaps")

    @property
    def gaps(self) -> tuple[str, ...]:
        """The days without a close."""
        return tuple(d.day for d in self.days if d.close is None)

    @property
    def not_executed(self) -> tuple[str, ...]:
        """Days whose BUY or SELL could not trade (no close that day)."""
        return tuple(d.day for d in self.days if d.close is None and d.signal in ("BUY", "SELL"))

    @property
    def trades(self) -> int:
        """Days on which the position changed (a flip from long to short is one trade)."""
        return sum(1 for d in self.days if d.change != 0)

    @property
    def held_throughout(self) -> Day | None:
        """The window's first close, when the strategy traded there and never again: the position taken that day
        was held to the end. Long, those are buy-and-hold's very positions, so its figures are buy-and-hold's to
        the cent; short, each day's return is buy-and-hold's with the sign flipped. None otherwise."""
        first = next((d for d in self.days if d.close is not None), None)
        if first is None or first.change == 0 or any(d.change != 0 for d in self.days if d is not first):
            return None
        return first

    def returns(self) -> pd.Series:
        """The counted daily returns, indexed by date: what every metric reads."""
        counted = [d for d in self.days if d.ret is not None]
        return pd.Series(
            [d.ret for d in counted], index=pd.DatetimeIndex([d.day for d in counted]), dtype=float, name="return"
        )

    def held(self) -> pd.Series:
        """The position held *into* each counted day (the one that earned that day's return)."""
        previous: dict[str, float] = {}
        before = 0.0
        for d in self.days:
            previous[d.day] = before
            before = d.position
        counted = [d for d in self.days if d.ret is not None]
        return pd.Series(
            [previous[d.day] for d in counted], index=pd.DatetimeIndex([d.day for d in counted]), dtype=float
        )


def _day_key(value: object) -> str:
    return pd.Timestamp(value).date().isoformat()


def _close(value: object) -> float | None:
    number = float(value)  # type: ignore[arg-type]
    if math.isnan(number):
        return None
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"a close must be a positive number, not {value!r}")
    return number


def simulate(
    closes: pd.Series, signals: Mapping[str | date, Signal | None], rules: Rules | None = None
) -> Simulation:
    """Simulate ``signals`` over the trading days of ``closes`` (index: the window's trading days, in order;
    NaN: a gap). Signals on dates outside ``closes`` are ignored, so a strategy's signals over a longer
    history can be passed as they are. See the module docstring for every rule."""
    rules = rules or Rules()
    index = [_day_key(value) for value in closes.index]
    if index != sorted(set(index)):
        raise ValueError("closes must be indexed by distinct days in increasing order")
    wanted: dict[str, Signal | None] = {}
    for key, signal in signals.items():
        if signal is not None and signal not in SIGNALS:
            raise ValueError(f"unknown signal {signal!r} on {key}: expected one of {sorted(SIGNALS)} or None")
        wanted[_day_key(key)] = signal

    days: list[Day] = []
    held = 0.0  # the window starts flat
    previous_close: float | None = None  # the close of the day before, None at the start and after a gap
    pending = 1.0  # growth factor of costs paid on days without a return, charged on the next counted day
    for key, raw in zip(index, closes.to_numpy()):
        close = _close(raw)
        signal = wanted.get(key)
        if close is None:
            note = "no close: a gap"
            if signal in ("BUY", "SELL"):
                note += f"; the {signal} could not trade"
            days.append(Day(key, None, signal, held, 0.0, 0.0, None, note))
            previous_close = None
            continue
        position = rules.target(signal, held)
        change = position - held
        cost = abs(change) * rules.cost_bps / BPS
        if previous_close is None:
            # No observed move into this day: the first day of the window, or the first after a gap.
            pending *= 1.0 - cost
            first = not days
            note = "first day: no close before it in the window" if first else "after a gap: the move was not seen"
            days.append(Day(key, close, signal, position, change, cost, None, note))
        else:
            growth = (1.0 + held * (close / previous_close - 1.0)) * (1.0 - cost) * pending
            pending = 1.0
            days.append(Day(key, close, signal, position, change, cost, growth - 1.0))
        held = position
        previous_close = close
    return Simulation(rules, tuple(days), unpaid_cost=1.0 - pending)
