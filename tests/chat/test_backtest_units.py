"""The chat's backtest pieces without a server: the equity curve and its signal markers, the figure's panels,
"resume backtest <id>" read, and the door's thread ids (a backtest day's is let in, nothing like it is); under
the table, a row's reason from its simulation and the baselines' rules, and the days' links by ticker and month,
in English and in Chinese."""
from __future__ import annotations

import asyncio
import re
from datetime import date

import pandas as pd
import pytest

from chat.features.backtests import baseline_rules, day_link, day_links, explained_table, why_row
from chat.history import valid_thread_id
from chat.views.backtest_chart import equity_curve, equity_figure, signal_changes
from graph import DESK_STRATEGY, Settings, SyntheticVendor
from graph.backtest.plan import make_plan
from graph.backtest.record import Backtest, Day
from graph.backtest.result import score
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


@pytest.mark.parametrize(("thread_id", "valid"), [
    ("bt-1a2b3c4d-NVDA-20240103", True), ("bt-1a2b3c4d-0700_HK-20240103", True),
    ("bt-1a2b3c4d-NVDA-2024010", False), ("bt-1a2b3c4d-NV DA-20240103", False),
    ("bt-1a2b3c4d-NVDA-20240103') UNION SELECT 1 --", False), ("bt-XYZ-NVDA-20240103", False),
])
def test_a_backtest_days_thread_id_is_let_in_and_nothing_like_it(thread_id, valid):
    assert valid_thread_id(thread_id) is valid


def test_day_link_quotes_the_symbol():
    assert day_link("1a2b3c4d", "BRK/B", "2024-01-03") == "/backtest/1a2b3c4d/BRK%2FB/2024-01-03"


@pytest.mark.parametrize(("language", "title", "axes", "desk", "turn"), [
    ("zh", "NVDA · 净值与回撤", ("收益", "回撤"), "交易台", "交易台 → BUY"),
    ("zh-Hant", "NVDA · 淨值與回撤", ("收益", "回撤"), "交易臺", "交易臺 → BUY"),
])
def test_the_figure_is_in_the_thread_s_language(language, title, axes, desk, turn):
    """Issue 35, point 4: a Chinese thread's backtest chart has its title, axes, the desk's line and its turns in
    Chinese; the baselines keep the table's names."""
    sims = {("NVDA", "B&H"): simulate(CLOSES, {"2024-01-02": "BUY"}),
            ("NVDA", DESK_STRATEGY): simulate(CLOSES, {"2024-01-02": "BUY", "2024-01-04": "SELL"})}
    fig = equity_figure(sims, "NVDA", language=language)
    names = [t.name for t in fig.data]
    assert fig.layout.title.text == title
    assert (fig.layout.yaxis.title.text, fig.layout.yaxis2.title.text) == axes
    assert names.count(desk) == 2 and turn in names and "B&H" in names and DESK_STRATEGY not in names


def test_the_legend_sits_above_the_plot_clear_of_the_dates():
    """Under the plot the dates turn on a long window and ran into a legend there (issue 35, point 7)."""
    fig = equity_figure({("NVDA", "B&H"): simulate(CLOSES, {"2024-01-02": "BUY"})}, "NVDA")
    assert fig.layout.legend.y >= 1 and fig.layout.legend.yanchor == "bottom"
    assert fig.layout.xaxis.automargin and fig.layout.xaxis2.automargin


@pytest.mark.parametrize(("signals", "english", "chinese"), [
    ({"2024-01-02": "BUY"}, "bought on day one and never sold, so the same as B&H",
     "第一天买入后一直没有卖出，所以与 B&H 相同"),
    ({"2024-01-02": "SELL", "2024-01-04": "HOLD"}, "sold short on day one and never bought back",
     "第一天卖空后一直没有买回"),
    ({"2024-01-02": "HOLD"}, "never traded: no position all window", "从未交易：整个区间都没有持仓"),
    ({"2024-01-02": "BUY", "2024-01-04": "SELL"}, "", ""),  # it traded: its figures need no word
    ({"2024-01-03": "BUY"}, "", ""),  # a day late: not buy-and-hold's
])
def test_a_rows_reason_comes_from_its_simulation(signals, english, chinese):
    sim = simulate(CLOSES, signals)
    assert why_row(sim, "en") == english
    assert why_row(sim, "zh") == chinese


