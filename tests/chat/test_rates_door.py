"""The door counts messages in the runtime's shared buckets (issue 36 point 5): two chat processes on one
data folder allow one user the rate once; a database that does not answer refuses nobody (the door
counts in its own buckets, and says so once in the log)."""
from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from chat.web import door as door_module
from chat.web.door import Door
from chat.web.rates import BURST, PER_S, refusal_text
from graph.core.settings import Settings
from graph.persistence.database import open_rates
from graph.persistence.rates import RateBuckets


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Sio:
    def __init__(self) -> None:
        self.emitted: list[tuple[str, Any, str]] = []

    async def emit(self, name: str, data: Any, to: str) -> None:
        self.emitted.append((name, data, to))


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def warning(self, text: str, *args: Any, **_: Any) -> None:
        self.lines.append(text % args)

    info = warning


def door_over(rates: RateBuckets | None) -> Door:
    async def runtime() -> Any:
        if rates is None:
            raise RuntimeError("the database is down")
        return SimpleNamespace(rates=rates)

    door = Door(auth=None, runtime=runtime)  # type: ignore[arg-type]
    door.sio = Sio()  # type: ignore[assignment]
    return door


def session(user: str, thread: str) -> Any:
    return SimpleNamespace(id=f"session-{user}-{thread}", thread_id=thread, user=SimpleNamespace(identifier=user))


async def test_two_chat_processes_on_one_folder_allow_a_user_the_rate_once(tmp_path: Path):
    clock, settings = Clock(), Settings(DESK_DATA_DIR=tmp_path / "data")
    async with open_rates(settings) as one_rates, open_rates(settings) as two_rates:
        one_rates.clock = two_rates.clock = clock
        one, two = door_over(one_rates), door_over(two_rates)
        tabs = [(one, session("ann", "t1")), (two, session("ann", "t2"))]
        passed = [await door._within_rate("sid", s) for door, s in (tabs[i % 2] for i in range(BURST))]
        assert passed == [True] * BURST
        door, s = tabs[BURST % 2]
        assert not await door._within_rate("sid", s), "the 11th is refused on whichever server it reaches"
        assert door.sio.emitted == [("toast", {"message": refusal_text(1 / PER_S), "type": "warning"}, "sid")]
        assert await two._within_rate("sid", session("bob", "t3")), "another user has their own bucket"
        clock.now += 1 / PER_S
        assert await door._within_rate("sid", s)
        assert door.input_problem(s.id) == "1 message sent too fast was not delivered."


async def test_a_database_that_does_not_answer_refuses_nobody_and_is_logged_once(monkeypatch):
    log = Log()
    monkeypatch.setattr(door_module, "logger", log)
    door = door_over(None)
    s = session("ann", "t1")
    assert [await door._within_rate("sid", s) for _ in range(BURST)] == [True] * BURST
    assert not await door._within_rate("sid", s), "its own buckets still hold the rate"
    fell_back = [line for line in log.lines if "did not answer" in line]
    assert len(fell_back) == 1, log.lines


class Hung(RateBuckets):
    def __init__(self) -> None:
        super().__init__()
        self.answering = asyncio.Event()

    async def _take(self, keys: tuple[str, ...], now: float) -> float:
        await self.answering.wait()
        return 0.0

    async def forget_idle(self) -> int:
        return 0


async def test_a_database_that_hangs_falls_back_then_is_counted_in_again(monkeypatch):
    log = Log()
    monkeypatch.setattr(door_module, "logger", log)
    monkeypatch.setattr(door_module, "RATES_TIMEOUT_S", 0.01)
    hung = Hung()
    door = door_over(hung)
    s = session("ann", "t1")
    assert await door._within_rate("sid", s) and await door._within_rate("sid", s)
    assert [line for line in log.lines if "did not answer" in line] == [log.lines[0]]
    assert len(log.lines) == 1, "logged once"
    hung.answering.set()
    assert await door._within_rate("sid", s)
    assert door.rates_shared and "answer again" in log.lines[-1]


@pytest.mark.parametrize("user", ["x' OR 1=1 --", "'); DROP TABLE rate_buckets; --"])
async def test_a_user_name_with_sql_in_it_is_only_a_key(tmp_path: Path, user: str):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data")
    async with open_rates(settings) as rates:
        rates.clock = Clock()
        door = door_over(rates)
        assert [await door._within_rate("sid", session(user, "t1")) for _ in range(BURST)] == [True] * BURST
        assert not await door._within_rate("sid", session(user, "t1"))
        assert await door._within_rate("sid", session("x", "t2")), "nobody else's bucket touched"
