"""The headless CLIs as a user runs them."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from graph.personas import PERSONAS


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
    out = run(["graph.request", "--today", "2026-11-22", text], tmp_path)
    assert out.returncode == 0, out.stderr
    parsed = json.loads(out.stdout.strip().splitlines()[-1])
    assert (parsed["intent"], parsed["ticker"], parsed["trade_date"]) == (intent, ticker, trade_date)
