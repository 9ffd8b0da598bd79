"""Options positioning, only for today (issue 38, point 3): implied volatility, the put/call ratio and open
interest near the money, from the vendor's option chain (yfinance's ``Ticker.option_chain`` shape).

Chains are not historical: no source keeps yesterday's open interest or implied volatility, so the tool
answers only when the trade date is the listing's current session (the last one on or before today); for a
past trade date it says why it has nothing, without asking the vendor. The Social Analyst reads it:
positioning is the crowd's, in money rather than posts.

Near the money is strikes within ``NEAR_MONEY`` of the underlying's price; the at-the-money implied
volatility is the mean of the call's and the put's at the strike nearest that price.
"""
from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pandas as pd
from langchain_core.tools import BaseTool

from ..core import clock
from ..core.assets import AssetClass, market_of
from ..core.trading_days import last_trading_day
from ..data.vendor import OptionChain, Vendor, asset_class_of, finite
from .args import NoArgs
from .cutoff import cut_prices
from .formatting import r2, whole
from .guarded import Figures, NoData, call_vendor, guarded_tool, optional

TOOL = "get_options_positioning"
NEAR_MONEY = 0.10
_LISTED = (AssetClass.EQUITY, AssetClass.FUND, AssetClass.INDEX)


def current_session(ticker: str, today: date) -> date:
    """The listing's session a chain quoted now belongs to: the last one on or before today."""
    return last_trading_day(today, market_of(ticker))


def _near(frame: pd.DataFrame, spot: float) -> pd.DataFrame:
    return frame[(frame["strike"] - spot).abs() <= NEAR_MONEY * spot]


def positioning(chain: OptionChain, spot: float) -> Figures:
    """The figures of one chain at the underlying's price ``spot``."""
    calls, puts = _near(chain.calls, spot), _near(chain.puts, spot)
    call_oi, put_oi = finite(calls["openInterest"].sum()), finite(puts["openInterest"].sum())
    call_volume, put_volume = finite(calls["volume"].sum()), finite(puts["volume"].sum())
    ivs = []
    for side in (chain.calls, chain.puts):
        if not side.empty:
            at = side.iloc[(side["strike"] - spot).abs().argsort()[:1]]
            ivs += [v for v in (finite(at["impliedVolatility"].iloc[0]),) if v is not None and v > 0]
    return {
        "Options Expiry": chain.expiry.isoformat(),
        "Call OI Near Money": whole(call_oi),
        "Put OI Near Money": whole(put_oi),
        "Put/Call OI Ratio": r2(put_oi / call_oi) if call_oi and put_oi is not None else None,
        "Put/Call Volume Ratio": r2(put_volume / call_volume) if call_volume and put_volume is not None else None,
        "ATM Implied Vol %": r2(100 * sum(ivs) / len(ivs)) if ivs else None,
    }


def option_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    async def chain_figures() -> tuple[str, Figures, list[str], dict[str, Any]]:
        session = current_session(ticker, clock.today())
        if as_of < session:
            text = (f"No options positioning for {as_of}: option chains are not historical (a vendor quotes "
                    "today's session only), so there is none for a past trade date.")
            return text, {}, [], {"chain": None, "not_today": True}
        kind = await call_vendor(asset_class_of, vendor, ticker)
        if kind not in _LISTED:
            raise NoData(f"{ticker} has no listed options ({kind.value})")
        fetch = getattr(vendor, "option_chain", None)
        if fetch is None:  # a vendor written before option chains
            raise NoData(f"no option chains from {vendor.label}")
        chain: OptionChain | None = await call_vendor(fetch, ticker, as_of)
        if chain is None or (chain.calls.empty and chain.puts.empty):
            raise NoData(f"{ticker} has no listed options at {vendor.label}")
        spot = chain.underlying
        if spot is None:
            bars = cut_prices(await optional(vendor.ohlcv, ticker, as_of - timedelta(days=10), as_of), as_of)
            spot = float(bars["close"].iloc[-1]) if len(bars) else None
        if not spot:
            raise NoData(f"no price for {ticker} to place the money")
        figures = positioning(chain, spot)
        days = (chain.expiry - as_of).days
        low, high = spot * (1 - NEAR_MONEY), spot * (1 + NEAR_MONEY)
        text = (f"{ticker} options expiring {chain.expiry} ({days} days), quoted {chain.quoted}, underlying "
                f"{spot:.2f}. Strikes {low:.2f} to {high:.2f} (within {NEAR_MONEY:.0%} of the money): call open "
                f"interest {figures['Call OI Near Money']}, put open interest {figures['Put OI Near Money']}, "
                f"put/call open interest ratio {figures['Put/Call OI Ratio']}, put/call volume ratio "
                f"{figures['Put/Call Volume Ratio']}; at-the-money implied volatility {figures['ATM Implied Vol %']}%.")
        return text, figures, [], {"chain": {"expiry": chain.expiry.isoformat(), "underlying": spot}}

    return [guarded_tool(
        TOOL,
        f"Options positioning of {ticker} (implied volatility, put/call ratio, open interest near the money); "
        "chains are today's only.",
        NoArgs, vendor, as_of, chain_figures,
    )]
