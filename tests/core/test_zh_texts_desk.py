"""The desk's own short texts follow the asker's (or the thread's) language: a backtest's plan and the reasons it
is refused, the holdings readers' reasons, a watch's questions and its stop-crossed notice, the lines an edit
folds and the card's line on it, an upload refused. English for "en", Simplified for "zh", and for "zh-Hant" the
Simplified catalogue converted to Traditional (no catalogue of its own)."""
from __future__ import annotations

import asyncio
from datetime import date
from decimal import Decimal as D
from types import SimpleNamespace
from typing import Any

import pytest

from chat.edits import CHANGED, FOLDED_WORDS, card_change, card_openings, folded_line, step_words
from chat.web.uploads import _refusal
from graph.backtest.ask import read_ask
from graph.backtest.plan import PlanRefused, check_budget, cost, make_plan, statement
from graph.book import Book, Position, read_csv, read_holdings
from graph.core.chinese_script import chinese_script, to_traditional
from graph.core.settings import Settings
from graph.core.state import FinalDecision
from graph.data.synthetic import SyntheticVendor
from graph.request import parse_request
from graph.track.calls import Call
from graph.watchlist.slots import request_text, stop_crossed
from graph.watchlist.words import read_watch

TODAY = date(2024, 6, 28)
LANGUAGES = ("en", "zh", "zh-Hant")


def in_language(text: str, language: str, english: str, chinese: str) -> None:
    """`text` is the English piece for "en", holds the Simplified piece for "zh", and its Traditional form (and
    not the Simplified, where they differ) for "zh-Hant"."""
    if language == "en":
        assert english in text, text
        assert chinese_script(text) is None and not any("\u4e00" <= c <= "\u9fff" for c in text), text
    elif language == "zh":
        assert chinese in text, text
    else:
        assert to_traditional(chinese) in text, text
        if to_traditional(chinese) != chinese:
            assert chinese not in text, text


def refused(ask_text: str, **options: Any) -> tuple[str, PlanRefused]:
    ask = read_ask(ask_text, TODAY)
    assert ask is not None and not ask.problem and ask.start and ask.end, ask
    with pytest.raises(PlanRefused) as caught:
        asyncio.run(make_plan(SyntheticVendor(), Settings(), ask.tickers, ask.start, ask.end, today=TODAY, **options))
    return ask.language, caught.value


# -- a backtest -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "language"), [
    ("backtest NVDA from January to March 2030", "en"),
    ("回测英伟达 2030年1月到3月", "zh"),
    ("回測輝達 2030年1月到3月", "zh-Hant"),
])
def test_a_backtest_refused_for_the_future_says_so_in_the_askers_language(text: str, language: str) -> None:
    asked, refusal = refused(text)
    assert asked == language
    assert "in the future" in str(refusal)  # the CLI's words, and the log's
    in_language(refusal.told(asked), language, "is in the future (today is 2024-06-28)", "在未来（今天是 2024-06-28）")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("options", "english", "chinese"), [
    ({"max_runs": 10}, "more than a backtest may run (10", "超过了一次回测的上限（10"),
    ({"every": 0}, "1 or more, not 0", "至少为 1，而不是 0"),
    ({"debate_rounds": 9}, "between 1 and 5, not 9", "在 1 到 5 之间，而不是 9"),
])
def test_every_refusal_is_in_the_catalogue(language: str, options: dict[str, Any], english: str,
                                           chinese: str) -> None:
    _, refusal = refused("backtest NVDA from January to March 2024", **options)
    in_language(refusal.told(language), language, english, chinese)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_budget_and_the_unknown_ticker_refusals(language: str) -> None:
    _, unknown = refused("backtest ZZZQ from January to March 2024")
    in_language(unknown.told(language), language, "Unknown ticker ZZZQ", "未知的代码 ZZZQ")
    plan = asyncio.run(make_plan(SyntheticVendor(), Settings(), ["AAPL"], date(2024, 1, 2), date(2024, 3, 28),
                                 today=TODAY))
    with pytest.raises(PlanRefused) as over:
        check_budget(plan, cost(plan, live=False), 100_000, to_run=plan.runs)
    in_language(over.value.told(language), language, "more than the budget of 100,000", "超过了 100,000 的预算")


