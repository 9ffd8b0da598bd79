"""`python -m graph paper` end to end in demo mode: opt in, a real (demo) analysis logs its call, and the paper
book follows it at the next session's open, never at a price of the day it was decided."""
from __future__ import annotations

import re
from datetime import UTC, date, datetime
from decimal import ROUND_DOWN, Decimal

import time_machine

from graph.data.synthetic import SyntheticVendor
from tests.support.cli import run_cli

OPT_IN = datetime(2024, 5, 21, 13, 0, tzinfo=UTC)    # Tue 2024-05-21, before the US open
ASKED = datetime(2024, 5, 21, 14, 0, tzinfo=UTC)
LATER = datetime(2024, 5, 24, 14, 0, tzinfo=UTC)     # Fri: the 22nd and 23rd have closed


def test_the_paper_book_follows_a_demo_call_at_the_next_open(tmp_path):
    with time_machine.travel(OPT_IN, tick=False):
        assert "python -m graph paper --start" in run_cli(tmp_path, "paper").stdout  # not following yet
        started = run_cli(tmp_path, "paper", "--start", "100000", "--cost-bps", "5")
        assert started.returncode == 0, started.stderr
        assert "starting with 100,000.00, at a cost of 5 bp" in started.stdout
        assert "the open of the first session after that day" in started.stdout
        again = run_cli(tmp_path, "paper", "--start", "100000")
        assert again.returncode == 2 and "already follow" in again.stderr
    with time_machine.travel(ASKED, tick=False):
        ran = run_cli(tmp_path, "--quiet-tools", "should I buy NVDA today?")
        assert ran.returncode == 0, ran.stderr
        thread = re.search(r"--thread (\w+)", ran.stdout)[1]
        signal = re.search(r"Final decision for NVDA on 2024-05-21: (BUY|SELL|HOLD)", ran.stdout)[1]
        assert signal == "SELL"  # the demo's NVDA on that day; a short
        waiting = run_cli(tmp_path, "paper")
        assert waiting.returncode == 0, waiting.stderr
        size = Decimal(re.search(r"- NVDA SELL (\d+(?:\.\d+)?)%", waiting.stdout)[1])  # the ruling's size
        assert "waits for" in waiting.stdout and "waits for the open of the first session after 2024-05-21" \
            in waiting.stdout and f"thread {thread}" in waiting.stdout
        assert "**Trades**\n- none" in waiting.stdout
    with time_machine.travel(LATER, tick=False):
        shown = run_cli(tmp_path, "paper")
        assert shown.returncode == 0, shown.stderr
        trade = re.search(r"^- (\S+) short (\d+) NVDA at ([\d.]+): ([\d,.]+), cost ([\d.]+) · cash ([\d,.]+) · "
                          rf"the call's SELL.*\(thread {thread}\)$", shown.stdout, re.M)
        assert trade, shown.stdout
        day, count, price, amount, fee, cash = trade.groups()
        # The fill is the 22nd's open as the demo's vendor gives it, not the 21st's (the decision's day).
        assert day == "2024-05-22"
        opened = SyntheticVendor().ohlcv("NVDA", date(2024, 5, 21), date(2024, 5, 22))["open"]
        assert Decimal(price) == Decimal(repr(float(opened.iloc[-1]))).quantize(Decimal("0.0001"))
        assert Decimal(count) == (Decimal(100000) * size / 100 / Decimal(price)).to_integral_value(ROUND_DOWN)
        gross = (Decimal(count) * Decimal(price)).quantize(Decimal("0.01"))
        assert Decimal(amount.replace(",", "")) == gross
        assert Decimal(fee) == (gross * 5 / 10000).quantize(Decimal("0.01"))
        assert Decimal(cash.replace(",", "")) == Decimal(100000) + gross - Decimal(fee)
        assert "As of the close of 2024-05-23" in shown.stdout and "- SPY, the benchmark of NVDA: CR" in shown.stdout
        assert "**Calibration**" in shown.stdout
        zh = run_cli(tmp_path, "paper", DESK_LANGUAGE="zh")
        assert "**你的模拟账户**" in zh.stdout and "卖空" in zh.stdout
        stopped = run_cli(tmp_path, "paper", "--stop")
        assert stopped.returncode == 0 and "no longer followed" in stopped.stdout
        assert "to 2024-05-24" in run_cli(tmp_path, "paper").stdout
