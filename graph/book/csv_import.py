"""A broker's CSV of positions read into a book: every row or nothing.

Rules:
- at most MAX_BYTES (1 MB) and MAX_ROWS (5,000 data rows): a bigger file is refused whole;
- UTF-8 (a BOM is fine); the delimiter is ';' when the header line has more ';' than ',', else ',';
  with ';' numbers use ',' as the decimal mark ("1.234,50"), with ',' a comma groups thousands and
  such a number must be quoted ("\"1,234.50\"");
- headers, case and punctuation ignored: symbol/ticker/code/instrument; quantity/qty/shares/position/
  units; cost/avg cost/average cost/cost per share/price/avg price/cost basis/purchase price (per
  share), or total cost/cost basis total/book cost (for the whole holding, divided by the quantity);
  other columns are ignored; a symbol and a quantity column are required, cost is optional;
- numbers may carry a currency sign or code, thousands separators, or accountants' "(12.00)";
- a row whose symbol is CASH (or the book's currency code) is the cash, its amount in the quantity
  column (else the cost column); blank rows and rows whose symbol starts "total" are skipped;
- the same symbol in several rows (lots) is one position: quantities summed, cost averaged
  (unknown if a lot's cost is);
- a row is an error when: its symbol cannot be a symbol, its quantity is missing, not a number,
  negative (shorts are told in words: "short 50 TSLA"), zero, or over MAX_SHARES, its cost is not a
  number or negative, or it has more cells than the header; any error -> `book` is None.
A symbol in a valid form the desk does not know is kept (the broker's file is the authority) and
named in `notes`. Reasons and notes are `Said` ([book] texts, graph/book/words.py): English as str, and
`told(language)` in the reader's.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from decimal import Decimal

from graph.request.companies import is_known_ticker, normalize_ticker

from .amounts import cell_amount
from .holdings import MAX_CASH, MAX_SHARES, Book, BookError, Position, money, places_kept, shares, too_precise
from .words import Said

MAX_BYTES = 1_000_000
MAX_ROWS = 5_000

_SYMBOL = {"symbol", "ticker", "code", "instrument", "stock", "security", "stockcode", "tickersymbol"}
_QUANTITY = {"quantity", "qty", "shares", "position", "units", "sharesheld", "holding", "holdings", "amount"}
_COST = {"cost", "avgcost", "averagecost", "costpershare", "price", "avgprice", "averageprice", "costbasis",
         "purchaseprice", "unitcost", "avgcostpershare", "costprice", "averagecostbasis"}
_TOTAL_COST = {"totalcost", "costbasistotal", "bookcost", "totalcostbasis", "bookvalue"}


@dataclass(frozen=True)
class RowError:
    row: int  # the line in the file (the header is line 1); 0: the whole file
    reason: str  # in English (a Said, or a BookError's own words)

    def __str__(self) -> str:
        return f"row {self.row}: {self.reason}"

    def told(self, language: str) -> str:
        """"row 3: …" in `language`; the reason alone for the whole file."""
        reason = self.reason.told(language) if isinstance(self.reason, Said) else self.reason
        return Said("csv_row", row=self.row, reason=reason).told(language) if self.row else reason


@dataclass(frozen=True)
class CsvImport:
    book: Book | None  # None whenever there is any error: nothing is imported
    errors: tuple[RowError, ...] = ()
    notes: tuple[Said, ...] = ()
    rows: int = 0
    has_cash: bool = False  # the file had a cash row: without one, the caller may keep the cash it knew

    @property
    def ok(self) -> bool:
        return self.book is not None


def _key(header: str) -> str:
    return re.sub(r"[^a-z]", "", header.lower())


def _refuse(reason: Said, row: int = 0) -> CsvImport:
    return CsvImport(None, (RowError(row, reason),))


def read_csv(data: bytes | str, currency: str = "USD") -> CsvImport:
    """The book in a broker's CSV, or every reason it cannot be read (and no book)."""
    table = _table(data)
    if isinstance(table, CsvImport):
        return table
    rows, delimiter = table
    header = [_key(h) for h in rows[0]]
    body = rows[1:]
    if sum(1 for r in body if any(c.strip() for c in r)) > MAX_ROWS:
        return _refuse(Said("csv_too_many_rows", max=MAX_ROWS))
    columns = _columns(header)
    if isinstance(columns, Said):
        return _refuse(columns, 1)
    reader = _Rows(columns, len(header), delimiter, currency)
    for number, row in enumerate(body, start=2):
        if any(cell.strip() for cell in row):
            reader.read(number, row)
    if reader.errors:
        return CsvImport(None, tuple(reader.errors), tuple(reader.notes), len(body))
    if abs(reader.cash) > MAX_CASH:
        return CsvImport(None, (RowError(0, Said("csv_cash_too_much", cash=money(reader.cash),
                                                 max=f"{MAX_CASH:,.0f}")),), tuple(reader.notes), len(body))
    try:
        positions = tuple(_merge(symbol, held) for symbol, held in reader.lots.items())
        book = Book(positions, reader.cash, currency)
    except BookError as error:
        return CsvImport(None, (RowError(0, str(error)),), tuple(reader.notes), len(body))
    merged = [Said("csv_merged", symbol=symbol, n=len(held)) for symbol, held in reader.lots.items() if len(held) > 1]
    return CsvImport(book, (), (*reader.notes, *merged), len(body), reader.has_cash)


