"""The paper book's orders mirrored to Alpaca's paper-trading API, its fills read back beside the book's own (issue 40,
point 4; optional: `pip install -e '.[alpaca]'`, alpaca-py).

* **Only with keys, only on paper.** Both ALPACA_API_KEY and ALPACA_SECRET_KEY in the environment, or nothing is sent
  anywhere. Only Alpaca's paper endpoint is addressed (alpaca-py's TradingClient with paper=True; no setting reaches a
  live account). The keys are never logged nor shown: the log names an order by its client id, symbol, side and
  quantity, and a refusal by Alpaca's own message.
* **What is sent, and when.** Each order of the book once, while the book still waits for its fill: a market order in
  the quantity the book's sizing gives at the last close (the book sizes its own fill at the open, so the two may
  differ by a unit). A US stock or fund goes to the **opening auction** of the book's fill session (time in force
  OPG: the book's own rule), so it is sent only when Alpaca queues it for that auction, from 19:00 New York on the
  decision's day to 9:28 on the fill day (send_window); a settlement in between sends nothing yet, one after it
  does not send it late. A coin (X-USD) has no auction: it is sent as soon as the book sees it, good till cancelled,
  and fills at the market then. A SELL opens a short in whole shares; Alpaca shorts no coin. What Alpaca does not
  trade (currency pairs, futures, indices, listings abroad) is not sent, said so.
* **Once.** Each order goes with the client order id `desk-<call id>`: Alpaca refuses a second one with the same id,
  so two processes settling at once send it once; what was sent is kept in the Store ("paper_broker", <user>).
* **Closing stays on paper.** A stop or a horizon close of the book is found after the day it happened: sent then it
  would fill days later. The user is told to close the position in Alpaca's account.
"""
from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from datetime import date, datetime, time
from decimal import ROUND_DOWN, Decimal
from functools import cache
from typing import Any, Literal, Protocol

from langgraph.store.base import BaseStore
from pydantic import BaseModel

from ..book.sizing import in_units, percent_of
from ..core.assets import AssetClass, classify, market_of
from ..core.trading_days import next_trading_day
from ..persistence.namespaces import user_label
from .book import NEW_YORK, Order

logger = logging.getLogger(__name__)

BROKER = "paper_broker"
KEY_ENV, SECRET_ENV = "ALPACA_API_KEY", "ALPACA_SECRET_KEY"
QUEUED_FROM = time(19, 0)    # New York: an OPG order sent from then on is queued for the next opening auction
REJECTED_FROM = time(9, 28)  # New York: an OPG order for today's auction is refused from then on
FINAL = frozenset({"filled", "canceled", "expired", "rejected", "done_for_day", "replaced", "stopped", "suspended"})
Window = Literal["wait", "send", "late"]


class Sent(BaseModel):
    """An order of the book as mirrored (or not) to Alpaca, and what Alpaca last said of it."""

    call_id: str
    ticker: str
    side: str = ""                 # "buy" or "sell"
    qty: str = ""                  # sent, as text (a Decimal)
    client_id: str = ""
    broker_id: str = ""
    status: str = ""               # Alpaca's order status; "" when not sent
    filled_qty: str = ""
    filled_price: str = ""
    filled_at: str = ""            # ISO
    not_sent: str = ""             # why it was not sent: a key of the [paper] catalogue (broker_<key>)
    refusal: str = ""              # Alpaca's message when it refused the order


class Broker(Protocol):
    """Alpaca's paper account as the mirror uses it (AlpacaPaper; a test's own)."""

    def submit(self, symbol: str, side: str, qty: Decimal, opening: bool, client_id: str) -> dict[str, Any]: ...
    def order(self, client_id: str) -> dict[str, Any]: ...


class BrokerRefused(Exception):
    """Alpaca answered with an error: its message (never a key) in `args[0]`."""


class AlpacaPaper:
    """Alpaca's paper-trading REST API through alpaca-py. `url` only for tests (a local server on 127.0.0.1)."""

    def __init__(self, key: str, secret: str, url: str | None = None):
        from alpaca.trading.client import TradingClient  # the optional extra: imported only when keys are given
        self._client = TradingClient(key, secret, paper=True, raw_data=True, url_override=url)

    def submit(self, symbol: str, side: str, qty: Decimal, opening: bool, client_id: str) -> dict[str, Any]:
        from alpaca.common.exceptions import APIError
        from alpaca.trading.enums import OrderSide, TimeInForce
        from alpaca.trading.requests import MarketOrderRequest
        request = MarketOrderRequest(symbol=symbol, qty=float(qty), side=OrderSide(side), client_order_id=client_id,
                                     time_in_force=TimeInForce.OPG if opening else TimeInForce.GTC)
        try:
            return dict(self._client.submit_order(request))
        except APIError as err:
            raise BrokerRefused(_message(err)) from None

    def order(self, client_id: str) -> dict[str, Any]:
        from alpaca.common.exceptions import APIError
        try:
            return dict(self._client.get_order_by_client_id(client_id))
        except APIError as err:
            raise BrokerRefused(_message(err)) from None


def _message(err: Exception) -> str:
    try:
        return str(getattr(err, "message"))  # noqa: B009 - Alpaca's JSON message; a property that may raise
    except Exception:
        return type(err).__name__


def broker_from(env: Mapping[str, str]) -> AlpacaPaper | None:
    """Alpaca's paper account when both keys are given in `env`, else None: nothing is sent anywhere."""
    key, secret = env.get(KEY_ENV, "").strip(), env.get(SECRET_ENV, "").strip()
    if not key or not secret:
        return None
    try:
        return AlpacaPaper(key, secret)
    except ImportError:
        logger.warning("%s and %s are set but alpaca-py is not installed (pip install -e '.[alpaca]'): the paper "
                       "book's orders are not mirrored", KEY_ENV, SECRET_ENV)
        return None


