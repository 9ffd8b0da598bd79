"""What a ruling's signal and size mean against the user's book, in shares and money.

Rules:
- the book's value is its cash plus every position at the price given for it (shorts count
  negative); a held symbol with no price is a stated gap and nothing is sized (never a guess);
- the size is the ruling's `position_size` read as a percent of that value ("2% of portfolio",
  "2.5%"); no percent in it is a stated gap; "0% (stay flat)" sizes nothing;
- BUY: buy the size's worth, in the units of the ticker's class rounded down (floor(value * pct / price)):
  whole shares for equities and funds, 8 decimals for crypto (0.00000001 BTC), a currency pair in units of
  its base currency to 2 decimals (graph/core/assets.py's unit_places); when the cash does not cover it,
  only what the cash covers (floor(cash / price)), said so; cost = units * price;
  cash after = cash - cost; the weight after is the ticker's value over the book's value (a buy at
  the price only turns cash into stock, so the value stays);
- a commodity future is sized in whole contracts of its multiplier (graph/core/contracts.py: GC=F 100 troy
  oz, ES=F $50 × the index): one contract's notional is price × multiplier, the size's worth is
  floor(value * pct / notional) contracts, and its amount is that notional (the position is counted fully
  collateralised, its notional against the book, as the book has no margin account); a position held
  counts quantity * price * multiplier. A future whose multiplier the desk does not know is a stated gap,
  never sized as shares; a size below one contract's notional is 0 contracts, said with the notional;
- SELL when held: sell the size's worth in the class's units rounded down, at most the holding;
  proceeds = shares * price, cash after = cash + proceeds; the position after keeps its cost;
- SELL when none held: "short" the size's worth when shorting is allowed (proceeds credited to the
  cash, as a broker does, the position after negative), else "stay out" with no change;
- HOLD: no change;
- money is Decimal: amounts are exact (whole shares times the given price), then rounded to cents
  half-up for cost, proceeds and cash; weights are fractions rounded to 4 places (0.0123 = 1.23%).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from typing import Any, Literal

from graph.core.assets import AssetClass, classify, unit_places
from graph.core.contracts import contract_of
from graph.core.state import FinalDecision, Signal
from graph.core.words import phrase

from .holdings import CENT, Book, Position, money, shares, symbol_of, to_decimal

Action = Literal["buy", "sell", "short", "stay out", "hold", "gap"]
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
_WEIGHT = Decimal("0.0001")
_IN_UNITS = ("buy", "sell", "short")


def _places(symbol: str) -> int:
    return unit_places(classify(symbol)) if symbol else 0


def multiplier(symbol: str) -> Decimal | None:
    """What one unit of the symbol is worth per unit of its price: 1 for a share, a coin or a currency unit;
    a future's contract multiplier (GC=F: 100); None for a future whose multiplier the desk does not know."""
    if classify(symbol) is not AssetClass.FUTURE:
        return Decimal(1)
    contract = contract_of(symbol)
    return contract.multiplier if contract else None


def _unit(symbol: str) -> Decimal:
    """The multiplier of a symbol already checked known (size_against refuses an unknown one first)."""
    return multiplier(symbol) or Decimal(1)


def _is_future(symbol: str) -> bool:
    return bool(symbol) and classify(symbol) is AssetClass.FUTURE


def _units(symbol: str) -> str:
    """What a quantity of the symbol counts, for the sizing's note."""
    kind = classify(symbol)
    if kind is AssetClass.CRYPTO:
        return f"units (to {unit_places(kind)} decimals)"
    if kind is AssetClass.CURRENCY:
        return f"units of the base currency {symbol[:3]} (to {unit_places(kind)} decimals)"
    if kind is AssetClass.FUTURE and (contract := contract_of(symbol)):
        return f"whole contracts ({_each(contract.multiplier, contract.unit)} each)"
    return "whole shares"


def _each(size: Decimal, unit: str) -> str:
    """One contract in words: "100 troy oz", "$50 × the index"."""
    return phrase("en", "book.unit_" + unit, n=f"{size.normalize():,f}")