@pytest.mark.parametrize(("language", "english", "chinese"), [
    ("en", ["Backtest plan: AAPL", "61 trading days", "61 deliberations", "Budget: 2,000,000 tokens",
            "Market data: synthetic demo data"],
     []),
    ("zh", [], ["回测计划：AAPL", "61 个交易日", "共 61 次讨论", "预算：2,000,000 个 token", "行情数据：合成演示数据"]),
    ("zh-Hant", [], ["回测计划：AAPL", "61 个交易日", "共 61 次讨论", "预算：2,000,000 个 token", "行情数据："]),
])
def test_the_plan_is_stated_in_the_askers_language(language: str, english: list[str], chinese: list[str]) -> None:
    plan = asyncio.run(make_plan(SyntheticVendor(), Settings(), ["AAPL"], date(2024, 1, 2), date(2024, 3, 28),
                                 today=TODAY, analysts=["market", "news"]))
    text = statement(plan, cost(plan, live=False), budget=2_000_000, language=language)
    for piece in english:
        in_language(text, language, piece, "")
    for piece in chinese:
        in_language(text, language, "", piece)
    if language != "en":
        in_language(text, language, "", "市场分析师、新闻分析师")  # the analysts by their labels


@pytest.mark.parametrize(("text", "language", "english", "chinese"), [
    ("backtest NVDA", "en", "Over which days?", ""),
    ("回测 英伟达", "zh", "", "回测哪段时间"),
    ("回測 輝達", "zh-Hant", "", "回测哪段时间"),
    ("回測 2024年1月到3月", "zh-Hant", "", "要回测哪些股票"),
])
def test_what_a_backtest_ask_lacks_is_asked_in_its_language(text: str, language: str, english: str,
                                                            chinese: str) -> None:
    ask = read_ask(text, TODAY)
    assert ask is not None and ask.language == language
    in_language(ask.problem, language, english, chinese)


# -- the book -------------------------------------------------------------------------------------------------

BOOK = Book((Position("AAPL", D(200), D(150)),), D(1000))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("words", "english", "chinese"), [
    ("I hold -50 TSLA", "a negative quantity (-50): to record a short say 'short 50 TSLA'", "数量为负（-50）"),
    ("sold 300 AAPL", "is more than the 200 held", "超过了持有的 200 股"),
    ("I hold 100 XYZQ at 5", "unknown symbol XYZQ", "未知的代码 XYZQ"),
    ("hello there", "no holding or cash read", "没有读到持仓或现金"),
    ("I hold 200 at 95", "no symbol read", "没有读到股票"),
    ("bought $5000 of AAPL", "is a sum of money", "是一笔金额"),
])
def test_the_holdings_readers_reasons(language: str, words: str, english: str, chinese: str) -> None:
    reading = read_holdings(words, BOOK)
    assert reading.problems and english in reading.problems[0].reason  # the English, as before
    in_language(reading.problems[0].told(language), language, english, chinese)


