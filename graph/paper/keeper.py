"""The paper book's one service: opt in, opt out, and settle (take the user's new calls as orders, then
work the book out from the vendor's prices, point in time).

Every source of a ruling (a chat analysis, a comparison's desks, a watch's slot, the MCP server, the CLI)
logs it to the track record (graph/track/log.py, one namespace per user); the paper book reads that
log, so whichever way a call was made it is followed, once (orders are keyed by the call's id).

Settling runs where the track record's does: in the runtime's pass at server start
(DeskRuntime.start_settling), and whenever a user looks (`python -m graph paper`). Prices are read only
up to the last session whose close is final (graph/track/settle.py's last_close_day): never the price of
a session still trading, never a day after `today`.
"""
from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal

from langgraph.store.base import BaseStore

from ..book.holdings import CENT
from ..core import clock
from ..core.assets import AssetClass, classify
from ..data.vendor import Vendor, finite
from ..persistence.namespaces import user_label, user_of
from ..track.horizon import NO_BENCHMARK, US_BENCHMARK, benchmark_for
from ..track.log import DecisionLog
from ..track.settle import last_close_day
from .book import DEFAULT_COST_BPS, PaperBook
from .broker import Broker, Mirror, Sent
from .ledger import Bar, Ledger, calendar_of, price_of, replay

PAPER = "paper"
_KEY = "book"


class PaperError(ValueError):
    """What cannot be done, in plain words (already following, an amount that is no amount)."""


def benchmark_of(ticker: str) -> str:
    """The benchmark of the ticker's asset class, the one the track record measures its calls against
    (graph/track/horizon.py's benchmark_for: SPY for a US stock, the Hang Seng for 0700.HK, BTC-USD for a coin, DBC for
    a commodity future). A benchmark traded itself (SPY, BTC-USD) is its class's own benchmark for the book; a currency
    pair has none (NO_BENCHMARK), as in the track record."""
    found = benchmark_for(ticker)
    if found or classify(ticker) is AssetClass.CURRENCY:
        return found
    return ticker.strip().upper()


def benchmarks_of(book: PaperBook) -> dict[str, list[str]]:
    """Each class benchmark of the book's orders and the tickers measured against it, in the order first called;
    SPY (the desk's US default) for a book with no order yet. Currency pairs add none."""
    if not book.orders:
        return {US_BENCHMARK: []}
    out: dict[str, list[str]] = {}
    for order in book.orders:
        name = benchmark_of(order.ticker)
        if name != NO_BENCHMARK and order.ticker not in (tickers := out.setdefault(name, [])):
            tickers.append(order.ticker)
    return out


@dataclass(frozen=True)
class Benchmark:
    """One class benchmark beside the book: the stated amount held in it from the book's first open (its curve),
    and the book's tickers of that class (`measures`)."""

    name: str
    curve: list[tuple[date, Decimal]] = field(default_factory=list)
    measures: tuple[str, ...] = ()


@dataclass(frozen=True)
class Paper:
    """The book worked out as of a day, with the benchmark of each asset class it traded beside it."""

    ledger: Ledger
    benchmarks: tuple[Benchmark, ...] = ()
    # (ticker, what the vendor said) for each vendor failure: its orders wait, tried again at the next settlement
    problems: list[tuple[str, str]] = field(default_factory=list)
    # the currency pairs among its tickers: measured on their own return, no benchmark (said so)
    unbenchmarked: tuple[str, ...] = ()
    # its orders as mirrored to Alpaca's paper account, when keys are given (graph/paper/broker.py)
    mirrored: tuple[Sent, ...] = ()

    @property
    def book(self) -> PaperBook:
        return self.ledger.book


def benchmark_curve(book: PaperBook, rows: Mapping[date, Bar], days: list[date]) -> list[tuple[date, Decimal]]:
    """The stated amount held in the benchmark from the first open the book could trade at (the first session
    after it began), valued at each of `days`' closes the benchmark has."""
    first = next((d for d in sorted(rows) if d > book.since_date and rows[d].open is not None), None)
    if first is None:
        return []
    reference = rows[first].open
    assert reference is not None
    out = []
    for day in days:
        bar = rows.get(day)
        if day >= first and bar is not None and bar.close is not None:
            out.append((day, (book.start_amount * bar.close / reference).quantize(CENT)))
    return out


class PaperStore:
    """One paper book per user in the desk's Store: ("paper", <user>), key "book"."""

    def __init__(self, store: BaseStore):
        self.store = store

    @staticmethod
    def namespace(user: str) -> tuple[str, str]:
        if not user:
            raise PaperError("a paper book belongs to a user: no user given")
        return (PAPER, user_label(user))

    async def get(self, user: str) -> PaperBook | None:
        item = await self.store.aget(self.namespace(user), _KEY)
        return PaperBook.model_validate(item.value) if item is not None else None

    async def put(self, book: PaperBook) -> None:
        await self.store.aput(self.namespace(book.user), _KEY, book.model_dump(mode="json"), index=False)

    async def users(self) -> list[str]:
        spaces = await self.store.alist_namespaces(prefix=(PAPER,), max_depth=2, limit=100_000)
        return [user_of(ns[1]) for ns in spaces if len(ns) == 2]


