"""A demo backtest's days on LangGraph Server with one worker slot against two (issue 23, point 4).

`python -m benchmarks.backtest_server [--tickers AAPL MSFT] [--start 2024-01-02] [--end 2024-03-28]
[--every 10] [--concurrency 4] [--paces none,hosted] [--jobs 1,2] [--in-process] [--json]`

For each pace and each `--n-jobs-per-worker` N, a fresh `langgraph dev` (langgraph.json, demo model,
synthetic data, one account) is started, and the same backtest is run against it by the CLI, as a user
runs it: `python -m graph backtest … --server URL --concurrency C --yes`. The client keeps C days in flight;
the server's queue runs N of them at once and holds the rest.

What "worker" means here: `langgraph dev` is one server process (the in-memory runtime). Its queue hands runs
to N concurrent job slots in that process's one event loop (`--n-jobs-per-worker`); there is no second
process. So two "workers" overlap two days' waiting (a hosted model's latency), not their Python: with the
demo model at no pace a day is CPU-bound Python and both slots share one core's GIL.

Paces (the demo model's, set on the server): `none` (0 ms: CPU-bound), `hosted` (a first token after
200 ms, then 8 ms a word: the benchmarks' latency model, standing for a hosted model). With `--in-process`
the same backtest also runs in process (`python -m graph backtest …` with no server) at each pace, for scale.

Reported per run: wall time of the CLI (start-up, planning, all days, scoring), the CPU seconds of the
server's process tree and of the CLI, and the speed-up of N=2 over N=1 at each pace.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .support.env import demo_env
from .support.host import machine, tree_cpu
from .support.langgraph_dev import LangGraphDev

ROOT = Path(__file__).resolve().parents[1]
ACCOUNT = ("bench", "bench's passphrase")
PACES = {"none": {"DESK_DEMO_DELAY_MS": "0", "DESK_DEMO_FIRST_TOKEN_MS": "0"},
         "hosted": {"DESK_DEMO_DELAY_MS": "8", "DESK_DEMO_FIRST_TOKEN_MS": "200"}}


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cli(args: argparse.Namespace, folder: Path, pace: dict[str, str], server: str | None) -> dict[str, Any]:
    """One CLI backtest; its wall time and CPU (the server is not waited for, so it is not in RUSAGE_CHILDREN)."""
    command = [sys.executable, "-m", "graph", "backtest", *args.tickers, "--start", args.start, "--end", args.end,
               "--every", str(args.every), "--concurrency", str(args.concurrency), "--yes", "--today", "2024-06-28",
               "--out", str(folder / "out")]
    env = demo_env(DESK_DATA_DIR=str(folder / "client"), **pace)
    if server:
        command += ["--server", server, "--server-user", ACCOUNT[0]]
        env["DESK_SERVER_PASSWORD"] = ACCOUNT[1]
    cpu, started = _children_cpu_s(), time.monotonic()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"the backtest failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    line = next(x for x in done.stdout.splitlines() if " days decided or tried " in x)
    return {"wall_s": round(wall, 2), "client_cpu_s": round(_children_cpu_s() - cpu, 2), "days": line.split(" of ")[0]}


def queue_figures(log: str) -> dict[str, Any]:
    """From the server's log, per run: the median time it waited in the queue and the median it executed."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", log)
    waits = [int(v) for v in re.findall(r"run_wait_time_ms=(\d+)", plain)]
    execs = [int(v) for v in re.findall(r"run_exec_ms=(\d+)", plain)]
    return {"runs_logged": len(execs),
            "queue_wait_ms_median": statistics.median(waits) if waits else None,
            "exec_ms_median": statistics.median(execs) if execs else None}


def on_server(args: argparse.Namespace, pace_name: str, jobs: int) -> dict[str, Any]:
    pace = PACES[pace_name]
    with tempfile.TemporaryDirectory(prefix="bt-server-") as tmp:
        folder = Path(tmp)
        dev = LangGraphDev(folder, dict([ACCOUNT]), n_jobs=jobs, env=pace)
        try:
            dev.start()
            assert dev.proc is not None
            before = sum(tree_cpu(dev.proc.pid).values())
            measured = run_cli(args, folder, pace, dev.url)
            measured["server_cpu_s"] = round(sum(tree_cpu(dev.proc.pid).values()) - before, 2)
            measured.update(queue_figures(dev.log()))
        finally:
            dev.stop()
    return {"where": f"server, {jobs} job(s)", "pace": pace_name, "jobs": jobs, **measured}


def in_process(args: argparse.Namespace, pace_name: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bt-here-") as tmp:
        measured = run_cli(args, Path(tmp), PACES[pace_name], None)
    return {"where": "in process", "pace": pace_name, "jobs": None, "server_cpu_s": None, **measured}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.backtest_server", description=__doc__.split("\n")[0])
    ap.add_argument("--tickers", nargs="+", default=["AAPL", "MSFT"])
    ap.add_argument("--start", default="2024-01-02")
    ap.add_argument("--end", default="2024-03-28")
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--concurrency", type=int, default=4, help="days in flight (the client's cap)")
    ap.add_argument("--paces", default="none,hosted")
    ap.add_argument("--jobs", default="1,2", help="--n-jobs-per-worker values to compare")
    ap.add_argument("--in-process", action="store_true", help="also run it in process at each pace")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for pace in args.paces.split(","):
        for jobs in (int(j) for j in args.jobs.split(",")):
            rows.append(on_server(args, pace, jobs))
            print(rows[-1], file=sys.stderr, flush=True)
        if args.in_process:
            rows.append(in_process(args, pace))
            print(rows[-1], file=sys.stderr, flush=True)
    speedups = {}
    for pace in args.paces.split(","):
        walls = {r["jobs"]: r["wall_s"] for r in rows if r["pace"] == pace and r["jobs"]}
        if 1 in walls and 2 in walls:
            speedups[pace] = round(walls[1] / walls[2], 2)
    report = {"machine": machine(), "load": os.getloadavg(), "rows": rows, "speedup_2_over_1": speedups}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("| where | pace | days | wall s | server CPU s | client CPU s |\n|---|---|---|---:|---:|---:|")
        for r in rows:
            print(f"| {r['where']} | {r['pace']} | {r['days']} | {r['wall_s']} | {r['server_cpu_s'] or '—'} | "
                  f"{r['client_cpu_s']} |")
        print(f"\nspeed-up of 2 jobs over 1 (wall): {speedups}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
