"""History durability under load: N chats at once on the real chat server, a restart, and every
stored message compared with what was streamed (counted, not sampled).

`python -m benchmarks.durability [--chats 2,5,10,20,50] [--json] [--delay-ms 8] [--keep] [--env NAME=VALUE]`

For each size: a fresh server (demo mode, its own data folder), N users log in and each sends
"should I buy <TICKER> today?" at the same moment; when every run has ended, the chat history
database is read directly (what had landed when the last run ended), the server is stopped
and started again on the same folder, and every thread is reopened over the socket (the
`resume_thread` event carries the stored steps). Counted against what each client saw:

- threads their owner can reopen (a thread whose owner write was lost is refused to everyone);
- persona messages whose stored text is blank, differs from the final streamed text, or is missing;
- decision cards (a Desk message with "**Signal**") that are missing or altered;
- other steps the client saw (Desk messages, tool steps, run steps) missing from the store,
  tool steps stored without their output, and user messages (the question) missing;
- the time from sending the question to the thread id arriving (`first_interaction`);
- server log lines: "database is locked", SQLAlchemy's "QueuePool limit", tracebacks and the
  warnings Chainlit's data layer logs when it drops a write.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from .losses import Chat, compare, ownerless, read_db
from .support.chat_server import Server
from .support.host import machine
from .support.load import LOGINS_AT_ONCE, TICKERS, LoadClient, percentile
from .support.socket_client import runs_finished

SIZES = (2, 5, 10, 20, 50)

# name -> pattern, counted per server log line
LOG_PATTERNS: dict[str, re.Pattern[str]] = {
    "database_locked": re.compile(r"database is locked"),
    "queuepool": re.compile(r"QueuePool limit"),
    "traceback": re.compile(r"Traceback"),
    # SQLAlchemyDataLayer.execute_sql swallows every error into one of these two warnings (the
    # write is lost); the others are Chainlit's own persistence errors.
    "data_layer_warnings": re.compile(r"An (unexpected )?error occurred|Error while flushing|Failed to persist"
                                      r"|Error updating thread"),
}


def log_counts(text: str) -> dict[str, int]:
    lines = text.splitlines()
    return {name: sum(1 for line in lines if pat.search(line)) for name, pat in LOG_PATTERNS.items()}


async def open_chat(server: Server, user: str, ticker: str, timeout: float, logins: asyncio.Semaphore) -> Chat:
    client = LoadClient(server.base, user, logins)
    await client.connect()
    await client.wait_for(lambda: client.by_author("Desk"), timeout, "the mode notice")
    return Chat(user, ticker, client)


async def run_chats(server: Server, n: int, run_timeout: float) -> list[Chat]:
    """N chats opened at once, one question each, sent at the same moment; waits for every run."""
    logins = asyncio.Semaphore(LOGINS_AT_ONCE)
    chats = await asyncio.gather(*(open_chat(server, f"load{i:03d}", TICKERS[i % len(TICKERS)], 60 + n, logins)
                                   for i in range(n)))

    async def ask(chat: Chat) -> None:
        chat.sent_at = time.perf_counter()
        await chat.client.send(chat.question)

    async def finish(chat: Chat) -> None:
        client = chat.client
        with contextlib.suppress(AssertionError):
            await client.wait_for(lambda: runs_finished(client) >= 1, run_timeout, "the run to end")
            chat.finished = True
        at = next((t for (name, _), t in zip(client.events, client.times) if name == "first_interaction"), None)
        chat.thread_id_arrived = at is not None
        # Never arrived before the run ended: the latency is at least the whole run.
        chat.thread_latency_s = (at if at is not None else time.perf_counter()) - chat.sent_at
        # The thread id also rides on every message the client was sent: without a
        # first_interaction the thread still exists and is compared.
        chat.thread_id = client.thread_id or next(
            (m["threadId"] for m in client.messages.values() if m.get("threadId")), None)

    try:
        await asyncio.gather(*(ask(c) for c in chats))
        await asyncio.gather(*(finish(c) for c in chats))
    finally:
        await asyncio.gather(*(c.client.close() for c in chats), return_exceptions=True)
    return chats


async def reopen(server: Server, chat: Chat, timeout: float, logins: asyncio.Semaphore) -> None:
    """The thread as its owner sees it after the restart: the steps in `resume_thread`."""
    if not chat.thread_id:
        return
    client = LoadClient(server.base, chat.user, logins)
    try:
        await client.connect(thread_id=chat.thread_id)
        [thread] = await client.wait_for(
            lambda: [d for name, d in client.events if name in ("resume_thread", "resume_thread_error")][:1],
            timeout, "the thread")
        if isinstance(thread, dict) and "steps" in thread:
            chat.stored = {s["id"]: s for s in thread["steps"]}
        else:
            chat.reopen_error = f"resume_thread_error: {thread}"
    except Exception as exc:  # refused (e.g. the thread lost its owner) or timed out
        chat.reopen_error = f"{type(exc).__name__}: {exc}"[:200]
    finally:
        with contextlib.suppress(Exception):
            await client.close()


async def measure(n: int, data_dir: Path, *, delay_ms: int = 8, run_timeout: float | None = None,
                  settle_s: float = 0.0, max_examples: int | None = 20,
                  server_env: dict[str, str] | None = None) -> dict[str, Any]:
    """One size: N concurrent chats, a restart, every thread reopened and compared.
    `server_env` is added to the server's environment (e.g. to try a setting)."""
    run_timeout = run_timeout or 120 + 12 * n
    server = Server(data_dir, **{"DESK_DEMO_DELAY_MS": str(delay_ms)} | (server_env or {}))
    started = time.perf_counter()
    try:
        server.start()
        load_log = data_dir / f"server-{server.port}.log"
        chats = await run_chats(server, n, run_timeout)
        run_s = time.perf_counter() - started
        thread_ids = [c.thread_id for c in chats if c.thread_id]
        at_finish = read_db(data_dir / "chat.sqlite", thread_ids)  # what had landed when the last run ended
        if settle_s:
            await asyncio.sleep(settle_s)
        server.stop()
        after_stop = read_db(data_dir / "chat.sqlite", thread_ids)
        no_owner = ownerless(data_dir / "chat.sqlite", thread_ids)
        server.start()
        sem, logins = asyncio.Semaphore(10), asyncio.Semaphore(LOGINS_AT_ONCE)

        async def one(chat: Chat) -> None:
            async with sem:
                await reopen(server, chat, 60, logins)

        await asyncio.gather(*(one(c) for c in chats))
    finally:
        server.stop()
    total: Counter = Counter()
    finish_total: Counter = Counter()
    stop_total: Counter = Counter()
    examples: list[dict] = []
    for c in chats:
        total += compare(c, c.stored, examples)
        if c.thread_id:
            finish_total += compare(c, at_finish.get(c.thread_id))
            stop_total += compare(c, after_stop.get(c.thread_id))
    latencies = [c.thread_latency_s for c in chats if c.thread_latency_s is not None]
    never = sum(not c.thread_id_arrived for c in chats)
    load_text = load_log.read_text() if load_log.exists() else ""
    all_logs = server.log_text()
    return {
        "chats": n,
        "completed": sum(c.finished for c in chats),
        "threads": len(thread_ids),
        "reopened": sum(c.stored is not None for c in chats),
        "threads_without_owner": no_owner,
        "reopen_errors": sorted({c.reopen_error for c in chats if c.reopen_error})[:5],
        "persona_streamed": total["persona_streamed"],
        "persona_blank": total["persona_blank"],
        "persona_mismatch": total["persona_mismatch"],
        "persona_missing": total["persona_missing"],
        "cards_streamed": total["cards_streamed"],
        "cards_missing": total["cards_missing"],
        "other_steps_streamed": total["other_steps_streamed"],
        "other_steps_missing": total["other_steps_missing"],
        "tool_output_blank": total["tool_output_blank"],
        "user_message_missing": total["user_message_missing"],
        "lost_by_persona": {k.split(":", 1)[1]: v for k, v in sorted(total.items()) if k.startswith("lost:")},
        "missing_by_type": {k.split(":", 1)[1]: v for k, v in sorted(total.items()) if k.startswith("missing:")},
        # The same comparison against the database file itself, read when the last run ended and
        # again after the stop: a difference between the two is writes still in flight at the end.
        "db_at_finish": {k: finish_total[k] for k in ("persona_blank", "persona_mismatch", "persona_missing",
                                                        "cards_missing", "other_steps_missing")},
        "db_after_stop": {k: stop_total[k] for k in ("persona_blank", "persona_mismatch", "persona_missing",
                                                       "cards_missing", "other_steps_missing")},
        "thread_id_s": {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95),
                        "max": round(max(latencies), 2) if latencies else None, "n": len(latencies),
                        # no first_interaction before the run ended: counted at the run's end (a lower bound)
                        "never_arrived": never},
        "log_under_load": log_counts(load_text),
        "losses": examples[:max_examples] if max_examples is not None else examples,
        "log_total": log_counts(all_logs),
        "run_s": round(run_s, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def table(results: list[dict]) -> str:
    head = ("| chats | completed | reopened | persona msgs streamed | blank | differs | missing | cards missing "
            "| other steps missing | thread id s p50 / p95 / max | db locked | QueuePool | data-layer warnings "
            "| tracebacks | run s |")
    cols = head.count("|") - 1
    rows = [head, "|" + "---|" * cols]
    for r in results:
        if "error" in r:
            rows.append(f"| {r['chats']} | failed: {r['error']} |" + " |" * (cols - 2))
            continue
        lat, log = r["thread_id_s"], r["log_total"]
        rows.append(
            f"| {r['chats']} | {r['completed']}/{r['chats']} | {r['reopened']}/{r['chats']}"
            f"{' (' + str(r['threads_without_owner']) + ' ownerless)' if r['threads_without_owner'] else ''} "
            f"| {r['persona_streamed']} | {r['persona_blank']} "
            f"| {r['persona_mismatch']} | {r['persona_missing']} | {r['cards_missing']}/{r['cards_streamed']} "
            f"| {r['other_steps_missing']}/{r['other_steps_streamed']} "
            f"| {lat['p50']} / {lat['p95']} / {'≥' if lat['never_arrived'] else ''}{lat['max']}"
            f"{' (' + str(lat['never_arrived']) + ' never)' if lat['never_arrived'] else ''} "
            f"| {log['database_locked']} | {log['queuepool']} "
            f"| {log['data_layer_warnings']} | {log['traceback']} | {r['run_s']} |")
    return "\n".join(rows)


async def run(sizes: list[int], *, delay_ms: int, keep: bool, settle_s: float,
              size_timeout: float | None, server_env: dict[str, str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"machine": machine(), "delay_ms": delay_ms, "settle_s": settle_s,
                           "server_env": server_env or {}, "sizes": []}
    root = Path(tempfile.mkdtemp(prefix="desk-durability-"))
    try:
        for n in sizes:
            data_dir = root / f"chats-{n}"
            data_dir.mkdir()
            try:
                r = await asyncio.wait_for(measure(n, data_dir, delay_ms=delay_ms, settle_s=settle_s,
                                                   server_env=server_env),
                                           size_timeout or 300 + 20 * n)
            except Exception as exc:  # a size that fails or times out is reported, the next one still runs
                r = {"chats": n, "error": f"{type(exc).__name__}: {exc}"[:300]}
            out["sizes"].append(r)
            brief = {k: v for k, v in r.items() if not isinstance(v, dict | list)}
            print(f"[durability] {n} chats: {json.dumps(brief)}", file=sys.stderr, flush=True)
    finally:
        if keep:
            out["data_dir"] = str(root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.durability", description=__doc__.split("\n\n")[0])
    ap.add_argument("--chats", default=",".join(map(str, SIZES)), help="sizes, comma-separated (default %(default)s)")
    ap.add_argument("--delay-ms", type=int, default=8, help="DESK_DEMO_DELAY_MS, the demo model's pace per word")
    ap.add_argument("--settle", type=float, default=0.0, help="seconds to wait after the last run before the restart")
    ap.add_argument("--size-timeout", type=float, default=None, help="bound per size (default 300 + 20 s per chat)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="add to the server's environment (repeatable), e.g. to try a setting")
    ap.add_argument("--keep", action="store_true", help="keep the servers' data folders and logs")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.chats.split(",") if s.strip()]
    server_env = dict(e.split("=", 1) for e in args.env)
    result = asyncio.run(run(sizes, delay_ms=args.delay_ms, keep=args.keep, settle_s=args.settle,
                             size_timeout=args.size_timeout, server_env=server_env))
    print(table(result["sizes"]))
    if "data_dir" in result:
        print(f"data and server logs kept in {result['data_dir']}")
    if args.json:
        print(json.dumps(result, default=str))
    failed = any("error" in r for r in result["sizes"])
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
