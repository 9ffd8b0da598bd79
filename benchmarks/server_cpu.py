"""The chat server's CPU per analysis, against the same analyses run headless (issue 12, point 3).

`python -m benchmarks.server_cpu [--analyses 10] [--at-once 5] [--repeat 3] [--delay-ms 8] [--postgres]
[--py-spy FILE [--spy-gil]] [--json]`

Server: the real `chainlit run chat/app.py` (demo mode; SQLite files, or Postgres with --postgres
or --database-url). K users log in and open a chat each, one chat per analysis, before the clock
starts; then the server process's CPU time (user + system of all its threads, from
/proc/<pid>/stat) is read, the K questions are sent over the socket (benchmarks/support/socket_client),
and once every run has ended and the server has gone quiet (Edit buttons offered, the history
writer drained) it is read again; so for N analyses, K at a time.

Headless: the same N analyses, K at a time, through DeskRuntime in this process (the same demo
model at the same pace, the same checkpoints database), each run's events consumed but nothing
shown; CPU from time.process_time(). The pair is measured --repeat times and the ratio's median
reported: on a shared machine one pair can be 20% off.

Both sides warm up first with one analysis (imports, the coordinator's tables, the first
ticker's synthetic data) and then run the same tickers in the same order. The server's idle CPU
(socket pings, timers) is measured before the analyses and reported; the ratio is of the raw
figures. --py-spy FILE records the server during the analyses (py-spy's collapsed stacks, one
line per stack: `benchmarks.server_cpu --top FILE` sums them by function).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage

from graph import DeskRuntime, Settings

from .support.chat_server import Server
from .support.host import machine, process_cpu_s, quiet
from .support.load import LOGINS_AT_ONCE, TICKERS, LoadClient
from .support.postgres import throwaway_postgres
from .support.socket_client import DeskClient, runs_finished

WARM_UP = "should I buy NVDA today?"


def questions(n: int) -> list[str]:
    return [f"should I buy {TICKERS[i % len(TICKERS)]} today?" for i in range(n)]


def batches(items: list[str], size: int) -> list[list[str]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


# -- the server ----------------------------------------------------------------------------------

async def connected(server: Server, user: str, logins: asyncio.Semaphore) -> DeskClient:
    client = LoadClient(server.base, user, logins)
    await client.connect()
    await client.wait_for(lambda: client.by_author("Desk"), 120, "the mode notice")
    return client


async def analyse(client: DeskClient, question: str, timeout: float) -> bool:
    """One question on a connected chat; True when its run ended with a decision card."""
    done = runs_finished(client)
    await client.send(question)
    await client.wait_for(lambda: runs_finished(client) > done, timeout, "the run to end")
    return any("**Signal**" in (m.get("output") or "") for m in client.messages.values())


def start_py_spy(pid: int, out: Path, rate: int, gil: bool = False) -> subprocess.Popen[bytes]:
    """py-spy on the server; `gil`: only the thread holding the GIL is sampled (the Python work one
    process can do at a time, without threads waiting on sockets or in C code that let it go)."""
    spy = Path(sys.executable).with_name("py-spy")
    if not spy.exists():
        raise SystemExit(f"{spy} missing: .venv/bin/pip install py-spy")
    return subprocess.Popen([str(spy), "record", "--pid", str(pid), "--format", "raw", "--rate", str(rate),
                             "--output", str(out), "--threads", *(["--gil"] if gil else ["--nonblocking"])],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_py_spy(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()


async def server_cpu(n: int, at_once: int, delay_ms: float, data_dir: Path, *, database_url: str | None = None,
                     py_spy: Path | None = None, spy_rate: int = 100, spy_gil: bool = False,
                     server_env: dict[str, str] | None = None) -> dict[str, Any]:
    env = {"DESK_DEMO_DELAY_MS": str(delay_ms)} | ({"DESK_DATABASE_URL": database_url} if database_url else {})
    server = Server(data_dir, **env | (server_env or {}))
    server.start()
    spy = None
    try:
        assert server.proc is not None
        pid = server.proc.pid
        logins = asyncio.Semaphore(LOGINS_AT_ONCE)
        users = iter(f"cpu{i:03d}" for i in range(n + 1))
        first = await connected(server, next(users), logins)
        try:
            await analyse(first, WARM_UP, 300)
        finally:
            await first.close()
        await quiet(pid)
        idle_from, idle_at = process_cpu_s(pid), time.perf_counter()
        await asyncio.sleep(2.0)
        idle_rate = (process_cpu_s(pid) - idle_from) / (time.perf_counter() - idle_at)
        if py_spy is not None:
            spy = start_py_spy(pid, py_spy, spy_rate, spy_gil)
            await asyncio.sleep(1.0)  # attached before the analyses start
        cpu = wall = 0.0
        decided = events = 0
        failures: list[str] = []
        try:
            for batch in batches(questions(n), at_once):
                # Each analysis on a new chat, connected before the clock starts: logins and the
                # chat's start are not the analysis.
                clients = list(await asyncio.gather(*(connected(server, next(users), logins) for _ in batch)))
                try:
                    cpu_from, wall_from = process_cpu_s(pid), time.perf_counter()
                    results = await asyncio.gather(*(analyse(c, q, 120 + 30 * at_once) for c, q in zip(clients, batch)),
                                                   return_exceptions=True)
                    await quiet(pid)
                    cpu += process_cpu_s(pid) - cpu_from
                    wall += time.perf_counter() - wall_from
                finally:
                    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
                decided += sum(r is True for r in results)
                failures += [f"{type(r).__name__}: {r}"[:300] for r in results if isinstance(r, BaseException)]
                events += sum(len(c.events) for c in clients)
        finally:
            if spy is not None:
                stop_py_spy(spy)
    finally:
        server.stop()
    return {"analyses": n, "decisions": decided, "cpu_s": round(cpu, 3), "wall_s": round(wall, 2),
            "cpu_s_per_analysis": round(cpu / n, 4), "idle_cpu_s_per_s": round(idle_rate, 4),
            "socket_events_per_analysis": round(events / n, 1), "failures": failures}


# -- headless ------------------------------------------------------------------------------------

async def headless_cpu(n: int, at_once: int, delay_ms: float, data_dir: Path,
                       database_url: str | None = None) -> dict[str, Any]:
    settings = Settings(DESK_DATA_DIR=data_dir, DESK_MODE="demo", DESK_DEMO_DELAY_MS=delay_ms,
                        DESK_DEMO_FIRST_TOKEN_MS=0, DESK_DATABASE_URL=database_url)
    async with DeskRuntime.open(settings) as runtime:
        async def one(question: str) -> bool:
            events = 0
            async for _ in runtime.events({"messages": [HumanMessage(question)]}, uuid.uuid4().hex,
                                          runtime.context()):
                events += 1
            return events > 0

        await one(WARM_UP)
        cpu_from, wall_from = time.process_time(), time.perf_counter()
        for batch in batches(questions(n), at_once):
            await asyncio.gather(*(one(q) for q in batch))
        cpu, wall = time.process_time() - cpu_from, time.perf_counter() - wall_from
    return {"analyses": n, "cpu_s": round(cpu, 3), "wall_s": round(wall, 2), "cpu_s_per_analysis": round(cpu / n, 4)}


# -- profile summary -------------------------------------------------------------------------------

# Leaf frames of a thread that waits (py-spy --nonblocking counts some of them as running). Chainlit
# 2.x's Step and Message constructors sleep 1 ms (time.sleep, at these lines): a wait, not CPU.
WAITING = ("EpollSelector.select", "_connection_worker_thread (aiosqlite/core.py:59)",
           "_worker (concurrent/futures/thread.py:81)", "Condition.wait", "Event.wait", "Thread.join",
           "Step.__init__ (chainlit/step.py:216)", "Message.__init__ (chainlit/message.py:230)")


# Where the server's CPU goes. py-spy names a file by its path under the package folder it came
# from (langgraph's show as pregel/…, channels/…, graph/_branch.py, checkpoint/…, sqlite/aio.py).
# A sampled stack counts once: for the first of OWNERS any of its frames is in (work the chat does
# on top of the graph, whatever library it calls: a socket emit made while rendering is an emit),
# else for the area of its innermost frame that is in one of AREAS (so the graph's own streaming
# callbacks count as langchain, not as the node that called the model).
OWNERS = (
    ("the decision chart (plotly)", ("chat/views/card.py", "plotly/")),
    ("chat history writes (data layer)", ("chat/history/", "chainlit/data/")),
    ("Edit buttons after a run (chat/edits.py)", ("chat/edits.py", "chat/features/edit_actions.py")),
    ("socket emits (chainlit emitter, socket.io)", ("chainlit/emitter.py", "socketio/", "engineio/",
                                                    "chainlit/message.py", "chainlit/step.py", "chainlit/element.py",
                                                    "chainlit/action.py")),
    ("rendering to the chat (chat/views/render.py)", ("chat/views/render.py", "chat/views/tables.py")),
    ("checkpoints and store", ("checkpoint/", "sqlite/aio.py", "postgres/aio.py", "store/", "serde/",
                               "aiosqlite/", "psycopg")),
)
AREAS = (
    ("market data (synthetic vendor, indicators)", ("graph/data/", "pandas/", "numpy/", "stockstats")),
    ("figure checks (graph/record/figures.py)", ("graph/record/figures.py",)),
    ("langgraph (pregel, channels, reducers)", ("pregel/", "channels/", "graph/_branch.py", "graph/message.py")),
    ("langchain (messages, callbacks) and pydantic", ("langchain_core/", "pydantic/", "_internal/")),
    ("model, prompts and nodes (graph/)", ("graph/", "prompts/")),
    ("web server (uvicorn, starlette)", ("uvicorn/", "starlette/", "fastapi/", "websockets/", "wsproto/")),
    ("other chat code (chat/)", ("chat/",)),  # the graph runs inside ChatRun._run: chat/ frames alone say little
)


def area_of(frames: list[str]) -> str:
    owner = next((name for name, marks in OWNERS if any(m in frame for frame in frames for m in marks)), None)
    if owner is not None:
        return owner
    for frame in reversed(frames):
        for name, marks in AREAS:
            if any(m in frame for m in marks):
                return name
    return "other (asyncio, threads, …)"


def stacks(path: Path) -> list[tuple[list[str], int]]:
    """py-spy's collapsed stacks (outermost first) and their sample counts, waits left out."""
    out = []
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        frames = [f for f in stack.split(";") if not f.startswith(("thread ", "process "))]
        if frames and not frames[-1].startswith(WAITING):
            out.append((frames, int(count_text)))
    return out


