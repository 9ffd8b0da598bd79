"""A backtest stopped by SIGTERM or SIGKILL half-way (issue 36 point 4), a real `python -m graph backtest`
process: two tickers, two days, one day at a time, stopped while the second deliberation's Trader speaks (held
there, tests/support/held_cli.py). `--resume` then keeps the finished day (its thread not one step longer), goes on
with the stopped one from its last checkpoint (the user asked once, no persona speaking twice), runs the rest, and
ends where an uninterrupted run of the same plan ends. SIGTERM is a graceful stop: exit 143, "stopped", the
backtest's and the day's leases released; SIGKILL leaves them to the resume (a dead local holder's lease is let
go at once)."""
from __future__ import annotations

import re
import signal
from datetime import date
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.signalled import SIGNALS, child_env, held, leased, threads, when_pending

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

TICKERS, DAYS = ("AAPL", "GOOGL"), (date(2024, 1, 2), date(2024, 1, 3))
WINDOW = [*TICKERS, "--start", DAYS[0].isoformat(), "--end", DAYS[-1].isoformat(), "--concurrency", "1",
          "--today", "2024-06-28"]


def ids(backtest: str) -> list[str]:
    """The days' threads in the order they run (every ticker of a day before the next day)."""
    return [f"bt-{backtest}-{t}-{d:%Y%m%d}" for d in DAYS for t in TICKERS]


def outcome(cwd: Path, stdout: str) -> tuple[str, list[tuple[str, ...]]]:
    """The Trading Desk's row of Table 1, and each day as the written Markdown lists it (ticker, day, signal, size,
    confidence: not its tokens, time or thread)."""
    row, written = re.search(r"^\| Trading Desk \|.*$", stdout, re.M), re.search(r"^Written: (\S+\.md) ", stdout, re.M)
    assert row and written, stdout
    lines = (cwd / written[1]).read_text().splitlines()
    return row[0], [tuple(cell.strip() for cell in line.split("|")[1:6]) for line in lines
                    if re.match(r"\| (AAPL|GOOGL) \| 2024-", line)]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[tuple[str, ...]]]:
    cwd = tmp_path_factory.mktemp("whole")
    out = run_cli(cwd, "backtest", *WINDOW, "--yes")
    assert out.returncode == 0, out.stdout + out.stderr
    return outcome(cwd, out.stdout)


@pytest.mark.parametrize("how", SIGNALS, ids=lambda s: s.name)
def test_a_backtest_stopped_half_way_resumes_and_ends_as_an_uninterrupted_one(
        tmp_path: Path, how: signal.Signals, uninterrupted: tuple[str, list[tuple[str, ...]]]) -> None:
    data = tmp_path / "data"
    with held(["-m", "tests.support.held_cli", "Trader#2", "{fd}", "backtest", *WINDOW, "--yes"],
              child_env(data), tmp_path) as run:
        run.wait_held()
        found = re.search(r"^backtest (\w+) · ", run.output, re.M)
        assert found, run.output
        backtest = found[1]
        first, stopped, *rest = ids(backtest)
        when_pending(data, stopped, "Trader")
        code = run.stop(how)
    before = threads(data, ids(backtest))
    assert before[first].decided and not before[stopped].decided and not set(rest) & set(before)
    if how == signal.SIGTERM:
        assert code == 143 and "stopped. Finished days are kept" in run.output, run.output
        assert leased(data, [f"bt-{backtest}", stopped]) == []  # let go on the way out
    else:
        assert code == -signal.SIGKILL
        assert leased(data, [f"bt-{backtest}", stopped]) == [f"bt-{backtest}", stopped]  # left behind

    out = run_cli(tmp_path, "backtest", "--resume", backtest, "--yes", "--today", "2024-06-28")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 already done (kept, not run again); 3 to run" in out.stdout
    assert len([line for line in out.stderr.splitlines() if " days · " in line]) == 3  # the finished one not again
    after = threads(data, ids(backtest))
    assert after[first] == before[first]  # not one step more in the finished day's thread
    resumed = after[stopped]
    assert resumed.decided and resumed.asked == 1 and resumed.spoken.count("Trader") == 1
    assert resumed.spoken[:len(before[stopped].spoken)] == before[stopped].spoken  # went on, did not begin again
    assert sorted(after[rest[0]].spoken) == sorted(resumed.spoken)  # a day run whole speaks the same turns
    assert outcome(tmp_path, out.stdout) == uninterrupted
