"""The daily positions and returns as CSV text: one row per strategy, ticker and trading day.

Numbers are written in full (``repr`` of the float), so a spreadsheet can redo every figure; a value the
simulation does not have (a gap's close, an uncounted day's return and equity) is an empty cell, never 0.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from graph.backtest.simulate import Simulation

HEADER: tuple[str, ...] = (
    "ticker", "strategy", "date", "close", "signal", "position", "change", "cost", "return", "equity", "note",
)


def _cell(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def daily_csv(simulations: Mapping[tuple[str, str], Simulation]) -> str:
    """CSV of ``simulations[(ticker, strategy)]``, in the mapping's order. ``equity`` is the growth of 1
    over the counted days so far (empty on a day that is not counted)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for (ticker, strategy), simulation in simulations.items():
        equity = 1.0
        for day in simulation.days:
            value: float | None = None
            if day.ret is not None:
                equity *= 1.0 + day.ret
                value = equity
            writer.writerow([
                ticker, strategy, day.day, _cell(day.close), day.signal or "", _cell(day.position),
                _cell(day.change), _cell(day.cost), _cell(day.ret), _cell(value), day.note or "",
            ])
    return out.getvalue()
