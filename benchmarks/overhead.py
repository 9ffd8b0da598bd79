"""The desk's own overhead (issue 23): what a run costs beyond the model's and the tools' time.

`python -m benchmarks.overhead [--reps N] [--quick] [--skip-steps] [--profile FILE]`

- step_overhead_ms (SQLite, in memory): as `python -m benchmarks` measures it (benchmarks/headless.py),
  with the process's CPU time per step beside it (less noisy than wall time on a shared machine).
- demo_run_cpu_s: one demo run (the demo model, synthetic data, NVDA on 2024-05-06) through
  `DeskRuntime.turn`, as the CLI runs it (SQLite checkpoints, store and leases), at zero pace:
  CPU seconds of the process, the first run in the process (imports, tables, a new ticker's data)
  and later runs on new threads.
- `--profile FILE`: a cProfile of the warm demo runs, written to FILE (read with pstats).

Medians of `--reps` runs.
"""
from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import tempfile
import time
import uuid
from datetime import date
from pathlib import Path

from graph import DeskRuntime, Settings

from .headless import Bench, summary
from .latency import Latency

REQUEST = "should I buy NVDA today?"
TODAY = date(2024, 5, 6)
FULL = Latency(first_token_ms=200, per_token_ms=8, tool_ms=250)
QUICK = Latency(first_token_ms=20, per_token_ms=1, tool_ms=30)


async def step_figures(latency: Latency, reps: int) -> dict:
    """Wall overhead per step (the benchmark's figure) and CPU per step, SQLite and in memory,
    interleaved so a noisy moment hits both alike."""
    bench = Bench(latency)
    wall: dict[str, list[float]] = {"sqlite": [], "memory": []}
    cpu: dict[str, list[float]] = {"sqlite": [], "memory": []}
    try:
        await bench.warm_up()
        for _ in range(reps):
            for kind in ("sqlite", "memory"):
                cpu0 = time.process_time()
                r = await bench.run(checkpointer=kind)
                # The model's and tools' own CPU is tiny at this pace: almost all of it is the desk's.
                cpu[kind].append((time.process_time() - cpu0) * 1000 / r["steps"])
                wall[kind].append((r["wall_ms"] - r["inside_ms"]) / r["steps"])
    finally:
        await bench.close()
    return {"step_overhead_ms": summary(wall["sqlite"]), "step_overhead_ms_memory": summary(wall["memory"]),
            "step_cpu_ms": summary(cpu["sqlite"]), "step_cpu_ms_memory": summary(cpu["memory"])}


async def demo_runs(reps: int, profile: Path | None = None) -> dict:
    """CPU seconds of demo runs through `DeskRuntime.turn` at zero pace, SQLite everything."""
    with tempfile.TemporaryDirectory(prefix="desk-overhead-") as tmp:
        settings = Settings(DESK_DATA_DIR=Path(tmp), DESK_MODE="demo", DESK_DEMO_DELAY_MS=0,
                            DESK_DEMO_FIRST_TOKEN_MS=0)
        async with DeskRuntime.open(settings) as desk:
            async def one() -> tuple[float, float]:
                cpu0, wall0 = time.process_time(), time.perf_counter()
                thread = uuid.uuid4().hex
                async with desk.turn(thread, REQUEST, desk.plan()) as turn:
                    async for _ in turn.events(desk.context(today=TODAY, source="cli")):
                        pass
                return time.process_time() - cpu0, time.perf_counter() - wall0

            first_cpu, first_wall = await one()
            prof = cProfile.Profile() if profile else None
            cpu, wall = [], []
            for _ in range(reps):
                if prof:
                    prof.enable()
                c, w = await one()
                if prof:
                    prof.disable()
                cpu.append(c)
                wall.append(w)
            if prof and profile:
                prof.dump_stats(str(profile))
    return {"demo_run_first_cpu_s": round(first_cpu, 3), "demo_run_first_wall_s": round(first_wall, 3),
            "demo_run_cpu_s": summary(cpu), "demo_run_wall_s": summary(wall)}


async def measure(reps: int, latency: Latency, steps: bool, profile: Path | None) -> dict:
    out: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "reps": reps}
    out |= await demo_runs(reps, profile)
    if steps:
        out |= await step_figures(latency, reps)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.overhead", description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="the quick profile's latency for the step figures")
    ap.add_argument("--skip-steps", action="store_true", help="demo runs only")
    ap.add_argument("--profile", type=Path, help="write a cProfile of the warm demo runs here")
    args = ap.parse_args(argv)
    out = asyncio.run(measure(args.reps, QUICK if args.quick else FULL, not args.skip_steps, args.profile))
    for key, value in out.items():
        shown = f"{value['median']} (min {value['min']}, max {value['max']}, n={value['n']})" \
            if isinstance(value, dict) else value
        print(f"{key}: {shown}")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

