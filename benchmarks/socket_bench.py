"""Figures over the real chat socket: first token, follow-ups, interjection pickup, many chats.

The server is the real `chainlit run chat/app.py`, in demo mode with the demo model paced as
the latency model (DESK_DEMO_FIRST_TOKEN_MS, DESK_DEMO_DELAY_MS); its tools have no added
latency, so the synthetic vendor's own work counts as the desk's overhead.
"""
from __future__ import annotations

import asyncio
import random
import re
import statistics
import time
from pathlib import Path

from graph import PERSONAS

from .headless import Bench, summary
from .latency import Latency
from .support.chat_server import Server
from .support.host import peak_rss_mb
from .support.load import TICKERS
from .support.socket_client import DeskClient, runs_finished

DEBATERS_WITH_A_SUCCESSOR = ("Bull Researcher", "Bear Researcher", "Research Manager", "Trader",
                             "Risky Analyst", "Safe Analyst")


def first_token_after(client: DeskClient, index: int, authors) -> float | None:
    """Arrival time of the first streamed token, after event `index`, of a message by one of `authors`."""
    for (name, data), t in zip(client.events[index:], client.times[index:]):
        if name == "stream_token" and client.messages.get(data["id"], {}).get("name") in authors:
            return t
        if name == "stream_start" and data.get("output") and data.get("name") in authors:
            return t  # Chainlit sends a message's first token inside its stream_start
    return None


# A persona's message appears streaming (stream_start), or whole (new_message) when its turn ended
# before its first words went out (chat/views/render.py): a short turn, or any turn on a busy machine.
APPEARS = ("stream_start", "new_message")


def bull_starts(name: str, data: object) -> bool:
    """The Bull Researcher's first message appearing, either way."""
    return name in APPEARS and isinstance(data, dict) and data.get("name") == "Bull Researcher"


def current_speaker(client: DeskClient) -> str | None:
    for name, data in reversed(client.events):
        if name in APPEARS and isinstance(data, dict) and data.get("name") in PERSONAS:
            return data["name"]
    return None


async def connected(server: Server, thread: str = "") -> DeskClient:
    client = DeskClient(server.base)
    await client.connect(thread_id=thread)
    await client.wait_for(lambda: client.by_author("Desk"), 30, "the mode notice")
    return client


async def first_token_ms(server: Server, lat: Latency, reps: int) -> dict:
    out = []
    for i in range(reps):
        client = await connected(server)
        try:
            mark, sent = len(client.events), time.perf_counter()
            await client.send(f"should I buy {TICKERS[i % len(TICKERS)]} today?")
            t = await client.wait_for(lambda: first_token_after(client, mark, PERSONAS), 60, "a persona token")
            out.append((t - sent) * 1000 - lat.first_token_ms)
            await client.send("/stop")
            await client.wait_for(lambda: runs_finished(client) >= 1, 30, "the stop")
        finally:
            await client.close()
    return {"first_token_ms": summary(out), "goal": "<= 150 ms"}


async def followup_ms(server: Server, lat: Latency, reps: int) -> dict:
    client = await connected(server)
    out = []
    try:
        await client.send("should I buy NVDA today?")
        await client.wait_for(lambda: runs_finished(client) >= 1, 300, "the decision")
        for i, question in enumerate(["what was the RSI?", "why was the bear worried?", "what was the stop?"] * reps):
            if i >= reps:
                break
            mark, sent = len(client.events), time.perf_counter()
            await client.send(question)
            t = await client.wait_for(lambda: first_token_after(client, mark, ("Desk",)), 60, "the Desk's answer")
            out.append((t - sent) * 1000 - lat.first_token_ms)
            await client.wait_for(lambda: runs_finished(client) >= 2 + i, 60, "the follow-up to end")
    finally:
        await client.close()
    return {"followup_ms": summary(out), "goal": "<= 150 ms"}