def areas(path: Path) -> str:
    """Samples by area (see OWNERS): each stack counted once."""
    by: Counter[str] = Counter()
    total = 0
    for frames, count in stacks(path):
        total += count
        by[area_of(frames)] += count
    return "\n".join([f"{total} busy samples, by area"] +
                     [f"{100 * c / total:5.1f}%  {name}" for name, c in by.most_common()])


def top(path: Path, limit: int = 40) -> str:
    """Sampled stacks summed by function: self samples (the frame on top) and total (anywhere on
    the stack, once per stack), as a share of every sample of a busy thread (stacks that end in
    a wait are left out)."""
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    samples = 0
    for frames, count in stacks(path):
        samples += count
        own[frames[-1]] += count
        for frame in set(frames):
            total[frame] += count
    rows = [f"{samples} samples", "self%  total%  function"]
    for frame, count in total.most_common(limit):
        rows.append(f"{100 * own[frame] / samples:5.1f}  {100 * count / samples:6.1f}  {frame}")
    rows.append("-- by self time --")
    for frame, count in own.most_common(limit):
        rows.append(f"{100 * count / samples:5.1f}  {100 * total[frame] / samples:6.1f}  {frame}")
    return "\n".join(rows)


# -- the command -----------------------------------------------------------------------------------

