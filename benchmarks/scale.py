"""Several chat processes on one Postgres (issue 12, point 2): concurrent demo chats completed and
the first-token p95 with 1 and with 2 processes on this machine.

`python -m benchmarks.scale [--chats 20,50] [--processes 1,2] [--delay-ms 8] [--database-url URL] [--json]`

For each number of processes P and of chats N: a fresh database on one PostgreSQL server (a
throwaway cluster started here, benchmarks/support/postgres.py's, unless --database-url
names one), P real chat servers (`chainlit run chat/app.py`, demo mode, each on its own port and
data folder, one auth secret, DESK_DATABASE_URL on that database). N users log in; chat i talks
to server i mod P for its whole life, which is what a reverse proxy with sticky sessions does.
Once every chat is open, the N questions are sent at the same moment and each chat is timed:

- first token: from sending the question to the first streamed word of a persona;
- run: from sending the question to the end of the run (its Stop button removed); completed
  means it ended within the time limit with a decision card, and no chat may show words of
  another chat's ticker;
- each server's CPU seconds (/proc/<pid>/stat) and peak RSS, and lines of its log that say
  something went wrong (tracebacks, pool time-outs, "database is locked");
- Postgres's CPU seconds (the throwaway cluster's processes), the load generator's, and the rest
  of the machine's ("other": whatever else runs there meanwhile).

Everything runs on one machine: on 2 cores the servers compete with Postgres and the load
generator (the N socket clients). Its clients count what they need as
events arrive, instead of polling and rescanning their event lists.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graph import PERSONAS

from .server_cpu import start_py_spy, stop_py_spy
from .support.chat_server import Server
from .support.host import CLOCK_TICKS, machine, peak_rss_mb, process_cpu_s, quiet
from .support.load import LOGINS_AT_ONCE, TICKERS, LoadClient, percentile
from .support.postgres import PostgresServer, throwaway_postgres

CARD = "**Signal**"
# Server log lines that say something went wrong under load.
TROUBLE: dict[str, re.Pattern[str]] = {
    "traceback": re.compile(r"Traceback"),
    "pool_timeout": re.compile(r"PoolTimeout|QueuePool limit|couldn't get a connection"),
    "database_locked": re.compile(r"database is locked"),
    "history_retries": re.compile(r"History writer: .*retrying"),
    "errors": re.compile(r"\bERROR\b|\[error\]", re.I),
}


class TimedClient(LoadClient):
    """A chat that notes, as events arrive, when the first persona word and the end of each run
    came (no polling over its whole event list; `until` asks again as each event arrives)."""

    def __init__(self, base: str, username: str, logins: asyncio.Semaphore) -> None:
        super().__init__(base, username, logins)
        self.first_word_at: float | None = None
        self.ends: list[float] = []

    def _recorder(self, name: str) -> Callable[..., Any]:
        record = super()._recorder(name)

        async def timed(data: Any = None, *rest: Any) -> None:
            await record(data, *rest)
            at = self.times[-1]
            if self.first_word_at is None and isinstance(data, dict):
                author = self.messages.get(str(data.get("id")), {}).get("name")
                if name == "stream_token" and author in PERSONAS:
                    self.first_word_at = at
                elif name == "stream_start" and data.get("output") and data.get("name") in PERSONAS:
                    self.first_word_at = at  # Chainlit sends a message's first word inside its stream_start
            if name == "remove_action":  # every run ends by removing its Stop button
                self.ends.append(at)
        return timed


@dataclass
class Chat:
    user: str
    ticker: str
    server: int
    client: TimedClient
    sent_at: float = 0.0
    first_word_s: float | None = None
    run_s: float | None = None
    decided: bool = False
    foreign: bool = False
    problems: list[str] = field(default_factory=list)


async def open_chat(servers: list[Server], i: int, logins: asyncio.Semaphore, timeout: float) -> Chat:
    k = i % len(servers)  # the sticky session: this chat's server for its whole life
    client = TimedClient(servers[k].base, f"scale{i:03d}", logins)
    await client.connect()
    if not await client.until(lambda: bool(client.by_author("Desk")), timeout):
        raise RuntimeError(f"chat {i} got no mode notice")
    return Chat(client.username, TICKERS[i % len(TICKERS)], k, client)


async def drive(chat: Chat, tickers: set[str], run_timeout: float) -> None:
    client = chat.client
    chat.sent_at = time.perf_counter()
    await client.send(f"should I buy {chat.ticker} today?")
    if await client.until(lambda: bool(client.ends), run_timeout):
        chat.run_s = client.ends[0] - chat.sent_at
    else:
        chat.problems.append("run did not end in time")
    if client.first_word_at is not None:
        chat.first_word_s = client.first_word_at - chat.sent_at
    said = [m.get("output") or "" for m in client.messages.values()]
    chat.decided = any(CARD in text for text in said)
    others = tickers - {chat.ticker}
    chat.foreign = any(re.search(rf"\b{re.escape(o)}\b", text) for text in said for o in others)


def trouble(text: str) -> dict[str, int]:
    lines = text.splitlines()
    return {name: sum(1 for line in lines if pat.search(line)) for name, pat in TROUBLE.items()}


def first_traceback(text: str, lines: int = 30) -> str | None:
    """The first traceback in a log and the lines before it (what was being done), for the report."""
    at = text.find("Traceback")
    if at < 0:
        return None
    start = text.rfind("\n", 0, max(0, text.rfind("\n", 0, at) - 1)) + 1
    return "\n".join(text[start:].splitlines()[:lines])


def postgres_cpu_s(data_dir: Path) -> float | None:
    """CPU seconds of a PostgreSQL cluster: its postmaster (with the backends it has reaped) and the
    backends alive now. None when the cluster is not ours to read (an outside server)."""
    try:
        postmaster = int((data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None
    total = process_cpu_s(postmaster)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # gone meanwhile
            continue
        fields = text.rsplit(")", 1)[1].split()
        if int(fields[1]) == postmaster:  # a backend (or a helper process) of this cluster
            total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return total


def machine_cpu_s() -> float:
    """CPU seconds every process of the machine has used (busy time of all cores, /proc/stat)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