def _floor(quantity: Decimal, places: int) -> Decimal:
    return quantity.quantize(Decimal(1).scaleb(-places), rounding=ROUND_DOWN)


def in_units(symbol: str, quantity: Decimal) -> Decimal:
    """A quantity of the symbol rounded down to its class's units: whole shares or contracts, a coin to 8 decimals,
    a currency pair to 2 (the paper book sizes its fills with it too, graph/paper/ledger.py)."""
    return _floor(quantity, _places(symbol))


def fractional(symbol: str) -> bool:
    """Whether the symbol's class is sized in fractions of a unit (a coin, a currency pair)."""
    return _places(symbol) > 0


@dataclass(frozen=True)
class Sizing:
    action: Action
    symbol: str
    summary: str  # one line for the card: "buy 21 NVDA at 100.00 for 2,100.00: weight 0.00% -> 2.05%"
    shares: Decimal = Decimal(0)  # traded, >= 0
    price: Decimal | None = None
    amount: Decimal = Decimal(0)  # cost of a buy, proceeds of a sale or short, to the cent
    value: Decimal | None = None  # the book's value at the given prices
    cash_before: Decimal | None = None
    cash_after: Decimal | None = None
    before: Position | None = None
    after: Position | None = None
    weight_before: Decimal | None = None
    weight_after: Decimal | None = None
    notes: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()
    # The summary as the catalogue words it (prompts/words_<code>.md, [book]): its key and fields, so the
    # card says it in the thread's language; `summary` is the English (the prompts and the record read it).
    said: tuple[str, tuple[tuple[str, str], ...]] = ("", ())
    # When the trade settles (graph/core/settlement.py): (rule "T+1", the trade date, the settlement date,
    # "daily" for a future marked every session, else ""), set by the run that knows the trade date (brief.py).
    settles: tuple[str, str, str, str] | None = None

    def told(self, language: str) -> str:
        key, fields = self.said
        return phrase(language, key, **dict(fields)) if key else self.summary


def _said(key: str, **fields: object) -> dict[str, Any]:
    """A sizing's summary in English and its catalogue key and fields (Sizing.said)."""
    symbol = str(fields.get("symbol", ""))
    if key in _IN_UNITS and _is_future(symbol):  # "1 GC=F contract", not "1 share"
        key += "_contracts"
    elif key in _IN_UNITS and _places(symbol):  # "0.5 BTC-USD", not "0.5 shares"
        key += "_units"
    key = "book.sizing_" + key
    return {"summary": phrase("en", key, **fields), "said": (key, tuple((k, str(v)) for k, v in fields.items()))}


def percent_of(position_size: str) -> Decimal | None:
    """'2% of portfolio' -> 2; '0% (stay flat)' -> 0; no percent -> None."""
    match = _PERCENT.search(position_size or "")
    return Decimal(match.group(1)) if match else None


def book_value(book: Book, prices: dict[str, Decimal]) -> tuple[Decimal | None, list[str]]:
    """Cash plus each position at its given price (a future's contracts times its multiplier); the held
    symbols with no price, or a future with no known multiplier, when there are any."""
    missing = [p.symbol for p in book.positions if p.symbol not in prices or multiplier(p.symbol) is None]
    if missing:
        return None, missing
    return book.cash + sum((p.quantity * prices[p.symbol] * (multiplier(p.symbol) or 1)
                            for p in book.positions), Decimal(0)), []


