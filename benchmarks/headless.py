"""Headless figures: critical-path ratio, analyst speedup, per-step overhead."""
from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from contextlib import AsyncExitStack
from datetime import date
from pathlib import Path

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from graph import SERDE, DeskRuntime, ModelRegistry, Settings, SyntheticVendor

from .ideal import ANALYST_PERSONAS, analyst_phase_ms, ideal_ms, persona_ms
from .latency import Latency, LatencyModel, latency_toolkit

REQUEST = "should I buy NVDA today?"
TODAY = date(2024, 5, 6)


def summary(values: list[float]) -> dict:
    return {"median": round(statistics.median(values), 4), "min": round(min(values), 4),
            "max": round(max(values), 4), "n": len(values)}


class Bench:
    """One data dir, one vendor and one replay cache for all runs of a benchmark session."""

    def __init__(self, latency: Latency, data_dir: Path | None = None):
        self.latency = latency
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="desk-bench-"))
        self.vendor = SyntheticVendor()
        self.replay: dict = {}
        self.desks: dict = {}
        self.stack = AsyncExitStack()

    def settings(self, **over) -> Settings:
        return Settings(DESK_DATA_DIR=self.data_dir, DESK_MODE="demo", **over)

    async def desk(self, parallel: bool, checkpointer: str):
        """One compiled graph per shape, built once and reused, as the chat server does."""
        key = (parallel, checkpointer)
        if key not in self.desks:
            model = LatencyModel(self.latency)
            runtime = await self.stack.enter_async_context(DeskRuntime.open(
                self.settings(DESK_PARALLEL_ANALYSTS=parallel),
                checkpointer=InMemorySaver(serde=SERDE) if checkpointer == "memory" else None,
                models=ModelRegistry.fixed(model, notice="bench"), vendor=self.vendor,
                toolkit=latency_toolkit(self.vendor, self.latency.tool_ms, self.replay)))
            self.desks[key] = (runtime, model)
        return self.desks[key]

    async def close(self) -> None:
        await self.stack.aclose()
        self.desks.clear()

    async def run(self, *, parallel: bool = True, checkpointer: str = "sqlite", text: str = REQUEST,
                  today: date | None = TODAY) -> dict:
        """One full headless run on a new thread; wall time, the ideal, the model's calls, the steps."""
        runtime, model = await self.desk(parallel, checkpointer)
        model.calls.clear()
        thread = uuid.uuid4().hex
        start = time.perf_counter()
        async for _ in runtime.events({"messages": [HumanMessage(text)]}, thread, runtime.context(today=today)):
            pass
        wall = (time.perf_counter() - start) * 1000
        # minus the input checkpoint
        steps = len([c async for c in runtime.graph.aget_state_history(runtime.config(thread))]) - 1
        calls = list(model.calls)
        return {"wall_ms": wall, "ideal_ms": ideal_ms(calls, self.latency, parallel_analysts=parallel),
                "inside_ms": ideal_ms(calls, self.latency, parallel_analysts=parallel, measured=True),
                "calls": calls, "steps": steps, "analyst_phase_ms": analyst_phase_ms(calls)}

    async def warm_up(self) -> None:
        for checkpointer in ("memory", "sqlite"):
            for parallel in (True, False):
                await self.run(parallel=parallel, checkpointer=checkpointer)


async def critical_path(bench: Bench, reps: int) -> dict:
    runs = [await bench.run() for _ in range(reps)]
    ratios = [r["wall_ms"] / r["ideal_ms"] for r in runs]
    return {"critical_path_ratio": summary(ratios), "wall_ms": summary([r["wall_ms"] for r in runs]),
            "ideal_ms": summary([r["ideal_ms"] for r in runs]), "goal": "<= 1.05"}


async def analyst_speedup(bench: Bench, reps: int) -> dict:
    par, seq = [], []
    for _ in range(reps):  # interleaved, so a noisy moment hits both sides alike
        par.append(await bench.run(parallel=True))
        seq.append(await bench.run(parallel=False))
    p = statistics.median(r["analyst_phase_ms"] for r in par)
    s = statistics.median(r["analyst_phase_ms"] for r in seq)
    ratios = [a["analyst_phase_ms"] / b["analyst_phase_ms"] for a, b in zip(seq, par)]
    per = persona_ms(par[0]["calls"], bench.latency)
    times = [ms for p_, ms in per.items() if p_ in ANALYST_PERSONAS]
    return {"analyst_speedup": summary(ratios), "median_of_phases": round(s / p, 3),
            "parallel_phase_ms": round(p, 1), "sequential_phase_ms": round(s, 1),
            "ideal_speedup": round(sum(times) / max(times), 3),
            "analyst_ms": {p_: round(ms, 1) for p_, ms in per.items() if p_ in ANALYST_PERSONAS},
            "goal": ">= 3.5"}


async def step_overhead(bench: Bench, reps: int) -> dict:
    out = {}
    for kind in ("sqlite", "memory"):
        per_step = []
        for _ in range(reps):
            r = await bench.run(checkpointer=kind)
            # Outside the model and tools: the wall time less what the calls on the critical path
            # actually took (the latency model's own timer overshoot is model time, not ours).
            per_step.append((r["wall_ms"] - r["inside_ms"]) / r["steps"])
        out[kind] = summary(per_step)
    return {"step_overhead_ms": out["sqlite"], "step_overhead_ms_memory": out["memory"], "goal": "<= 5 ms"}
