"""The track record's words in the thread's language: the "Track record" step an analysis shows, the
card's line, the /record table and the answer to "how have your calls done?", in Simplified and
Traditional Chinese, English as before; figures, tickers, signals and dates as they are. The last test
drives the real chat server: a Chinese analysis's "Track record" step and /record answer in Chinese."""
from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from graph.core.personas import persona_label
from graph.core.words import phrase, word_list
from graph.track.calls import Call, Outcome
from graph.track.recall import recall
from graph.track.summary import card_line, pending_words, record_table, sides_line, summarize, verdict_word
from graph.track.words import last_call, recalled_line, recalled_markdown, record_answer
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished

BOTH = {"Bull Researcher": "up", "Bear Researcher": "down"}
TODAY = date(2024, 6, 3)
CHINESE = ("zh", "zh-Hant")
_HAN = re.compile(r"[\u4e00-\u9fff]")
REFLECTION = "The trend held. Lesson: trust the trend."  # a model's words, shown as it wrote them


def outcome(settle_date: str, raw: float, alpha: float, verdict: str, stop_hit: str | None = None) -> Outcome:
    return Outcome.model_validate(dict(
        settle_date=settle_date, sessions=5, entry_close=100.0, exit_close=100 * (1 + raw), raw_return=raw,
        benchmark="SPY", benchmark_return=raw - alpha, alpha=alpha, verdict=verdict, stop_hit=stop_hit,
        reflection=REFLECTION))


def make(n: int, ticker: str, signal: str, trade_date: str, o: Outcome | None, size: str = "2% of portfolio",
         pending: str = "", horizon: str = "1 week") -> Call:
    return Call.model_validate(dict(
        id=f"t{n}:1", user="ann", thread_id=f"t{n}", ticker=ticker, trade_date=trade_date, signal=signal,
        position_size=size, horizon=horizon, outcome=o, argued=BOTH, pending=pending))


CALLS = [
    make(1, "NVDA", "BUY", "2024-05-03", outcome("2024-05-10", 0.04, 0.03, "right")),
    make(2, "NVDA", "SELL", "2024-05-10", outcome("2024-05-17", 0.025, 0.02, "wrong", stop_hit="2024-05-13")),
    make(3, "AAPL", "HOLD", "2024-05-07", outcome("2024-05-14", 0.0, -0.01, "right")),
    make(4, "TSLA", "BUY", "2024-05-31", None,
         pending="settles on or after 2024-06-07 (5 trading days after the trade date)"),
    make(5, "AMD", "BUY", "2024-05-20", None, pending="the data vendor failed: timeout; will retry"),
]


def han(text: str) -> bool:
    return _HAN.search(text) is not None


def english_words(text: str) -> set[str]:
    """The English words a text says (not its tickers, signals, benchmark or figures)."""
    known = {"NVDA", "AAPL", "TSLA", "AMD", "SPY", "BUY", "SELL", "HOLD", "timeout"}
    return {w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in known}


def recalled_record(ticker: str = "NVDA", day: str = "2024-06-03") -> dict[str, Any]:
    return recall([c.model_dump(mode="json") for c in CALLS], ticker, day)


# English: byte for byte as before.

def test_english_is_unchanged() -> None:
    summary = summarize([c for c in CALLS if c.ticker == "NVDA"])
    assert card_line(summary) == card_line(summary, "en") == "2 past calls: 1 right, mean alpha +0.5 %"
    assert sides_line(summary, "en") == "Bull Researcher 2/2 right · Bear Researcher 0/2 · Risk Judge 1/2"
    table = record_table(CALLS, today=TODAY, language="en")
    assert table == record_table(CALLS, today=TODAY)
    assert table.splitlines()[0] == "| Date | Ticker | Call | Settled | Return | Alpha | Verdict |"
    assert "| 2024-05-31 | TSLA | BUY 2% of portfolio | after 2024-06-07 | — | — | pending |" in table
    assert "- 2024-05-20 AMD: the data vendor failed: timeout; will retry" in table
    assert "| +2.50 % (stop hit 2024-05-13) | +2.00 % vs SPY | wrong |" in table
    assert last_call(CALLS, "NVDA", "en") == (
        "Last time on **NVDA** (2024-05-10) the desk said **SELL** (2% of portfolio), and it was **wrong**: "
        "NVDA +2.50 % against SPY +0.50 % over 5 sessions, alpha +2.00 %.")
    assert last_call(CALLS, "TSLA") == (
        "Last time on **TSLA** (2024-05-31) the desk said **BUY** (2% of portfolio); it is not scored yet: "
        "settles on or after 2024-06-07 (5 trading days after the trade date).")
    assert record_answer(CALLS, "NVDA", TODAY).startswith("**Your track record on NVDA**\n\nLast time on **NVDA**")
    record = recalled_record()
    assert recalled_line(record) == record["line"] == "2 past calls: 1 right, mean alpha +0.5 %"
    text = recalled_markdown(record)
    assert text == recalled_markdown(record, "en")
    assert text.startswith("Calls scored on or before **2024-06-03** (nothing later is recalled).\n\n"
                           "On NVDA: 2 past calls: 1 right, mean alpha +0.5 %.\n\n**Past calls on NVDA**\n")
    assert ("- 2024-05-10 **NVDA SELL** → wrong: +2.50 %, alpha +2.00 % vs SPY over 5 sessions, "
            f"stop hit 2024-05-13. {REFLECTION}") in text
    assert recalled_markdown({"ticker": "NVDA", "trade_date": "2024-06-03"}).startswith(
        "No call on record was scored on or before 2024-06-03, so the desk starts from nothing.")
    assert record_table([], today=TODAY).startswith("No calls are logged yet. Ask, e.g., “should I buy NVDA today?”")


