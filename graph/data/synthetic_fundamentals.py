"""Synthetic quarterly statements: each quarter's lines follow the price path (revenue the
quarter's average price, margins the year-on-year move), filed 30-45 days after the quarter
ends. See :mod:`graph.data.synthetic`."""
from __future__ import annotations

import math
from datetime import date
from functools import lru_cache

import numpy as np
import pandas as pd

from graph.core import clock
from graph.data.synthetic_company import _traits, _unit
from graph.data.synthetic_prices import _GENERATING, SERIES_START, _clip_end, _daily_path

# --------------------------------------------------------------------------
# Quarterly fundamentals
# --------------------------------------------------------------------------

_INCOME_ROWS = ("Total Revenue", "Gross Profit", "Operating Income", "Net Income", "Diluted EPS")
_BALANCE_ROWS = (
    "Total Assets",
    "Total Liabilities Net Minority Interest",
    "Stockholders Equity",
    "Total Debt",
    "Cash And Cash Equivalents",
)
_CASHFLOW_ROWS = ("Operating Cash Flow", "Capital Expenditure", "Free Cash Flow")
_ROWS_BY_KIND: dict[str, tuple[str, ...]] = {
    "income": _INCOME_ROWS,
    "balance": _BALANCE_ROWS,
    "cashflow": _CASHFLOW_ROWS,
}
STATEMENT_QUARTERS = 8  # how many filed quarters a statements() call returns


def _quarter_figures(symbol: str, period_end: pd.Timestamp, avg_price: float, avg_year_ago: float) -> dict[str, float]:
    """One quarter's statement lines, driven by the price path.

    Revenue follows the quarter's average price (damped) and margins follow
    the year-on-year price move, so fundamentals tell the same story as the
    chart instead of contradicting it.
    """
    t = _traits(symbol)
    yoy = math.log(avg_price / avg_year_ago)

    revenue = t.annual_revenue0 / 4 * (avg_price / t.start_price) ** 0.7
    revenue *= 1 + 0.04 * math.sin(period_end.quarter * math.pi / 2)  # seasonality
    revenue *= math.exp(0.03 * (_unit(symbol, "rev", period_end.date()) - 0.5))
    margin = t.base_margin + 0.12 * yoy + 0.04 * (_unit(symbol, "margin", period_end.date()) - 0.5)
    margin = min(max(margin, -0.40), 0.60)
    net_income = revenue * margin

    assets = 4 * revenue / t.asset_turnover
    equity = assets * t.equity_ratio
    capex = -revenue * t.capex_ratio
    operating_cf = net_income + revenue * (0.05 + 0.04 * (_unit(symbol, "ocf", period_end.date()) - 0.5))
    return {
        "Total Revenue": revenue,
        "Gross Profit": revenue * min(max(margin + t.gross_uplift, 0.05), 0.90),
        "Operating Income": revenue * (margin + 0.04),
        "Net Income": net_income,
        "Diluted EPS": net_income / t.shares,
        "Total Assets": assets,
        "Total Liabilities Net Minority Interest": assets - equity,
        "Stockholders Equity": equity,
        "Total Debt": equity * t.debt_to_equity,
        "Cash And Cash Equivalents": assets * 0.08,
        "Operating Cash Flow": operating_cf,
        "Capital Expenditure": capex,
        "Free Cash Flow": operating_cf + capex,
    }


@lru_cache(maxsize=128)
def _quarters(symbol: str, through_year: int) -> pd.DataFrame:
    """All quarters (rows) with every line item plus the filing date."""
    closes = _daily_path(symbol, through_year)["close"]
    days, prices = closes.index.values, closes.to_numpy(dtype=float)
    running = np.concatenate(([0.0], np.cumsum(prices)))  # window means by differences, not slices

    def mean(lo: int, hi: int) -> float:
        return (running[hi] - running[lo]) / (hi - lo) if hi > lo else float("nan")

    ends = pd.date_range(SERIES_START, date(through_year, 12, 31), freq="QE")
    rows = {}
    for period_end in ends:
        q_start = period_end - pd.DateOffset(months=3) + pd.Timedelta(days=1)
        lo = days.searchsorted(q_start.to_datetime64(), "left")
        hi = days.searchsorted(period_end.to_datetime64(), "right")
        avg_price = mean(lo, hi)
        year_end = days.searchsorted((period_end - pd.DateOffset(years=1)).to_datetime64(), "right")
        avg_year_ago = mean(max(0, year_end - 63), year_end) if year_end else avg_price
        figures = _quarter_figures(symbol, period_end, avg_price, avg_year_ago)
        # Companies file roughly 30-45 days after the quarter closes.
        lag = 30 + int(_unit(symbol, "filed", period_end.date()) * 16)
        figures["filed"] = period_end + pd.Timedelta(days=lag)
        rows[period_end] = figures
    return pd.DataFrame.from_dict(rows, orient="index")


def _filed_quarters(symbol: str, as_of: date) -> pd.DataFrame:
    with _GENERATING:
        quarters = _quarters(symbol, clock.today().year)
    return quarters[quarters["filed"] <= pd.Timestamp(_clip_end(as_of))]
