"""A paper book that has followed a few calls, written into a chat server's own store before it starts (the calls a
month of analyses would have logged, with their outcomes), and that server, on a day after them: what the /paper
browser tests look at."""
from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.track.calls import Call, Outcome
from graph.track.log import DecisionLog
from tests.support.chat_server import Server
from tests.support.clock import on_day

TODAY = "2024-06-28T14:00:00+00:00"      # a Friday, in the session: the 27th is the last close
SINCE = datetime(2024, 5, 20, 13, 0, tzinfo=UTC)
DATA = "synthetic demo data"             # the demo vendor's label: the book trades calls made on its data


def seeded_call(id_: str, user: str, ticker: str, signal: str, size: str, day: str, horizon: str, confidence: float,
                verdict: str | None, alpha: float, rationale: str, source: str = "chat", hour: int = 15) -> Call:
    """A call of `user` decided on `day` (recorded at `hour` UTC), settled on 2024-06-20 with `verdict` and `alpha`
    against SPY, or not settled yet (verdict None)."""
    outcome = None if verdict is None else Outcome(
        settle_date="2024-06-20", sessions=10, entry_close=100.0, exit_close=100.0 * (1 + alpha), raw_return=alpha,
        benchmark="SPY", benchmark_return=0.0, alpha=alpha, verdict=verdict, reflection="Seeded for the test.",
        reflected_by="demo", settled_at="2024-06-21T00:00:00+00:00")
    return Call(id=id_, user=user, thread_id=f"{uuid4()}", ticker=ticker, trade_date=day, signal=signal,
                position_size=size, horizon=horizon, confidence=confidence, stop="", rationale=rationale, data=DATA,
                source=source, recorded_at=f"{day}T{hour}:00:00+00:00", outcome=outcome,
                argued={"Bull Researcher": "…", "Bear Researcher": "…"},
                plan_calls={"Research Manager": signal, "Trader": signal})


async def seed(data_dir: Path, user: str, calls: Iterable[Call]) -> None:
    async with DeskRuntime.open(Settings(data_dir=data_dir, demo_delay_ms=0)) as desk:
        await desk.paper.start(user, "100000", SINCE)
        await DecisionLog(desk.store).save_all(list(calls))


@contextmanager
def paper_server(data_dir: Path, user: str, calls: Iterable[Call]) -> Iterator[Server]:
    """The chat server on TODAY, its store holding `user`'s paper book (100,000 from SINCE) and `calls`."""
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds an event loop in the caller's thread
        pool.submit(asyncio.run, seed(data_dir, user, calls)).result()
    server = Server(data_dir, DESK_DEMO_DELAY_MS="0", **on_day(TODAY))
    server.start()
    try:
        yield server
    finally:
        server.stop()
