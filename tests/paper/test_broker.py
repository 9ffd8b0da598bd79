"""Point 4 of issue 40: the paper book's orders mirrored to Alpaca's paper-trading API (graph/paper/broker.py), tested
against recorded shapes of Alpaca's REST answers (tests/paper/fixtures/alpaca_*.json: an order accepted, the same
order filled, a refusal) served on 127.0.0.1 to alpaca-py's own TradingClient; no internet. Without keys nothing is
sent; the secret is never in the log nor in what the user reads."""
from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import time_machine
from langgraph.store.memory import InMemoryStore

from graph.paper.broker import AlpacaPaper, alpaca_symbol, broker_from, send_window
from graph.paper.keeper import PaperKeeper
from graph.paper.words import paper_answer
from graph.track.calibration import calibration
from graph.track.log import DecisionLog
from tests.paper.test_keeper import TableVendor, call
from tests.paper.test_ledger import FRACTIONAL, TABLE

FIXTURES = Path(__file__).parent / "fixtures"
KEY, SECRET = "PKTESTKEY0000000001", "s3cr3t-never-in-the-log-0123456789"
# Opted in the day before: the 22nd's close is then the book's last final close on the evening of the 23rd.
OPTED = datetime(2024, 5, 21, 13, 0, tzinfo=UTC)


def recorded(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"alpaca_{name}.json").read_text())