def _scored(tickers: list[str], start: date, end: date, desk: str | None = None):
    """A backtest scored on the synthetic vendor, the desk's days all `desk` (else BUY then SELL on its 2nd day)."""
    vendor = SyntheticVendor()
    plan = asyncio.run(make_plan(vendor, Settings(), tickers, start, end, today=date(2024, 6, 28)))
    backtest = Backtest("1a2b3c4d", "tester", plan)
    days = {}
    for ticker, dates in plan.days.items():
        for n, day in enumerate(dates):
            signal = desk or ("BUY" if n == 0 else "SELL" if n == 1 else "HOLD")
            days[f"{ticker}:{day}"] = Day(ticker, day.isoformat(), backtest.thread(ticker, day), "done", signal)
    return score(backtest, days, vendor), days


def _tables(markdown: str) -> list[dict[str, list[str]]]:
    """Each Markdown table's body rows, by the row's first word (its strategy)."""
    tables: list[list[list[str]]] = []
    for block in markdown.split("\n\n"):
        rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in block.splitlines()
                if line.startswith("| ") and "---" not in line]
        if rows:
            tables.append(rows)
    return [{cells[0].split(" ")[0]: cells for cells in rows[1:]} for rows in tables]


def test_the_newcomers_row_equal_to_buy_and_hold_says_why():
    """NVDA over January to March 2024 on the demo's data: KDJ&RSI is -34.46 / -83.04 / -4.27 / 34.46, B&H's to
    the cent, because it bought on the first day (oversold on both) and nothing was overbought on both after."""
    result, _ = _scored(["NVDA"], date(2024, 1, 1), date(2024, 3, 31))
    [english], [chinese] = _tables(explained_table(result, "en")), _tables(explained_table(result, "zh"))
    assert english["KDJ&RSI"][1:] == english["B&H"][1:] == ["-34.46", "-83.04", "-4.27", "34.46"]
    assert english["KDJ&RSI"][0] == "KDJ&RSI — *bought on day one and never sold, so the same as B&H*"
    assert chinese["KDJ&RSI"][0] == "KDJ&RSI —— *第一天买入后一直没有卖出，所以与 B&H 相同*"
    assert english["B&H"][0] == "B&H" and english["MACD"][0] == "MACD" and english["Trading"][0] == DESK_STRATEGY
    assert result.table.markdown().count("day one") == 0  # the table itself (the CLI's, the file's) is as it was
    # The rest as the table had it: its title, its header, its notes.
    text = explained_table(result, "en")
    assert text.startswith(f"**{result.table.title}**\n\n| Strategy | NVDA CR% | NVDA ARR% | NVDA SR | NVDA MDD% |")
    assert text.endswith("\n".join(result.table.note_lines()) + "\n")


def test_with_several_tickers_a_table_for_each_with_its_reasons():
    """Two tickers' eight figures side by side ran off the page: a table each, each row's reason its own."""
    result, _ = _scored(["NVDA", "AAPL"], date(2024, 1, 2), date(2024, 1, 5), desk="HOLD")
    nvda, aapl = _tables(explained_table(result, "en"))
    combined = _tables(result.table.markdown())[0]
    for strategy, cells in combined.items():
        assert nvda[strategy][1:] == cells[1:5] and aapl[strategy][1:] == cells[5:9]
    assert nvda["KDJ&RSI"][0] == "KDJ&RSI — *bought on day one and never sold, so the same as B&H*"
    assert aapl["KDJ&RSI"][0] == "KDJ&RSI — *sold short on day one and never bought back*"
    assert nvda["Trading"][0] == aapl["Trading"][0] == f"{DESK_STRATEGY} — *never traded: no position all window*"
    assert "| Strategy | AAPL CR% | AAPL ARR% | AAPL SR | AAPL MDD% |" in explained_table(result, "en")
    nvda, aapl = _tables(explained_table(result, "zh"))
    assert aapl["KDJ&RSI"][0] == "KDJ&RSI —— *第一天卖空后一直没有买回*"


