"""The notes under a backtest's table in the reader's language (issue 35, point 4): the CLI's file and an English
chat read them as they always did; a Chinese thread reads every one in Chinese (Traditional too), with the same
figures, days and tickers."""
from __future__ import annotations

import asyncio
import math
import re
from datetime import date

import pytest

from graph import Settings, SyntheticVendor
from graph.backtest.plan import make_plan
from graph.backtest.record import Backtest, Day, failure
from graph.backtest.result import DESK, Result, closes, score
from graph.backtest.simulate import Rules
from graph.backtest.table import PUBLISHED_SOURCE, Row

START, END = date(2024, 1, 2), date(2024, 1, 12)
# What a Chinese note may still hold in Latin letters: tickers, the signals, the metrics' columns, the library.
LATIN_KEPT = {"NVDA", "BUY", "SELL", "HOLD", "CR", "ARR", "SR", "MDD", "quantstats"}


def _result(*, failed_reason: str = failure("lease")) -> Result:
    """NVDA over two weeks on the demo's data, with every note there is: long-only with costs, a risk-free rate,
    a failed day, a day not run, a day that could not recall an earlier one, and a gap."""
    vendor = SyntheticVendor()
    plan = asyncio.run(make_plan(vendor, Settings(), ["NVDA"], START, END, today=date(2024, 6, 28)))
    backtest = Backtest("1a2b3c4d", "tester", plan)
    dates = plan.days["NVDA"]
    days = {f"NVDA:{d}": Day("NVDA", d.isoformat(), backtest.thread("NVDA", d), "done", "BUY") for d in dates[:-1]}
    days[f"NVDA:{dates[1]}"] = Day("NVDA", dates[1].isoformat(), "t", "failed", reason=failed_reason)
    days[f"NVDA:{dates[2]}"] = Day("NVDA", dates[2].isoformat(), "t", "done", "HOLD", unseen=["NVDA:x"])
    history, window = closes(vendor, "NVDA", plan.start, plan.end)
    window = window.copy()
    window.iloc[4] = math.nan  # a session without a close
    return score(backtest, days, vendor, rules=Rules("long_only", 2.5), risk_free_rate=0.04,
                 closes_of={"NVDA": (history, window)})


def test_in_english_the_notes_are_the_tables_own_lines_word_for_word():
    result = _result()
    lines = result.note_lines("en")
    assert lines == result.note_lines() == result.table.note_lines()
    text = "\n".join(lines)
    for said in ("- Synthetic: synthetic demo data and/or the demo model. These figures say nothing about a market.",
                 f"- {DESK}: one deliberation every trading day (market, social, news, fundamentals; "
                 "1 debate and 1 risk round), each on that day's data only; in between, its position is kept.",
                 "- Rule: BUY → long, SELL → flat (long-only), HOLD or no signal → keep the position; one unit, "
                 "no sizing.",
                 "- Rule: Cost: 2.5 bp of the portfolio per unit of position change (a flip pays twice).",
                 "- CR, ARR, SR, MDD in % (SR as is) from quantstats; SR with a risk-free rate of 0.04.",
                 "- Failed days (no signal: the position was kept): NVDA 2024-01-03 "
                 "(its thread is running in another process)",
                 "- Not run (1 days: no signal, the position was kept): NVDA:2024-01-12",
                 "- 1 day(s) ran beside an earlier day whose call had settled by their date, so could not recall it "
                 "(see the days below; --concurrency 1 avoids it).",
                 "- Gaps (a session without a close: no trade, no return): NVDA 2024-01-08"):
        assert said in lines, (said, text)
    assert len(lines) == 1 + 1 + 5 + 1 + 4


def test_in_chinese_every_note_is_chinese_with_the_same_figures_and_days():
    result = _result()
    english, chinese = result.note_lines("en"), result.note_lines("zh")
    assert len(chinese) == len(english)
    for line in chinese:
        assert line.startswith("- ") and re.search(r"[\u4e00-\u9fff]", line), line
        assert set(re.findall(r"[A-Za-z][A-Za-z-]*", line)) <= LATIN_KEPT, line
    text = "\n".join(chinese)
    for said in ("- 合成数据：合成演示数据和/或演示模型。这些数字与任何真实市场无关。",
                 "- 交易台：每个交易日讨论一次（市场分析师、社交媒体分析师、新闻分析师、基本面分析师；"
                 "多空辩论 1 轮、风险讨论 1 轮），每次只用当天的数据；两次之间保持仓位。",
                 "SELL → 空仓（只做多）",
                 "- 规则：成本：仓位每变动一个单位，付组合的 2.5 个基点（翻转付两次）。",
                 "SR 的无风险利率为 0.04。",
                 "- 失败的日子（没有信号：保持仓位）：NVDA 2024-01-03（它的讨论正在另一个进程中运行）",
                 "- 未运行（1 天：没有信号，保持仓位）：NVDA:2024-01-12",
                 "- 有 1 天与更早的一天同时运行",
                 "- 缺口（某个交易日没有收盘价：不交易，也没有收益）：NVDA 2024-01-08"):
        assert said in text, (said, text)
    # Traditional is the Simplified converted, as every other text of the desk.
    traditional = "\n".join(result.note_lines("zh-Hant"))
    assert "- 規則：" in traditional and "缺口（某個交易日沒有收盤價" in traditional
    assert "NVDA 2024-01-08" in traditional


def test_a_failed_days_reason_is_worded_and_its_error_kept_as_it_was():
    result = _result(failed_reason=failure("vendor", detail="news: rate limited"))
    assert result.failed[0].reason == "the data vendor failed: news: rate limited"  # the record stays English
    assert "(the data vendor failed: news: rate limited)" in "\n".join(result.note_lines("en"))
    assert "（行情数据源出错：news: rate limited）" in "\n".join(result.note_lines("zh"))
    assert Day("NVDA", "2024-01-03", "t", "failed", reason="something else").reason_in("zh") == "something else"


@pytest.mark.parametrize(("language", "described"), [
    ("en", ("BUY → long, SELL → short, HOLD or no signal → keep the position; one unit, no sizing.",
            "Trades at the close of the signal's day; the position earns from the next close on (no look-ahead).",
            "Starts flat; the first day has no return (no close before it in the window).",
            "Cost: 0 bp of the portfolio per unit of position change (a flip pays twice).",
            "A day without a close is a gap: nothing trades, and neither it nor the day after has a return.")),
    ("zh", ("BUY → 做多，SELL → 做空，HOLD 或没有信号 → 保持仓位；一个单位，不调整仓位大小。",
            "在信号当天的收盘价交易；新仓位从下一个收盘价起计算收益（不看未来）。",
            "开始时空仓；第一天没有收益（区间内在它之前没有收盘价）。",
            "成本：仓位每变动一个单位，付组合的 0 个基点（翻转付两次）。",
            "没有收盘价的交易日是缺口：那天不交易，它和它的下一天都没有收益。")),
])
def test_the_rules_are_described_in_the_readers_language(language, described):
    assert Rules().describe(language) == described
    assert Rules().describe() == Rules().describe("en")


def test_the_published_rows_name_and_source_in_chinese():
    row = Row("TradingAgents (published)", {}, PUBLISHED_SOURCE)
    assert Result.strategy_in(row, "en") == "TradingAgents (published)"
    assert Result.strategy_in(row, "zh") == "TradingAgents（论文公布）"
    assert Result.strategy_in(Row("MACD", {}), "zh") == "MACD"
