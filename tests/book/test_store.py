"""The book in the Store, per user: LangGraph's InMemoryStore and the desk's SQLite store."""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal as D
from pathlib import Path

import pytest
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from graph.book import Book, BookStore, Position
from graph.core.settings import Settings
from graph.persistence.database import open_store

ALICE = Book((Position("NVDA", D(200), D(95)),), D(20000))
BOB = Book((Position("AAPL", D(10), D("170.5")),), D("5.25"), "EUR")


@asynccontextmanager
async def _store(kind: str, tmp_path: Path) -> AsyncIterator[BaseStore]:
    if kind == "memory":
        yield InMemoryStore()
        return
    async with open_store(Settings(DESK_DATA_DIR=tmp_path / "data")) as store:
        yield store


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_two_users_never_see_each_other(kind: str, tmp_path: Path) -> None:
    async with _store(kind, tmp_path) as store:
        books = BookStore(store)
        assert await books.get("alice@example.com") is None
        await books.put("alice@example.com", ALICE)
        assert await books.get("bob") is None  # alice's book is not bob's
        await books.put("bob", BOB)
        assert await books.get("alice@example.com") == ALICE
        assert await books.get("bob") == BOB
        # a user whose name only differs by the period that labels escape
        assert await books.get("alice@example%2Ecom") is None
        assert await books.remove("bob") is True
        assert await books.get("bob") is None
        assert await books.get("alice@example.com") == ALICE  # removing bob's leaves alice's
        assert await books.remove("bob") is False


async def test_survives_a_restart(tmp_path: Path) -> None:
    settings = Settings(DESK_DATA_DIR=tmp_path / "data")
    async with open_store(settings) as store:
        await BookStore(store).put("alice", ALICE)
    async with open_store(settings) as store:  # "after the restart"
        book = await BookStore(store).get("alice")
    assert book == ALICE and book is not None
    assert book.cash == D(20000) and book.positions[0].cost == D(95)  # Decimal round-trips exactly


async def test_a_put_replaces() -> None:
    books = BookStore(InMemoryStore())
    await books.put("alice", ALICE)
    await books.put("alice", BOB)
    assert await books.get("alice") == BOB


def test_no_user_no_book() -> None:
    with pytest.raises(ValueError, match="no user"):
        BookStore.namespace("")


async def test_a_bad_csv_leaves_the_stored_book() -> None:
    from graph.book import read_csv

    books = BookStore(InMemoryStore())
    await books.put("alice", ALICE)
    result = read_csv("symbol,qty\nAAPL,10\nMSFT,-1\n")  # row 3 bad: the whole file is refused
    if result.book is not None:  # the caller stores only a book that was read whole (and confirmed)
        await books.put("alice", result.book)
    assert result.book is None and await books.get("alice") == ALICE
