"""When a trade settles, by asset class (issue 37): the desk states it with a sizing (the card, the record).

* Equities and funds settle on their exchange's days: T+1 in New York (SEC rule 15c6-1 as amended, from
  2024-05-28) and on the mainland (A-shares: securities delivered T+1); T+2 in Hong Kong (HKEX CCASS), Tokyo
  (JPX, T+2 since 2019-07-16), Taiwan (TWSE) and any other exchange the desk does not know better.
* Crypto settles on the day (a spot trade on an exchange is delivered when it fills): T+0, every day.
* Spot currencies settle T+2 on the currency market's days (Monday to Friday), USD/CAD T+1 (the market's
  convention for the two North American currencies).
* Commodity futures settle each exchange day: the position is marked to the session's settlement price and
  the variation margin paid the same day (CME Clearing), so a future's "settlement" is T+0 on CME's days,
  then every session it is held.
* An index is not traded (its funds are): no settlement.

Days are counted in the market's sessions (graph/core/trading_days.py): T+1 on a Friday in New York is Monday,
T+1 before Thanksgiving is the Friday after it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from .assets import AssetClass, classify, market_of
from .trading_days import last_trading_day, next_trading_day

__all__ = ["Settlement", "settlement_of"]

# Equities and funds: sessions after the trade date, by the listing's market (assets.market_of).
_EXCHANGE_DAYS = {"US": 1, "CN": 1, "HK": 2, "JP": 2, "TW": 2}
_OTHER_EXCHANGE_DAYS = 2  # London, Frankfurt, Toronto's neighbours abroad … (T+2 where the desk knows no better)
_NEXT_DAY_PAIRS = frozenset({"USDCAD=X", "CADUSD=X", "CAD=X"})  # spot USD/CAD settles T+1


@dataclass(frozen=True)
class Settlement:
    """A trade's settlement: `days` sessions of `market` after the trade date; `daily` for a future (marked
    and margined every session it is held)."""

    asset_class: AssetClass
    days: int
    market: str
    daily: bool = False

    @property
    def rule(self) -> str:
        """"T+1", "T+0", "T+2"."""
        return f"T+{self.days}"

    def on(self, trade_day: date) -> date:
        """The day a trade made on `trade_day` settles: the trade's own session (the last on or before it)
        and `days` sessions after it."""
        day = last_trading_day(trade_day, self.market)
        for _ in range(self.days):
            day = next_trading_day(day, self.market)
        return day


def settlement_of(symbol: str, asset_class: AssetClass | str | None = None) -> Settlement | None:
    """How a trade in `symbol` settles; None for an index (not traded) or a class the desk refuses."""
    s = (symbol or "").strip().upper()
    kind = AssetClass(asset_class) if asset_class else classify(s)
    market = market_of(s, kind)
    if kind is AssetClass.CRYPTO:
        return Settlement(kind, 0, market)
    if kind is AssetClass.CURRENCY:
        return Settlement(kind, 1 if s in _NEXT_DAY_PAIRS else 2, market)
    if kind is AssetClass.FUTURE:
        return Settlement(kind, 0, market, daily=True)
    if kind in (AssetClass.EQUITY, AssetClass.FUND):
        return Settlement(kind, _EXCHANGE_DAYS.get(market, _OTHER_EXCHANGE_DAYS), market)
    return None