async def run(n: int, at_once: int, delay_ms: float, *, database_url: str | None, py_spy: Path | None,
              spy_rate: int, spy_gil: bool, skip_headless: bool, server_env: dict[str, str],
              repeat: int = 1) -> dict[str, Any]:
    """`repeat` pairs of measurements, server then headless, each on fresh folders: on a shared
    machine one pair can be 20% off, so the ratio is reported as the median of the pairs."""
    out: dict[str, Any] = {"machine": machine(), "analyses": n, "at_once": at_once, "delay_ms": delay_ms,
                           "database": "postgres" if database_url else "sqlite", "server_env": server_env,
                           "pairs": []}
    for r in range(repeat):
        with tempfile.TemporaryDirectory(prefix="desk-cpu-") as tmp:
            root = Path(tmp)
            (root / "server").mkdir()
            (root / "headless").mkdir()
            pair: dict[str, Any] = {"load_before": round(os.getloadavg()[0], 2)}
            pair["server"] = await server_cpu(n, at_once, delay_ms, root / "server", database_url=database_url,
                                              py_spy=py_spy if r == 0 else None, spy_rate=spy_rate, spy_gil=spy_gil,
                                              server_env=server_env)
            if not skip_headless:
                pair["headless"] = await headless_cpu(n, at_once, delay_ms, root / "headless", database_url)
                pair["ratio"] = round(pair["server"]["cpu_s_per_analysis"]
                                      / pair["headless"]["cpu_s_per_analysis"], 2)
            out["pairs"].append(pair)
            print(f"[server_cpu] {json.dumps(pair)}", file=sys.stderr, flush=True)
    ratios = [p["ratio"] for p in out["pairs"] if "ratio" in p]
    if ratios:
        out["ratio"] = {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}
    return out


