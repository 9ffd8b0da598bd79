"""What the synthetic vendor serves for instruments that are not companies (issue 37, point 5): a fund's
holdings, costs and premium to its NAV; a coin's supply and traded value; an index's level. No P/E, revenue,
margins or statements for any of them: a fund, a coin, an index, a currency pair and a future have none.
Everything is drawn from the symbol (SHA-256, as the rest of the synthetic vendor), fiction labelled so.
See :mod:`graph.data.synthetic`."""
from __future__ import annotations

from typing import Any, NamedTuple

from graph.core.assets import AssetClass
from graph.data.synthetic_company import _between, _unit

# The large companies a synthetic fund may hold (names as the desk knows them).
_HOLDABLE = (
    ("AAPL", "Apple Inc."), ("MSFT", "Microsoft Corporation"), ("NVDA", "NVIDIA Corporation"),
    ("AMZN", "Amazon.com, Inc."), ("GOOGL", "Alphabet Inc."), ("META", "Meta Platforms, Inc."),
    ("BRK-B", "Berkshire Hathaway Inc."), ("AVGO", "Broadcom Inc."), ("TSLA", "Tesla, Inc."),
    ("JPM", "JPMorgan Chase & Co."), ("LLY", "Eli Lilly and Company"), ("V", "Visa Inc."),
    ("XOM", "Exxon Mobil Corporation"), ("UNH", "UnitedHealth Group Incorporated"), ("MA", "Mastercard Inc."),
    ("COST", "Costco Wholesale Corporation"), ("HD", "The Home Depot, Inc."), ("PG", "Procter & Gamble Co."),
)
HOLDINGS_SHOWN = 10
# Coins whose supply is capped by their protocol.
_MAX_SUPPLY = {"BTC": 21_000_000.0, "LTC": 84_000_000.0}


def fund_facts(symbol: str, price: float, volume: float) -> dict[str, Any]:
    """A fund's profile: expense ratio, assets, NAV and its premium or discount, top holdings by weight."""
    order = sorted(_HOLDABLE, key=lambda held: _unit(symbol, "holding", held[0]))[:HOLDINGS_SHOWN]
    raw = [_between(1.0, 8.0, symbol, "weight", s) for s, _ in order]
    top = _between(0.35, 0.65, symbol, "concentration")  # the top ten's share of the fund
    weights = sorted((round(w / sum(raw) * top, 4) for w in raw), reverse=True)
    nav = price / (1 + _between(-0.003, 0.003, symbol, "premium"))
    return {
        "expense_ratio": round(_between(0.0003, 0.0075, symbol, "expense"), 4),
        "total_assets": round(10 ** _between(8.5, 11.7, symbol, "aum"), -6),
        "nav_price": round(nav, 2),
        "premium_discount": price / round(nav, 2) - 1,
        "fund_yield": round(_between(0.0, 0.025, symbol, "fund-yield"), 4),
        "category": "Large Blend",
        "fund_family": "Synthetic Funds",
        "holdings": [{"symbol": s, "name": n, "weight": w} for (s, n), w in zip(order, weights, strict=True)],
        "volume": volume,
    }


def crypto_facts(symbol: str, price: float, volume: float) -> dict[str, Any]:
    """A coin's market cap, circulating and maximum supply, and a day's traded value (in the quote currency)."""
    coin = symbol.split("-")[0]
    cap = _MAX_SUPPLY.get(coin)
    supply = round((cap or 10 ** _between(7.5, 11.0, symbol, "supply")) * _between(0.80, 0.97, symbol, "mined"))
    return {"circulating_supply": float(supply), "max_supply": cap, "market_cap": price * supply,
            "volume_24h": volume * price}


def index_facts(symbol: str, price: float) -> dict[str, Any]:
    """An index's level; no breadth (advancers and decliners) in the demo's data."""
    return {"level": price}


def class_facts(kind: AssetClass, symbol: str, price: float, volume: float) -> dict[str, Any]:
    """The profile keys of a class that is not a company's (vendor.py: Vendor.profile)."""
    if kind is AssetClass.FUND:
        return fund_facts(symbol, price, volume)
    if kind is AssetClass.CRYPTO:
        return crypto_facts(symbol, price, volume)
    if kind is AssetClass.INDEX:
        return index_facts(symbol, price)
    return {}


class Level(NamedTuple):
    """Where a synthetic instrument's price sits and how it moves: its anchor (the level its path is pulled
    back to), its annual volatility, the pull toward the anchor per session (a stronger pull than a stock's,
    so 35 years of random walk leave it near the level its class trades at) and its daily volume."""

    anchor: float
    base_vol: float
    pull: float
    base_volume: float
    places: int = 2


