"""The user's book as a run knows it: priced at the closes of the trade date, told to the Trader and the Risk
Judge (prompts/book.md), and the ruling sized against it once made (sizing.py).

Point in time: the book is the user's as stored when the run starts (what they hold now), priced at the
closes on or before the analysis's trade date, the same closes the analysts read; a symbol with no close by
then is a stated gap, never a guess (the book's value is then unknown, and nothing is sized).

The run keeps it as plain JSON (`as_state`), so it is checkpointed with the run and an edit or a follow-up
reads the same book the ruling was sized against.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from typing import Any

from ..core.prompts import render
from ..core.settlement import settlement_of
from ..core.state import FinalDecision
from .holdings import Book, money, shares
from .sizing import Sizing, book_value, multiplier, size_decision


@dataclass(frozen=True)
class PricedBook:
    book: Book
    ticker: str
    trade_date: str
    prices: dict[str, Decimal]  # symbol -> its close on or before the trade date
    allow_short: bool = False

    @property
    def gaps(self) -> list[str]:
        wanted = {p.symbol for p in self.book.positions} | {self.ticker}
        return sorted(s for s in wanted if s not in self.prices)

    def as_state(self) -> dict[str, Any]:
        return {"book": self.book.to_json(), "ticker": self.ticker, "trade_date": self.trade_date,
                "prices": {s: str(p) for s, p in self.prices.items()}, "allow_short": self.allow_short,
                "brief": self.brief()}

    @classmethod
    def from_state(cls, value: dict[str, Any]) -> PricedBook:
        return cls(Book.from_json(value["book"]), str(value["ticker"]), str(value["trade_date"]),
                   {s: Decimal(p) for s, p in (value.get("prices") or {}).items()}, bool(value.get("allow_short")))

    def brief(self) -> str:
        """What the Trader and the Risk Judge read (prompts/book.md)."""
        value, _ = book_value(self.book, self.prices)
        held = self.book.get(self.ticker)
        price = self.prices.get(self.ticker)
        if held is None:
            holding = f"They hold no {self.ticker}."
        elif price is None:
            holding = f"They hold {held.describe()}; there is no close for {self.ticker} by {self.trade_date}."
        else:
            worth = held.quantity * price * (multiplier(self.ticker) or 1)  # a future: contracts × multiplier
            weight = f", {_pct(worth, value)} of the book" if value else ""
            holding = f"They hold {held.describe()}, worth {money(worth)} at the close of {money(price)}{weight}."
        count = len(self.book.positions)
        positions = f"{count} position{'s' * (count != 1)}"
        if value is None:
            shown_value, cash_weight, largest = "unknown", "?", f"unknown (no close for {', '.join(self.gaps)})"
        else:
            shown_value, cash_weight = f"{money(value)} {self.book.currency}", _pct(self.book.cash, value)
            weights = [(p.quantity * self.prices[p.symbol] * (multiplier(p.symbol) or 1), p.symbol)
                       for p in self.book.positions]
            top = max(weights, default=None)
            largest = f"{top[1]} at {_pct(top[0], value)}" if top else "none"
        shorting = ("Shorting is allowed: a SELL with nothing held may open a short." if self.allow_short else
                    "Shorting is not allowed: a SELL with nothing held means staying out.")
        return render("book", holding=holding, value=shown_value, trade_date=self.trade_date,
                      cash=money(self.book.cash), cash_weight=cash_weight, count=positions, largest=largest,
                      shorting=shorting, ticker=self.ticker)

    def size(self, decision: FinalDecision) -> Sizing | None:
        """The ruling against the book; None when the ticker has no close (the brief said so)."""
        price = self.prices.get(self.ticker)
        if price is None:
            return None
        others = {s: p for s, p in self.prices.items() if s != self.ticker}
        sizing = size_decision(self.book, decision, price, others, allow_short=self.allow_short)
        return self._settles(sizing)

    def _settles(self, sizing: Sizing) -> Sizing:
        """A trade's settlement by its class (T+1 for a US stock, same day for crypto, T+2 spot FX, daily for a
        future), counted from the trade date in the class's sessions; none when nothing is traded."""
        settlement = settlement_of(self.ticker)
        if sizing.action not in ("buy", "sell", "short") or not sizing.shares or settlement is None:
            return sizing
        try:
            traded = date.fromisoformat(self.trade_date)
        except ValueError:
            return sizing
        return replace(sizing, settles=(settlement.rule, traded.isoformat(), settlement.on(traded).isoformat(),
                                        "daily" if settlement.daily else ""))


def sizing_state(sizing: Sizing) -> dict[str, Any]:
    """A sizing as plain JSON for the run's state: what the card and a follow-up show."""
    def weight(w: Decimal | None) -> str:
        return "" if w is None else f"{w * 100:.2f}%"

    key, fields = sizing.said
    return {"action": sizing.action, "summary": sizing.summary, "said": {"key": key, "fields": dict(fields)},
            "shares": shares(sizing.shares),
            "amount": money(sizing.amount), "before": sizing.before.describe() if sizing.before else "",
            "after": sizing.after.describe() if sizing.after else "",
            "weight_before": weight(sizing.weight_before), "weight_after": weight(sizing.weight_after),
            "cash_before": money(sizing.cash_before) if sizing.cash_before is not None else "",
            "cash_after": money(sizing.cash_after) if sizing.cash_after is not None else "",
            "notes": list(sizing.notes), "gaps": list(sizing.gaps),
            **({"settles": dict(zip(("rule", "trade_date", "date", "daily"), sizing.settles, strict=True))}
               if sizing.settles else {})}


def _pct(part: Decimal, whole: Decimal | None) -> str:
    return f"{part / whole * 100:.2f}%" if whole else "?"
