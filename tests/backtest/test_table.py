"""The paper's Table 1 layout and its Markdown, the published figures' window, and the daily CSV."""
from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from graph.backtest.export import HEADER, daily_csv
from graph.backtest.metrics import Metrics, metrics
from graph.backtest.simulate import Rules, simulate
from graph.backtest.table import (
    PUBLISHED_SOURCE,
    PUBLISHED_TRADINGAGENTS,
    Figures,
    Row,
    is_paper_window,
    published_rows,
    table,
)

DAYS = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05"]
CLOSES = pd.Series([100.0, 110.0, 99.0, 108.9], index=pd.DatetimeIndex(DAYS))


def _scores(cr, arr, sr, mdd) -> Metrics:
    return Metrics(cr, arr, sr, mdd, hit_rate=None, trades=0, exposure=None, days=0)


def test_figures_are_percent_but_sharpe() -> None:
    figures = Figures.of(_scores(0.089, 1.5, 4.58, 0.1))
    assert figures == Figures(pytest.approx(8.9), pytest.approx(150.0), 4.58, pytest.approx(10.0))
    assert Figures.of(_scores(None, None, None, None)) == Figures(None, None, None, None)


def test_markdown_is_laid_out_like_table_1() -> None:
    scores = {
        "B&H": {"AAPL": metrics(simulate(CLOSES, {DAYS[0]: "BUY"})), "NVDA": _scores(-0.05, -0.2, -1.234, 0.07)},
        "SMA": {"AAPL": _scores(0.0, 0.0, None, 0.0)},  # NVDA missing: printed as —
    }
    text = table(
        scores, ["AAPL", "NVDA"], ["B&H", "SMA"], title="Backtest AAPL, NVDA",
        notes=["Window 2024-01-02 … 2024-01-05", "Synthetic | demo data"],
        extra_rows=[Row("Desk", {"AAPL": Figures(1.0, 2.0, 3.0, 4.0)})],
    ).markdown()
    # B&H on AAPL: CR 8.9 %, ARR (1.089 ** 84 − 1) × 100 = 128826.41 %, SR √21 = 4.58, MDD 10 %
    assert text == (
        "**Backtest AAPL, NVDA**\n"
        "\n"
        "| Strategy | AAPL CR% | AAPL ARR% | AAPL SR | AAPL MDD% | NVDA CR% | NVDA ARR% | NVDA SR | NVDA MDD% |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        f"| B&H | 8.90 | {(1.089**84 - 1) * 100:.2f} | 4.58 | 10.00 | -5.00 | -20.00 | -1.23 | 7.00 |\n"
        "| SMA | 0.00 | 0.00 | — | 0.00 | — | — | — | — |\n"
        "| Desk | 1.00 | 2.00 | 3.00 | 4.00 | — | — | — | — |\n"
        "\n"
        "- Window 2024-01-02 … 2024-01-05\n"
        "- Synthetic \\| demo data\n"
    )


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (date(2024, 1, 1), date(2024, 3, 29), True),  # the paper's window as it states it
        (date(2024, 1, 2), date(2024, 3, 28), True),  # the same trading days
        (date(2024, 1, 2), date(2024, 3, 27), False),
        (date(2023, 12, 29), date(2024, 3, 29), False),
    ],
)
def test_the_papers_window(start, end, expected) -> None:
    assert is_paper_window(start, end) is expected


def test_published_rows_only_on_the_papers_window_and_tickers() -> None:
    rows = published_rows(["NVDA", "AAPL", "AMZN"], date(2024, 1, 2), date(2024, 3, 28))
    assert len(rows) == 1
    row = rows[0]
    assert row.strategy == "TradingAgents (published)"
    assert row.source == PUBLISHED_SOURCE
    assert set(row.figures) == {"AAPL", "AMZN"}  # the paper has no NVDA
    assert row.figures["AAPL"] == Figures(26.62, 30.50, 8.21, 0.91)  # issue 23 quotes AAPL's CR as +26.62 %
    assert published_rows(["AAPL"], date(2024, 1, 2), date(2024, 6, 28)) == ()
    assert published_rows(["NVDA"], date(2024, 1, 1), date(2024, 3, 29)) == ()
    assert set(PUBLISHED_TRADINGAGENTS) == {"AAPL", "GOOGL", "AMZN"}


def test_published_rows_print_with_their_source() -> None:
    rows = published_rows(["AAPL"], date(2024, 1, 1), date(2024, 3, 29))
    text = table({}, ["AAPL"], [], extra_rows=rows).markdown()
    assert "| TradingAgents (published) | 26.62 | 30.50 | 8.21 | 0.91 |" in text
    assert f"- Source of TradingAgents (published): {PUBLISHED_SOURCE}" in text


def test_daily_csv() -> None:
    closes = CLOSES.copy()
    closes[DAYS[2]] = float("nan")
    long = simulate(closes, {DAYS[0]: "BUY", DAYS[2]: "SELL"}, Rules(cost_bps=10))
    flat = simulate(CLOSES.iloc[:2], {})
    text = daily_csv({("AAPL", "Desk"): long, ("AAPL", "B&H, flat"): flat})
    # D1: long +10 % after the 0.001 entry cost: 1.1 × 0.999 − 1 = 0.0989 (as the float computes it);
    # D2 a gap (its SELL could not trade); D3 after the gap: not counted
    d1 = 1.1 * 0.999 - 1
    assert text.splitlines() == [
        ",".join(HEADER),
        "AAPL,Desk,2024-01-02,100.0,BUY,1.0,1.0,0.001,,,first day: no close before it in the window",
        f"AAPL,Desk,2024-01-03,110.0,,1.0,0.0,0.0,{d1!r},{1 + d1!r},",
        "AAPL,Desk,2024-01-04,,SELL,1.0,0.0,0.0,,,no close: a gap; the SELL could not trade",
        "AAPL,Desk,2024-01-05,108.9,,1.0,0.0,0.0,,,after a gap: the move was not seen",
        'AAPL,"B&H, flat",2024-01-02,100.0,,0.0,0.0,0.0,,,first day: no close before it in the window',
        'AAPL,"B&H, flat",2024-01-03,110.0,,0.0,0.0,0.0,0.0,1.0,',  # a comma in a name is quoted
    ]
