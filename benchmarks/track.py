"""`python -m benchmarks.track [--calls 1000] [--reps 30] [--json]`: what the track record costs.

- **Recall latency**: the work the coordinator adds before the first analyst may speak — read the
  user's log, settle what is due (nothing, once the log is settled), recall for the ticker and the
  trade date — timed over `reps` analyses against a SQLite store holding `calls` settled calls of
  one user (the goal: <= 50 ms with 1,000), and against an empty log.
- **Prompt tokens per decision**: one demo analysis (1 debate round, 1 risk round, every analyst)
  with nothing to recall, and the same analysis with a full recall (three calls on the ticker,
  three lessons from other tickers): the run's prompt tokens as the desk's meter counts them
  (estimated from the text in the demo), and the share the record adds (the goal: <= 10 %).

The seeded calls are real demo calls' shapes on synthetic data, scored by the desk's own
settlement from the synthetic vendor (nothing made up), so seeding also times a settlement pass.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from graph import Call, DeskRuntime, Settings

from .support.env import TEST_PACE

USER = "bench"
TICKERS = ("NVDA", "AAPL", "MSFT", "AMZN", "GOOGL", "META", "TSLA", "AMD")
TODAY = date(2024, 12, 31)
TRADE_DATE = "2024-12-02"  # the analysis timed: after every seeded call's window


def seeded(desk: DeskRuntime, n: int) -> list[Call]:
    """`n` calls on the sessions of 2023-01-03 … 2024-04-30 (the vendor's own trading days), in the
    demo judge's shape."""
    sessions = [stamp.date() for stamp in desk.vendor.ohlcv("SPY", date(2023, 1, 3), date(2024, 4, 30)).index]
    out = []
    for i in range(n):
        day = sessions[(i * len(sessions)) // max(n, 1)]
        out.append(Call(id=f"seed{i}:0", user=USER, thread_id=f"seed{i}", ticker=TICKERS[i % len(TICKERS)],
                        trade_date=day.isoformat(), signal=("BUY", "SELL", "HOLD")[i % 3], position_size="2%",
                        stop="", horizon="2-6 weeks", confidence=0.6, rationale="seeded for the benchmark",
                        argued={"Bull Researcher": "Up.", "Bear Researcher": "Down."},
                        recorded_at=f"{day.isoformat()}T21:00:00"))
    return out


def settings_in(folder: Path) -> Settings:
    return Settings(DESK_DATA_DIR=folder, DESK_DEMO_DELAY_MS=int(TEST_PACE["DESK_DEMO_DELAY_MS"]),
                    DESK_DEMO_FIRST_TOKEN_MS=int(TEST_PACE["DESK_DEMO_FIRST_TOKEN_MS"]))


async def recall_ms(desk: DeskRuntime, reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        await desk.track.recall(USER, "NVDA", TRADE_DATE, TODAY)
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def latency(calls: int, reps: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        async with DeskRuntime.open(settings_in(Path(folder))) as desk:
            empty = await recall_ms(desk, reps)
            await desk.track.log.save_all(seeded(desk, calls))
            t0 = time.perf_counter()
            settled = await desk.track.settle_due(USER, TODAY)
            settle_s = time.perf_counter() - t0
            pending = {v["pending"] for v in settled if v["outcome"] is None}
            assert not pending, f"every seeded call settles: {pending}"
            full = await recall_ms(desk, reps)
    return {"calls": calls, "reps": reps, "settle_pass_s": round(settle_s, 2),
            "empty_ms": _stats(empty), "full_ms": _stats(full)}


def _stats(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {"median": round(statistics.median(ms), 2), "p90": round(ms[int(0.9 * (len(ms) - 1))], 2),
            "max": round(ms[-1], 2)}


async def analysis_tokens(desk: DeskRuntime, thread: str) -> tuple[int, dict[str, Any] | None]:
    context = desk.context(today=TODAY, user=USER, source="cli")
    async with desk.turn(thread, f"should I buy NVDA on {TRADE_DATE}?",
                         desk.plan(debate_rounds=1, risk_rounds=1)) as turn:
        async for _ in turn.events(context):
            pass
    state = await desk.state(thread)
    personas = (state.get("usage") or {}).get("personas", {})
    return sum(int(u.get("prompt", 0)) for u in personas.values()), state.get("track_record")


async def tokens() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        async with DeskRuntime.open(settings_in(Path(folder))) as desk:
            bare, _ = await analysis_tokens(desk, "bench-bare")
            await desk.track.log.save_all(seeded(desk, 48))
            with_record, record = await analysis_tokens(desk, "bench-record")
    assert record and len(record["same"]) == 3 and len(record["lessons"]) == 3, "a full recall"
    return {"without": bare, "with": with_record, "added": with_record - bare,
            "added_share": round((with_record - bare) / bare, 4)}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.track")
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = {"latency": asyncio.run(latency(args.calls, args.reps)), "tokens": asyncio.run(tokens())}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    lat, tok = result["latency"], result["tokens"]
    print(f"recall before the first analyst, {lat['calls']} settled calls: median {lat['full_ms']['median']} ms, "
          f"p90 {lat['full_ms']['p90']} ms (empty log: median {lat['empty_ms']['median']} ms); "
          f"settling them took {lat['settle_pass_s']} s")
    print(f"prompt tokens per decision: {tok['without']} without a record, {tok['with']} with a full recall "
          f"(+{tok['added']}, {tok['added_share']:.1%})")


if __name__ == "__main__":
    main()