@cache
def paper_broker() -> AlpacaPaper | None:
    """The process's Alpaca paper account, from its environment once (None without both keys)."""
    return broker_from(os.environ)


def alpaca_symbol(ticker: str) -> str | None:
    """The ticker as Alpaca trades it: a US stock or fund as it is (BRK-B as BRK.B), a coin against the dollar as
    BTC/USD; None for what Alpaca does not trade."""
    kind = classify(ticker)
    if kind is AssetClass.CRYPTO:
        base, _, quote = ticker.upper().partition("-")
        return f"{base}/USD" if quote == "USD" else None
    if kind in (AssetClass.EQUITY, AssetClass.FUND) and market_of(ticker) == "US":
        return ticker.upper().replace("-", ".")
    return None


def send_window(ticker: str, decided: date, now: datetime) -> Window:
    """When a US stock's order may go to its fill session's opening auction (see the module); a coin's at once."""
    if classify(ticker) is AssetClass.CRYPTO:
        return "send"
    here = now.astimezone(NEW_YORK)
    fill = next_trading_day(decided, "US")
    if here.date() < decided or (here.date() == decided and here.time() < QUEUED_FROM):
        return "wait"
    if here.date() < fill or (here.date() == fill and here.time() < REJECTED_FROM):
        return "send"
    return "late"


def _decimal(value: object) -> str:
    return "" if value in (None, "") else f"{Decimal(str(value)).normalize():f}"


def _read(sent: Sent, answer: Mapping[str, Any]) -> Sent:
    """What Alpaca's order (its REST shape) says of the fill."""
    filled = answer.get("filled_at")
    return sent.model_copy(update={
        "broker_id": str(answer.get("id") or sent.broker_id), "status": str(answer.get("status") or ""),
        "filled_qty": _decimal(answer.get("filled_qty")), "filled_price": _decimal(answer.get("filled_avg_price")),
        "filled_at": str(filled) if filled else ""})


class Mirror:
    """The book's orders sent to a Broker and read back, kept per user in the Store."""

    def __init__(self, store: BaseStore, broker: Broker):
        self.store, self.broker = store, broker

    @staticmethod
    def namespace(user: str) -> tuple[str, str]:
        return (BROKER, user_label(user))

    async def sent(self, user: str) -> dict[str, Sent]:
        items = await self.store.asearch(self.namespace(user), limit=10_000)
        return {item.key: Sent.model_validate(item.value) for item in items}

    async def sync(self, user: str, waiting: list[Order], equity: Decimal, closes: Mapping[str, Decimal],
                   now: datetime) -> list[Sent]:
        """Send each waiting order not sent before (in its window), read back each one not final; all, oldest
        first. `equity` is the book's value at the last close, `closes` each ticker's last close."""
        known = await self.sent(user)
        for order in waiting:
            if order.call_id in known:  # sent, or found not to be sent: decided once
                continue
            done = await self._send(order, equity, closes.get(order.ticker), now)
            if done is not None:
                known[order.call_id] = done
                await self.store.aput(self.namespace(user), order.call_id, done.model_dump(), index=False)
        for call_id, sent in list(known.items()):
            if sent.status and sent.status not in FINAL:
                try:
                    fresh = _read(sent, await asyncio.to_thread(self.broker.order, sent.client_id))
                except BrokerRefused as err:
                    logger.warning("Alpaca did not answer for %s: %s", sent.client_id, err)
                    continue
                if fresh != sent:
                    known[call_id] = fresh
                    await self.store.aput(self.namespace(user), call_id, fresh.model_dump(), index=False)
        return list(known.values())

    async def _send(self, order: Order, equity: Decimal, close: Decimal | None, now: datetime) -> Sent | None:
        base = Sent(call_id=order.call_id, ticker=order.ticker)
        symbol = alpaca_symbol(order.ticker)
        if symbol is None:
            return base.model_copy(update={"not_sent": "not_traded"})
        coin = classify(order.ticker) is AssetClass.CRYPTO
        if order.signal == "SELL" and coin:
            return base.model_copy(update={"not_sent": "no_short_coin"})
        window = send_window(order.ticker, date.fromisoformat(order.decided), now)
        if window == "late":
            return base.model_copy(update={"not_sent": "late"})
        pct = percent_of(order.position_size)
        if window == "wait" or close is None or close <= 0 or not pct or pct <= 0:
            return None  # not yet (or the book skips it: nothing to mirror)
        qty = in_units(order.ticker, equity * pct / 100 / close)
        if order.signal == "SELL":
            qty = qty.to_integral_value(rounding=ROUND_DOWN)  # a short in whole shares
        if qty <= 0:
            return None
        side = "buy" if order.signal == "BUY" else "sell"
        sent = base.model_copy(update={"side": side, "qty": f"{qty.normalize():f}",
                                       "client_id": f"desk-{order.call_id}"})
        try:
            answer = await asyncio.to_thread(self.broker.submit, symbol, side, qty, not coin, sent.client_id)
        except BrokerRefused as err:
            logger.warning("Alpaca refused %s (%s %s %s): %s", sent.client_id, side, sent.qty, symbol, err)
            return sent.model_copy(update={"not_sent": "refused", "refusal": str(err)})
        logger.info("Sent %s %s %s to Alpaca's paper account as %s", side, sent.qty, symbol, sent.client_id)
        return _read(sent, answer)