async def measure(database_url: str, processes: int, chats: int, root: Path, *, delay_ms: float,
                  postgres: PostgresServer | None = None,
                  run_timeout: float | None = None, spy: tuple[Path, float] | None = None) -> dict[str, Any]:
    run_timeout = run_timeout or 120 + 12 * chats
    secret = secrets.token_urlsafe(32)  # one for every process: a token from one is good on the others
    servers = []
    for k in range(processes):
        data_dir = root / f"server-{k}"
        data_dir.mkdir(parents=True)
        servers.append(Server(data_dir, DESK_DATABASE_URL=database_url, DESK_DEMO_DELAY_MS=str(delay_ms),
                              CHAINLIT_AUTH_SECRET=secret))
    started = time.perf_counter()
    try:
        for s in servers:  # one at a time: the first creates the schema, the others find it
            s.start()
        logins = asyncio.Semaphore(LOGINS_AT_ONCE)
        opened = await asyncio.gather(*(open_chat(servers, i, logins, 60 + chats) for i in range(chats)))
        tickers = {c.ticker for c in opened}
        pids = [s.proc.pid for s in servers if s.proc is not None]
        cpu_from = [process_cpu_s(p) for p in pids]
        client_cpu_from, machine_from = time.process_time(), machine_cpu_s()
        pg_from = postgres_cpu_s(postgres.data) if postgres is not None else None
        load = os.getloadavg()[0]
        wall_from = time.perf_counter()
        runs_wall: float | None = None
        # py-spy on the first server from the moment the questions go, for `spy`'s seconds (GIL holder only)
        spying = start_py_spy(pids[0], spy[0], 200, gil=True) if spy else None
        if spying is not None and spy is not None:
            asyncio.get_running_loop().call_later(spy[1], stop_py_spy, spying)
        try:
            await asyncio.gather(*(drive(c, tickers, run_timeout) for c in opened))
            runs_wall = time.perf_counter() - wall_from
            # What a run does after its Stop button goes (Edit buttons, history writes) finishes
            # before the servers are read and stopped.
            await asyncio.gather(*(quiet(p, limit_s=120) for p in pids))
        finally:
            if spying is not None and spying.poll() is None:
                stop_py_spy(spying)
            wall = time.perf_counter() - wall_from  # the runs, then the servers going quiet
            cpu = [round(process_cpu_s(p) - c, 2) for p, c in zip(pids, cpu_from)]
            client_cpu = time.process_time() - client_cpu_from
            machine_cpu = machine_cpu_s() - machine_from
            pg_to = postgres_cpu_s(postgres.data) if postgres is not None else None
            pg_cpu = pg_to - pg_from if pg_to is not None and pg_from is not None else None
            rss = [peak_rss_mb(p) for p in pids]
            await asyncio.gather(*(c.client.close() for c in opened), return_exceptions=True)
    finally:
        for s in servers:
            s.stop()
    firsts = [c.first_word_s for c in opened if c.first_word_s is not None]
    runs = [c.run_s for c in opened if c.run_s is not None]
    completed = [c for c in opened if c.run_s is not None and c.decided and not c.foreign]
    per_server = [sum(1 for c in completed if c.server == k) for k in range(processes)]
    log_text = "".join(s.log_text() for s in servers)
    logs = trouble(log_text)
    return {
        "processes": processes, "chats": chats, "completed": len(completed), "completed_per_server": per_server,
        "decisions": sum(c.decided for c in opened), "with_foreign_words": sum(c.foreign for c in opened),
        "first_token_s": {"p50": percentile(firsts, 0.5), "p95": percentile(firsts, 0.95),
                          "max": round(max(firsts), 2) if firsts else None, "n": len(firsts)},
        "run_s": {"p50": percentile(runs, 0.5), "p95": percentile(runs, 0.95),
                  "max": round(max(runs), 2) if runs else None, "n": len(runs)},
        "wall_s": round(runs_wall or wall, 1), "settle_s": round(wall - runs_wall, 1) if runs_wall else None,
        "server_cpu_s": cpu, "server_cpu_s_per_chat": round(sum(cpu) / chats, 3),
        "load_generator_cpu_s": round(client_cpu, 1), "server_peak_rss_mb": rss, "log": logs,
        "postgres_cpu_s": round(pg_cpu, 1) if pg_cpu is not None else None,
        # What else ran meanwhile on the machine: its busy CPU less the servers, the load generator
        # and Postgres, and the 1-minute load average before.
        "other_cpu_s": round(machine_cpu - sum(cpu) - client_cpu - (pg_cpu or 0), 1), "load_before": round(load, 2),
        "first_traceback": first_traceback(log_text),
        "problems": sorted({p for c in opened for p in c.problems}),
        "seconds": round(time.perf_counter() - started, 1),
    }


