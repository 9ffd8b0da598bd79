"""One user's flood against another user's run (issue 20, point 1).

A demo server (the benchmarks' pace); user A starts an analysis and, once it runs, sends N messages
on its socket as fast as the socket takes them; user B asks for an analysis of their own as the
flood begins. Measured: B's time to its first streamed word, the server's resident memory before
and after (VmRSS, and its peak VmHWM), how many of A's messages were delivered and what A was told,
and whether both runs reached a decision.

    .venv/bin/python -m benchmarks.flood --messages 2000

Goals (the issue's): B's first word within 10 s, the server's memory grows by at most 300 MB, the
flooding user is told what happened.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from chat.web.rates import PER_S

from .support.chat_server import Server
from .support.host import machine, peak_rss_mb
from .support.socket_client import DeskClient


def rss_mb(pid: int) -> float | None:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def first_word_at(client: DeskClient) -> float | None:
    """When the first persona word (an analyst's) reached the client."""
    for (name, data), at in zip(client.events, client.times):
        if name in ("stream_start", "stream_token") and isinstance(data, dict):
            return at
    return None


def refused_count(client: DeskClient) -> int:
    """How many messages the Desk told the client were not delivered."""
    found = (re.search(r"(\d+) messages? sent too fast", m.get("output") or "") for m in client.by_author("Desk"))
    return sum(int(f[1]) for f in found if f)


async def flood(server: Server, messages: int) -> dict:
    pid = server.proc.pid if server.proc else 0
    a, b = DeskClient(server.base, "flooder", "desk"), DeskClient(server.base, "bystander", "desk")
    await a.connect()
    await b.connect()
    rss_before = rss_mb(pid)
    await a.send("should I buy NVDA today?")
    await a.wait_for(lambda: a.by_author("Market Analyst"), 60, "A's run")
    started = time.perf_counter()
    sending = asyncio.ensure_future(_send_all(a, messages))
    b_sent = time.perf_counter()
    await b.send("should I buy AAPL today?")
    await b.wait_for(lambda: first_word_at(b), 120, "B's first word")
    first = first_word_at(b)
    sent_s = await sending
    await b.wait_for(lambda: b.by_author("Risk Judge"), 300, "B's decision")
    await a.wait_for(lambda: a.by_author("Risk Judge"), 300, "A's decision")
    toasts = [d.get("message", "") for name, d in a.events if name == "toast" and isinstance(d, dict)]
    # The flooder's next message, sent at a person's pace, is told how many were not delivered.
    await asyncio.sleep(1 / PER_S + 0.5)
    await a.send("what was the decision?")
    noted = {m["id"] for m in a.by_author("Desk") if "Noted" in (m.get("output") or "")}
    # Counted and told with the next message that goes through (one of the flood's when the bucket
    # refills mid-flood, else the one above).
    await a.wait_for(lambda: refused_count(a) + len(noted) >= messages, 120, "every message counted")
    out = {
        "messages_sent": messages, "send_s": round(sent_s, 2),
        "b_first_word_s": round((first or 0) - b_sent, 2),
        "rss_before_mb": rss_before, "rss_after_mb": rss_mb(pid), "rss_peak_mb": peak_rss_mb(pid),
        "notes_taken": len(noted), "refused_told": refused_count(a), "toasts": len(toasts), "toast": toasts[:1],
        "a_decided": bool(a.by_author("Risk Judge")), "b_decided": bool(b.by_author("Risk Judge")),
        "flood_s": round(time.perf_counter() - started, 1),
    }
    await a.close()
    await b.close()
    return out


async def _send_all(client: DeskClient, n: int) -> float:
    start = time.perf_counter()
    for i in range(n):
        await client.send(f"flood {i} {uuid.uuid4().hex[:6]}")
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--out", type=Path, help="also write the result as JSON here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="desk-flood-") as tmp:
        server = Server(Path(tmp))
        server.start()
        try:
            result = asyncio.run(flood(server, args.messages))
        finally:
            server.stop()
    result |= {"machine": machine(), "date": datetime.now(UTC).isoformat(timespec="seconds")}
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
