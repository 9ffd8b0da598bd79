"""The demo model reading what it is given: the prompt's subject, its `## Section` parts and
`### Persona` turns, the `| label | value |` figures, and the points those figures make for the
trade (:func:`read_points`, one rule per figure). See :mod:`graph.models.demo`."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

_ROW = re.compile(r"^\|\s*([^|\n]+?)\s*\|\s*([^|\n]+?)\s*\|\s*$", re.M)
_SUBJECT = re.compile(r"\*\*(?P<ticker>[A-Z0-9][A-Z0-9.\-^=]*)\*\* \((?P<company>[^)]*)\)")
_DATE = re.compile(r"\*\*(\d{4}-\d{2}-\d{2})\*\*")


def number(value: Any) -> float | None:
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    cleaned = value.replace(",", "").replace("%", "").replace("$", "").strip()
    mult = 1.0
    for suffix, m in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if cleaned.endswith(suffix):
            cleaned, mult = cleaned[:-1], m
    try:
        return float(cleaned) * mult
    except ValueError:
        return None


def figures_in(text: str) -> dict[str, str]:
    """Every `| label | value |` row in a text, header and separator rows left out."""
    out: dict[str, str] = {}
    for label, value in _ROW.findall(text):
        if set(label) <= set("-: ") or label.lower() in {"key figure", "metric", "figure"}:
            continue
        out.setdefault(label, value)
    return out


def sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## +(.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def turns(section: str) -> list[tuple[str, str]]:
    """The `### Persona` contributions of a case-file part, in speaking order."""
    parts = re.split(r"^### +(.+)$", section, flags=re.M)
    return [(parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)]


def fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    if abs(x) >= 1e9:
        return f"{x / 1e9:,.1f}B"
    if abs(x) >= 1e6:
        return f"{x / 1e6:,.1f}M"
    if 0 < abs(x) < 0.1:  # a currency pair's MACD (-0.0026), not "-0.00"
        return f"{x:,.4f}"
    return f"{x:,.2f}"


@dataclass(frozen=True)
class Point:
    stance: int   # +1 bullish, -1 bearish, 0 context
    label: str
    text: str


def read_points(fig: dict[str, Any]) -> list[Point]:
    """What the figures say for the trade; one rule per figure, in a fixed order."""
    n = {k: number(v) for k, v in fig.items()}
    return [point for rule in _RULES for point in rule(n, fig)]


Numbers = dict[str, float | None]


def _trend(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    close = n.get("Close")
    for avg in ("SMA 50", "SMA 200"):
        if close is not None and (level := n.get(avg)):
            up = close > level
            where = "above" if up else "below"
            yield Point(1 if up else -1, avg, f"the close of {fmt(close)} is {where} the {avg} of {fmt(level)}")


def _macd(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (h := n.get("MACD Hist")) is not None:
        yield Point(1 if h > 0 else -1, "MACD Hist",
                    f"the MACD histogram is {'positive' if h > 0 else 'negative'} at {fmt(h)}")


def _rsi(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (r := n.get("RSI 14")) is None:
        return
    if r >= 70:
        yield Point(-1, "RSI 14", f"RSI 14 at {fmt(r)} is overbought")
    elif r <= 30:
        yield Point(1, "RSI 14", f"RSI 14 at {fmt(r)} is oversold, a rebound setup")
    else:
        tone = "positive" if r >= 50 else "fading"
        yield Point(1 if r >= 50 else -1, "RSI 14", f"RSI 14 at {fmt(r)} shows {tone} momentum")


def _month_move(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (c := n.get("Change 1M %")) is not None and abs(c) >= 3:
        yield Point(1 if c > 0 else -1, "Change 1M %", f"the price moved {c:+.2f}% over the last month")


def _social(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (s := n.get("Social Score")) is not None and abs(s) >= 0.1:
        bullish = n.get("Bullish %")
        basis = f"{fmt(bullish)}% bullish posts" if bullish is not None else f"proxy: {fig.get('Proxy', 'no posts')}"
        yield Point(1 if s > 0 else -1, "Social Score", f"social sentiment scores {s:+.2f} ({basis})")


def _news(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    for tone, what in (("News Tone", "company news"), ("Macro Tone", "macro news")):
        if (t := n.get(tone)) is not None and abs(t) >= 0.1:
            yield Point(1 if t > 0 else -1, tone, f"{what} tone is {'positive' if t > 0 else 'negative'} ({t:+.2f})")


def _valuation(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (pe := n.get("P/E")) is not None and pe > 0:
        if pe >= 40:
            yield Point(-1, "P/E", f"a P/E of {fmt(pe)} prices in a lot of growth")
        elif pe <= 15:
            yield Point(1, "P/E", f"a P/E of {fmt(pe)} is undemanding")


def _growth(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (g := n.get("Revenue Growth YoY %")) is not None:
        yield Point(1 if g > 5 else -1 if g < 0 else 0, "Revenue Growth YoY %", f"revenue grew {g:+.2f}% year on year")


def _margin(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (m := n.get("Profit Margin %")) is not None:
        yield Point(1 if m >= 15 else -1 if m < 5 else 0, "Profit Margin %", f"the profit margin is {fmt(m)}%")


def _leverage(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (ratio := n.get("Debt/Equity")) is not None:
        # Vendors deliver a plain multiple (1.5 = debt is 1.5x equity; see graph/data/vendor.py).
        if ratio >= 2:
            yield Point(-1, "Debt/Equity", f"leverage is high at {fmt(ratio)}x debt to equity")
        elif ratio <= 0.5:
            yield Point(1, "Debt/Equity", f"the balance sheet is light at {fmt(ratio)}x debt to equity")


def _fund(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    """A fund's costs and its price against its NAV (graph/tools/fundamentals.py)."""
    if (cost := n.get("Expense Ratio %")) is not None:
        if cost <= 0.2:
            yield Point(1, "Expense Ratio %", f"an expense ratio of {fmt(cost)}% is cheap to hold")
        elif cost >= 0.75:
            yield Point(-1, "Expense Ratio %", f"an expense ratio of {fmt(cost)}% eats into returns")
    if (gap := n.get("Premium/Discount %")) is not None and abs(gap) >= 0.5:
        word = "premium" if gap > 0 else "discount"
        yield Point(-1 if gap > 0 else 1, "Premium/Discount %", f"it trades at a {fmt(abs(gap))}% {word} to its NAV")
    if (top := n.get("Top Holdings Weight %")) is not None:
        yield Point(0, "Top Holdings Weight %", f"its top holdings weigh {fmt(top)}% of the fund")