# Where the instruments people ask about trade (the ranges their prices have kept in 2020-2026, rounded), so
# the demo's bitcoin is tens of thousands, EUR/USD near 1.1 and gold in the 2,000s; the anchor is drawn inside
# the range from the symbol. Volatilities are typical annual ones of each market.
_LEVELS: dict[str, tuple[float, float, float]] = {
    # crypto: (low, high, annual volatility)
    "BTC-USD": (30_000.0, 70_000.0, 0.60), "ETH-USD": (1_500.0, 4_000.0, 0.75), "SOL-USD": (20.0, 200.0, 0.95),
    "BNB-USD": (200.0, 650.0, 0.70), "XRP-USD": (0.3, 2.5, 0.90), "DOGE-USD": (0.05, 0.35, 1.10),
    "ADA-USD": (0.25, 1.2, 0.90), "LTC-USD": (50.0, 150.0, 0.80),
    # currency pairs, quoted as Yahoo does (EURUSD=X dollars per euro; JPY=X yen per dollar)
    "EURUSD=X": (1.04, 1.14, 0.07), "GBPUSD=X": (1.22, 1.34, 0.08), "AUDUSD=X": (0.63, 0.74, 0.09),
    "USDJPY=X": (115.0, 150.0, 0.09), "JPY=X": (115.0, 150.0, 0.09), "CNY=X": (6.5, 7.2, 0.04),
    "USDCNY=X": (6.5, 7.2, 0.04), "HKD=X": (7.76, 7.84, 0.005), "CHF=X": (0.86, 0.94, 0.07),
    "CAD=X": (1.30, 1.38, 0.06), "USDCAD=X": (1.30, 1.38, 0.06), "EURGBP=X": (0.84, 0.88, 0.05),
    "EURJPY=X": (140.0, 160.0, 0.08),
    # commodity futures, in Yahoo's units (dollars per troy ounce, per barrel …)
    "GC=F": (1_900.0, 2_500.0, 0.15), "SI=F": (21.0, 30.0, 0.28), "CL=F": (65.0, 85.0, 0.35),
    "BZ=F": (70.0, 90.0, 0.33), "NG=F": (2.2, 4.5, 0.55), "HG=F": (3.6, 4.5, 0.22),
    "PL=F": (850.0, 1_050.0, 0.25), "ES=F": (4_200.0, 5_800.0, 0.17), "NQ=F": (15_000.0, 20_000.0, 0.22),
    "YM=F": (34_000.0, 42_000.0, 0.15), "RTY=F": (1_900.0, 2_300.0, 0.22),
    # indices (their level, in points)
    "^GSPC": (4_200.0, 5_800.0, 0.17), "^NDX": (15_000.0, 20_000.0, 0.22), "^IXIC": (13_500.0, 18_000.0, 0.22),
    "^DJI": (34_000.0, 42_000.0, 0.15), "^RUT": (1_900.0, 2_300.0, 0.22), "^HSI": (16_000.0, 22_000.0, 0.24),
    "000300.SS": (3_400.0, 4_200.0, 0.20), "000001.SS": (2_950.0, 3_400.0, 0.18), "^N225": (30_000.0, 39_000.0, 0.20),
    "^TWII": (17_000.0, 22_000.0, 0.18),
}
# Any other symbol of the class: its range and volatility.
_CLASS_LEVELS: dict[AssetClass, tuple[float, float, float]] = {
    AssetClass.CRYPTO: (0.1, 500.0, 0.90),
    AssetClass.CURRENCY: (0.6, 1.6, 0.08),
    AssetClass.FUTURE: (20.0, 2_000.0, 0.30),
    AssetClass.INDEX: (1_000.0, 20_000.0, 0.18),
}
_PULL = 1.0 / 250.0  # about a six-month half-life: a path wanders months-long trends, not whole decades
_ROUGH_PLACES = {AssetClass.CURRENCY: 4}


def level_of(symbol: str, kind: AssetClass) -> Level | None:
    """The level and motion of a synthetic instrument that is not a company's share (None for a stock or a
    fund: theirs come from the company's traits)."""
    bounds = _LEVELS.get(symbol) or _CLASS_LEVELS.get(kind)
    if bounds is None:
        return None
    low, high, vol = bounds
    # geometric: a class range spanning decades of price (0.1 to 500) is drawn evenly on a log scale
    anchor = low * (high / low) ** _unit(symbol, "level")
    if kind is AssetClass.CRYPTO:
        volume = 10 ** _between(8.5, 10.5, symbol, "traded") / anchor  # coins a day: 0.3 to 30 billion traded
    elif kind is AssetClass.FUTURE:
        volume = 10 ** _between(4.3, 5.8, symbol, "contracts")  # contracts a day
    elif kind is AssetClass.INDEX:
        volume = 10 ** _between(8.5, 9.7, symbol, "index-volume")  # its members' shares a day
    else:
        volume = 0.0  # a currency pair: no volume, as Yahoo reports it
    places = _ROUGH_PLACES.get(kind, 4 if anchor < 10 else 2)
    return Level(anchor, vol, _PULL, volume, places)