def _table(data: bytes | str) -> tuple[list[list[str]], str] | CsvImport:
    """The file's rows from its header on, and its delimiter; or the refusal of the whole file."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > MAX_BYTES:
        return _refuse(Said("csv_too_big", size=len(raw), max=MAX_BYTES))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return _refuse(Said("csv_not_utf8"))
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)  # blank lines before the header do not count: the header is row 1
    if not lines:
        return _refuse(Said("csv_empty"))
    delimiter = ";" if lines[0].count(";") > lines[0].count(",") else ","
    return list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)), delimiter


class _Rows:
    """The rows read so far: lots per symbol, the cash, the errors and notes."""

    def __init__(self, columns: tuple[int, int, int | None, int | None], width: int, delimiter: str,
                 currency: str):
        self.symbol_at, self.quantity_at, self.cost_at, self.total_at = columns
        self.width, self.delimiter, self.currency = width, delimiter, currency
        self.errors: list[RowError] = []
        self.notes: list[Said] = []
        self.lots: dict[str, list[tuple[Decimal, Decimal | None]]] = {}
        self.cash = Decimal(0)
        self.has_cash = False

    def read(self, number: int, row: list[str]) -> None:
        if len(row) > self.width:
            self.errors.append(RowError(number, Said("csv_cells", cells=len(row), columns=self.width)))
            return
        cells = row + [""] * (self.width - len(row))
        written = cells[self.symbol_at].strip()
        if written.lower().startswith("total"):
            return
        if written.upper() in ("CASH", self.currency.upper()) or written.lower().startswith("cash"):
            self._cash(number, cells)
            return
        symbol = normalize_ticker(written)
        if symbol is None:
            self.errors.append(RowError(number, Said("csv_not_symbol", written=written) if written
                                        else Said("csv_no_symbol")))
            return
        quantity = _quantity(cells[self.quantity_at], self.delimiter, number, symbol, self.errors)
        cost = _cost(cells, self.cost_at, self.total_at, quantity, self.delimiter, number, symbol, self.errors)
        if quantity is None or isinstance(cost, bool):
            return
        self.lots.setdefault(symbol, []).append((quantity, cost))
        if not is_known_ticker(symbol) and "." not in symbol:
            self.notes.append(Said("csv_unknown", row=number, symbol=symbol))

    def _cash(self, number: int, cells: list[str]) -> None:
        cell = cells[self.quantity_at]
        if not cell.strip() and self.cost_at is not None:
            cell = cells[self.cost_at]
        amount = cell_amount(cell, self.delimiter)
        if amount is None:
            self.errors.append(RowError(number, Said("csv_cash_not_number", cell=cell.strip())))
        else:
            self.cash += amount
            self.has_cash = True


def _columns(header: list[str]) -> tuple[int, int, int | None, int | None] | Said:
    def find(names: set[str]) -> int | None:
        return next((i for i, h in enumerate(header) if h in names), None)

    symbol_at, quantity_at = find(_SYMBOL), find(_QUANTITY)
    missing = [name for name, at in (("symbol", symbol_at), ("quantity", quantity_at)) if at is None]
    if missing:
        return Said("csv_no_columns", missing=tuple(missing))
    assert symbol_at is not None and quantity_at is not None
    return symbol_at, quantity_at, find(_COST), find(_TOTAL_COST)


def _quantity(cell: str, delimiter: str, row: int, symbol: str, errors: list[RowError]) -> Decimal | None:
    if not cell.strip():
        errors.append(RowError(row, Said("csv_no_quantity", symbol=symbol)))
        return None
    quantity = cell_amount(cell, delimiter)
    reason = None
    if quantity is None:
        reason = Said("csv_quantity_not_number", cell=cell.strip())
    elif quantity < 0:
        reason = Said("csv_negative_quantity", quantity=quantity, symbol=symbol)
    elif quantity == 0:
        reason = Said("csv_zero_quantity", symbol=symbol)
    elif quantity > MAX_SHARES:
        reason = Said("csv_too_many_shares", quantity=quantity, symbol=symbol, max=f"{MAX_SHARES:,.0f}")
    elif too_precise(quantity, symbol):
        reason = Said("csv_too_precise", quantity=shares(quantity), symbol=symbol, places=places_kept(symbol))
    if reason:
        errors.append(RowError(row, reason))
        return None
    return quantity


def _cost(cells: list[str], cost_at: int | None, total_at: int | None, quantity: Decimal | None,
          delimiter: str, row: int, symbol: str, errors: list[RowError]) -> Decimal | bool | None:
    """The cost per share; None when not given; False when the cell is wrong (an error is added)."""
    for at, total in ((cost_at, False), (total_at, True)):
        if at is None or not cells[at].strip():
            continue
        cost = cell_amount(cells[at], delimiter)
        if cost is None:
            errors.append(RowError(row, Said("csv_cost_not_number", cell=cells[at].strip(), symbol=symbol)))
            return False
        if cost < 0:
            errors.append(RowError(row, Said("csv_negative_cost", value=cost, symbol=symbol)))
            return False
        if total:  # the cost per share, from the total paid
            cost = (cost / quantity).quantize(Decimal("0.0001")) if quantity else None
        if cost is not None and cost > MAX_CASH:
            errors.append(RowError(row, Said("csv_not_a_price", value=shares(cost), symbol=symbol,
                                             max=f"{MAX_CASH:,.0f}")))
            return False
        return cost
    return None


def _merge(symbol: str, lots: list[tuple[Decimal, Decimal | None]]) -> Position:
    quantity = sum((q for q, _ in lots), Decimal(0))
    if any(c is None for _, c in lots):
        return Position(symbol, quantity, None)
    if len(lots) == 1:
        return Position(symbol, quantity, lots[0][1])
    total = sum((q * c for q, c in lots if c is not None), Decimal(0))
    return Position(symbol, quantity, (total / quantity).quantize(Decimal("0.0001")))
