"""One run per thread across processes (graph/persistence/lease.py) as the chat and the CLI use it: a second
process's window is refused while the first runs (its message passed on to the running desk, a
resume declined), and the lease is free once the run ends."""
from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import uuid
from functools import partial
from pathlib import Path

import pytest

from chat import runs
from chat.runs import DeskService
from graph.core.settings import Settings
from graph.persistence.lease import live_holder
from graph.runtime.desk import DeskRuntime
from tests.support.cli import run_cli
from tests.support.emitter import RecordedEmitter
from tests.support.env import demo_env
from tests.support.models import HeldTurn

ROOT = Path(__file__).resolve().parents[2]
NOTE = "Bear, what about the China export ban?"


async def test_a_window_on_another_process_is_refused_while_the_thread_runs(
        tmp_path: Path, emitter: RecordedEmitter, no_model_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # The second window tries for the lease a while before it refuses (a run that just ended elsewhere lets go
    # of it a moment after its last word); the first run here is held until released, so no wait would see it
    # free: a short one, not chat.runs' 5 s twice.
    monkeypatch.setattr(runs, "LEASE_WAIT_S", 0.5)
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    held = HeldTurn("Bull Researcher")
    first = DeskService(settings, models=held.models)
    second = DeskService(settings)  # another chat process on the same data folder
    thread = emitter.session.thread_id
    try:
        # A lease's owner is its process; these two services share one, so the second gets its own.
        leases = (await second.runtime()).leases
        leases.hold = partial(type(leases).hold, leases, owner="another-process")  # type: ignore[method-assign]
        task = (await first.chat(thread)).start("Should I buy NVDA today?")
        await held.reached()
        other = await second.chat(thread)
        assert await other.interrupted() is None, "no Resume offered for a run going on elsewhere"

        await other.start(NOTE)  # returns at once: refused
        said = emitter.by_author("Desk")[-1]["output"]
        assert "running in another window" in said and "**Bear Researcher** will answer this" in said, said
        assert not other.active and thread not in second.chats
        await other.start(None)  # a resume from the second window
        assert "already going on in another window" in emitter.by_author("Desk")[-1]["output"]

        held.release()
        await asyncio.wait_for(task, 120)
        desk = await second.runtime()
        assert await desk.leases.holder(thread) is None, "free after the run"
        state = await desk.state(thread)
        assert state["final_decision"] is not None
        [note] = state["interventions"]
        assert note.text == NOTE and note.answered_by == ["Bear Researcher"], "the first process's run answered it"
    finally:
        held.release()
        await first.close()
        await second.close()


async def test_the_cli_refuses_a_thread_that_runs_elsewhere_and_runs_it_once_free(tmp_path: Path,
                                                                                   no_model_env: None) -> None:
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    thread = uuid.uuid4().hex[:12]
    env = demo_env(DESK_DATA_DIR=str(settings.data_dir), DESK_DEMO_DELAY_MS="0")

    def cli() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "graph", "--thread", thread, "should I buy NVDA today?"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)

    async with DeskRuntime.open(settings) as desk:
        async with desk.leases.hold(thread):  # as a chat process running the thread would
            refused = await asyncio.to_thread(cli)
        assert refused.returncode == 1, refused.stderr
        assert "running in another process" in refused.stderr
        assert not await desk.has_thread(thread), "nothing ran"
        # Once free, a run of the thread needs no process of its own: `python -m graph …` in this one.
        ran = await asyncio.to_thread(run_cli, tmp_path, "--thread", thread, "should I buy NVDA today?")
        assert ran.returncode == 0, ran.stderr
        assert "Final decision for NVDA" in ran.stdout
        assert await desk.leases.holder(thread) is None, "free after the run"


async def test_a_lease_left_by_a_killed_process_of_this_machine_is_let_go(tmp_path: Path, no_model_env: None) -> None:
    """A chat server killed and restarted within the lease's TTL offers Resume at once."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = f"{socket.gethostname()}:{int(gone.stdout)}:0000"
    async with DeskRuntime.open(Settings(DESK_DATA_DIR=tmp_path / "data")) as desk:
        assert await desk.leases.acquire("t", dead) is not None
        assert await desk.leases.acquire("u", "another-host:1:0000") is not None
        assert await live_holder(desk.leases, "t") is None and await desk.leases.holder("t") is None
        assert (await live_holder(desk.leases, "u")) is not None, "another machine's lease is left to expire"