def size_against(book: Book, symbol: str, price: Decimal | int | str, signal: Signal, position_size: str,
                 prices: dict[str, Decimal] | None = None, *, allow_short: bool = False) -> Sizing:
    """The ruling's meaning for this book: `price` is the ticker's, `prices` the other holdings'."""
    symbol = symbol_of(symbol)
    given = {symbol_of(s): to_decimal(p, f"the price of {s}") for s, p in (prices or {}).items()}
    price_d = to_decimal(price, f"the price of {symbol}")
    given[symbol] = price_d
    before = book.get(symbol)
    held = before.quantity if before else Decimal(0)
    base: dict[str, Any] = dict(symbol=symbol, price=price_d, cash_before=book.cash, before=before)
    value = _value_or_gap(book, symbol, price_d, given, base)
    if isinstance(value, Sizing):
        return value
    unit = _unit(symbol)
    weight_before = _weight(held * price_d * unit, value)
    base.update(value=value, weight_before=weight_before)
    if signal == "HOLD":
        said = _said("hold", held=before.describe()) if before else _said("hold_none", symbol=symbol)
        return Sizing("hold", **said, cash_after=book.cash, after=before, weight_after=weight_before, **base)
    pct = percent_of(position_size)
    if pct is None:
        return Sizing("gap", **_said("gap_size", size=repr(position_size)), gaps=("position size",),
                      cash_after=book.cash, after=before,
                      weight_after=weight_before, **base)
    if value <= 0:
        return Sizing("gap", **_said("gap_value", value=money(value)), gaps=("book value",),
                      cash_after=book.cash, after=before, weight_after=weight_before, **base)
    wanted = in_units(symbol, value * pct / 100 / (price_d * unit))
    notes = [f"{pct.normalize():f}% of {money(value)} is {money(value * pct / 100)}: {shares(wanted)} "
             f"{_units(symbol)} at {money(price_d)}"]
    if _is_future(symbol):
        notes.append(f"one {symbol} contract's notional is {money(price_d * unit)}")
        if not wanted and signal in ("BUY", "SELL"):
            return _no_contract(book, base, pct, value, notes)
    if signal == "BUY":
        return _buy(book, base, wanted, notes)
    if held > 0:
        return _sell(book, base, wanted, notes)
    if not allow_short:
        said = _said("stay_out_short", shares=shares(-held), symbol=symbol) if held < 0 else \
            _said("stay_out", symbol=symbol)
        return Sizing("stay out", **said,
                      cash_after=book.cash, after=before, weight_after=weight_before,
                      notes=tuple(notes), **base)
    return _short(book, base, wanted, notes)


def _value_or_gap(book: Book, symbol: str, price: Decimal, given: dict[str, Decimal],
                  base: dict[str, Any]) -> Decimal | Sizing:
    """The book's value, or the gap that stops the sizing: no price, a future whose multiplier is unknown (its
    notional unknown: never sized as shares), a held symbol with no price."""
    if price <= 0:
        return Sizing("gap", **_said("gap_price", symbol=symbol, price=price), gaps=(f"price of {symbol}",), **base)
    if unknown := [s for s in dict.fromkeys((symbol, *(p.symbol for p in book.positions))) if multiplier(s) is None]:
        return Sizing("gap", **_said("gap_multiplier", symbols=", ".join(unknown)),
                      gaps=tuple(f"contract multiplier of {s}" for s in unknown), **base)
    value, missing = book_value(book, given)
    if value is None:
        return Sizing("gap", **_said("gap_prices", symbols=", ".join(missing)),
                      gaps=tuple(f"price of {s}" for s in missing), **base)
    return value


def _buy(book: Book, base: dict[str, Any], wanted: Decimal, notes: list[str]) -> Sizing:
    symbol, price, value, before = base["symbol"], base["price"], base["value"], base["before"]
    held = before.quantity if before else Decimal(0)
    unit = _unit(symbol)
    affordable = in_units(symbol, max(book.cash, Decimal(0)) / (price * unit))
    count = min(wanted, affordable)
    if affordable < wanted:
        notes.append(f"the cash ({money(book.cash)}) covers only {shares(affordable)}")
    cost = _cents(count * price * unit)
    after = _bought(before, symbol, count, price) if count else before
    weight_after = _weight((held + count) * price * unit, value)
    said = _said("buy", shares=shares(count), symbol=symbol, price=money(price), amount=money(cost),
                 before=_pct(base["weight_before"]), after=_pct(weight_after), **_contract_fields(symbol, price))
    return Sizing("buy", **said, shares=count, amount=cost, cash_after=_cents(book.cash - cost),
                  after=after, weight_after=weight_after, notes=tuple(notes), **base)