def amount_of(text: str | Decimal) -> Decimal:
    """A stated amount: a positive number of cents ("100000", "100,000.00")."""
    try:
        amount = Decimal(str(text).replace(",", "").replace("_", "").strip())
    except ArithmeticError as err:
        raise PaperError(f"{text!r} is not an amount") from err
    if not amount.is_finite() or amount <= 0 or amount != amount.quantize(CENT):
        raise PaperError(f"{text!r} is not an amount in cents above 0")
    return amount.quantize(CENT)


class PaperKeeper:
    def __init__(self, store: BaseStore, vendor: Vendor, broker: Broker | None = None):
        self.books = PaperStore(store)
        self.log = DecisionLog(store)
        self.vendor = vendor
        self.mirror = Mirror(store, broker) if broker is not None else None  # None: nothing sent anywhere

    async def start(self, user: str, amount: str | Decimal, now: datetime,
                    cost_bps: Decimal = DEFAULT_COST_BPS) -> PaperBook:
        """Follow the user's calls from `now` on, with `amount`; a book stopped before is replaced."""
        start = amount_of(amount)
        if not cost_bps.is_finite() or cost_bps < 0:
            raise PaperError(f"a cost of {cost_bps} basis points is not a cost")
        current = await self.books.get(user)
        if current is not None and current.following:
            raise PaperError(f"already following since {current.since}")
        book = PaperBook(user=user, start=f"{start:f}", cost_bps=f"{cost_bps.normalize():f}", since=now.isoformat())
        await self.books.put(book)
        return book

    async def stop(self, user: str, now: datetime) -> PaperBook | None:
        """Follow no call logged from `now` on; what is open runs on to its stop or horizon. None: no book."""
        book = await self.books.get(user)
        if book is None or not book.following:
            return book
        book = book.model_copy(update={"stopped": now.isoformat()})
        await self.books.put(book)
        return book

    async def settle(self, user: str, today: date) -> Paper | None:
        """Take the user's new calls as orders, then the book as of the last final close by `today`."""
        book = await self.books.get(user)
        if book is None:
            return None
        fresh = book.take(await self.log.calls(user), self.vendor.label)
        if fresh:
            current = await self.books.get(user)  # another process may have taken them meanwhile
            if current is not None and current.since == book.since:
                taken = {o.call_id for o in current.orders}
                book = current.model_copy(update={"orders": [*current.orders,
                                                             *(o for o in fresh if o.call_id not in taken)]})
                await self.books.put(book)
        last = last_close_day(today)
        measured = benchmarks_of(book)
        tickers = sorted({o.ticker for o in book.orders} | set(measured))
        bars, problems = await asyncio.to_thread(self._bars, tickers, book.since_date, last)
        ledger = replay(book, bars, last)
        days = [d for d, _ in ledger.curve] or calendar_of(book, bars, last)
        benchmarks = tuple(Benchmark(name, benchmark_curve(book, bars.get(name, {}), days), tuple(of))
                           for name, of in measured.items())
        pairs = tuple(dict.fromkeys(o.ticker for o in book.orders if benchmark_of(o.ticker) == NO_BENCHMARK))
        mirrored: tuple[Sent, ...] = ()
        if self.mirror is not None:
            closes = {t: rows[d].close for t, rows in bars.items() for d in sorted(rows)[-1:] if rows[d].close}
            mirrored = tuple(await self.mirror.sync(user, [u.order for u in ledger.waiting], ledger.equity,
                                                    {t: c for t, c in closes.items() if c is not None}, clock.now()))
        return Paper(ledger, benchmarks, problems, pairs, mirrored)

    def _bars(self, tickers: list[str], since: date, last: date
              ) -> tuple[dict[str, dict[date, Bar]], list[tuple[str, str]]]:
        out: dict[str, dict[date, Bar]] = {}
        problems: list[tuple[str, str]] = []
        if last <= since:
            return out, problems
        for ticker in tickers:
            try:
                frame = self.vendor.ohlcv(ticker, since, last)
            except Exception as err:  # any vendor failure: the orders wait, and the next pass tries again
                problems.append((ticker, str(err) or type(err).__name__))
                continue
            rows: dict[date, Bar] = {}
            for stamp, row in frame.iterrows():
                day = stamp.date() if hasattr(stamp, "date") else date.fromisoformat(str(stamp)[:10])
                if day <= last:
                    rows[day] = Bar(*(price_of(finite(row.get(k))) for k in ("open", "high", "low", "close")))
            out[ticker] = rows
        return out, problems

    async def settle_everyone(self, today: date) -> int:
        """The pass at server start: every paper book. Returns how many."""
        users = await self.books.users()
        for user in users:
            await self.settle(user, today)
        return len(users)