def _coin(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    """A coin's supply (graph/tools/fundamentals.py): context, no lean."""
    if (issued := n.get("Supply Issued %")) is not None:
        yield Point(0, "Supply Issued %", f"{fmt(issued)}% of its maximum supply is already issued")


def _events(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    """What is scheduled after the trade date (graph/tools/events.py): context, no lean."""
    for label, after, what in (("Next Earnings", "Earnings In Sessions", "earnings are due"),
                               ("Next Ex-Dividend", "Ex-Dividend In Sessions", "the stock goes ex-dividend"),
                               ("Next Split", "Split In Sessions", "a split takes effect")):
        if (day := fig.get(label)) is not None:
            away = f", {int(s)} sessions after the trade date" if (s := n.get(after)) is not None else ""
            yield Point(0, label, f"{what} on {day}{away}")


def _macro(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    """The economy as published by the trade date (graph/tools/macro.py): an inverted curve, fear and hot
    inflation lean against a long; the rest is context."""
    if (rate := n.get("Fed Funds Rate %")) is not None:
        yield Point(0, "Fed Funds Rate %", f"the effective fed funds rate is {fmt(rate)}%")
    if (cpi := n.get("CPI YoY %")) is not None:
        month = f" in {fig['CPI Month']}" if fig.get("CPI Month") else ""
        yield Point(-1 if cpi >= 4 else 0, "CPI YoY %", f"CPI rose {cpi:.2f}% year on year{month}")
    if (spread := n.get("10Y-2Y Spread")) is not None:
        shape = "inverted" if spread < 0 else "upward sloping"
        yield Point(-1 if spread < 0 else 0, "10Y-2Y Spread",
                    f"the yield curve is {shape} ({spread:+.2f} points, 10-year minus 2-year)")
    if (vix := n.get("VIX")) is not None:
        mood = "fearful" if vix >= 25 else "calm" if vix <= 15 else "watchful"
        yield Point(-1 if vix >= 25 else 0, "VIX", f"the VIX at {fmt(vix)} says the market is {mood}")


def _options(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    """Today's option chain (graph/tools/options.py): context, no lean."""
    if (ratio := n.get("Put/Call OI Ratio")) is not None:
        side = "puts outnumber calls" if ratio > 1 else "calls outnumber puts"
        yield Point(0, "Put/Call OI Ratio", f"near the money {side} (put/call open interest {fmt(ratio)})")
    if (iv := n.get("ATM Implied Vol %")) is not None:
        yield Point(0, "ATM Implied Vol %", f"options price {fmt(iv)}% implied volatility at the money")


# The rules of read_points, in the order their points are listed.
_RULES: tuple[Callable[[Numbers, dict[str, Any]], Iterator[Point]], ...] = (
    _trend, _macd, _rsi, _month_move, _social, _news, _valuation, _growth, _margin, _leverage, _fund, _coin,
    _events, _macro, _options,
)


def score(points: list[Point]) -> int:
    return sum(p.stance for p in points)


def signal_of(points: list[Point]) -> str:
    s = score(points)
    return "BUY" if s >= 2 else "SELL" if s <= -2 else "HOLD"


def _subject(system: str) -> tuple[str, str, str]:
    m = _SUBJECT.search(system)
    d = _DATE.search(system)
    return (m["ticker"] if m else "the stock", m["company"] if m else "", d[1] if d else "the trade date")
