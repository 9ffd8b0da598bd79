"""The fictional company behind a synthetic ticker: deterministic draws from the ticker string
(SHA-256, never Python's salted ``hash()``) and the company's traits drawn with them (sector,
size, margins, volatility). See :mod:`graph.data.synthetic`."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

# --------------------------------------------------------------------------
# Deterministic randomness
# --------------------------------------------------------------------------


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()


def _seed(*parts: object) -> int:
    return int.from_bytes(_digest(*parts)[:8], "big")


def _unit(*parts: object) -> float:
    """A uniform draw in [0, 1) that depends only on ``parts``.

    Used for per-item choices (a headline on a given day, a filing date) so
    each item is independent of the range it was requested in.
    """
    return _seed(*parts) / 2**64


def _between(lo: float, hi: float, *parts: object) -> float:
    return lo + (hi - lo) * _unit(*parts)


def _pick(options: list | tuple, *parts: object):
    return options[int(_unit(*parts) * len(options))]


# --------------------------------------------------------------------------
# Per-ticker traits
# --------------------------------------------------------------------------

# (sector, industries, typical net margin range, typical beta range)
_SECTORS: tuple[tuple[str, tuple[str, ...], tuple[float, float], tuple[float, float]], ...] = (
    ("Technology", ("Semiconductors", "Software - Infrastructure", "Consumer Electronics"), (0.10, 0.32), (1.0, 1.7)),
    ("Healthcare", ("Drug Manufacturers", "Medical Devices", "Biotechnology"), (0.05, 0.25), (0.6, 1.1)),
    ("Financial Services", ("Banks - Diversified", "Asset Management", "Insurance"), (0.12, 0.30), (0.8, 1.3)),
    ("Consumer Cyclical", ("Internet Retail", "Auto Manufacturers", "Restaurants"), (0.02, 0.12), (1.0, 1.6)),
    ("Consumer Defensive", ("Beverages", "Household Products", "Discount Stores"), (0.03, 0.20), (0.4, 0.8)),
    ("Energy", ("Oil & Gas Integrated", "Oil & Gas E&P"), (0.04, 0.18), (0.8, 1.4)),
    ("Industrials", ("Aerospace & Defense", "Railroads", "Specialty Machinery"), (0.05, 0.16), (0.8, 1.2)),
    ("Communication Services", ("Internet Content", "Telecom Services", "Entertainment"), (0.05, 0.28), (0.7, 1.3)),
    ("Utilities", ("Utilities - Regulated Electric",), (0.08, 0.15), (0.3, 0.6)),
    ("Basic Materials", ("Specialty Chemicals", "Gold", "Steel"), (0.03, 0.15), (0.9, 1.4)),
)
_NAME_SUFFIXES = ("Corp.", "Inc.", "Holdings", "Group", "Technologies", "Industries")


@dataclass(frozen=True)
class _Traits:
    """Constants of one synthetic company, all drawn from its ticker."""

    name: str
    sector: str
    industry: str
    beta: float
    start_price: float
    long_run_growth: float  # annual log drift of the price anchor
    base_vol: float  # typical annualised volatility
    base_volume: float  # typical daily shares traded
    annual_revenue0: float  # revenue scale when the price equals start_price
    base_margin: float
    gross_uplift: float
    asset_turnover: float
    equity_ratio: float
    debt_to_equity: float
    capex_ratio: float
    shares: float
    dividend_yield: float | None


@lru_cache(maxsize=256)
def _traits(symbol: str) -> _Traits:
    sector, industries, margins, betas = _pick(_SECTORS, symbol, "sector")
    start_price = _between(8.0, 80.0, symbol, "p0")
    revenue0 = 10 ** _between(8.7, 10.8, symbol, "revenue")
    price_to_sales = _between(0.8, 7.0, symbol, "ps")
    pays_dividend = _unit(symbol, "div?") < 0.55
    return _Traits(
        name=f"{symbol} {_pick(_NAME_SUFFIXES, symbol, 'suffix')}",
        sector=sector,
        industry=_pick(industries, symbol, "industry"),
        beta=round(_between(*betas, symbol, "beta"), 2),
        start_price=start_price,
        long_run_growth=_between(-0.01, 0.08, symbol, "growth"),
        base_vol=_between(0.18, 0.50, symbol, "vol"),
        base_volume=10 ** _between(5.8, 7.8, symbol, "volume"),
        annual_revenue0=revenue0,
        base_margin=_between(*margins, symbol, "margin"),
        gross_uplift=_between(0.15, 0.45, symbol, "gross"),
        asset_turnover=_between(0.4, 1.6, symbol, "turnover"),
        equity_ratio=_between(0.25, 0.65, symbol, "equity"),
        debt_to_equity=_between(0.05, 1.8, symbol, "debt"),
        capex_ratio=_between(0.02, 0.12, symbol, "capex"),
        # Chosen so the starting market cap is a plausible multiple of sales.
        shares=revenue0 * price_to_sales / start_price,
        dividend_yield=_between(0.005, 0.045, symbol, "yield") if pays_dividend else None,
    )
