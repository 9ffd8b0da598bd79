"""A comparison and a thread that already holds an analysis (issue 24, point 3), through the CLI as a user runs
it: two tickers in a follow-up are a question about the analysis, not a new comparison, unless asked as one;
a comparison asked there takes the thread's follow-ups; a comparison asked in Spanish has its desks speak Spanish
(the demo says so in Spanish); DESK_LANGUAGE fixes a comparison's language too."""
from __future__ import annotations

import re
from datetime import date

import pytest

from graph.compare.ask import read_comparison
from graph.core.words import phrase
from tests.cli.test_cli import run

TODAY = date(2024, 5, 6)


@pytest.mark.parametrize("text, compares", [
    ("空头说英伟达会被AMD抢走份额，有道理吗？", False), ("Is NVDA a better buy than the QQQ ETF?", False),
    ("Why did the bear think NVDA would lose share to AMD?", False), ("NVDA AMD", False),
    ("NVDA or AMD?", True), ("compare AAPL and MSFT", True), ("比较苹果和微软", True), ("英伟达和AMD哪个好", True),
    ("比較蘋果和微軟", True), ("¿NVDA o AMD?", True), ("NVDA oder AMD?", True), ("NVDAとAMDどっち？", True),
    ("NVDA vs AMD", True),
])
def test_in_a_thread_holding_an_analysis_two_tickers_compare_only_when_asked_to(text, compares):
    assert read_comparison(text, TODAY) is not None  # in a new thread, any two tickers compare
    assert (read_comparison(text, TODAY, in_analysis=True) is not None) is compares


@pytest.mark.parametrize("text, language", [
    ("¿Debería comprar NVDA o AMD hoy?", "es"), ("NVDA oder AMD kaufen?", "de"), ("NVDA or AMD?", "en"),
    ("英伟达还是AMD？", "zh"), ("輝達還是AMD？", "zh-Hant"),
])
def test_a_comparison_keeps_the_askers_language(text, language):
    ask = read_comparison(text, TODAY)
    assert ask is not None and ask.language == language
    assert read_comparison("NVDA or AMD?", TODAY, language_setting="zh").language == "zh"


def test_a_follow_up_naming_another_ticker_stays_a_follow_up_and_a_comparison_asked_there_takes_the_thread(tmp_path):
    first = run(["graph", "--today", "2024-05-06", "--quiet-tools", "英伟达今天能买吗"], tmp_path)
    assert first.returncode == 0, first.stderr
    thread = re.search(r"^thread (\w+)", first.stdout, re.M)[1]
    follow = run(["graph", "--thread", thread, "--today", "2024-05-06", "空头说英伟达会被AMD抢走份额，有道理吗？"],
                 tmp_path)
    assert follow.returncode == 0, follow.stderr  # a question about the analysis: answered from it
    assert "正在比较" not in follow.stdout and "· AMD" not in follow.stdout  # no desks started
    assert re.findall(r"^▶ (.+)$", follow.stdout, re.M) == ["交易台"]
    assert "From the stored deliberation on NVDA" in follow.stdout  # the demo's answer from the record

    compared = run(["graph", "--thread", thread, "--today", "2024-05-06", "--quiet-tools", "比较英伟达和AMD"], tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert "正在比较 NVDA、AMD" in compared.stdout
    asked = run(["graph", "--thread", thread, "--today", "2024-05-06", "哪个风险更大？"], tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert "NVDA" in asked.stdout and "AMD" in asked.stdout  # answered from both desks, not the old analysis
    assert "From the stored deliberation on NVDA" not in asked.stdout


def test_a_comparison_asked_in_spanish_has_its_desks_speak_spanish(tmp_path):
    out = run(["graph", "--today", "2024-05-06", "--quiet-tools", "¿Debería comprar NVDA o AMD hoy?"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count(phrase("es", "desk.demo_speaks_english")) == 2  # each desk's Desk, in Spanish
