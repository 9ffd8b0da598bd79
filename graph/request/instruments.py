"""Symbols that are not a listing's: indices (^GSPC), currency pairs (EURUSD=X), futures (GC=F) as Yahoo
writes them, and the two kinds the desk refuses, an option contract (AAPL240119C00150000, OCC's form) and a
bond's CUSIP (912828XX1). Their classes are graph/core/assets.py's; the names people type for them
(the S&P 500, gold, 欧元兑美元 …) are rows of data/companies*.csv like any company's.

A refused symbol is still read as the ticker asked about, so the desk can say why it will not analyse it
and what it can do instead (:func:`refusal`), in the thread's language (prompts/words_<code>.md, [assets]).
"""
from __future__ import annotations

import re

from ..core.assets import OPTION_SYMBOL, SERVED, AssetClass, classify
from ..core.words import phrase

__all__ = ["instrument_symbol", "refusal", "refused_class"]

_INDEX = re.compile(r"\^[A-Z0-9]{2,8}")
_CURRENCY = re.compile(r"(?:[A-Z]{6}|[A-Z]{3})=X")
_FUTURE = re.compile(r"[A-Z0-9]{1,4}=F")
_CUSIP = re.compile(r"\d{3}[0-9A-Z]{5}\d")


def instrument_symbol(body: str, message: str) -> str | None:
    """The Yahoo symbol a token is when it has one of these forms, else None. A CUSIP needs a letter in
    it, or the word "CUSIP" in the message: a bare nine-digit number is more often an amount."""
    upper = body.upper()
    if _INDEX.fullmatch(upper) or _CURRENCY.fullmatch(upper) or _FUTURE.fullmatch(upper):
        return upper
    if OPTION_SYMBOL.fullmatch(upper):
        return upper
    if _CUSIP.fullmatch(upper) and classify(upper) is AssetClass.BOND and (
            any(c.isalpha() for c in upper) or "cusip" in message.lower()):
        return upper
    return None


def refused_class(symbol: str | None) -> AssetClass | None:
    """The class of a symbol the desk cannot serve (an option, a bond), else None."""
    if not symbol:
        return None
    kind = classify(symbol)
    return None if kind in SERVED else kind


def refusal(symbol: str, language: str, kind: str | None = None) -> str:
    """Why the desk will not analyse ``symbol`` (of class ``kind``, else read from the symbol), and what it
    can do instead, in ``language``."""
    if (kind or classify(symbol)) == AssetClass.OPTION:
        underlying = re.match(r"[A-Z]+", symbol.upper())
        return phrase(language, "assets.refused_option", symbol=symbol,
                      underlying=underlying.group(0) if underlying else symbol)
    return phrase(language, "assets.refused_bond", symbol=symbol)
