"""`python -m graph backtest …` as a user runs it: the plan, the progress, the table and its files; the
refusals (bad input, the budget, no terminal to confirm on); and a backtest killed with SIGKILL half-way
that resumes without running its finished days again."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

from graph.core.trading_days import is_trading_day
from tests.support.cli import Ran, run_cli
from tests.support.clock import python_path
from tests.support.env import demo_env
from tests.support.signalled import threads as stored_threads

ROOT = Path(__file__).resolve().parents[2]
TODAY = ["--today", "2024-06-28"]


def env(tmp_path: Path) -> dict[str, str]:
    return demo_env(drop=[k for k in os.environ if k.startswith("DESK_")], DESK_DATA_DIR=str(tmp_path / "data"),
                    DESK_DEMO_DELAY_MS="0", PYTHONUNBUFFERED="1", PYTHONPATH=python_path(ROOT))


def cli(tmp_path: Path, *args: str, timeout: float = 300) -> Ran:
    """`python -m graph *args`, run in this process (tests/support/cli.py); the kill below needs a process."""
    return run_cli(tmp_path, *args)


def test_a_backtest_prints_its_plan_its_progress_and_the_table(tmp_path: Path) -> None:
    out = cli(tmp_path, "backtest", "AAPL", "GOOGL", "--start", "2024-01-02", "--end", "2024-01-08", "--yes",
              "--out", "results", *TODAY)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Backtest plan: AAPL, GOOGL · 2024-01-02 … 2024-01-08" in out.stdout
    assert "10 deliberations" in out.stdout and "~170 calls" in out.stdout
    backtest = re.search(r"^backtest (\w+) · if it stops, resume with: python -m graph backtest --resume \1$",
                         out.stdout, re.M)[1]
    lines = [line for line in out.stderr.splitlines() if " days · " in line]  # no terminal: a line per day
    assert len(lines) == 10 and lines[-1].startswith("10/10 days")
    assert re.search(r"tokens · (AAPL|GOOGL) 2024-01-0\d (BUY|SELL|HOLD)", lines[0])
    assert f"**Backtest {backtest}: AAPL, GOOGL, 2024-01-02 … 2024-01-08 (synthetic)**" in out.stdout
    for row in ("B&H", "MACD", "KDJ&RSI", "ZMR", "SMA", "Trading Desk"):
        assert f"| {row} |" in out.stdout
    assert (tmp_path / "results" / f"backtest-{backtest}.md").exists()
    assert (tmp_path / "results" / f"backtest-{backtest}-daily.csv").read_text().startswith("ticker,strategy,date")

    again = cli(tmp_path, "backtest", "--resume", backtest, "--cost-bps", "10", *TODAY)  # no day left: no question
    assert again.returncode == 0, again.stderr
    assert "10 already done (kept, not run again); 0 to run" in again.stdout
    assert "Cost: 10 bp" in again.stdout


def test_without_a_terminal_and_without_yes_nothing_starts(tmp_path: Path) -> None:
    # Waiting for an answer would run into cli()'s timeout (subprocess.TimeoutExpired): the test fails, not hangs.
    out = cli(tmp_path, "backtest", "AAPL", "--start", "2024-01-02", "--end", "2024-01-08", *TODAY, timeout=120)
    assert out.returncode == 2
    assert "Backtest plan: AAPL" in out.stdout  # the plan is still stated
    assert "no terminal to confirm on" in out.stderr and "--yes" in out.stderr
    assert "backtest " not in out.stdout.replace("Backtest plan", "")  # nothing stored, no id given


def test_a_plan_over_the_budget_is_refused(tmp_path: Path) -> None:
    out = cli(tmp_path, "backtest", "AAPL", "GOOGL", "AMZN", "--start", "2024-01-02", "--end", "2024-03-28",
              "--budget", "100000", "--yes", *TODAY)
    assert out.returncode == 2
    assert "more than the budget of 100,000" in out.stderr
    assert "183 deliberations" in out.stdout


def test_bad_input_gets_a_sentence_and_exit_2(tmp_path: Path) -> None:
    cases = {
        ("AAPL", "--start", "2024-03-28", "--end", "2024-01-02"): "reversed",
        ("ZZZQ", "--start", "2024-01-02", "--end", "2024-01-08"): "Unknown ticker ZZZQ",
        ("AAPL", "--start", "2024-07-01", "--end", "2024-07-02"): "in the future",
    }
    for args, words in cases.items():
        out = cli(tmp_path, "backtest", *args, "--yes", *TODAY)
        assert out.returncode == 2 and words in out.stderr, (args, out.stderr)
    missing = cli(tmp_path, "backtest", "AAPL", "--yes")
    assert missing.returncode == 2 and "name the tickers and the window" in missing.stderr
    unknown = cli(tmp_path, "backtest", "--resume", "nope1234", *TODAY)
    assert unknown.returncode == 2 and "No backtest nope1234" in unknown.stderr


def test_a_request_that_begins_with_backtest_is_still_a_request(tmp_path: Path) -> None:
    """Only a first argument that is exactly "backtest" is the subcommand; a quoted sentence goes to the desk."""
    out = cli(tmp_path, "--parse", "--today", "2024-06-28", "backtest NVDA from January to March 2024")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["intent"]


def _sessions(start: date, end: date) -> list[date]:
    return [date.fromordinal(n) for n in range(start.toordinal(), end.toordinal() + 1)
            if is_trading_day(date.fromordinal(n))]


def test_a_backtest_killed_half_way_resumes_without_running_finished_days_again(tmp_path: Path) -> None:
    start, end = date(2024, 1, 2), date(2024, 1, 17)
    proc = subprocess.Popen([sys.executable, "-m", "graph", "backtest", "AAPL", "GOOGL", "--start", start.isoformat(),
                             "--end", end.isoformat(), "--concurrency", "1", "--yes", *TODAY],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env(tmp_path),
                            cwd=tmp_path, stdin=subprocess.DEVNULL)
    landed = 0
    backtest = ""
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if match := re.match(r"backtest (\w+) · ", line):
                backtest = match[1]
            if " days · " in line:
                landed += 1
                if landed == 3:
                    proc.kill()  # SIGKILL: no cleanup, probably in the middle of the fourth day
                    break
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
    assert backtest and landed == 3
    days = _sessions(start, end)
    threads = [f"bt-{backtest}-{t}-{d:%Y%m%d}" for d in days for t in ("AAPL", "GOOGL")]
    before = stored_threads(tmp_path / "data", threads)
    decided = {t: thread.head for t, thread in before.items() if thread.decided}
    assert len(decided) >= 3  # at least the three that landed

    out = cli(tmp_path, "backtest", "--resume", backtest, "--yes", *TODAY)
    assert out.returncode == 0, out.stdout + out.stderr
    kept = int(re.search(r"(\d+) already done \(kept, not run again\)", out.stdout)[1])
    assert kept == len(decided)
    ran = [line for line in out.stderr.splitlines() if " days · " in line]
    assert len(ran) == len(threads) - kept  # the finished days were not run again, the rest were
    after = stored_threads(tmp_path / "data", threads)
    assert {t: after[t].head for t in decided} == decided  # not one step more in a finished day's thread
    assert all(thread.asked == 1 and thread.decided for thread in after.values()) and len(after) == len(threads)
