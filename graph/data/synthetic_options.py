"""The synthetic vendor's option chain (issue 38, point 3): one expiry, the first Friday at least a week after
the day asked, strikes around that day's close, in yfinance's ``Ticker.option_chain`` shape.

Deterministic (SHA-256 draws from the symbol and the day): open interest peaks at the money, puts against
calls by a ratio drawn per day, implied volatility the company's own volatility with a smile and a put skew.
Equities, funds and indices have listed options; a coin, a pair or a future has none here (None).
"""
from __future__ import annotations

from datetime import date, timedelta

import pandas as pd

from graph.core.assets import AssetClass
from graph.data.synthetic_company import _between, _traits, _unit
from graph.data.synthetic_prices import _close_series
from graph.data.vendor import OptionChain

SOURCE = "synthetic"
_LISTED = (AssetClass.EQUITY, AssetClass.FUND, AssetClass.INDEX)


def _expiry(day: date) -> date:
    week_on = day + timedelta(days=7)
    return week_on + timedelta(days=(4 - week_on.weekday()) % 7)


def _step(price: float) -> float:
    return 1.0 if price < 50 else 2.5 if price < 200 else 5.0 if price < 1000 else 25.0


def chain(symbol: str, kind: AssetClass, day: date) -> OptionChain | None:
    """The chain as quoted at ``day``'s close; None for an instrument without listed options."""
    if kind not in _LISTED:
        return None
    closes = _close_series(symbol).loc[: pd.Timestamp(day)]
    if closes.empty:
        return None
    spot = float(closes.iloc[-1])
    step = _step(spot)
    vol = _traits(symbol).base_vol if kind is AssetClass.EQUITY else _between(0.12, 0.22, symbol, "index-vol")
    vol *= _between(0.85, 1.25, symbol, "iv-day", day)
    tilt = _between(0.55, 1.5, symbol, "put-call", day)  # puts held per call near the money, today
    strikes = [round(spot / step) * step + k * step for k in range(-12, 13)]
    rows: dict[str, list[dict[str, float]]] = {"calls": [], "puts": []}
    for strike in (s for s in strikes if s > 0):
        moneyness = strike / spot - 1
        crowd = 4000 * pow(2.718281828, -((moneyness / 0.08) ** 2)) + 150
        for side, lean in (("calls", 1.0), ("puts", tilt)):
            draw = _unit(symbol, side, strike, day)
            skew = 0.25 * max(0.0, -moneyness) if side == "puts" else 0.0
            interest = round(crowd * lean * (0.6 + 0.8 * draw))
            rows[side].append({"strike": strike, "openInterest": interest,
                               "volume": round(interest * (0.05 + 0.35 * _unit(symbol, side, "vol", strike, day))),
                               "impliedVolatility": round(vol * (1 + 1.5 * moneyness ** 2) + skew, 4)})
    return OptionChain(_expiry(day), pd.DataFrame(rows["calls"]), pd.DataFrame(rows["puts"]), round(spot, 4), day,
                       SOURCE)