# Chinese, Simplified and Traditional.

@pytest.mark.parametrize("language", CHINESE)
def test_the_card_line_and_the_sides_in_chinese(language: str) -> None:
    summary = summarize([c for c in CALLS if c.ticker in ("NVDA", "TSLA")])
    line = card_line(summary, language)
    assert line == phrase(language, "track.with_pending", pending=1, line=phrase(
        language, "track.settled", head=phrase(language, "track.calls_many", n=3), right=1, alpha="+0.5 %"))
    assert han(line) and "+0.5 %" in line and not english_words(line)
    assert han(card_line(summarize(CALLS[3:4]), language)) and "1" in card_line(summarize(CALLS[3:4]), language)
    sides = sides_line(summary, language)
    assert persona_label("Bull Researcher", language) in sides and "2/2" in sides and not english_words(sides)


@pytest.mark.parametrize("language", CHINESE)
def test_the_record_table_in_chinese(language: str) -> None:
    table = record_table(CALLS, today=TODAY, language=language)
    lines = table.splitlines()
    assert lines[0] == "| " + " | ".join(word_list(language, "track.columns")) + " |" and han(lines[0])
    assert lines[1] == "|---|---|---|---|---|---|---|"
    rows = lines[2:7]
    assert all(r.replace("\\|", "").count("|") == 8 for r in rows)
    pending, right, wrong = (verdict_word(v, language) for v in ("pending", "right", "wrong"))
    size = phrase(language, "values.size_of_portfolio", pct=2)  # the size in the thread's language (issue 35)
    assert han(size) and "portfolio" not in table
    assert f"| 2024-05-31 | TSLA | BUY {size} | {phrase(language, 'track.after', date='2024-06-07')} " \
           f"| — | — | {pending} |" in rows
    assert han(pending) and han(right) and han(wrong) and len({pending, right, wrong}) == 3
    assert any(f"| SELL {size} | 2024-05-17 | +2.50 %" in r and "2024-05-13" in r and f"| {wrong} |" in r
               for r in rows)
    assert f"- 2024-05-20 AMD: {pending_words('the data vendor failed: timeout; will retry', language)}" in lines
    assert not english_words(table), english_words(table)
    empty = record_table([], today=TODAY, language=language)
    assert han(empty) and "NVDA" in empty and not english_words(empty)


@pytest.mark.parametrize("language", CHINESE)
def test_the_pending_reasons_in_chinese(language: str) -> None:
    reasons = {
        "settles on or after 2024-06-07 (5 trading days after the trade date)": ("2024-06-07", "5"),
        "settles on or after 2024-06-07": ("2024-06-07",),
        "due: scored at the next settlement pass": (),
        "made on synthetic demo data; this desk reads Yahoo Finance, so it is scored only when the desk runs on "
        "that data again": ("synthetic demo data", "Yahoo Finance"),
        "its trade date '2024-13-01' cannot be read": ("'2024-13-01'",),
        "the data vendor failed: boom; will retry": ("boom",),
        "no close for SPY on 2024-06-07 from Yahoo Finance": ("SPY", "2024-06-07", "Yahoo Finance"),
        "the data has only 3 of 5 sessions after 2024-06-03 for NVDA from Yahoo Finance; will retry":
            ("3", "5", "2024-06-03", "NVDA", "Yahoo Finance"),
        "its window is not over": (),
    }
    for reason, kept in reasons.items():
        assert pending_words(reason, "en") == reason
        worded = pending_words(reason, language)
        assert han(worded) and all(k in worded for k in kept), worded
    assert pending_words("an older reason", language) == "an older reason"  # shown as stored