def _sell(book: Book, base: dict[str, Any], wanted: Decimal, notes: list[str]) -> Sizing:
    symbol, price, value, before = base["symbol"], base["price"], base["value"], base["before"]
    held = before.quantity
    count = min(wanted, held)
    if wanted > held:
        notes.append(f"capped at the {shares(held)} held")
    proceeds = _cents(count * price * _unit(symbol))
    left = held - count
    after = Position(symbol, left, before.cost) if left else None
    weight_after = _weight(left * price * _unit(symbol), value)
    said = _said("sell", shares=shares(count), held=shares(held), symbol=symbol, price=money(price),
                 amount=money(proceeds), left=shares(left), before=_pct(base["weight_before"]),
                 after=_pct(weight_after), **_contract_fields(symbol, price))
    return Sizing("sell", **said, shares=count, amount=proceeds, cash_after=_cents(book.cash + proceeds),
                  after=after, weight_after=weight_after, notes=tuple(notes), **base)


def _short(book: Book, base: dict[str, Any], wanted: Decimal, notes: list[str]) -> Sizing:
    symbol, price, value, before = base["symbol"], base["price"], base["value"], base["before"]
    held = before.quantity if before else Decimal(0)  # a short already held is added to
    proceeds = _cents(wanted * price * _unit(symbol))
    after = Position(symbol, held - wanted, price if before is None else None) if wanted else before
    weight_after = _weight((held - wanted) * price * _unit(symbol), value)
    said = _said("short", shares=shares(wanted), symbol=symbol, price=money(price), amount=money(proceeds),
                 before=_pct(base["weight_before"]), after=_pct(weight_after), **_contract_fields(symbol, price))
    return Sizing("short", **said, shares=wanted, amount=proceeds, cash_after=_cents(book.cash + proceeds),
                  after=after, weight_after=weight_after, notes=tuple(notes), **base)


def _contract_fields(symbol: str, price: Decimal) -> dict[str, str]:
    """A future's contract in the summary's fields: what one holds ("100 troy oz") and its notional."""
    contract = contract_of(symbol) if _is_future(symbol) else None
    if contract is None:
        return {}
    return {"each": _each(contract.multiplier, contract.unit), "notional": money(price * contract.multiplier)}


def _no_contract(book: Book, base: dict[str, Any], pct: Decimal, value: Decimal, notes: list[str]) -> Sizing:
    """A size below one contract's notional: no contract is traded, and the desk says why."""
    symbol, price, before = base["symbol"], base["price"], base["before"]
    said = _said("contracts_none", symbol=symbol, pct=f"{pct.normalize():f}%", wanted=money(value * pct / 100),
                 price=money(price), **_contract_fields(symbol, price))
    return Sizing("stay out", **said, cash_after=book.cash, after=before, weight_after=base["weight_before"],
                  notes=tuple(notes), **base)


def size_decision(book: Book, decision: FinalDecision, price: Decimal | int | str,
                  prices: dict[str, Decimal] | None = None, *, allow_short: bool = False) -> Sizing:
    """`size_against` with the ruling's ticker, signal and size."""
    return size_against(book, decision.ticker, price, decision.signal, decision.position_size, prices,
                        allow_short=allow_short)


def _bought(before: Position | None, symbol: str, count: Decimal, price: Decimal) -> Position:
    if before is None:
        return Position(symbol, count, price)
    total = before.quantity + count
    if before.cost is None or before.quantity < 0:
        return Position(symbol, total, None)
    return Position(symbol, total, ((before.quantity * before.cost + count * price) / total).quantize(_WEIGHT))


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def _weight(part: Decimal, value: Decimal) -> Decimal:
    return (part / value).quantize(_WEIGHT, rounding=ROUND_HALF_UP) if value else Decimal(0)


def _pct(weight: Decimal) -> str:
    return f"{weight * 100:.2f}%"