class Alpaca:
    """Alpaca's order routes on loopback, answering with the recorded shapes: POST /v2/orders (accepted, or refused
    when its client order id was used before, as Alpaca refuses it) and GET /v2/orders:by_client_order_id (filled)."""

    def __init__(self) -> None:
        self.orders: dict[str, dict[str, Any]] = {}  # client order id -> the order as Alpaca answers it
        self.sent: list[dict[str, Any]] = []             # each order's JSON as alpaca-py sent it
        self.opened = False                              # the fill session has opened: orders read back filled
        self.headers: list[dict[str, str]] = []
        alpaca = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _answer(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                alpaca.headers.append(dict(self.headers))
                sent = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if urlparse(self.path).path != "/v2/orders":
                    return self._answer(404, {"code": 40410000, "message": "not found"})
                if sent["client_order_id"] in alpaca.orders:
                    return self._answer(422, recorded("error_unique"))
                alpaca.sent.append(sent)
                shaped = recorded("order_accepted") | {k: sent[k] for k in (
                    "client_order_id", "symbol", "side", "time_in_force")}
                shaped["qty"] = f"{Decimal(str(sent['qty'])).normalize():f}"  # Alpaca answers quantities as text
                shaped["asset_class"] = "crypto" if "/" in sent["symbol"] else "us_equity"
                alpaca.orders[sent["client_order_id"]] = shaped
                self._answer(200, shaped)

            def do_GET(self) -> None:
                alpaca.headers.append(dict(self.headers))
                url = urlparse(self.path)
                client_id = parse_qs(url.query).get("client_order_id", [""])[0]
                if url.path != "/v2/orders:by_client_order_id" or client_id not in alpaca.orders:
                    return self._answer(404, {"code": 40410000, "message": "order not found"})
                order = alpaca.orders[client_id]
                if not alpaca.opened:  # before the fill session's open: still queued
                    return self._answer(200, order)
                price = "67150.25" if "/" in order["symbol"] else "123.51"
                self._answer(200, recorded("order_filled") | {k: order[k] for k in (
                    "client_order_id", "symbol", "qty", "side", "time_in_force", "asset_class")}
                    | {"filled_qty": order["qty"], "filled_avg_price": price,
                       "filled_at": "2024-05-24T13:30:01.519212Z"})  # the fill session's opening auction

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Alpaca:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def alpaca() -> Iterator[Alpaca]:
    with Alpaca() as served:
        yield served


def test_without_both_keys_nothing_is_sent_anywhere() -> None:
    assert broker_from({}) is None
    assert broker_from({"ALPACA_API_KEY": KEY}) is None and broker_from({"ALPACA_SECRET_KEY": SECRET}) is None
    assert broker_from({"ALPACA_API_KEY": " ", "ALPACA_SECRET_KEY": SECRET}) is None
    assert isinstance(broker_from({"ALPACA_API_KEY": KEY, "ALPACA_SECRET_KEY": SECRET}), AlpacaPaper)


@pytest.mark.parametrize(("ticker", "symbol"), [
    ("NVDA", "NVDA"), ("SPY", "SPY"), ("BRK-B", "BRK.B"), ("BTC-USD", "BTC/USD"), ("ETH-EUR", None),
    ("EURUSD=X", None), ("GC=F", None), ("0700.HK", None), ("^GSPC", None),
])
def test_what_alpaca_trades_and_under_which_symbol(ticker: str, symbol: str | None) -> None:
    assert alpaca_symbol(ticker) == symbol


NY = "America/New_York"


@pytest.mark.parametrize(("decided", "at", "window"), [
    (date(2024, 5, 22), "2024-05-22T19:00:00Z", "wait"),     # 15:00 in New York on D: today's auction is past
    (date(2024, 5, 22), "2024-05-22T23:30:00Z", "send"),     # 19:30: queued for the 23rd's opening auction
    (date(2024, 5, 22), "2024-05-23T12:00:00Z", "send"),     # 08:00 on the fill day
    (date(2024, 5, 22), "2024-05-23T13:29:00Z", "late"),     # 09:29: the auction takes no more orders
    (date(2024, 5, 24), "2024-05-27T14:00:00Z", "send"),     # Memorial Day: the fill session is Tuesday the 28th
])
def test_a_us_order_goes_only_to_its_fill_sessions_opening_auction(decided: date, at: str, window: str) -> None:
    assert send_window("NVDA", decided, datetime.fromisoformat(at)) == window


def test_a_coin_is_sent_at_once() -> None:
    assert send_window("BTC-USD", date(2024, 5, 22), datetime(2024, 5, 22, 15, tzinfo=UTC)) == "send"


async def test_orders_are_mirrored_once_and_their_fills_read_back(alpaca: Alpaca,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, alpaca-py's and urllib3's too
    store = InMemoryStore()
    day = {"trade_date": "2024-05-23", "recorded_at": "2024-05-23T15:00:00+00:00"}  # decided on the 23rd
    await DecisionLog(store).save_all([call("ann", "ACME", **day), call("ann", "BTC-USD", horizon="1 month", **day),
                                       call("ann", "EURUSD=X", horizon="1 month", **day)])
    broker = AlpacaPaper(KEY, SECRET, url=alpaca.url)
    table = TABLE | FRACTIONAL
    keeper = PaperKeeper(store, TableVendor(date(2024, 5, 23), table), broker)  # type: ignore[arg-type]
    await keeper.start("ann", "100000", OPTED)
    with time_machine.travel(datetime(2024, 5, 24, 0, 30, tzinfo=UTC), tick=False):  # 20:30 in New York on D
        first = await keeper.settle("ann", date(2024, 5, 23))
    assert first is not None and not first.ledger.trades  # the book waits for the 24th's open
    sent = {o["symbol"]: o for o in alpaca.sent}
    # By hand, at the last final closes (the 22nd's: the 23rd's is not final yet to the desk) and the book's
    # 100,000.00: ACME 2 % / 122 = 16.39… → 16 shares, to the opening auction; BTC-USD 2,000 / 67,000 =
    # 0.0298507462… → 0.02985074, good till cancelled.
    assert (sent["ACME"]["side"], sent["ACME"]["qty"], sent["ACME"]["time_in_force"]) == ("buy", 16, "opg")
    assert (sent["BTC/USD"]["qty"], sent["BTC/USD"]["time_in_force"]) == (0.02985074, "gtc")
    assert sent["ACME"]["type"] == "market"
    assert sent["ACME"]["client_order_id"] == "desk-ann-ACME:0"
    assert set(sent) == {"ACME", "BTC/USD"}
    by_ticker = {s.ticker: s for s in first.mirrored}
    assert by_ticker["EURUSD=X"].not_sent == "not_traded" and by_ticker["ACME"].status == "accepted"
    # The keys went to Alpaca, as its API wants them, and nowhere else.
    assert alpaca.headers[0]["APCA-API-KEY-ID"] == KEY and alpaca.headers[0]["APCA-API-SECRET-KEY"] == SECRET

    alpaca.opened = True
    keeper = PaperKeeper(store, TableVendor(date(2024, 5, 28), table), broker)  # type: ignore[arg-type]
    with time_machine.travel(datetime(2024, 5, 29, 22, 0, tzinfo=UTC), tick=False):
        later = await keeper.settle("ann", date(2024, 5, 29))
    assert later is not None and len(alpaca.orders) == 2  # nothing sent twice
    mirrored = {s.ticker: s for s in later.mirrored}
    assert (mirrored["ACME"].status, mirrored["ACME"].filled_qty, mirrored["ACME"].filled_price) == (
        "filled", "16", "123.51")
    assert mirrored["ACME"].filled_at.startswith("2024-05-24T13:30:01")
    text = paper_answer(later, None, {}, calibration([]), "en")
    # The book's own fill: 2 % of 100,000.00 at the 24th's open, 125: 16 shares.
    assert "- ACME buy 16: Alpaca filled 16 at 123.51 on 2024-05-24 · the book filled at 125 (16)" in text
    assert "- BTC-USD buy 0.02985074: Alpaca filled 0.02985074 at 67150.25 on 2024-05-24" in text
    assert "- EURUSD=X: not sent: Alpaca does not trade it" in text
    assert "Alpaca 于 2024-05-24 以 123.51 成交 16" in paper_answer(later, None, {}, calibration([]), "zh")
    assert SECRET not in caplog.text and SECRET not in text
    assert "Sent buy 16 ACME to Alpaca's paper account as desk-ann-ACME:0" in caplog.text


async def test_a_refusal_is_said_with_alpacas_message_and_without_the_secret(
        alpaca: Alpaca, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    alpaca.orders["desk-bob-ACME:0"] = {}  # sent before, from elsewhere: Alpaca refuses the same client id
    store = InMemoryStore()
    await DecisionLog(store).save_all([call("bob", "ACME", trade_date="2024-05-23",
                                            recorded_at="2024-05-23T15:00:00+00:00")])
    broker = AlpacaPaper(KEY, SECRET, url=alpaca.url)
    keeper = PaperKeeper(store, TableVendor(date(2024, 5, 23)), broker)  # type: ignore[arg-type]
    await keeper.start("bob", "100000", OPTED)
    with time_machine.travel(datetime(2024, 5, 24, 0, 30, tzinfo=UTC), tick=False):
        paper = await keeper.settle("bob", date(2024, 5, 23))
    assert paper is not None
    (refused,) = paper.mirrored
    assert (refused.not_sent, refused.refusal) == ("refused", "client_order_id must be unique")
    text = paper_answer(paper, None, {}, calibration([]), "en")
    assert "- ACME buy 16: Alpaca refused it: client_order_id must be unique" in text
    assert SECRET not in caplog.text and SECRET not in text


async def test_an_order_found_after_its_auction_is_not_sent_late(alpaca: Alpaca) -> None:
    store = InMemoryStore()
    await DecisionLog(store).save_all([call("cy", "ACME")])
    broker = AlpacaPaper(KEY, SECRET, url=alpaca.url)
    keeper = PaperKeeper(store, TableVendor(date(2024, 5, 22)), broker)  # type: ignore[arg-type]
    await keeper.start("cy", "100000", OPTED)
    with time_machine.travel(datetime(2024, 5, 23, 14, 0, tzinfo=UTC), tick=False):  # 10:00 on the fill day
        paper = await keeper.settle("cy", date(2024, 5, 22))
    assert paper is not None and [s.not_sent for s in paper.mirrored] == ["late"] and not alpaca.orders