@pytest.mark.parametrize("language", CHINESE)
def test_the_answer_about_past_calls_in_chinese(language: str) -> None:
    answer = record_answer(CALLS, "NVDA", TODAY, language)
    title, last, table = answer.split("\n\n", 2)
    assert title == phrase(language, "track.answer_title_ticker", ticker="NVDA") and han(title)
    assert han(last) and "**SELL**" in last and "2024-05-10" in last and "+2.00 %" in last and "SPY" in last
    assert f"**{verdict_word('wrong', language)}**" in last
    assert table == record_table(CALLS, today=TODAY, language=language)
    assert not english_words(answer), english_words(answer)
    waiting = last_call(CALLS, "TSLA", language)
    assert han(waiting) and "**BUY**" in waiting and "2024-06-07" in waiting and not english_words(waiting)
    assert han(record_answer([], None, TODAY, language).split("\n\n")[0])


@pytest.mark.parametrize("language", CHINESE)
def test_the_recalled_step_in_chinese(language: str) -> None:
    record = recalled_record()
    text = recalled_markdown(record, language)
    assert "**2024-06-03**" in text and han(text)
    assert phrase(language, "track.recalled_line", ticker="NVDA", line=card_line(
        summarize([c for c in CALLS if c.ticker == "NVDA"]), language)) in text
    assert f"**NVDA SELL** → {verdict_word('wrong', language)}" in text and "+2.00 %" in text
    assert REFLECTION in text
    assert not english_words(text.replace(REFLECTION, "")), english_words(text)
    pending = recalled_markdown(recalled_record("TSLA"), language)
    assert "2024-05-31 BUY: " in pending and "2024-06-07" in pending
    assert not english_words(pending.replace(REFLECTION, ""))
    nothing = recalled_markdown({"ticker": "NVDA", "trade_date": "2024-06-03"}, language)
    assert han(nothing) and "2024-06-03" in nothing and not english_words(nothing)


@pytest.mark.parametrize("language", CHINESE)
def test_a_record_recalled_before_its_figures_were_kept(language: str) -> None:
    """An old checkpoint's record holds the English line only: it is read back into figures."""
    for line in ("2 past calls: 1 right, mean alpha +0.5 %", "3 past calls: 1 right, mean alpha -1.2 %; 1 pending",
                 "1 past call, none settled yet"):
        old = {"ticker": "NVDA", "trade_date": "2024-06-03", "line": line}
        assert recalled_line(old, "en") == line
        worded = recalled_line(old, language)
        assert han(worded) and not english_words(worded)
        assert all(figure in worded for figure in re.findall(r"[+-]\d+\.\d %|\d+", line))
    assert recalled_line({"line": "something else"}, language) == "something else"
    assert recalled_line({}, language) == ""


def test_traditional_reads_the_simplified_words_converted() -> None:
    table = record_table(CALLS, today=TODAY, language="zh-Hant")
    assert table != record_table(CALLS, today=TODAY, language="zh")
    assert verdict_word("right", "zh-Hant") != verdict_word("right", "zh")  # 正确 / 正確


# Over the socket: the real chat server in demo mode.

@pytest.fixture
def server(tmp_path):
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="0")  # no pace: whole runs, none watched as it streams
    server.start()
    yield server
    server.stop()


@pytest.mark.e2e
async def test_a_chinese_analysis_shows_its_track_record_in_chinese(server) -> None:
    client = DeskClient(server.base, username="mei")
    await client.connect()
    step = persona_label("Track record", "zh")

    def recalled() -> list[str]:
        return [m.get("output", "") for m in client.messages.values() if m.get("name") == step]

    async def ask(text: str, runs: int) -> None:
        await client.send(text)
        await client.wait_for(lambda: runs_finished(client) >= runs, 120, f"the answer to {text!r}")

    try:
        await ask("英伟达 2024-03-01 能买吗？", 1)
        [first] = recalled()
        assert first.startswith(phrase("zh", "track.recalled_nothing", trade_date="2024-03-01"))
        await ask("英伟达 2024-06-03 能买吗？", 2)
        [_, second] = recalled()
        assert second.startswith(phrase("zh", "track.recalled_head", trade_date="2024-06-03"))
        right, wrong = verdict_word("right", "zh"), verdict_word("wrong", "zh")
        assert re.search(rf"2024-03-01 \*\*NVDA (BUY|SELL|HOLD)\*\* → ({right}|{wrong})", second), second
        await ask("/record", 3)
        answer = [m.get("output", "") for m in client.by_author("Desk")][-1]
        assert answer.startswith(phrase("zh", "track.answer_title"))
        assert "| " + " | ".join(word_list("zh", "track.columns")) + " |" in answer
        assert "| 2024-03-01 | NVDA |" in answer and "| 2024-06-03 | NVDA |" in answer
    finally:
        await client.close()
