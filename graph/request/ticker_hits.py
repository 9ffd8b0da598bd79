"""A ticker found in a message (:class:`TickerHit`) and how sure the parser is of it (its tier);
shared by the finders in :mod:`graph.request.tickers`, :mod:`graph.request.cjk_names` and
:mod:`graph.request.listing_codes`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ORDINARY_WORD", "TIER_LISTED_ONLY", "TIER_STRONG", "TIER_UNKNOWN", "TIER_WEAK", "TickerHit"]

# How sure we are that a hit is meant as a ticker. Only the best tier present
# is used; lower tiers join only when listed with it ("pepsi vs coke").
TIER_LISTED_ONLY = -1  # an ordinary word: a ticker only in a list of tickers
TIER_UNKNOWN = 0  # upper-case, not a word we know, not in companies.csv
TIER_WEAK = 1  # a known ticker/name that is also a word, with supporting context
TIER_STRONG = 2  # a cashtag, a known symbol or company name

# How a hit says "an upper-case English word, not a ticker we know".
ORDINARY_WORD = "ordinary word"


@dataclass
class TickerHit:
    symbol: str
    start: int
    end: int
    source: str  # as typed
    tier: int  # how sure we are this is meant as a ticker
    how: str
    # A company listed in several places (阿里巴巴: BABA, 9988.HK) and nothing said which:
    # every listing, `symbol` being the first; the parser asks which one.
    listings: tuple[str, ...] = ()
