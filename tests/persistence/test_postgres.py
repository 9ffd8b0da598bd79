"""The desk on PostgreSQL (DESK_DATABASE_URL), against a real server: a demo analysis keeps its
checkpoints and notes there (no SQLite file is made), another process resumes a run cut off in the
first and answers a follow-up on the thread, and a note posted by another runtime reaches the run
through the shared store (addressed from the run even before its first checkpoint has landed)."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from typing import Any

import psycopg
import pytest

from graph.core.events import Event, NotePickedUp
from graph.core.personas import DEFAULT_ANALYSTS as ANALYSTS  # the default analysis' (no Macro Analyst)
from graph.core.personas import PERSONAS
from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.runtime.notes import post_note
from tests.support.clock import python_path
from tests.support.desk import TODAY, spoken
from tests.support.env import demo_env
from tests.support.models import HeldTurn, ScriptedChatModel, scripted_models

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]
SQLITE_FILES = ("checkpoints.sqlite", "store.sqlite", "leases.sqlite", "chat.sqlite")


@pytest.fixture
def pg_settings(tmp_path: Path, fresh_postgres_url: str, no_model_env: None) -> Settings:
    return Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0, DESK_DATABASE_URL=fresh_postgres_url)


def rows(url: str, query: str, *args: Any) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(query, args).fetchall()


async def collect(events: AsyncIterator[Event]) -> list[Event]:
    return [ev async for ev in events]


async def ask(runtime: DeskRuntime, thread: str, text: str | None) -> list[Event]:
    graph_input = None if text is None else await runtime.new_input(thread, text)
    return await collect(runtime.events(graph_input, thread, runtime.context(today=TODAY)))


def sqlite_files(data_dir: Path) -> list[str]:
    return sorted(p.name for p in data_dir.glob("*.sqlite")) if data_dir.exists() else []


async def test_a_demo_analysis_keeps_its_checkpoints_and_notes_in_postgres(pg_settings: Settings):
    url = pg_settings.database_url
    assert url
    thread = str(uuid.uuid4())
    note = "Bear, what about the China export ban?"
    async with DeskRuntime.open(pg_settings) as runtime:
        assert not runtime.models.live, "the demo model, as a first run without a key has"
        events: list[Event] = []
        async for ev in runtime.events(await runtime.new_input(thread, "should I buy NVDA today?"), thread,
                                       runtime.context(today=TODAY)):
            events.append(ev)
            if len(events) == 1:  # while the analysts work, as the chat posts an interjection
                await runtime.inbox.post(thread, note)
        state = await runtime.state(thread)

    said = spoken(events)
    analysts = {a.persona for a in ANALYSTS}
    assert said[0] == "Desk" and set(said[1:5]) == analysts, "the analysts work in parallel"
    assert said[5:] == [p for p in PERSONAS if p not in analysts]
    decision = state["final_decision"]
    assert decision is not None and decision.signal in ("BUY", "SELL", "HOLD")
    picked = [ev for ev in events if isinstance(ev, NotePickedUp)]
    assert picked and {ev.text for ev in picked} == {note}, "the note reached the run"
    assert [i.text for i in state["interventions"]] == [note]
    # Where it all is: Postgres, and no SQLite file in the data folder.
    assert rows(url, "SELECT count(*) FROM checkpoints WHERE thread_id = %s", thread)[0][0] > 10
    stored = rows(url, "SELECT key, value FROM store WHERE prefix = %s", f"inbox.{thread}")
    assert [v["text"] for _, v in stored] == [note]
    assert rows(url, "SELECT count(*) FROM desk_run_leases")[0][0] == 0, "the leases' table, made on start"
    assert sqlite_files(pg_settings.data_dir) == []


SECOND_PROCESS = textwrap.dedent("""
    # Another app process: its own runtime on the same database (the demo model), one request.
    import asyncio, json, sys
    from datetime import date
    from graph import DeskRuntime, NodeDone, NotePickedUp, Settings

    async def main(thread, text):
        async with DeskRuntime.open(Settings()) as runtime:
            stopped = await runtime.interrupted(thread)
            graph_input = None if text == "--resume" else await runtime.new_input(thread, text)
            spoken, notes = [], []
            async for ev in runtime.events(graph_input, thread, runtime.context(today=date(2024, 5, 6))):
                if isinstance(ev, NodeDone) and ev.spoken is not None and ev.spoken.name:
                    spoken.append(ev.spoken.name)
                elif isinstance(ev, NotePickedUp):
                    notes.append([ev.persona, ev.text])
            state = await runtime.state(thread)
        decision = state.get("final_decision")
        print(json.dumps({"interrupted": list(stopped.personas) if stopped else None, "spoken": spoken,
                          "notes": notes, "signal": decision.signal if decision else None,
                          "answer": str(state["messages"][-1].content)}))

    asyncio.run(main(sys.argv[1], sys.argv[2]))
