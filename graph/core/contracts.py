"""What one futures contract is: its multiplier (the quantity one contract holds, or the dollars per index
point), so a future is sized in whole contracts of a stated notional (graph/book/sizing.py), never as shares.

The table holds the front-month contracts Yahoo quotes as ``ROOT=F`` that the desk can be asked about. Source:
CME Group's contract specifications (cmegroup.com, "Contract Specs" of each product; COMEX for the metals,
NYMEX for energy, CME for the equity indices), as of 2026. Yahoo quotes each in the unit the multiplier
multiplies (gold in dollars per troy ounce, crude in dollars per barrel, the E-mini S&P 500 in index points).
Grains are left out on purpose: Yahoo quotes ZC=F in cents per bushel, so its multiplier would be in cents.

A future not in the table has an unknown multiplier, and the desk says so rather than guessing one
(:func:`contract_of` returns None).
"""
from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

__all__ = ["Contract", "contract_of"]


class Contract(NamedTuple):
    """One contract of a future: `multiplier` units of `unit` (a `[book]` unit key of prompts/words_*.md)."""

    root: str
    multiplier: Decimal
    unit: str  # "troy_oz", "barrels", "mmbtu", "pounds", "gallons", "index_dollars"


_CONTRACTS: dict[str, tuple[str, str]] = {
    # COMEX metals
    "GC": ("100", "troy_oz"),      # Gold
    "MGC": ("10", "troy_oz"),      # Micro Gold
    "SI": ("5000", "troy_oz"),     # Silver
    "PL": ("50", "troy_oz"),       # Platinum (NYMEX)
    "PA": ("100", "troy_oz"),      # Palladium (NYMEX)
    "HG": ("25000", "pounds"),     # Copper
    # NYMEX energy
    "CL": ("1000", "barrels"),     # WTI crude oil
    "BZ": ("1000", "barrels"),     # Brent crude oil (last day financial)
    "NG": ("10000", "mmbtu"),      # Henry Hub natural gas
    "HO": ("42000", "gallons"),    # NY Harbor ULSD (heating oil)
    "RB": ("42000", "gallons"),    # RBOB gasoline
    # CME equity index futures: dollars per index point
    "ES": ("50", "index_dollars"),   # E-mini S&P 500
    "MES": ("5", "index_dollars"),   # Micro E-mini S&P 500
    "NQ": ("20", "index_dollars"),   # E-mini Nasdaq-100
    "MNQ": ("2", "index_dollars"),   # Micro E-mini Nasdaq-100
    "YM": ("5", "index_dollars"),    # E-mini Dow ($5)
    "RTY": ("50", "index_dollars"),  # E-mini Russell 2000
}


def contract_of(symbol: str) -> Contract | None:
    """The contract of a Yahoo futures symbol (GC=F: 100 troy oz); None when the desk does not know its
    multiplier (or the symbol is no future)."""
    s = (symbol or "").strip().upper()
    root, sep, tail = s.partition("=")
    if not sep or tail != "F" or root not in _CONTRACTS:
        return None
    multiplier, unit = _CONTRACTS[root]
    return Contract(root, Decimal(multiplier), unit)
