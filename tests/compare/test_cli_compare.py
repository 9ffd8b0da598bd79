"""`python -m graph "NVDA or AMD?"` as a user runs it: both desks' personas headed with their tickers, the
Comparison, the side-by-side table, a follow-up in the comparison's thread; a refused ask exits 2."""
from __future__ import annotations

import re

from graph.core.personas import PERSONAS
from tests.support.cli import run_module as run


def test_cli_compares_two_tickers_and_answers_a_follow_up(tmp_path) -> None:
    out = run(["graph", "--today", "2024-05-06", "--quiet-tools", "NVDA or AMD?"], tmp_path)
    assert out.returncode == 0, out.stderr
    headers = re.findall(r"^▶ (.+)$", out.stdout, re.M)
    for ticker in ("NVDA", "AMD"):
        assert {f"{p} · {ticker}" for p in PERSONAS} <= set(headers)
        assert f"Analyzing **{ticker}**" in out.stdout and "2024-05-06" in out.stdout
    assert headers[-1] == "Comparison"
    assert re.search(r"^1\. \*\*(NVDA|AMD)\*\* — (BUY|SELL|HOLD), confidence", out.stdout, re.M)
    table = re.search(r"^Rank\s+Ticker\s+Signal\s+Size\s+Confidence\s+Entry\s+Stop$\n(.+)\n(.+)", out.stdout, re.M)
    assert table is not None and {table[1].split()[1], table[2].split()[1]} == {"NVDA", "AMD"}
    parent = re.search(r"^thread (\w+)", out.stdout, re.M)[1]

    follow = run(["graph", "--thread", parent, "--today", "2024-05-06", "which was riskier?"], tmp_path)
    assert follow.returncode == 0, follow.stderr
    assert re.findall(r"^▶ (.+)$", follow.stdout, re.M) == ["Desk"]
    assert "The riskier is" in follow.stdout

    # One of the compared desks is an ordinary thread: its history lists its steps (edit-the-past works on it).
    nvda = re.search(r"NVDA: thread ([0-9a-f-]{36})", out.stdout)[1]
    steps = run(["graph", "--thread", nvda, "--history"], tmp_path)
    assert steps.returncode == 0 and "Bull Researcher" in steps.stdout


def test_cli_refuses_too_many_tickers(tmp_path) -> None:
    out = run(["graph", "--today", "2024-05-06", "compare TSLA, F, GM, RIVN, LCID and NIO"], tmp_path)
    assert out.returncode == 2 and "at most 5" in out.stderr
