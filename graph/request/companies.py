"""Known companies: ticker, display name and the names people type for them.

Data lives in ``data/companies.csv`` (columns ``ticker,name,aliases``, aliases
separated by ``|``). Tickers are in Yahoo form (``BRK-B``, ``BTC-USD``).

An alias prefixed with ``?`` is an ordinary English word as well as a company
name ("target", "chase", "block", "delta"). The request parser only accepts
such aliases when the context says a company is meant (capitalised mid-sentence,
"buy target", "target stock", ...). Keeping that flag in the data means whoever
adds a company decides how risky its nickname is.

The file is read once, lazily, and cached for the life of the process.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache

from .wordlists import DATA, load_words

__all__ = [
    "EXCHANGE_SUFFIXES",
    "SHARE_CLASSES",
    "Company",
    "alias_table",
    "all_companies",
    "company_name",
    "get_company",
    "is_known_ticker",
    "normalize_ticker",
]

# Yahoo exchange suffixes we pass through untouched when a user writes them
# explicitly (0700.HK, VOD.L, 7203.T, SHOP.TO, SAP.DE, ...).
EXCHANGE_SUFFIXES = load_words("exchange_suffixes.txt")

# Share-class suffixes: Yahoo writes them with a dash (BRK-B, BF-B).
SHARE_CLASSES = frozenset({"A", "B", "C"})


@dataclass(frozen=True)
class Company:
    ticker: str
    name: str
    aliases: tuple[str, ...]  # lower-case, unambiguous names
    weak_aliases: tuple[str, ...]  # lower-case names that are also English words


@lru_cache(maxsize=1)
def all_companies() -> dict[str, Company]:
    """Ticker -> Company, loaded from the CSV once."""
    companies: dict[str, Company] = {}
    # Read through importlib.resources so it works from an installed wheel too.
    # No field spans lines, so splitting the text into lines is safe for csv.
    lines = (DATA / "companies.csv").read_text(encoding="utf-8").splitlines()
    for row in csv.DictReader(lines):
        ticker = (row.get("ticker") or "").strip().upper()
        if not ticker:
            continue
        strong: list[str] = []
        weak: list[str] = []
        for raw in (row.get("aliases") or "").split("|"):
            alias = " ".join(raw.strip().lower().split())
            if alias.startswith("?"):
                weak.append(alias[1:].strip())
            elif alias:
                strong.append(alias)
        companies[ticker] = Company(
            ticker=ticker,
            name=(row.get("name") or ticker).strip(),
            aliases=tuple(strong),
            weak_aliases=tuple(a for a in weak if a),
        )
    return companies


def get_company(ticker: str | None) -> Company | None:
    if not ticker:
        return None
    return all_companies().get(ticker.upper())


def company_name(ticker: str | None) -> str | None:
    company = get_company(ticker)
    return company.name if company else None


def is_known_ticker(ticker: str | None) -> bool:
    return get_company(ticker) is not None


@lru_cache(maxsize=1)
def alias_table() -> dict[str, tuple[str, bool]]:
    """Lower-case alias -> (ticker, is_weak).

    If two companies claim the same alias the first row wins; the CSV is
    ordered roughly by market cap, so the bigger company keeps the name.
    """
    table: dict[str, tuple[str, bool]] = {}
    for company in all_companies().values():
        for alias in company.aliases:
            table.setdefault(alias, (company.ticker, False))
        for alias in company.weak_aliases:
            table.setdefault(alias, (company.ticker, True))
    return table


_CLASS_FORM = re.compile(r"^([A-Z]{1,5})[.\-/ ]?([A-Z])$")
_EXCHANGE_FORM = re.compile(r"^([A-Z0-9]{1,8})\.([A-Z]{1,3})$")


def normalize_ticker(raw: str) -> str | None:
    """Bring a user-written symbol into Yahoo form, or None if it can't be one.

    ``brk.b``/``BRK/B``/``brk b`` -> ``BRK-B``; ``700.hk``/``00700.HK`` -> ``0700.HK``;
    ``600519.sh`` -> ``600519.SS``;
    ``shop.to`` -> ``SHOP.TO``; plain ``nvda`` -> ``NVDA``.
    """
    sym = raw.strip().lstrip("$").upper()
    if not sym:
        return None
    if re.fullmatch(r"[A-Z]{1,6}", sym):
        return sym
    if re.fullmatch(r"[A-Z0-9]{2,6}-USD", sym):  # crypto pairs (BTC-USD)
        return sym
    if re.fullmatch(r"\^[A-Z0-9]{2,8}|(?:[A-Z]{6}|[A-Z]{3})=X|[A-Z0-9]{1,4}=F", sym):  # ^GSPC, EURUSD=X, GC=F
        return sym
    match = _EXCHANGE_FORM.match(sym)
    if match and match.group(2) in EXCHANGE_SUFFIXES:
        base, suffix = match.groups()
        if suffix == "HK" and base.isdigit():
            base = str(int(base)).zfill(4)  # Yahoo wants 4 digits for Hong Kong: 700, 00700 -> 0700
        if suffix == "SH":
            suffix = "SS"  # Shanghai: "SH" in China, "SS" at Yahoo
        return f"{base}.{suffix}"
    match = _CLASS_FORM.match(sym)
    if match and match.group(2) in SHARE_CLASSES:
        return f"{match.group(1)}-{match.group(2)}"
    return None
