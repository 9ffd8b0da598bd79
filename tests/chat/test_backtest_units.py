"""The chat's backtest pieces without a server: the equity curve and its signal markers, the figure's panels,
"resume backtest <id>" read, and the door's thread ids (a backtest day's is let in, nothing like it is)."""
from __future__ import annotations

import pandas as pd
import pytest

from chat.backtest_chart import equity_curve, equity_figure, signal_changes
from chat.backtests import RESUME, day_link
from chat.history import valid_thread_id
from graph import DESK_STRATEGY
from graph.backtest.simulate import simulate

CLOSES = pd.Series([100.0, 110.0, 99.0, 99.0], index=["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05"])


def test_equity_and_drawdown_follow_the_simulation():
    sim = simulate(CLOSES, {"2024-01-02": "BUY", "2024-01-03": "BUY", "2024-01-04": "SELL"})
    days, equity, drawdown = equity_curve(sim)
    assert days == list(CLOSES.index)
    assert equity[:3] == [0.0, 10.0, pytest.approx(-1.0)]  # long 100 → 110 → 99
    assert drawdown[2] == pytest.approx(-10.0)  # 99 from a peak of 110
    assert signal_changes(sim) == [("2024-01-02", "BUY"), ("2024-01-04", "SELL")]  # the repeated BUY is no change


def test_figure_has_a_line_per_strategy_a_drawdown_panel_and_markers():
    sims = {("NVDA", "B&H"): simulate(CLOSES, {"2024-01-02": "BUY"}),
            ("NVDA", DESK_STRATEGY): simulate(CLOSES, {"2024-01-02": "BUY", "2024-01-04": "SELL"}),
            ("AAPL", "B&H"): simulate(CLOSES, {})}
    fig = equity_figure(sims, "NVDA")
    names = [t.name for t in fig.data]
    assert names.count("B&H") == 2 and names.count(DESK_STRATEGY) == 2  # equity and drawdown
    assert {"desk → BUY", "desk → SELL"} <= set(names)
    assert {t.yaxis for t in fig.data} == {"y", "y2"}  # two panels, one x axis
    assert "AAPL" not in str(fig.layout.title.text)


@pytest.mark.parametrize(("text", "backtest_id"), [
    ("resume backtest 1a2b3c4d", "1a2b3c4d"), ("Continue the backtest 1a2b3c4d.", "1a2b3c4d"),
    ("继续回测 1a2b3c4d", "1a2b3c4d"), ("resume", None), ("resume backtest 1a2b", None),
])
def test_resume_words(text, backtest_id):
    m = RESUME.match(text)
    assert (m and (m[1] or m[2])) == backtest_id or (m is None and backtest_id is None)


@pytest.mark.parametrize(("thread_id", "valid"), [
    ("bt-1a2b3c4d-NVDA-20240103", True), ("bt-1a2b3c4d-0700_HK-20240103", True),
    ("bt-1a2b3c4d-NVDA-2024010", False), ("bt-1a2b3c4d-NV DA-20240103", False),
    ("bt-1a2b3c4d-NVDA-20240103') UNION SELECT 1 --", False), ("bt-XYZ-NVDA-20240103", False),
])
def test_a_backtest_days_thread_id_is_let_in_and_nothing_like_it(thread_id, valid):
    assert valid_thread_id(thread_id) is valid


def test_day_link_quotes_the_symbol():
    assert day_link("1a2b3c4d", "BRK/B", "2024-01-03") == "/backtest/1a2b3c4d/BRK%2FB/2024-01-03"