async def intervention_pickup(server: Server, runs: int, per_run: int, seed: int = 7) -> dict:
    rng = random.Random(seed)
    sent, answered = 0, 0
    for r in range(runs):
        client = await connected(server)
        try:
            mark = len(client.events)
            await client.send(f"should I buy {TICKERS[(r + 3) % len(TICKERS)]} today?")
            # The Bull's turn as it appears, from every event the client records: on a busy
            # machine the whole debate can arrive between two looks at who speaks now.
            await client.next_event(bull_starts, mark, 120, "the debate (the Bull Researcher's turn)")
            notes = []
            for i in range(per_run):
                await asyncio.sleep(rng.uniform(0.05, 0.6))
                # Only while someone is left to answer: a note sent in the judge's turn has no next speaker.
                if current_speaker(client) not in DEBATERS_WITH_A_SUCCESSOR:
                    break
                note = f"note {r}-{i}: what about the RSI and the {rng.choice(['Fed', 'margins', 'news'])}?"
                await client.send(note)
                notes.append(note)
            await client.wait_for(lambda: runs_finished(client) >= 1, 300, "the decision")
            spoken = " ".join(m.get("output", "") for m in client.messages.values() if m.get("name") in PERSONAS)
            sent += len(notes)
            answered += sum(1 for n in notes if f"“{n}”" in spoken)
        finally:
            await client.close()
    return {"intervention_pickup": round(answered / sent, 4) if sent else None, "sent": sent,
            "answered": answered, "goal": "1.0"}


async def concurrent_chats(server: Server, lat: Latency, n: int) -> dict:
    tickers = [TICKERS[i % len(TICKERS)] for i in range(n)]
    # The ideal per ticker comes from the same policy run headless: the words are deterministic.
    bench = Bench(lat)
    ideals = {}
    try:
        for t in dict.fromkeys(tickers):
            run = await bench.run(checkpointer="memory", text=f"should I buy {t} today?", today=None)
            ideals[t] = run["ideal_ms"]
    finally:
        await bench.close()
    clients = [await connected(server) for _ in range(n)]
    try:
        starts = []
        for client, t in zip(clients, tickers):
            starts.append(time.perf_counter())
            await client.send(f"should I buy {t} today?")

        async def finish(client):
            try:
                await client.wait_for(lambda: runs_finished(client) >= 1, 900, "the decision")
                return client.times[next(i for i, (name, _) in enumerate(client.events) if name == "remove_action")]
            except AssertionError:
                return None

        ends = await asyncio.gather(*(finish(c) for c in clients))
        completed = [e is not None for e in ends]
        ratios = [((e - s) * 1000) / ideals[t] for e, s, t in zip(ends, starts, tickers) if e is not None]
        crossed = 0
        for client, t in zip(clients, tickers):
            others = {o for o in tickers if o != t}
            text = " ".join(m.get("output", "") for m in client.messages.values())
            if any(re.search(rf"\b{re.escape(o)}\b", text) for o in others):
                crossed += 1
        decided = sum(1 for c in clients if any("**Signal**" in m.get("output", "") for m in c.messages.values()))
    finally:
        for c in clients:
            await c.close()
    p95 = statistics.quantiles(ratios, n=20)[-1] if len(ratios) >= 2 else (ratios[0] if ratios else None)
    return {"chats": n, "completed": sum(completed), "decisions": decided, "chats_with_foreign_messages": crossed,
            "p95_critical_path_ratio": round(p95, 3) if p95 else None,
            "median_critical_path_ratio": round(statistics.median(ratios), 3) if ratios else None,
            "server_peak_rss_mb": peak_rss_mb(server.proc.pid) if server.proc else None}


async def socket_figures(lat: Latency, *, reps: int, pickup_runs: int, per_run: int, chats: int,
                         data_dir: Path) -> dict:
    server = Server(data_dir, DESK_DEMO_DELAY_MS=str(lat.per_token_ms),
                    DESK_DEMO_FIRST_TOKEN_MS=str(lat.first_token_ms))
    server.start()
    try:
        out: dict[str, object] = {}
        out |= await first_token_ms(server, lat, reps)
        out |= await followup_ms(server, lat, reps)
        out |= await intervention_pickup(server, pickup_runs, per_run)
        out["concurrent_chats"] = await concurrent_chats(server, lat, chats)
        return out
    finally:
        server.stop()
