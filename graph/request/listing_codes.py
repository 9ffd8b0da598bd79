"""Mainland China and Hong Kong stock codes: 600519, 600519.SS/.SH, SH600519, 000001.SZ, 700, 0700.HK,
00700, all brought to Yahoo's form (600519.SS, 000001.SZ, 0700.HK); and the market words that
say which listing is meant (``data/listing_cues.tsv``: 港股, A股, 美股, hong kong ...).

A code written with its exchange (600519.SS, 600519.SH, SH600519, 000001.SZ, 0700.HK, 00700.HK,
HK00700) is always one. A bare number is a code only when nothing else can be meant:

* six digits are a mainland code only if they start like one (600/601/603/605/688/689/900
  Shanghai -> .SS; 000/001/002/003/300/301/200 Shenzhen -> .SZ), are not an amount (followed by
  股, 元, 块, 手, 万, %, shares, dollars ...; after $, ¥, 价, 到) and the message says China: it
  has Chinese or Japanese text, or a mainland market word (A股, 沪市, a-share), or the code is a
  company the desk knows (600519), or the number is the whole message. "I have 600000
  dollars" and "20240501" stay numbers (dates are read and blanked before this);
* three to five digits are a Hong Kong code only with a Hong Kong cue: a market word (港股, 香港,
  港交所, hong kong, hk) or a company named in the same message that trades there under that
  number (腾讯 700; 汇丰 5 too: one or two digits need the name, "港股 top 10" is no code).
  Written with a leading zero (0700, 00700, 09988) they need only Chinese or Japanese text
  around them, or nothing else in the message. Never an amount ("买700股腾讯" is 700 shares),
  and a four-digit number between 1990 and next year without a leading zero is a year.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from functools import lru_cache

from ..core import assets
from .companies import is_known_ticker
from .ticker_hits import TIER_STRONG, TickerHit
from .wordlists import DATA

__all__ = ["code_hits", "listing_cues", "market_of"]


@lru_cache(maxsize=1)
def _cues() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in (DATA / "listing_cues.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            word, market = line.split("\t")
            table[word] = market
    return table


def listing_cues(low: str) -> set[str]:
    """The markets (US, HK, CN, TW, JP) the lower-cased message names."""
    found = set()
    for word, market in _cues().items():
        pattern = rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])" if word.isascii() else re.escape(word)
        if re.search(pattern, low):
            found.add(market)
    return found


def market_of(symbol: str) -> str:
    """Where a Yahoo symbol trades, in the terms of listing_cues.tsv, or the calendar of its asset class
    (CRYPTO, FX, CME): graph/core/assets.py's."""
    return assets.market_of(symbol)


_SHANGHAI = re.compile(r"(?:60[0135]|68[89]|900)\d{3}")
_SHENZHEN = re.compile(r"(?:00[0-3]|30[01]|200)\d{3}")
# What makes a number an amount or a price rather than a code.
_AMOUNT_AFTER = re.compile(r"\s*(?:股|元|块|塊|手|万|萬|亿|億|美元|港元|港币|港幣|人民币|%|％|个|個|倍|点|點"
                           r"|天|日|周|週|年|月|次|只|支|家|位|名|成|shares?\b|dollars?\b|usd\b|hkd\b|rmb\b|cny\b|k\b|m\b|x\b"
                           r"|percent\b|pct\b|points?\b|bps\b|days?\b|weeks?\b|months?\b|years?\b)")
_AMOUNT_BEFORE = re.compile(r"(?:[$¥￥]|hk\$|价|價|到|至|涨|漲|跌|约|約|≈|仓|倉|买了|買了|花了)\s*$")


def _mainland(code: str) -> str | None:
    if _SHANGHAI.fullmatch(code):
        return f"{code}.SS"
    if _SHENZHEN.fullmatch(code):
        return f"{code}.SZ"
    return None


def _hk(number: str) -> str:
    return f"{int(number):04d}.HK"


def code_hits(low: str, spaced: str, markets: set[str], named: set[str], cjk: bool,
              today: date) -> Iterable[TickerHit]:
    """Codes in a message: ``low`` lower-cased as typed, ``spaced`` the same with CJK blanked
    (so "腾讯0700.HK" reads "0700.HK" on its own); ``named`` the listings of companies named."""
    text = spaced
    explicit = (
        (r"(?<![\w.$])(\d{6})\.(ss|sh|sz)(?![\w.])", lambda m: f"{m.group(1)}.{'SZ' if m.group(2) == 'sz' else 'SS'}"),
        (r"(?<![\w.$])(sh|sz)\.?(\d{6})(?![\w.])", lambda m: f"{m.group(2)}.{'SZ' if m.group(1) == 'sz' else 'SS'}"),
        (r"(?<![\w.$])(\d{1,5})\.hk(?![\w.])", lambda m: _hk(m.group(1))),
        (r"(?<![\w.$])hk\.?(\d{4,5})(?![\w.])", lambda m: _hk(m.group(1))),
    )
    for pattern, make in explicit:
        for m in re.finditer(pattern, text):
            yield TickerHit(make(m), m.start(), m.end(), m.group(0), TIER_STRONG, "exchange code")
            text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
    alone = re.fullmatch(r"\W*\d+\W*", text) is not None
    for m in re.finditer(r"(?<![\w.$/,:+-])(\d{1,6})(?![\w.,/:%-]|\.\d)", text):
        digits = m.group(1)
        if _AMOUNT_AFTER.match(low, m.end()) or _AMOUNT_BEFORE.search(low[max(0, m.start() - 6) : m.start()]):
            continue
        symbol = _bare_symbol(digits, markets, named, cjk, alone, today)
        if symbol:
            yield TickerHit(symbol, m.start(), m.end(), digits, TIER_STRONG, "bare code")


def _bare_symbol(digits: str, markets: set[str], named: set[str], cjk: bool, alone: bool,
                 today: date) -> str | None:
    if len(digits) == 6:
        symbol = _mainland(digits)
        if symbol and (cjk or "CN" in markets or alone or is_known_ticker(symbol) or symbol in named):
            return symbol
        return None
    if len(digits) > 5 or int(digits) == 0:
        return None
    symbol = _hk(digits)
    if symbol in named:
        return symbol
    if len(digits) == 4 and not digits.startswith("0") and 1990 <= int(digits) <= today.year + 1:
        return None  # a year
    if digits.startswith("0"):
        return symbol if len(digits) >= 4 and ("HK" in markets or cjk or alone) else None
    return symbol if "HK" in markets and len(digits) >= 3 else None
