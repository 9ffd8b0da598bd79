"""What kind of instrument a symbol is, and whose calendar it trades on: the desk's one vocabulary of
asset classes (issue 37).

Six classes the desk serves — equity, fund (ETF or mutual fund), index, crypto, currency pair, commodity
future — and two it refuses with the reason (an option contract, a bond). A class comes from:

* the vendor's own metadata when live: Yahoo's ``quoteType`` (EQUITY, ETF, MUTUALFUND, INDEX,
  CRYPTOCURRENCY, CURRENCY, FUTURE, OPTION), read by :func:`from_quote_type`; a live vendor answers
  ``asset_class`` with it (graph/data/yfinance_vendor.py);
* otherwise the symbol in Yahoo's form and the desk's names (:func:`classify`): ``BTC-USD`` crypto,
  ``EURUSD=X`` a currency pair, ``GC=F`` a future, ``^GSPC`` and ``000300.SS`` indices, ``SPY`` a fund
  the desk knows (:data:`FUNDS`), an OCC option symbol (``AAPL240119C00150000``) or a CUSIP
  (``912828XX1``) refused; anything else an equity.

:func:`market_of` is the calendar a symbol trades on, in graph/core/trading_days.py's terms: an exchange
(US, HK, CN, TW, JP: the listing's suffix, an index's home), CRYPTO (every day, UTC days), FX (Sunday
evening to Friday, New York: sessions Monday to Friday) or CME (commodity futures: CME Globex's sessions).
The names people type for these (bitcoin, 黄金, the S&P 500 …) are data, graph/request/data/companies*.csv.
"""
from __future__ import annotations

import re
from enum import StrEnum

__all__ = [
    "FUNDS",
    "INDEX_FUNDS",
    "SERVED",
    "AssetClass",
    "classify",
    "from_quote_type",
    "market_of",
    "tracking_funds",
    "unit_places",
]


class AssetClass(StrEnum):
    EQUITY = "equity"
    FUND = "fund"  # an ETF or a mutual fund
    INDEX = "index"
    CRYPTO = "crypto"
    CURRENCY = "currency"  # a currency pair (EURUSD=X)
    FUTURE = "future"  # a commodity future (GC=F gold, CL=F crude oil)
    OPTION = "option"  # refused: the desk analyses underlyings, not contracts
    BOND = "bond"  # refused: no prices, yields or terms for a CUSIP


SERVED = frozenset({AssetClass.EQUITY, AssetClass.FUND, AssetClass.INDEX, AssetClass.CRYPTO,
                    AssetClass.CURRENCY, AssetClass.FUTURE})

# Yahoo's quoteType -> class (the types Yahoo sends for what the desk can be asked about).
_QUOTE_TYPES = {
    "EQUITY": AssetClass.EQUITY,
    "ETF": AssetClass.FUND,
    "MUTUALFUND": AssetClass.FUND,
    "INDEX": AssetClass.INDEX,
    "CRYPTOCURRENCY": AssetClass.CRYPTO,
    "CURRENCY": AssetClass.CURRENCY,
    "FUTURE": AssetClass.FUTURE,
    "OPTION": AssetClass.OPTION,
}

# The funds among the desk's names (graph/request/data/companies.csv) and those that track its indices.
FUNDS = frozenset({
    "SPY", "VOO", "IVV", "QQQ", "QQQM", "ONEQ", "DIA", "IWM", "VTI", "ARKK", "GLD", "IAU", "SLV", "USO", "TLT",
    "XLF", "XLE", "XLK", "SMH", "TQQQ", "SQQQ", "EWH", "2800.HK", "ASHR", "510300.SS", "EWJ", "1321.T", "FXE",
    "IBIT", "FBTC", "ETHA",
})

# An index -> its home market (trading days) and the funds that track it, named in the desk's opening.
_INDICES: dict[str, tuple[str, tuple[str, ...]]] = {
    "^GSPC": ("US", ("SPY", "VOO", "IVV")),
    "^NDX": ("US", ("QQQ", "QQQM")),
    "^IXIC": ("US", ("ONEQ",)),
    "^DJI": ("US", ("DIA",)),
    "^RUT": ("US", ("IWM",)),
    "^HSI": ("HK", ("2800.HK", "EWH")),
    "000300.SS": ("CN", ("510300.SS", "ASHR")),
    "000001.SS": ("CN", ()),  # the SSE Composite (000001.SZ is Ping An Bank: the suffix decides)
    "^N225": ("JP", ("1321.T", "EWJ")),
    "^TWII": ("TW", ()),
}

# Yahoo's exchange suffix -> market (trading_days.EXCHANGES); any other suffix is its own market (VOD.L: "L"),
# which trades on NYSE days where a calendar is wanted and is a listing abroad to a watch.
_SUFFIX_MARKETS = {"HK": "HK", "SS": "CN", "SZ": "CN", "TW": "TW", "T": "JP"}