def table(results: list[dict[str, Any]]) -> str:
    head = ("| processes | chats | completed | first token s p50 / p95 / max | run s p50 / p95 / max "
            "| server CPU s (per process) | CPU s per chat | Postgres CPU s | load generator CPU s "
            "| other CPU s (load before) "
            "| peak RSS MB | log trouble |")
    cols = head.count("|") - 1
    rows = [head, "|" + "---|" * cols]
    for r in results:
        if "error" in r:
            rows.append(f"| {r['processes']} | {r['chats']} | failed: {r['error']} |" + " |" * (cols - 3))
            continue
        f, w = r["first_token_s"], r["run_s"]
        bad = ", ".join(f"{k} {v}" for k, v in r["log"].items() if v) or "none"
        rows.append(
            f"| {r['processes']} | {r['chats']} | {r['completed']}/{r['chats']}"
            f"{' (' + '+'.join(map(str, r['completed_per_server'])) + ')' if r['processes'] > 1 else ''} "
            f"| {f['p50']} / {f['p95']} / {f['max']} | {w['p50']} / {w['p95']} / {w['max']} "
            f"| {' + '.join(map(str, r['server_cpu_s']))} | {r['server_cpu_s_per_chat']} "
            f"| {r['postgres_cpu_s']} | {r['load_generator_cpu_s']} | {r['other_cpu_s']} ({r['load_before']}) "
            f"| {' / '.join(map(str, r['server_peak_rss_mb']))} | {bad} |")
    return "\n".join(rows)


