"""Offers kept in the desk's Store (graph/persistence/offers.py): answered once, even by two processes pressing at
once; only by the user they were made to; a user's oldest forgotten beyond the cap; a made-up key is no offer."""
from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from graph.core.settings import Settings
from graph.persistence.database import open_leases, open_store
from graph.persistence.offers import Offered, OfferStore


async def _process(stack: AsyncExitStack, settings: Settings, kept: int = 200) -> OfferStore:
    """One process's view: its own connections to the same Store and leases."""
    store = await stack.enter_async_context(open_store(settings))
    leases = await stack.enter_async_context(open_leases(settings))
    return OfferStore(store, leases, kept=kept)


def _offer(key: str, user: str = "alice", thread: str = "t1") -> Offered:
    return Offered(key, "watch", user, thread, "zh", {"tickers": ["NVDA"], "rule": {"weekday": 0}}, "m1",
                   ({"name": "watch_save", "id": "a1", "label": "chat.watch_save", "icon": "check", "tooltip": ""},))


async def test_an_offer_is_taken_once_by_two_processes_pressing_together(tmp_path: Path):
    settings = Settings(DESK_DATA_DIR=tmp_path)
    async with AsyncExitStack() as stack:
        first, second = await _process(stack, settings), await _process(stack, settings)
        await first.put(_offer("k1"))
        # Another process reads it as it was made: its body, its language, its buttons.
        kept = await second.get("watch", "k1")
        assert kept is not None and kept.body == {"tickers": ["NVDA"], "rule": {"weekday": 0}}
        assert kept.language == "zh" and kept.buttons[0]["id"] == "a1" and kept.at
        presses = await asyncio.gather(*(p.take("watch", "k1", "alice") for p in (first, second) * 4))
        assert sorted(outcome for outcome, _ in presses) == ["gone"] * 7 + ["taken"]
        assert await first.take("watch", "k1", "alice") == ("gone", None)  # and after: gone


async def test_another_user_cannot_take_it_and_it_stays_on_offer(tmp_path: Path):
    async with AsyncExitStack() as stack:
        offers = await _process(stack, Settings(DESK_DATA_DIR=tmp_path))
        await offers.put(_offer("k2"))
        outcome, offered = await offers.take("watch", "k2", "bob")
        assert outcome == "not_yours" and offered is not None and offered.user == "alice"
        assert (await offers.take("watch", "k2", "alice"))[0] == "taken"


@pytest.mark.parametrize("key", ["", "../../etc", "k' OR 1=1 --", "x" * 65, "nope"])
async def test_a_key_that_is_none_of_ours_is_gone(tmp_path: Path, key: str):
    async with AsyncExitStack() as stack:
        offers = await _process(stack, Settings(DESK_DATA_DIR=tmp_path))
        await offers.put(_offer("k3"))
        assert await offers.take("watch", key, "alice") == ("gone", None)
        assert await offers.get("watch", "k3") is not None


async def test_a_user_keeps_the_newest_offers_and_others_are_untouched(tmp_path: Path):
    async with AsyncExitStack() as stack:
        offers = await _process(stack, Settings(DESK_DATA_DIR=tmp_path), kept=3)
        await offers.put(_offer("bob1", user="bob"))
        for n in range(5):
            await offers.put(_offer(f"a{n}"))
        assert [o.key for o in await offers.open_in("watch", "alice", "t1")] == ["a2", "a3", "a4"]
        assert [o.key for o in await offers.open_in("watch", "bob", "t1")] == ["bob1"]
        assert await offers.open_in("watch", "alice", "another thread") == []


@pytest.mark.postgres
async def test_on_postgres_two_processes_take_it_once(postgres_url: str, tmp_path: Path):
    settings = Settings(DESK_DATA_DIR=tmp_path, DESK_DATABASE_URL=postgres_url)
    async with AsyncExitStack() as stack:
        first, second = await _process(stack, settings), await _process(stack, settings)
        await first.put(_offer("pg1"))
        presses = await asyncio.gather(*(p.take("watch", "pg1", "alice") for p in (first, second) * 3))
        assert sorted(outcome for outcome, _ in presses) == ["gone"] * 5 + ["taken"]
