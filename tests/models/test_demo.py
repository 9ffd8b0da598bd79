"""How the demo model reads the analysts' figures."""
from __future__ import annotations

import pytest

from graph.models.demo_figures import figures_in, read_points


def leverage(value) -> list[tuple[int, str]]:
    return [(p.stance, p.text) for p in read_points({"Debt/Equity": value}) if p.label == "Debt/Equity"]


def test_a_debt_to_equity_of_12_is_heavy_leverage_not_a_light_balance_sheet():
    # A bank's balance sheet: debt is 12x equity. Vendors deliver the multiple as is
    # (graph/data/vendor.py), so 12 must not be read as 0.12.
    assert leverage(12) == [(-1, "leverage is high at 12.00x debt to equity")]
    assert leverage("12.0") == [(-1, "leverage is high at 12.00x debt to equity")]


@pytest.mark.parametrize("value, stance", [(0.3, 1), (0.5, 1), (1.5, None), (2.0, -1), (150, -1)])
def test_debt_to_equity_is_read_as_the_multiple_it_is(value, stance):
    got = leverage(value)
    assert [s for s, _ in got] == ([] if stance is None else [stance])
    if got:
        assert f"{value:,.2f}x debt to equity" in got[0][1]


def test_the_figure_as_it_reaches_later_speakers_in_the_key_figure_table():
    table = "| Key figure | Value |\n|---|---|\n| P/E | 11.2 |\n| Debt/Equity | 12.0 |"
    points = {p.label: p for p in read_points(figures_in(table))}
    assert points["Debt/Equity"].stance == -1
    assert "12.00x" in points["Debt/Equity"].text
