"""Company names written in Chinese or Japanese: 英伟达/輝達 -> NVDA, 腾讯 -> 0700.HK, テスラ -> TSLA.

The names are data (``data/companies_cjk.csv``: ``tickers,names``, names separated by ``|``,
the first one the name shown back in a Chinese message). A company listed in more than one
place lists every listing (``BABA|9988.HK``), most-traded first; the parser then asks which
one, unless the message says (a market word of ``data/listing_cues.tsv``, or the symbol itself).

Chinese has no spaces, so names are matched anywhere in the text ("英伟达今天能买吗"),
longest first, so 阿里巴巴 wins over 阿里 and 超微电脑 (SMCI) over 超微.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from functools import lru_cache

from ..core.chinese_script import TRADITIONAL, is_chinese, to_traditional
from .ticker_hits import TIER_STRONG, TickerHit
from .wordlists import DATA

__all__ = ["cjk_company_name", "cjk_name_hits"]


@lru_cache(maxsize=1)
def _names() -> dict[str, tuple[str, ...]]:
    """name -> its listings (Yahoo symbols), from data/companies_cjk.csv."""
    table: dict[str, tuple[str, ...]] = {}
    lines = (DATA / "companies_cjk.csv").read_text(encoding="utf-8").splitlines()
    for row in csv.DictReader(lines):
        listings = tuple(t.strip().upper() for t in row["tickers"].split("|") if t.strip())
        for name in row["names"].split("|"):
            if name.strip():
                table.setdefault(name.strip(), listings)
    return table


@lru_cache(maxsize=1)
def _display() -> dict[str, str]:
    """symbol -> the first (display) name of its row."""
    shown: dict[str, str] = {}
    lines = (DATA / "companies_cjk.csv").read_text(encoding="utf-8").splitlines()
    for row in csv.DictReader(lines):
        first = row["names"].split("|")[0].strip()
        for ticker in row["tickers"].split("|"):
            shown.setdefault(ticker.strip().upper(), first)
    return shown


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    return re.compile("|".join(re.escape(n) for n in sorted(_names(), key=len, reverse=True)))


def cjk_company_name(symbol: str | None, language: str) -> str | None:
    """The Chinese name of a symbol for a message in `language` ("zh" or "zh-Hant"; None in any
    other language, or for a symbol without one)."""
    name = _display().get(symbol.upper()) if symbol and is_chinese(language) else None
    return to_traditional(name) if name and language == TRADITIONAL else name


def cjk_name_hits(text: str) -> Iterable[TickerHit]:
    """Every CJK company name in ``text``, as typed."""
    for m in _pattern().finditer(text):
        listings = _names()[m.group(0)]
        yield TickerHit(listings[0], m.start(), m.end(), m.group(0), TIER_STRONG, "Chinese/Japanese name",
                        listings if len(listings) > 1 else ())
