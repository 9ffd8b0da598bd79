"""A position and a book, validated, with money as Decimal.

Rules:
- a symbol is brought into the request parser's form (`normalize_ticker`: nvda -> NVDA, brk.b -> BRK-B,
  700.hk -> 0700.HK); a symbol that cannot be one is refused;
- a quantity is a finite number of shares, at most MAX_SHARES (1e9) either way, with at most six
  decimals (fractional shares; a crypto holding eight, to the satoshi: `places_kept`); negative is a short
  and only a reader that was told "short" makes one;
  zero is no position (a book does not keep it);
- a cost is the average price paid per share, finite and >= 0, or None when the user did not say;
- cash is finite, between -MAX_CASH and MAX_CASH (1e12; negative = a margin loan the user stated).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from graph.core.assets import AssetClass, classify
from graph.request.companies import normalize_ticker

MAX_SHARES = Decimal("1e9")
MAX_CASH = Decimal("1e12")
SHARE_PLACES = 6  # fractional shares: at most six decimals
CRYPTO_PLACES = 8  # a coin to the satoshi (0.00000001 BTC)
CENT = Decimal("0.01")


class BookError(ValueError):
    """A position or book that cannot be: the message says what is wrong, in plain words."""


def to_decimal(value: Any, what: str) -> Decimal:
    """A finite Decimal from an int, a str or a Decimal (a float through its shortest repr)."""
    if isinstance(value, bool):
        raise BookError(f"{what} is not a number: {value!r}")
    try:
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise BookError(f"{what} is not a number: {value!r}") from None
    if not number.is_finite():
        raise BookError(f"{what} must be a finite number, not {value!r}")
    return number


def symbol_of(raw: str) -> str:
    symbol = normalize_ticker(raw or "")
    if symbol is None:
        raise BookError(f"{raw!r} is not a symbol")
    return symbol


def money(value: Decimal) -> str:
    """Two decimals, thousands separated: 20000 -> '20,000.00'."""
    return f"{value.quantize(CENT):,}"


def places_kept(symbol: str | None = None) -> int:
    """Decimals a book keeps of a holding: eight for crypto (BTC-USD), six (fractional shares) for the rest."""
    return CRYPTO_PLACES if symbol and classify(symbol) is AssetClass.CRYPTO else SHARE_PLACES


def too_precise(quantity: Decimal, symbol: str | None = None) -> bool:
    """More decimals than a book keeps (the readers say so in the user's language before a Position would)."""
    return quantity != quantity.quantize(Decimal(1).scaleb(-places_kept(symbol)))


def shares(value: Decimal) -> str:
    """A quantity as written back: 200 -> '200', 0.5 -> '0.5'."""
    text = f"{value.normalize():f}"
    return text


@dataclass(frozen=True)
class Position:
    symbol: str
    quantity: Decimal
    cost: Decimal | None = None  # average cost per share; None: not told

    def __post_init__(self) -> None:
        object.__setattr__(self, "symbol", symbol_of(self.symbol))
        quantity = to_decimal(self.quantity, f"the quantity of {self.symbol}")
        if abs(quantity) > MAX_SHARES:
            raise BookError(f"{shares(quantity)} shares of {self.symbol} is more than the {MAX_SHARES:,.0f} "
                            "a book allows")
        if too_precise(quantity, self.symbol):
            raise BookError(f"the quantity of {self.symbol} has more than {places_kept(self.symbol)} decimals")
        object.__setattr__(self, "quantity", quantity)
        if self.cost is not None:
            cost = to_decimal(self.cost, f"the cost of {self.symbol}")
            if cost < 0:
                raise BookError(f"the cost of {self.symbol} cannot be negative ({cost})")
            if cost > MAX_CASH:
                raise BookError(f"the cost of {self.symbol} ({cost}) is not a price")
            object.__setattr__(self, "cost", cost)

    @property
    def short(self) -> bool:
        return self.quantity < 0

    def describe(self) -> str:
        """'200 NVDA @ 95.00', 'short 50 TSLA @ 240.00', '10 MSFT (cost not given)'."""
        side = "short " if self.short else ""
        cost = f" @ {money(self.cost)}" if self.cost is not None else " (cost not given)"
        return f"{side}{shares(abs(self.quantity))} {self.symbol}{cost}"

    def to_json(self) -> dict[str, Any]:
        return {"symbol": self.symbol, "quantity": str(self.quantity),
                "cost": None if self.cost is None else str(self.cost)}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Position:
        cost = value.get("cost")
        return cls(value["symbol"], Decimal(value["quantity"]), None if cost is None else Decimal(cost))


@dataclass(frozen=True)
class Book:
    positions: tuple[Position, ...] = ()
    cash: Decimal = Decimal(0)
    currency: str = "USD"
    _index: dict[str, Position] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cash = to_decimal(self.cash, "the cash")
        if abs(cash) > MAX_CASH:
            raise BookError(f"a cash balance of {money(cash)} is more than the {MAX_CASH:,.0f} a book allows")
        object.__setattr__(self, "cash", cash)
        currency = (self.currency or "").strip().upper()
        if not (len(currency) == 3 and currency.isalpha()):
            raise BookError(f"{self.currency!r} is not a currency code")
        object.__setattr__(self, "currency", currency)
        index: dict[str, Position] = {}
        for position in self.positions:
            if position.symbol in index:
                raise BookError(f"{position.symbol} is in the book twice")
            if position.quantity != 0:
                index[position.symbol] = position
        object.__setattr__(self, "positions", tuple(sorted(index.values(), key=lambda p: p.symbol)))
        object.__setattr__(self, "_index", index)

    def get(self, symbol: str) -> Position | None:
        try:
            return self._index.get(symbol_of(symbol))
        except BookError:
            return None

    def quantity(self, symbol: str) -> Decimal:
        position = self.get(symbol)
        return position.quantity if position else Decimal(0)

    def with_position(self, position: Position) -> Book:
        """This book with `position` in place of the symbol's (a zero quantity removes it)."""
        others = tuple(p for p in self.positions if p.symbol != position.symbol)
        return Book((*others, position), self.cash, self.currency)

    def with_cash(self, cash: Decimal) -> Book:
        return Book(self.positions, cash, self.currency)

    def describe(self) -> str:
        lines = [p.describe() for p in self.positions] or ["no positions"]
        return "; ".join(lines) + f"; cash {money(self.cash)} {self.currency}"

    def to_json(self) -> dict[str, Any]:
        return {"positions": [p.to_json() for p in self.positions], "cash": str(self.cash),
                "currency": self.currency}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Book:
        return cls(tuple(Position.from_json(p) for p in value.get("positions", ())),
                   Decimal(value.get("cash", "0")), value.get("currency", "USD"))
