"""The book's pieces in the chat that need no server: how a book and a change read, which files are
CSV, and the cap on uploads in front of Chainlit's upload route."""
from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from chat.features.book import book_table, change_table, position_text
from chat.web.uploads import UploadLimit
from graph import Book, Position

BOOK = Book((Position("NVDA", D(200), D(95)), Position("TSLA", D(-50), D(240)), Position("AMD", D("1500.5"))),
            D(20000))


def test_a_book_reads_as_a_table() -> None:
    table = book_table(BOOK, "en")
    assert "| AMD | 1,500.5 | — |" in table
    assert "| NVDA | 200 | 95.00 |" in table
    assert "| TSLA | -50 | 240.00 |" in table
    assert "**Cash:** 20,000.00 USD" in table
    assert "No positions." in book_table(Book(), "en")


def test_a_change_shows_only_what_changes() -> None:
    after = BOOK.with_position(Position("NVDA", D(100), D(95))).with_position(Position("AMD", D(0)))
    table = change_table(BOOK, after, "en")
    assert "| NVDA | 200 @ 95.00 | 100 @ 95.00 |" in table
    assert "| AMD | 1,500.5 (no cost) | — |" in table
    assert "TSLA" not in table and "Cash" not in table
    assert "| 现金 | 0.00 | 20,000.00 |" in change_table(None, Book(cash=D(20000)), "zh")


def test_positions_in_words() -> None:
    assert position_text(Position("TSLA", D(-50), D(240)), "en") == "short 50 @ 240.00"
    assert position_text(Position("TSLA", D(-50)), "zh") == "做空 50（成本未知）"
    assert position_text(None, "en") == "—"


async def _called(limit: int, method: str, path: str, headers: list[tuple[bytes, bytes]]) -> tuple[bool, int]:
    reached = False
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        nonlocal reached
        reached = True

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": headers, "query_string": b""}
    await UploadLimit(app, limit)(scope, receive, send)
    status = next((m["status"] for m in sent if m["type"] == "http.response.start"), 0)
    return reached, status


@pytest.mark.parametrize(("method", "path", "headers", "reached", "status"), [
    ("POST", "/project/file", [(b"content-length", b"1000")], True, 0),
    ("POST", "/root/project/file", [(b"content-length", b"1001")], False, 413),  # over, behind a root path too
    ("POST", "/project/file", [], False, 411),                                   # chunked: no length said
    ("POST", "/project/file", [(b"content-length", b"-1")], False, 411),
    ("POST", "/project/action", [(b"content-length", b"5000")], True, 0),        # only the upload route
    ("GET", "/project/file", [], True, 0),
])
async def test_the_upload_cap(method: str, path: str, headers: list[tuple[bytes, bytes]], reached: bool,
                              status: int) -> None:
    assert await _called(1000, method, path, headers) == (reached, status)
