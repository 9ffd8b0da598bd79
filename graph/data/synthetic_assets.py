"""What the synthetic vendor serves for instruments that are not companies (issue 37, point 5): a fund's
holdings, costs and premium to its NAV; a coin's supply and traded value; an index's level. No P/E, revenue,
margins or statements for any of them: a fund, a coin, an index, a currency pair and a future have none.
Everything is drawn from the symbol (SHA-256, as the rest of the synthetic vendor), fiction labelled so.
See :mod:`graph.data.synthetic`."""
from __future__ import annotations

from typing import Any

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
