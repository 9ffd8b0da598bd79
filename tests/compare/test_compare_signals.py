"""A comparison stopped by SIGTERM or SIGKILL half-way (issue 36 point 4), a real `python -m graph "NVDA or AMD?"`
process: one desk has decided, the other is stopped while its Trader speaks (held there,
tests/support/held_cli.py). `--thread <parent> --resume` then keeps the decided desk (its thread not one step
longer), goes on with the other from its last checkpoint (no persona speaking twice), makes the comparison once, and
ranks as an uninterrupted comparison of the same tickers does. SIGTERM is a graceful stop: exit 143, the resume
command said, the desks' leases released; SIGKILL leaves them to the resume."""
from __future__ import annotations

import asyncio
import re
import signal
import time
from pathlib import Path

import pytest

from graph.compare.runner import desk_thread
from graph.compare.store import Comparisons, Record
from graph.core.context import LOCAL_USER
from graph.persistence.database import open_store
from tests.support.cli import run_cli
from tests.support.signalled import SIGNALS, Thread, child_env, held, leased, settings_of, threads, when_pending

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

ASK = ["--today", "2024-05-06", "--quiet-tools", "NVDA or AMD?"]
TICKERS = ("NVDA", "AMD")


def ranking(stdout: str) -> list[str]:
    """The side-by-side table's rows as printed (rank, ticker, signal, size, confidence, entry, stop)."""
    head = stdout.index("Rank  Ticker")
    return [" ".join(line.split()) for line in stdout[head:].splitlines()[1:len(TICKERS) + 1]]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = run_cli(tmp_path_factory.mktemp("whole"), *ASK, DESK_DEMO_FIRST_TOKEN_MS="0")
    assert out.returncode == 0, out.stdout + out.stderr
    return ranking(out.stdout)


def one_decided(data: Path, desks: dict[str, str], timeout: float = 60) -> str:
    """The ticker whose desk decided first (the other is held), once its decision is stored."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stored = threads(data, list(desks.values()))
        if done := [t for t, thread in desks.items() if thread in stored and stored[thread].decided]:
            return done[0]
        time.sleep(0.05)
    raise AssertionError("no desk decided")


@pytest.mark.parametrize("how", SIGNALS, ids=lambda s: s.name)
def test_a_comparison_stopped_half_way_resumes_and_ranks_as_an_uninterrupted_one(
        tmp_path: Path, how: signal.Signals, uninterrupted: list[str]) -> None:
    data = tmp_path / "data"
    with held(["-m", "tests.support.held_cli", "Trader#2", "{fd}", *ASK], child_env(data), tmp_path) as run:
        run.wait_held()
        found = re.match(r"thread (\w+)\n", run.output)  # printed before anything runs
        assert found, run.output
        parent = found[1]
        desks = {t: desk_thread(parent, t) for t in TICKERS}
        kept = one_decided(data, desks)
        stopped = next(t for t in TICKERS if t != kept)
        when_pending(data, desks[stopped], "Trader")
        code = run.stop(how)
    before: dict[str, Thread] = threads(data, list(desks.values()))
    assert before[desks[kept]].decided and not before[desks[stopped]].decided
    if how == signal.SIGTERM:
        assert code == 143, run.output
        assert f"Continue with: python -m graph --thread {parent} --resume" in run.output
        assert leased(data, list(desks.values())) == []
    else:
        assert code == -signal.SIGKILL
        assert leased(data, list(desks.values())) == [desks[stopped]]  # the run held its thread's lease

    out = run_cli(tmp_path, "--thread", parent, "--resume", DESK_DEMO_FIRST_TOKEN_MS="0")
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{kept} kept (decided)" in out.stdout and f"{stopped} from its last step" in out.stdout
    after = threads(data, list(desks.values()))
    assert after[desks[kept]] == before[desks[kept]]  # not one step more in the decided desk's thread
    resumed, was = after[desks[stopped]], before[desks[stopped]]
    assert resumed.decided and resumed.asked == 1 and resumed.spoken.count("Trader") == 1
    assert resumed.spoken[:len(was.spoken)] == was.spoken  # went on, did not begin again
    assert sorted(resumed.spoken) == sorted(after[desks[kept]].spoken)  # as many turns as a desk run whole
    assert ranking(out.stdout) == uninterrupted
    assert out.stdout.count("▶ Comparison") == 1
    record = _record(data, parent)
    assert record is not None and record.status == "done"
    assert [r["ticker"] for r in record.ranking] == [r.split()[1] for r in uninterrupted]



def _record(data: Path, parent: str) -> Record | None:
    async def read() -> Record | None:
        async with open_store(settings_of(data)) as store:
            return await Comparisons(store).get(LOCAL_USER, parent)

    return asyncio.run(read())
