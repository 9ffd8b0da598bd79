"""A user's paper book as stored: the opt-in (amount, cost, since when) and the orders it took from the
user's calls, each frozen as the call was when the book first saw it.

What is kept is only what cannot be read again: the settings and the orders. Fills, positions, cash,
trades and the equity curve are worked out from these and the vendor's prices at each settlement
(graph/paper/ledger.py), so two processes settling at once reach the same figures, and a call found
late still fills at the first open after its own decision, not at the open after it was found.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from ..core.state import Signal
from ..track.calls import Call

NEW_YORK = ZoneInfo("America/New_York")
DEFAULT_COST_BPS = Decimal(5)  # per side, on each fill's amount
# Where a call came from that the paper book does not follow: a backtest's days are the past, not calls forward.
NOT_FOLLOWED_SOURCES = frozenset({"backtest"})


class Order(BaseModel):
    """A call the paper book follows, as it was when first seen (an edited branch's later decision
    under the same id does not change an order already taken)."""

    call_id: str
    thread_id: str
    ticker: str
    signal: Signal
    position_size: str = ""
    stop: str = ""
    horizon: str = ""
    confidence: float | None = None
    rationale: str = ""
    source: str = ""
    decided: str        # ISO date D: the later of the call's trade date and the day (New York) it was logged
    recorded_at: str    # ISO UTC, when the call was logged


class PaperBook(BaseModel):
    user: str
    start: str                      # the stated amount, a Decimal as text ("100000.00")
    cost_bps: str                   # basis points of each fill's amount, per side ("5")
    since: str                      # ISO UTC: calls logged from then on are followed
    stopped: str = ""               # ISO UTC: calls logged from then on are not followed ("" while following)
    orders: list[Order] = Field(default_factory=list)

    @property
    def start_amount(self) -> Decimal:
        return Decimal(self.start)

    @property
    def cost(self) -> Decimal:
        return Decimal(self.cost_bps)

    @property
    def since_date(self) -> date:
        return datetime.fromisoformat(self.since).astimezone(NEW_YORK).date()

    @property
    def following(self) -> bool:
        return not self.stopped

    def follows(self, call: Call, vendor_label: str) -> bool:
        """Whether the book takes this call as an order: logged while it followed, about a day on or after
        it began (a time-travelled analysis of a past day is not a call forward), made on the data the
        desk reads (a demo call is not executed on live prices, nor the reverse), not a backtest's."""
        if call.source in NOT_FOLLOWED_SOURCES or (call.data and call.data != vendor_label):
            return False
        try:
            logged = datetime.fromisoformat(call.recorded_at)
            trade = date.fromisoformat(call.trade_date)
        except ValueError:
            return False
        if logged < datetime.fromisoformat(self.since) or trade < self.since_date:
            return False
        return not self.stopped or logged < datetime.fromisoformat(self.stopped)

    def take(self, calls: list[Call], vendor_label: str) -> list[Order]:
        """The orders new to the book among `calls` (their ids not taken before), oldest logged first."""
        taken = {o.call_id for o in self.orders}
        fresh = [order_of(c) for c in calls if c.id not in taken and self.follows(c, vendor_label)]
        return sorted(fresh, key=lambda o: (o.recorded_at, o.call_id))


def decided_on(call: Call) -> date:
    """The decision's day D: the later of its trade date and the New York day it was logged. Its order
    fills at the open of the first session after D, never on D or before."""
    trade = date.fromisoformat(call.trade_date)
    logged = datetime.fromisoformat(call.recorded_at).astimezone(NEW_YORK).date()
    return max(trade, logged)


def order_of(call: Call) -> Order:
    return Order(call_id=call.id, thread_id=call.thread_id, ticker=call.ticker, signal=call.signal,
                 position_size=call.position_size, stop=call.stop, horizon=call.horizon,
                 confidence=call.confidence, rationale=call.rationale, source=call.source,
                 decided=decided_on(call).isoformat(), recorded_at=call.recorded_at)
