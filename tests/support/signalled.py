"""A desk process stopped by a signal at a known point (issue 36 point 4): started with one persona's call held
(tests/support/held_cli.py's `hold`, so the signal cannot land after that turn however late a loaded machine lets
the test send it), signalled only once the checkpoint a resume starts from is stored (so it cannot land before it
either), and reaped. SIGTERM is the graceful stop (graph/core/stopping.py: exit 143, leases released); SIGKILL
leaves everything as it was."""
from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.messages import HumanMessage

from graph.core.settings import Settings
from graph.persistence.database import open_checkpointer, open_leases
from graph.runtime.desk import DeskRuntime
from tests.support.clock import NOW, SET_AT, python_path
from tests.support.env import demo_env

ROOT = Path(__file__).resolve().parents[2]
SIGNALS = (signal.SIGTERM, signal.SIGKILL)


def child_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """Demo mode at full speed, the data under `data_dir`, this checkout first on the path; the suite's simulated
    date kept (tests/support/clock.py), so the child's "now" is this process's."""
    mine = [k for k in os.environ if k.startswith("DESK_") and k not in (NOW, SET_AT)]
    return demo_env(drop=mine, DESK_DATA_DIR=str(data_dir),
                    DESK_DEMO_DELAY_MS="0", DESK_DEMO_FIRST_TOKEN_MS="0", PYTHONUNBUFFERED="1",
                    PYTHONPATH=python_path(ROOT), **extra)


@dataclass
class Held:
    proc: subprocess.Popen[str]
    fd: int  # the pipe's end the child writes "held" to
    lines: list[str] = field(default_factory=list)  # its output so far (drained, so a full pipe never blocks it)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_held(self, timeout: float = 90) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        assert ready, f"no turn was held after {timeout}s:\n{self.output}"
        assert os.read(self.fd, 64) == b"held\n", f"the child ended before a turn was held:\n{self.output}"

    def stop(self, how: signal.Signals) -> int:
        """Send `how`; the exit code once the process has ended."""
        os.kill(self.proc.pid, how)
        return self.proc.wait(60)


@contextmanager
def held(argv: list[str], env: dict[str, str], cwd: Path) -> Iterator[Held]:
    """`python <argv…>` with the pipe's write end as its argument `{fd}`; ended (SIGKILL) on the way out."""
    read, write = os.pipe()
    args = [a.replace("{fd}", str(write)) for a in argv]
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, cwd=cwd, pass_fds=(write,), stdin=subprocess.DEVNULL)
    os.close(write)  # the child's copy is the only one left: its end closes the pipe
    run = Held(proc, read)
    assert proc.stdout is not None
    out = proc.stdout
    drain = threading.Thread(target=lambda: run.lines.extend(out), daemon=True)
    drain.start()
    try:
        yield run
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
        drain.join(10)
        os.close(read)


def settings_of(data_dir: Path) -> Settings:
    return Settings(DESK_DATA_DIR=data_dir, DESK_DATABASE_URL=None, DESK_MODE="demo")


async def _when_pending(data_dir: Path, thread: str, persona: str, timeout: float) -> None:
    settings = settings_of(data_dir)
    async with open_checkpointer(settings) as saver:
        desk = DeskRuntime.build(settings, saver)

        async def stored() -> None:
            while (stopped := await desk.interrupted(thread)) is None or persona not in stopped.personas:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(stored(), timeout)


def when_pending(data_dir: Path, thread: str, persona: str, timeout: float = 60) -> None:
    """Wait until the thread's stored checkpoint (read here, as a resume reads it) has `persona` to speak next."""
    asyncio.run(_when_pending(data_dir, thread, persona, timeout))


@dataclass(frozen=True)
class Thread:
    head: str  # its newest checkpoint's id
    asked: int  # the user's messages in it
    spoken: tuple[str, ...]  # who spoke, in order
    decided: bool


async def _threads(data_dir: Path, threads: list[str]) -> dict[str, Thread]:
    settings = settings_of(data_dir)
    out: dict[str, Thread] = {}
    async with open_checkpointer(settings) as saver:
        desk = DeskRuntime.build(settings, saver)
        for thread in threads:
            stored = await saver.aget_tuple(desk.config(thread))
            if stored is None:
                continue
            state = await desk.state(thread)
            messages = state.get("messages", [])
            out[thread] = Thread(str(stored.checkpoint["id"]), sum(isinstance(m, HumanMessage) for m in messages),
                                 tuple(str(m.name) for m in messages if m.type == "ai" and m.name),
                                 state.get("final_decision") is not None)
    return out


def threads(data_dir: Path, ids: list[str]) -> dict[str, Thread]:
    """Each stored thread of `ids` as its checkpoints hold it (a thread never begun is left out)."""
    return asyncio.run(_threads(data_dir, ids))


async def _leased(data_dir: Path, ids: list[str]) -> list[str]:
    async with open_leases(settings_of(data_dir)) as leases:
        return [t for t in ids if await leases.holder(t) is not None]


def leased(data_dir: Path, ids: list[str]) -> list[str]:
    """Those of `ids` whose lease is still in the table (a graceful stop releases its own)."""
    return asyncio.run(_leased(data_dir, ids))