""")


def second_process(settings: Settings, thread: str, text: str) -> dict[str, Any]:
    env = demo_env(**{"DESK_MODE": "demo", "DESK_DATA_DIR": str(settings.data_dir.parent / "other"),
                      "DESK_DATABASE_URL": str(settings.database_url), "DESK_DEMO_DELAY_MS": "0",
                      "PYTHONPATH": python_path(ROOT)})
    done = subprocess.run([sys.executable, "-c", SECOND_PROCESS, thread, text], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


async def test_another_process_resumes_a_cut_off_run_and_answers_a_follow_up(pg_settings: Settings):
    thread = str(uuid.uuid4())
    reached = asyncio.Event()

    async def cut(persona: str | None, messages: Any, tools: Any) -> None:
        if persona == "Bull Researcher":
            reached.set()
            await asyncio.sleep(3600)  # the first process goes away here

    async with DeskRuntime.open(pg_settings, models=scripted_models(ScriptedChatModel(script=cut))) as first:
        run = asyncio.ensure_future(ask(first, thread, "should I buy NVDA today?"))
        await asyncio.wait_for(reached.wait(), 60)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        await first.inbox.post(thread, "Bull, is the rally not priced in?")

    resumed = second_process(pg_settings, thread, "--resume")
    assert resumed["interrupted"] == ["Bull Researcher"]
    order = list(PERSONAS)
    assert resumed["spoken"] == order[order.index("Bull Researcher"):], "finished speakers are not asked again"
    assert not set(resumed["spoken"]) & {a.persona for a in ANALYSTS}
    assert resumed["notes"][0] == ["Bull Researcher", "Bull, is the rally not priced in?"], "read from the store"
    assert resumed["signal"] in ("BUY", "SELL", "HOLD")

    follow_up = second_process(pg_settings, thread, "what was the RSI?")
    assert follow_up["interrupted"] is None
    assert follow_up["spoken"] == ["Desk"], "answered from the record, no new analysis"
    assert "RSI" in follow_up["answer"] and follow_up["signal"] == resumed["signal"]

    # And back in a runtime of this process: the same thread, finished.
    async with DeskRuntime.open(pg_settings) as again:
        assert await again.has_thread(thread) and await again.interrupted(thread) is None
        state = await again.state(thread)
        assert state["final_decision"].signal == resumed["signal"]
        assert [i.answered_by[0] for i in state["interventions"]] == ["Bull Researcher"]
    assert sqlite_files(pg_settings.data_dir) == [] and sqlite_files(pg_settings.data_dir.parent / "other") == []


async def test_a_note_posted_by_another_runtime_reaches_the_run(pg_settings: Settings):
    thread = str(uuid.uuid4())
    held = HeldTurn("Market Analyst")
    async with DeskRuntime.open(pg_settings, models=held.models) as running, DeskRuntime.open(pg_settings) as other:
        run = asyncio.ensure_future(ask(running, thread, "should I buy NVDA today?"))
        await held.reached()
        note = await other.inbox.post(thread, "Bear, what about the China export ban?")  # the other process's socket
        held.release()
        events = await asyncio.wait_for(run, 120)
        state = await running.state(thread)
    assert {(ev.seq, ev.text) for ev in events if isinstance(ev, NotePickedUp)} == {(note.seq, note.text)}
    [intervention] = state["interventions"]
    assert intervention.text == note.text and intervention.answered_by, "answered in the run"


async def test_a_note_from_another_runtime_in_a_runs_first_moments_is_addressed_from_that_run(
        pg_settings: Settings, monkeypatch: pytest.MonkeyPatch):
    """Before any of the run's checkpoints has landed (its writes held here), another process posting "Bear, …"
    reads from the shared store and lease that the run has begun: the Bear is told to answer, and does."""
    thread, text = str(uuid.uuid4()), "Bear, what about the China export ban?"
    held = HeldTurn("Market Analyst")
    async with DeskRuntime.open(pg_settings, models=held.models) as running, DeskRuntime.open(pg_settings) as other:
        landed, put = asyncio.Event(), running.checkpointer.aput

        async def late(*args: Any, **kwargs: Any) -> Any:
            await landed.wait()
            return await put(*args, **kwargs)

        monkeypatch.setattr(running.checkpointer, "aput", late)

        async def go() -> list[Event]:
            async with running.turn(thread, "should I buy NVDA today?", running.plan()) as turn:
                return await collect(turn.events(running.context(today=TODAY)))

        run = asyncio.ensure_future(go())
        try:
            await held.reached()
            sent = await post_note(other, thread, text)
        finally:
            landed.set()
            held.release()
        events = await asyncio.wait_for(run, 120)
    assert sent.note.to == "Bear Researcher"
    assert [(ev.persona, ev.text) for ev in events if isinstance(ev, NotePickedUp)] == [("Bear Researcher", text)]


async def test_a_wrong_database_url_fails_the_start_with_the_reason(tmp_path: Path, no_model_env: None):
    bad = Settings(DESK_DATA_DIR=tmp_path, DESK_DATABASE_URL="mysql://desk@127.0.0.1/desk")
    with pytest.raises(ValueError, match="postgresql://"):
        async with DeskRuntime.open(bad):
            pass
    assert not os.path.exists(tmp_path / "checkpoints.sqlite"), "no silent fallback to SQLite"


async def test_the_track_record_lives_in_postgres_for_its_user(pg_settings: Settings):
    """A decision logged for a user whose name has periods (an email), read back and scored by
    another runtime on the same database; another user sees none of it."""
    url = pg_settings.database_url
    assert url
    thread = str(uuid.uuid4())
    user = "ann.lee@example.com"
    async with DeskRuntime.open(pg_settings) as runtime:
        graph_input = await runtime.new_input(thread, "should I buy NVDA on 2024-03-01?")
        context = runtime.context(today=date(2024, 7, 1), user=user, source="chat")
        await collect(runtime.events(graph_input, thread, context))
    async with DeskRuntime.open(pg_settings) as other:
        [call] = await other.track.calls(user, date(2024, 7, 1))
        assert await other.track.calls("bob", date(2024, 7, 1)) == []
    assert (call.thread_id, call.ticker, call.trade_date) == (thread, "NVDA", "2024-03-01")
    assert call.outcome is not None and call.outcome.reflection, "scored and reflected on when asked for"
    [(prefix, value)] = rows(url, "SELECT prefix, value FROM store WHERE prefix LIKE %s", "track.%")
    assert prefix == "track.ann%2Elee@example%2Ecom" and value["outcome"]["verdict"] in ("right", "wrong")
