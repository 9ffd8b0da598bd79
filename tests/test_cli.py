"""The headless CLIs as a user runs them."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from graph.core.personas import PERSONAS


def run(args, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "DESK_"))}
    env |= {"DESK_DATA_DIR": str(tmp_path / "data"), "DESK_DEMO_DELAY_MS": "0"}
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=180)


def test_cli_runs_the_desk_and_continues_the_thread(tmp_path):
    out = run(["graph", "--today", "2024-05-06", "should I buy NVDA today?"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Demo mode" in out.stdout and "synthetic" in out.stdout
    headers = re.findall(r"^▶ (.+)$", out.stdout, re.M)
    assert headers[0] == "Desk" and set(headers) == {"Desk", *PERSONAS}
    assert headers[5:] == list(PERSONAS[4:])
    assert re.search(r"Final decision for NVDA on 2024-05-06: (BUY|SELL|HOLD)", out.stdout)
    assert "⚙ get_indicators" in out.stdout
    thread = re.search(r"--thread (\w+)", out.stdout)[1]

    follow = run(["graph", "--thread", thread, "--today", "2024-05-06", "what was the RSI?"], tmp_path)
    assert follow.returncode == 0, follow.stderr
    assert re.findall(r"^▶ (.+)$", follow.stdout, re.M) == ["Desk"]
    assert re.search(r"RSI 14 was [\d.]+", follow.stdout)


@pytest.mark.parametrize("text", ["should I buy on 2024-02-30?", "should I buy something?"])
def test_cli_asks_back_and_exits_non_zero_on_an_unclear_request(tmp_path, text):
    out = run(["graph", "--today", "2024-05-06", text], tmp_path)
    assert out.returncode == 2
    assert "?" in out.stdout


def test_cli_rejects_unknown_analysts(tmp_path):
    out = run(["graph", "--analysts", "market,astrology", "NVDA"], tmp_path)
    assert out.returncode != 0 and "astrology" in out.stderr


@pytest.mark.parametrize("text,ticker,trade_date,intent", [
    ("should I buy NVDA today?", "NVDA", "2026-11-20", "analyze"),
    ("thoughts on Apple last Friday?", "AAPL", "2026-11-20", "analyze"),
    ("$TSLA 2024-05-01", "TSLA", "2024-05-01", "analyze"),
    ("is Berkshire B a sell?", "BRK-B", "2026-11-20", "analyze"),
    ("AI is overhyped", None, "2026-11-20", "clarify"),
])
def test_coordinator_cli_prints_json_last(tmp_path, text, ticker, trade_date, intent):
    out = run(["graph", "--parse", "--today", "2026-11-22", text], tmp_path)
    assert out.returncode == 0, out.stderr
    parsed = json.loads(out.stdout.strip().splitlines()[-1])
    assert (parsed["intent"], parsed["ticker"], parsed["trade_date"]) == (intent, ticker, trade_date)


def cli_env(tmp_path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "DESK_"))}
    return env | {"DESK_DATA_DIR": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1", **extra}


@pytest.mark.e2e
@pytest.mark.parametrize("kill_at", ["Market Analyst", "Bull Researcher", "Trader", "Risk Judge"])
def test_a_killed_cli_run_resumes_from_the_pending_step(tmp_path, kill_at):
    """kill -9 while `kill_at` speaks; `--resume` finishes the run, starting with that speaker."""
    env = cli_env(tmp_path, DESK_DEMO_DELAY_MS="40")  # slow enough that the kill lands mid-turn
    proc = subprocess.Popen([sys.executable, "-m", "graph", "--today", "2024-05-06", "should I buy NVDA today?"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
    first = proc.stdout.readline()
    thread = re.fullmatch(r"thread (\w+)\n", first)[1]  # printed before anything runs
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if line.strip() == f"▶ {kill_at}":
            break
    proc.kill()  # SIGKILL: no cleanup at all
    proc.wait(10)
    assert f"▶ {kill_at}\n" in seen, "".join(seen)

    out = subprocess.run([sys.executable, "-m", "graph", "--thread", thread, "--resume"], capture_output=True,
                         text=True, env=cli_env(tmp_path, DESK_DEMO_DELAY_MS="0"), cwd=tmp_path, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"resuming thread {thread} at the {kill_at}" in out.stdout
    headers = re.findall(r"^▶ (.+)$", out.stdout, re.M)
    order = list(PERSONAS)
    if kill_at in order[:4]:  # parallel analysts: the unfinished ones run again, then everyone after them
        assert kill_at in headers and [h for h in headers if h not in order[:4]] == order[4:]
    else:
        assert headers == order[order.index(kill_at):]
    assert re.search(r"Final decision for NVDA on 2024-05-06: (BUY|SELL|HOLD)", out.stdout)
    again = subprocess.run([sys.executable, "-m", "graph", "--thread", thread, "--resume"], capture_output=True,
                           text=True, env=cli_env(tmp_path), cwd=tmp_path, timeout=180)
    assert again.returncode == 2 and "no interrupted run" in again.stderr
