"""A two-ticker comparison against one analysis, in the latency profile (issue 24, goal ≤ 1.15).

`python -m benchmarks.compare` (the full profile: a model about as fast as a hosted small model, benchmarks/
__main__.py) or `--quick`. Both sides run on one compiled desk with the latency model and latency tools
(benchmarks/latency.py): the single analysis is "analyze $NVDA on 2024-05-06"; the comparison is "NVDA or AMD?"
on the same date, its two desks side by side (graph's `Comparison`), then its Comparison turn. Interleaved, so a
noisy moment hits both alike; the figure is the median of the per-pair ratios of wall times.

Where the time goes: the desks overlap (each waits on its own model and tools), so the comparison costs one
analysis plus the Comparison turn (one deep call: its first token and its words), plus what two desks on one
event loop cost each other (the checkpoints, the stream, the demo's own writing).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from graph import Comparison, Event, read_comparison

from .headless import TODAY, Bench, summary
from .latency import Latency

PROFILES = {"quick": (Latency(first_token_ms=20, per_token_ms=1, tool_ms=30), 2),
            "full": (Latency(first_token_ms=200, per_token_ms=8, tool_ms=250), 3)}
SINGLE = "analyze $NVDA on 2024-05-06"
PAIR = "NVDA or AMD on 2024-05-06?"


async def _drain(ticker: str, events: AsyncIterator[Event]) -> None:
    async for _ in events:
        pass


async def single(bench: Bench) -> float:
    runtime, _ = await bench.desk(True, "sqlite")
    start = time.perf_counter()
    async with runtime.turn(uuid.uuid4().hex, SINGLE) as turn:
        await _drain("NVDA", turn.events(runtime.context(today=TODAY)))
    return time.perf_counter() - start


async def compared(bench: Bench) -> dict[str, float]:
    runtime, _ = await bench.desk(True, "sqlite")
    ask = read_comparison(PAIR, TODAY)
    assert ask is not None and not ask.problem
    start = time.perf_counter()
    comparison = await Comparison.new(runtime, "bench", uuid.uuid4().hex, ask, PAIR,
                                      context=runtime.context(today=TODAY, user="bench"))
    await comparison.run_desks(_drain)
    desks = time.perf_counter() - start
    turn = comparison.turn()
    async for _ in turn.stream():
        pass
    assert turn.result is not None and all(o.decided for o in turn.outcomes)
    await comparison.finish(turn.result)
    return {"wall_s": time.perf_counter() - start, "desks_s": desks}


async def run(profile: str) -> dict[str, Any]:
    latency, reps = PROFILES[profile]
    bench = Bench(latency)
    try:
        await single(bench)  # warm: the graph compiled, the replay cache filled for both tickers
        await compared(bench)
        singles, pairs = [], []
        for _ in range(reps):
            singles.append(await single(bench))
            pairs.append(await compared(bench))
    finally:
        await bench.close()
    ratios = [p["wall_s"] / s for p, s in zip(pairs, singles)]
    desk_ratios = [p["desks_s"] / s for p, s in zip(pairs, singles)]
    return {"profile": profile, "latency": latency.__dict__,
            "compare_over_single": summary(ratios), "desks_only_over_single": summary(desk_ratios),
            "single_s": summary(singles), "compare_s": summary([p["wall_s"] for p in pairs]),
            "comparison_turn_s": round(statistics.median(p["wall_s"] - p["desks_s"] for p in pairs), 3),
            "goal": "<= 1.15"}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the quick latency profile (seconds, not minutes)")
    args = ap.parse_args()
    print(json.dumps(asyncio.run(run("quick" if args.quick else "full")), indent=2))


if __name__ == "__main__":
    main()