_CRYPTO = re.compile(r"[A-Z0-9]{2,10}-(?:USD|USDT|USDC|EUR|GBP|JPY|BTC|ETH)")
_CURRENCY = re.compile(r"(?:[A-Z]{6}|[A-Z]{3})=X")  # EURUSD=X; Yahoo also writes USD/JPY as JPY=X
_FUTURE = re.compile(r"[A-Z0-9]{1,4}=F")  # GC=F, CL=F, ES=F (front month, continuous)
# OCC's option symbol: root, expiry YYMMDD, C or P, strike x 1000 in eight digits (the root may be padded).
OPTION_SYMBOL = re.compile(r"[A-Z]{1,6}\s{0,5}\d{6}[CP]\d{8}")
# A CUSIP: nine characters, the last a check digit; ours needs a digit first and a letter or a valid check
# digit, so an amount (123456789) stays a number.
CUSIP = re.compile(r"\d{3}[0-9A-Z]{5}\d")


def from_quote_type(quote_type: object) -> AssetClass | None:
    """The class Yahoo's ``quoteType`` says, None for one the desk does not know (or none sent)."""
    return _QUOTE_TYPES.get(str(quote_type).strip().upper()) if quote_type else None


def classify(symbol: str, quote_type: object = None) -> AssetClass:
    """The class of a Yahoo-form symbol: the vendor's ``quote_type`` when it sent one the desk knows, else
    read from the symbol and the desk's names."""
    if (told := from_quote_type(quote_type)) is not None:
        return told
    s = (symbol or "").strip().upper()
    if OPTION_SYMBOL.fullmatch(s):
        return AssetClass.OPTION
    if _is_cusip(s):
        return AssetClass.BOND
    if s.startswith("^") or s in _INDICES:
        return AssetClass.INDEX
    if _CRYPTO.fullmatch(s):
        return AssetClass.CRYPTO
    if _CURRENCY.fullmatch(s):
        return AssetClass.CURRENCY
    if _FUTURE.fullmatch(s):
        return AssetClass.FUTURE
    if s in FUNDS:
        return AssetClass.FUND
    return AssetClass.EQUITY


def _is_cusip(s: str) -> bool:
    if not CUSIP.fullmatch(s):
        return False
    return any(c.isalpha() for c in s) or _cusip_check(s[:8]) == int(s[8])


def _cusip_check(body: str) -> int:
    """The CUSIP check digit of the first eight characters (the modulus-10 "double add double")."""
    total = 0
    for i, c in enumerate(body):
        v = int(c) if c.isdigit() else ord(c) - ord("A") + 10
        if i % 2:
            v *= 2
        total += v // 10 + v % 10
    return (10 - total % 10) % 10


def market_of(symbol: str, asset_class: AssetClass | None = None) -> str:
    """The calendar a symbol trades on (graph/core/trading_days.py): CRYPTO, FX, CME, or an exchange's market
    (US, HK, CN, TW, JP; another suffix as written) for equities, funds and indices (an index on its home
    exchange's days)."""
    s = (symbol or "").strip().upper()
    kind = asset_class or classify(s)
    if kind is AssetClass.CRYPTO:
        return "CRYPTO"
    if kind is AssetClass.CURRENCY:
        return "FX"
    if kind is AssetClass.FUTURE:
        return "CME"
    if s in _INDICES:
        return _INDICES[s][0]
    _, dot, suffix = s.rpartition(".")
    return _SUFFIX_MARKETS.get(suffix, suffix) if dot and suffix else "US"


def tracking_funds(symbol: str) -> tuple[str, ...]:
    """The funds that track an index the desk knows (SPY, VOO, IVV for ^GSPC); none for anything else."""
    return _INDICES.get((symbol or "").strip().upper(), ("", ()))[1]


INDEX_FUNDS = {index: funds for index, (_, funds) in _INDICES.items()}


# The decimals a position in each class is sized in (graph/book/sizing.py): crypto to the satoshi (Yahoo and the
# exchanges quote BTC to 8 decimals), a currency pair in units of its base currency to the cent (EUR 1,694.92),
# everything else in whole shares, units or contracts.
_UNIT_PLACES = {AssetClass.CRYPTO: 8, AssetClass.CURRENCY: 2}


def unit_places(asset_class: AssetClass | str | None) -> int:
    """Decimals a quantity of this class is sized in: 8 for crypto, 2 for a currency pair (units of the base
    currency), 0 (whole shares) for equities, funds and the rest."""
    try:
        return _UNIT_PLACES.get(AssetClass(asset_class), 0) if asset_class else 0
    except ValueError:
        return 0