def table(r: dict[str, Any]) -> str:
    rows = ["| pair | chat server CPU s per analysis | headless CPU s per analysis | ratio | load before |",
            "|---|---|---|---|---|"]
    for i, p in enumerate(r["pairs"], 1):
        s, h = p["server"], p.get("headless") or {}
        rows.append(f"| {i} | {s['cpu_s_per_analysis']} ({s['decisions']}/{s['analyses']} decisions) "
                    f"| {h.get('cpu_s_per_analysis')} | {p.get('ratio')} | {p['load_before']} |")
    s = r["pairs"][0]["server"]
    rows.append(f"\nratio server/headless: {r.get('ratio')}; chat server on {r['database']}; server idle "
                f"{s['idle_cpu_s_per_s']} CPU-s/s; {s['socket_events_per_analysis']} socket events per analysis; "
                f"{r['analyses']} analyses per side, {r['at_once']} at once, demo model {r['delay_ms']} ms/word")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.server_cpu", description=__doc__.split("\n\n")[0])
    ap.add_argument("--analyses", type=int, default=10, help="analyses measured on each side (default %(default)s)")
    ap.add_argument("--at-once", type=int, default=5, help="analyses running at the same time (default %(default)s)")
    ap.add_argument("--delay-ms", type=float, default=8, help="DESK_DEMO_DELAY_MS, the demo model's pace per word")
    ap.add_argument("--database-url", default=None, help="run the server (and headless) on this Postgres database")
    ap.add_argument("--postgres", action="store_true", help="start a throwaway Postgres cluster and use it")
    ap.add_argument("--py-spy", type=Path, default=None, help="record the server with py-spy into this file")
    ap.add_argument("--spy-rate", type=int, default=100, help="py-spy samples per second")
    ap.add_argument("--spy-gil", action="store_true", help="py-spy samples only the thread holding the GIL")
    ap.add_argument("--top", type=Path, default=None, help="only summarise a py-spy file by function")
    ap.add_argument("--repeat", type=int, default=3, help="server/headless pairs measured (default %(default)s)")
    ap.add_argument("--skip-headless", action="store_true")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="add to the server's environment")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args(argv)
    if args.top:
        print(top(args.top))
        print(areas(args.top))
        return 0
    with contextlib.ExitStack() as stack:
        url = args.database_url
        if args.postgres:
            url = stack.enter_context(throwaway_postgres()).create_database()
        result = asyncio.run(run(args.analyses, args.at_once, args.delay_ms, database_url=url, py_spy=args.py_spy,
                                 spy_rate=args.spy_rate, spy_gil=args.spy_gil, skip_headless=args.skip_headless,
                                 repeat=args.repeat,
                                 server_env=dict(e.split("=", 1) for e in args.env)))
    print(table(result))
    if args.py_spy:
        print(areas(args.py_spy))
    if args.json:
        print(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