@pytest.mark.parametrize(("words", "language", "chinese"), [
    ("我持有-5股苹果", "zh", "数量为负（-5）"),
    ("我持有-5股蘋果", "zh-Hant", "数量为负（-5）"),
])
def test_holdings_told_in_chinese_are_answered_in_their_script(words: str, language: str, chinese: str) -> None:
    reading = read_holdings(words, BOOK)
    assert reading.language == language
    in_language(reading.problems[0].told(reading.language), language, "", chinese)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_changes_read_are_said_in_the_readers_language(language: str) -> None:
    reading = read_holdings("sold half my AAPL and cash is 15,000", BOOK)
    told = [change.told(language) for change in reading.changes]
    assert [c.summary for c in reading.changes] == ["sell half of AAPL: 100 of 200, leaving 100",
                                                    "set cash to 15,000.00 USD"]
    in_language(told[0], language, "sell half of AAPL: 100 of 200, leaving 100", "卖出 AAPL 的一半：200 股中的 100 股")
    in_language(told[1], language, "set cash to 15,000.00 USD", "现金设为 15,000.00 USD")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_csvs_refusals_and_notes(language: str) -> None:
    bad = read_csv("symbol,qty,cost\nNVDA,-5,1\nAAPL,1,-3\nMSFT,x,1\n")
    told = [error.told(language) for error in bad.errors]
    in_language(told[0], language, "row 2: a negative quantity (-5) for NVDA", "第 2 行：NVDA 的数量为负（-5）")
    in_language(told[1], language, "row 3: a negative cost (-3) for AAPL", "第 3 行：AAPL 的成本为负（-3）")
    in_language(told[2], language, "row 4: the quantity 'x' is not a number", "第 4 行：数量“x”不是数字")
    whole = read_csv("symbol,cost\nNVDA,95\n").errors[0]
    in_language(whole.told(language), language, "no quantity column", "表头里没有数量列")
    in_language(read_csv("").errors[0].told(language), language, "the file is empty", "文件是空的")
    noted = read_csv("symbol,qty\nNVDA,5\nNVDA,1\nXYZQ,1\n").notes
    in_language(noted[0].told(language), language, "XYZQ is not a company the desk knows", "XYZQ 不是交易台认识的公司")
    in_language(noted[1].told(language), language, "NVDA: 2 rows added into one position", "NVDA：2 行合并为一个持仓")


# -- a watch --------------------------------------------------------------------------------------------------

VENDOR = SyntheticVendor()
DAY = date(2024, 5, 10)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_stop_crossed_notice_is_in_the_watchs_language(language: str) -> None:
    low = float(VENDOR.ohlcv("NVDA", date(2024, 5, 2), DAY)["close"].min())
    call = Call(id="c:1", user="ana", thread_id="t", ticker="NVDA", trade_date="2024-05-01", signal="BUY",
                stop=f"{low + 0.01:.2f}")
    said = stop_crossed(SimpleNamespace(vendor=VENDOR), call, DAY, language)  # type: ignore[arg-type]
    stop = f"{low + 0.01:.2f}"
    in_language(said, language, f"the stop {stop} of the 2024-05-01 BUY call was crossed (close ",
                f"2024-05-01 的 BUY 判断的止损位 {stop} 已被突破（")


@pytest.mark.parametrize(("text", "language", "english", "chinese"), [
    ("watch NVDA every hour", "en", "at most once a trading day", ""),
    ("每小时关注英伟达", "zh", "", "关注每个交易日最多运行一次"),
    ("每小時關注輝達", "zh-Hant", "", "关注每个交易日最多运行一次"),
    ("每個交易日收盤後關注輝達和騰訊", "zh-Hant", "", "请按交易所分开关注：`每个交易日收盘后关注 NVDA`、"),
])
def test_a_watchs_questions_are_in_its_language(text: str, language: str, english: str, chinese: str) -> None:
    ask = read_watch(text, date(2024, 5, 1))
    assert ask is not None and ask.language == language
    in_language(ask.problem, language, english, chinese)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_scheduled_runs_request_makes_the_desk_answer_in_the_watchs_language(language: str) -> None:
    parsed = parse_request(request_text("NVDA", language), date(2024, 5, 1))
    assert parsed.intent == "analyze" and parsed.ticker == "NVDA" and parsed.language == language


# -- an edit --------------------------------------------------------------------------------------------------