async def run(url_of: Callable[[], str], chats: list[int], processes: list[int], *, delay_ms: float,
              postgres: PostgresServer | None = None,
              keep: bool, spy: tuple[Path, float] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"machine": machine(), "delay_ms": delay_ms, "results": []}
    root = Path(tempfile.mkdtemp(prefix="desk-scale-"))
    try:
        for n in chats:
            for p in processes:
                try:
                    r = await asyncio.wait_for(measure(url_of(), p, n, root / f"p{p}-n{n}", delay_ms=delay_ms,
                                                       postgres=postgres, spy=spy),
                                               300 + 20 * n)
                except Exception as exc:  # a size that fails is reported; the next one still runs
                    r = {"processes": p, "chats": n, "error": f"{type(exc).__name__}: {exc}"[:300]}
                out["results"].append(r)
                brief = {k: v for k, v in r.items() if k not in ("log", "problems", "first_traceback")}
                print(f"[scale] {json.dumps(brief)}", file=sys.stderr, flush=True)
    finally:
        if keep:
            out["data_dir"] = str(root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__.split("\n\n")[0])
    ap.add_argument("--chats", default="20,50", help="concurrent chats, comma-separated (default %(default)s)")
    ap.add_argument("--processes", default="1,2", help="chat processes, comma-separated (default %(default)s)")
    ap.add_argument("--delay-ms", type=float, default=8, help="DESK_DEMO_DELAY_MS, the demo model's pace per word")
    ap.add_argument("--database-url", default=None,
                    help="a Postgres server to use (a fresh database per run is made on it; needs CREATEDB)")
    ap.add_argument("--keep", action="store_true", help="keep the servers' data folders and logs")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    ap.add_argument("--py-spy", type=Path, default=None,
                    help="record the first server with py-spy (GIL holder) from the moment the questions go")
    ap.add_argument("--spy-seconds", type=float, default=3.0, help="how long --py-spy records (default %(default)s)")
    args = ap.parse_args(argv)
    chats = [int(s) for s in args.chats.split(",") if s.strip()]
    processes = [int(s) for s in args.processes.split(",") if s.strip()]
    with contextlib.ExitStack() as stack:
        pg: PostgresServer | None = None
        if args.database_url:
            base = args.database_url

            def url_of() -> str:
                return fresh_database(base)
        else:
            pg = stack.enter_context(throwaway_postgres())
            url_of = pg.create_database
        result = asyncio.run(run(url_of, chats, processes, delay_ms=args.delay_ms, keep=args.keep, postgres=pg,
                                 spy=(args.py_spy, args.spy_seconds) if args.py_spy else None))
    print(table(result["results"]))
    for r in result["results"]:
        if r.get("first_traceback"):
            print(f"\nfirst traceback, {r['processes']} process(es), {r['chats']} chats:\n{r['first_traceback']}")
    if "data_dir" in result:
        print(f"data and server logs kept in {result['data_dir']}")
    if args.json:
        print(json.dumps(result, default=str))
    return 1 if any("error" in r for r in result["results"]) else 0


def fresh_database(url: str) -> str:
    """A new empty database on the server of `url` (made through that URL's connection)."""
    import uuid

    import psycopg

    name = f"desk_scale_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')  # a name made here, never a caller's text
    scheme, _, rest = url.partition("://")
    server = rest.split("/", 1)[0]
    return f"{scheme}://{server}/{name}"


if __name__ == "__main__":
    raise SystemExit(main())