@pytest.mark.parametrize(("language", "title", "strategy", "desk"), [
    ("zh", "**回测 {id}：NVDA，2024-01-02 … 2024-01-05（合成数据）**", "策略", "交易台"),
    ("zh-Hant", "**回測 {id}：NVDA，2024-01-02 … 2024-01-05（合成數據）**", "策略", "交易臺"),
])
def test_a_chinese_table_has_its_title_header_and_desk_in_chinese(language, title, strategy, desk):
    """Issue 35, point 4: Table 1's title, its first column's header and the desk's row in a Chinese thread."""
    result, _ = _scored(["NVDA"], date(2024, 1, 2), date(2024, 1, 5), desk="HOLD")
    text = explained_table(result, language)
    assert text.startswith(title.format(id=result.backtest.id) + f"\n\n| {strategy} | NVDA CR% |")
    [rows] = _tables(text)
    assert rows[desk][0].startswith(desk) and "Trading" not in rows and "Strategy" not in text


@pytest.mark.parametrize(("language", "synthetic", "rule"), [
    ("en", "- Synthetic: synthetic demo data and/or the demo model.", "- Rule: BUY → long, SELL → short"),
    ("zh", "- 合成数据：合成演示数据和/或演示模型。", "- 规则：BUY → 做多，SELL → 做空"),
    ("zh-Hant", "- 合成數據：合成演示數據和/或演示模型。", "- 規則：BUY → 做多，SELL → 做空"),
])
def test_the_tables_notes_are_in_the_threads_language(language, synthetic, rule):
    """Issue 35, point 4: the notes under the table too (the CLI's file keeps them in English)."""
    result, _ = _scored(["NVDA"], date(2024, 1, 2), date(2024, 1, 5), desk="HOLD")
    text = explained_table(result, language)
    assert text.endswith("\n".join(result.note_lines(language)) + "\n")
    assert synthetic in text and rule in text
    if language != "en":
        assert not re.search(r"Synthetic|Rule:|Trading Desk|risk-free|deliberation", text)
        assert "- Synthetic:" in result.table.markdown()


@pytest.mark.parametrize(("language", "title", "macd"), [
    ("en", "**The baselines' rules**", "- **MACD**: MACD(12, 26, 9) on closes: MACD line = EMA12 − EMA26"),
    ("zh", "**基准策略的规则**", "- **MACD**：MACD(12, 26, 9)，用收盘价：MACD 线 = EMA12 − EMA26"),
])
def test_the_baselines_rules_are_shown_as_the_cli_writes_them(language, title, macd):
    result, _ = _scored(["NVDA"], date(2024, 1, 2), date(2024, 1, 5))
    text = baseline_rules(result, language)
    lines = text.splitlines()
    assert lines[0] == title and len(lines) == 2 + 5
    assert lines[3].startswith(macd)
    # The same rules as the CLI's file, which writes them in English.
    if language == "en":
        assert all(line in result.markdown() for line in lines[2:])
    else:
        assert not re.search(r"each day|closes", text)


@pytest.mark.parametrize(("language", "months"), [
    ("en", ["**January 2024**", "**February 2024**"]),
    ("zh", ["**2024年1月**", "**2024年2月**"]),
])
def test_the_day_links_are_short_lines_by_ticker_and_month(language, months):
    days = [Day("NVDA", d, "t", "done", s) for d, s in
            (("2024-02-01", "SELL"), ("2024-01-30", "BUY"), ("2024-01-31", "HOLD"))]
    days.append(Day("NVDA", "2024-02-02", "t", "failed"))
    days.append(Day("AAPL", "2024-01-30", "t", "done", "BUY"))
    text = day_links("1a2b3c4d", ["NVDA", "AAPL"], days, language)
    lines = text.splitlines()
    nvda, at = lines.index("**NVDA**"), "/backtest/1a2b3c4d/NVDA"
    assert lines[nvda + 2] == (f"- {months[0]} [30\u00a0🟢]({at}/2024-01-30 \"NVDA 2024-01-30 BUY\") "
                               f"[31\u00a0🟡]({at}/2024-01-31 \"NVDA 2024-01-31 HOLD\")")
    assert lines[nvda + 3] == (f"- {months[1]} [01\u00a0🔴]({at}/2024-02-01 \"NVDA 2024-02-01 SELL\") "
                               f"[02\u00a0⚠️]({at}/2024-02-02 \"NVDA 2024-02-02\")")  # failed: no signal
    aapl = lines.index("**AAPL**")
    assert lines[aapl + 2].startswith(f"- {months[0]} [30\u00a0🟢]") and len(lines) == aapl + 3
    assert ("🟢 BUY · 🔴 SELL" if language == "en" else "🟢 买入（BUY）") in text
