"""A call's holding window read from the Risk Judge's horizon, its benchmark, and when it settles.

**How a horizon is read.** The judge writes the horizon as words ("2-6 weeks", "3 trading days",
"1 quarter"); the desk scores a call over that many trading sessions:

* a day ("d", "day", "session", "trading day") is 1 session, a week ("w", "wk") 5, a month ("m", "mo")
  21, a quarter ("q", "qtr") 63 and a year ("y", "yr") 252; a fraction rounds up ("1.5 weeks" is 8);
* a range ("2-6 weeks", "2 to 6 weeks", "1 week to 3 months") counts its **upper** end: the holding
  window is over only once the longest holding the judge stated is over;
* a horizon with no number and unit in it ("n/a", "until earnings", "") is DEFAULT_SESSIONS;
* the result is kept within 1 to 252 sessions (a day to a year): a call is scored within a year.

**Which benchmark.** A US symbol (no exchange suffix, or a class share such as BRK-B or BRK.B) is
measured against SPY; a symbol with an exchange suffix against that market's main index
(BENCHMARKS: Hang Seng, CSI 300, Nikkei 225, TAIEX, ...; Yahoo and the synthetic vendor serve them all);
an unknown suffix against SPY. A vendor without the index leaves the call pending, saying so (settle.py).
Other classes (graph/core/assets.py) are measured against what fits them (CLASS_BENCHMARKS): crypto against
BTC-USD; a commodity future against a broad commodity index fund (DBC); an index against the fund that tracks
it (^GSPC: SPY), or its market's index when no fund is known. A currency pair has none: a pair is itself a
relative price (EUR against USD), and a dollar index (DXY) would mostly be the pair's own move inverted, so its
call is scored on its own return. Nothing is measured against itself (BTC-USD, SPY): no benchmark then
either, and the call's alpha is its own return, said so (NO_BENCHMARK).

**When it settles.** The window is counted in the sessions the vendor's price rows give (an exchange
abroad has its own holidays); due_date is the end of that window on the listing's own exchange calendar
(graph/core/trading_days.py: 0700.HK counts Hong Kong's sessions), what the user is told.

The reading and the due date live in graph/core/holding.py (the desk's other rooms read horizons too); this module
states the rule and re-exports them.
"""
from __future__ import annotations

from ..core.assets import AssetClass, classify, tracking_funds
from ..core.holding import DEFAULT_SESSIONS, MAX_SESSIONS, due_date, sessions

__all__ = ["BENCHMARKS", "CLASS_BENCHMARKS", "DEFAULT_SESSIONS", "MAX_SESSIONS", "NO_BENCHMARK", "US_BENCHMARK",
           "benchmark_for", "due_date", "sessions"]

US_BENCHMARK = "SPY"
NO_BENCHMARK = ""  # a call scored on its own return (Outcome.benchmark empty)
# Class -> its benchmark, where the class decides it (an equity's and a fund's is its market's).
CLASS_BENCHMARKS: dict[AssetClass, str] = {
    AssetClass.CRYPTO: "BTC-USD",
    AssetClass.FUTURE: "DBC",  # Invesco DB Commodity Index Tracking Fund
    AssetClass.CURRENCY: NO_BENCHMARK,
}
# Exchange suffix (Yahoo's) -> the benchmark its listings are measured against.
BENCHMARKS: dict[str, str] = {
    ".HK": "^HSI",        # Hong Kong: Hang Seng
    ".SS": "000300.SS",   # Shanghai: CSI 300
    ".SZ": "000300.SS",   # Shenzhen: CSI 300
    ".T": "^N225",        # Tokyo: Nikkei 225
    ".TW": "^TWII",       # Taiwan: TAIEX
    ".L": "^FTSE",        # London: FTSE 100
    ".DE": "^GDAXI",      # Frankfurt (Xetra): DAX
    ".PA": "^FCHI",       # Paris: CAC 40
    ".TO": "^GSPTSE",     # Toronto: S&P/TSX Composite
    ".AX": "^AXJO",       # Sydney: S&P/ASX 200
    ".KS": "^KS11",       # Korea: KOSPI
    ".NS": "^NSEI",       # India (NSE): Nifty 50
    ".BO": "^NSEI",       # India (BSE): Nifty 50
}

def benchmark_for(ticker: str, asset_class: AssetClass | str | None = None) -> str:
    """What the ticker's return is measured against (see the module docstring); NO_BENCHMARK for a currency
    pair and for a benchmark itself."""
    symbol = (ticker or "").strip().upper()
    kind = AssetClass(asset_class) if asset_class else classify(symbol)
    if kind in CLASS_BENCHMARKS:
        found = CLASS_BENCHMARKS[kind]
    elif kind is AssetClass.INDEX and (funds := tracking_funds(symbol)):
        found = funds[0]
    else:
        _, dot, suffix = symbol.rpartition(".")
        found = BENCHMARKS.get(f".{suffix}", US_BENCHMARK) if dot else US_BENCHMARK
    return NO_BENCHMARK if found == symbol else found
