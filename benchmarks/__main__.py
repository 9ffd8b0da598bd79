"""`python -m benchmarks [--quick] [--json] [--write] [--skip-socket]`

Runs every figure against its own baseline (the latency model's ideal), prints a summary,
and with --write rewrites benchmarks/RESULTS.md (the findings section below the marker is kept).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .headless import Bench, analyst_speedup, critical_path, step_overhead
from .latency import Latency
from .support.host import machine

RESULTS = Path(__file__).with_name("RESULTS.md")
MARKER = "<!-- findings: everything below this line is kept when the figures are rewritten -->"

@dataclass(frozen=True)
class Profile:
    latency: Latency
    reps: int
    pickup_runs: int
    per_run: int
    chats: int


PROFILES = {
    # quick: under two minutes; full: a model about as fast as a hosted small model
    "quick": Profile(Latency(first_token_ms=20, per_token_ms=1, tool_ms=30), reps=2, pickup_runs=1, per_run=3,
                     chats=4),
    "full": Profile(Latency(first_token_ms=200, per_token_ms=8, tool_ms=250), reps=5, pickup_runs=3, per_run=4,
                    chats=20),
}


async def run(profile: str, skip_socket: bool) -> dict:
    p = PROFILES[profile]
    lat = p.latency
    out: dict = {"profile": profile, "latency": lat.__dict__, "machine": machine(),
                 "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}
    started = time.perf_counter()
    bench = Bench(lat)
    try:
        await bench.warm_up()
        out |= await critical_path(bench, p.reps)
        out |= await analyst_speedup(bench, p.reps)
        out |= await step_overhead(bench, p.reps)
    finally:
        await bench.close()  # the runtimes' checkpointers, closed inside the loop that opened them
    if not skip_socket:
        from .socket_bench import socket_figures
        with tempfile.TemporaryDirectory(prefix="desk-bench-server-") as tmp:
            out |= await socket_figures(lat, reps=p.reps, pickup_runs=p.pickup_runs, per_run=p.per_run,
                                        chats=p.chats, data_dir=Path(tmp))
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def table(r: dict) -> str:
    def med(key):
        v = r.get(key)
        return f"{v['median']} (min {v['min']}, max {v['max']}, n={v['n']})" if isinstance(v, dict) else str(v)

    rows = [
        ("critical_path_ratio", med("critical_path_ratio"), "≤ 1.05"),
        ("analyst_speedup", med("analyst_speedup") + f"; ideal for these analysts {r.get('ideal_speedup')}", "≥ 3.5"),
        ("step_overhead_ms (SQLite)", med("step_overhead_ms"), "≤ 5"),
        ("step_overhead_ms (in memory)", med("step_overhead_ms_memory"), "—"),
    ]
    if "first_token_ms" in r:
        cc = r["concurrent_chats"]
        rows += [
            ("first_token_ms", med("first_token_ms"), "≤ 150"),
            ("followup_ms", med("followup_ms"), "≤ 150"),
            ("intervention_pickup", f"{r['intervention_pickup']} ({r['answered']}/{r['sent']})", "1.0"),
            ("concurrent_chats", f"{cc['completed']}/{cc['chats']} completed, {cc['decisions']} decisions, "
                                 f"{cc['chats_with_foreign_messages']} with another chat's messages, "
                                 f"p95 ratio {cc['p95_critical_path_ratio']} "
                                 f"(median {cc['median_critical_path_ratio']}), "
                                 f"server peak RSS {cc['server_peak_rss_mb']} MB", "all, none"),
        ]
    return "\n".join(["| figure | measured | goal |", "|---|---|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in rows])


def write_results(r: dict, command: str) -> None:
    kept = ""
    if RESULTS.exists() and MARKER in (text := RESULTS.read_text()):
        kept = text.split(MARKER, 1)[1]
    m = r["machine"]
    body = f"""# Benchmark results

Command: `{command}` ({r['profile']} profile, {r['seconds']} s), {r['date']}.

Machine: {m['cpus']} CPUs ({m['cpu']}), {m['memory_gib']} GiB, Python {m['python']}, {m['platform']}.

Latency model: first token {r['latency']['first_token_ms']} ms, then {r['latency']['per_token_ms']} ms per word;
each tool call {r['latency']['tool_ms']} ms. Medians of repeated runs, each against its own ideal.

{table(r)}

Analyst phase: parallel {r['parallel_phase_ms']} ms, in sequence {r['sequential_phase_ms']} ms;
each analyst's own model and tool time: {json.dumps(r['analyst_ms'])}.

{MARKER}"""
    RESULTS.write_text(body + (kept or "\n"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("--quick", action="store_true", help="a run under two minutes")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    ap.add_argument("--write", action="store_true", help="rewrite benchmarks/RESULTS.md")
    ap.add_argument("--skip-socket", action="store_true", help="headless figures only (no chat server)")
    args = ap.parse_args(argv)
    result = asyncio.run(run("quick" if args.quick else "full", args.skip_socket))
    print(table(result))
    if args.write:
        write_results(result, "python -m benchmarks " + " ".join(a for a in (argv or sys.argv[1:]) if a != "--json"))
        print(f"wrote {RESULTS}")
    if args.json:
        print(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