def edited_state(language: str) -> dict[str, Any]:
    decision = FinalDecision(ticker="NVDA", trade_date="2024-05-01", signal="HOLD", position_size="0%",
                             entry="n/a", stop="n/a", horizon="2w", confidence=0.55, rationale="Wait.")
    was = decision.model_copy(update={"signal": "SELL", "position_size": "1.8% of portfolio", "confidence": 0.8})
    return {"final_decision": decision, "language": language,
            "forked": {"label": "Bull Researcher, round 1", "persona": "Bull Researcher", "parent_head": "cp-1",
                       "parent_decision": was}}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_cards_line_on_an_edit(language: str) -> None:
    line = card_change(edited_state(language))
    assert line is not None and line.startswith(card_openings(language)[0])
    english = "After your edit of the **Bull Researcher, round 1**: was SELL 1.8% at 0.80 → now HOLD at 0.55."
    chinese = "你编辑了**多头研究员，第 1 轮**之后：原为 SELL 仓位 1.8%，置信度 0.80 → 现为 HOLD，置信度 0.55。"
    in_language(line, language, english, chinese)
    # The card is found again on a reopened thread, in any language (an English card too, in a thread since switched).
    assert any(opening in line for opening in card_openings(language)) and CHANGED in card_openings(language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_folded_lines(language: str) -> None:
    label = step_words("Bear Researcher", 2, language)
    words = "one two three four five six seven eight nine ten eleven twelve thirteen"
    superseded = folded_line(words, language, label)
    shown = " ".join(words.split()[:FOLDED_WORDS])
    in_language(superseded.replace(shown, ""), language,
                "Superseded by your edit of the Bear Researcher, round 2: “", "已被你对空头研究员，第 2 轮的编辑取代")
    assert f"{shown} …”" in superseded and words.split()[FOLDED_WORDS] not in superseded
    # One short line (issue 35, point 5): the label, a few words, no pointer to where the rest is.
    assert len(superseded) <= 110 and "\n" not in superseded
    # Raw Markdown never shows in a folded line.
    card = folded_line("## 🔴 SELL NVDA · 2026-11-27\n\n> ✏️ After your edit of the **Bull", language, label)
    answer = folded_line('From the record:\n- Risk Judge: "**SELL NVDA**: 1.0%', language, label)
    assert "🔴 SELL NVDA · 2026-11-27 ✏️ After" in card and 'Risk Judge: "SELL NVDA: 1.0%' in answer
    assert not any(mark in line for line in (card, answer) for mark in ("#", "**", "> ", "- "))
    other = folded_line("a b", language)
    in_language(other.replace("a b", ""), language, "On another branch of this thread", "在这个对话的另一个分支上")


@pytest.mark.parametrize(("accept", "language"), [("en-US", "en"), ("zh-CN,zh;q=0.9", "zh"), ("zh-TW", "zh-Hant")])
def test_an_upload_refused_in_the_browsers_language(accept: str, language: str) -> None:
    from chat.languages import primary

    status, detail = _refusal("5000", 1000, primary(accept)) or (0, "")
    assert status == 413
    in_language(detail, language, "File size too large", "文件太大")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_comparisons_folded_line(language: str) -> None:
    line = folded_line("a b", language, step_words("Bull Researcher", 1, language), "AMD")
    in_language(line.replace("a b", ""), language, "(the thread of AMD's desk keeps both branches)",
                "（AMD 那张桌子的对话保留了两个分支）")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_cards_line_says_why_an_edit_left_the_decision(language: str) -> None:
    """Issue 35, point 5: the edited Bull said "I would buy", the ruling stayed SELL; the card says why, quoting the
    Research Manager's ruling (its words are the record's, the frame the thread's language)."""
    state = edited_state(language)
    decision = state["final_decision"].model_copy(update={"signal": "SELL", "position_size": "1.8% of portfolio",
                                                          "confidence": 0.8})
    ruling = "Recommendation: **SELL** NVDA. The evidence scores -2 (3 bullish signals, 5 bearish)."
    state |= {"final_decision": decision, "investment_plan": ruling}
    line = card_change(state)
    assert line is not None
    quoted = "“The evidence scores -2 (3 bullish signals, 5 bearish).”"
    in_language(line, language,
                f"the decision stands, SELL 1.8% at 0.80. The Research Manager's ruling says why: {quoted} The earlier",
                f"决定不变：SELL 仓位 1.8%，置信度 0.80。研究经理的裁决说明了原因：{quoted}。之前的分支")
    assert "**SELL**" not in line
    # A changed decision needs no why.
    assert "ruling says why" not in (card_change(edited_state(language)) or "")
