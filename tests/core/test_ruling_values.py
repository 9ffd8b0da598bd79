"""A ruling's size and horizon in the thread's language (issue 35, point 4): the demo judge writes "1.0% of the
portfolio" and "2-6 weeks"; a Chinese card, the record's table and the CLI say them in Chinese, either script.
Anything else the judge wrote is its own words and stays as written, and English stays English."""
from __future__ import annotations

import pytest

from graph.core.state import FinalDecision
from graph.core.words import ruling_value


@pytest.mark.parametrize(("key", "english", "zh", "zh_hant"), [
    ("position_size", "1.0% of the portfolio", "投资组合的 1.0%", "投資組合的 1.0%"),
    ("position_size", "2% of portfolio", "投资组合的 2%", "投資組合的 2%"),
    ("position_size", "no new position (0%)", "不建新仓（0%）", "不建新倉（0%）"),
    ("position_size", "0% (stay flat)", "不建新仓（0%）", "不建新倉（0%）"),
    ("horizon", "2-6 weeks", "2–6 周", "2–6 周"),
    ("horizon", "2 to 6 weeks", "2–6 周", "2–6 周"),
    ("horizon", "1 month", "1 个月", "1 個月"),
    ("horizon", "3 trading days", "3 个交易日", "3 個交易日"),
    ("horizon", "10 sessions", "10 个交易日", "10 個交易日"),
])
def test_the_demo_judges_values_in_chinese(key: str, english: str, zh: str, zh_hant: str):
    assert ruling_value("zh", key, english) == zh
    assert ruling_value("zh-Hant", key, english) == zh_hant
    assert ruling_value("en", key, english) == english


@pytest.mark.parametrize(("key", "text"), [
    ("position_size", "200 shares"), ("position_size", "仓位 2%"), ("horizon", "until earnings"),
    ("horizon", "2-6 周"), ("entry", "45.71"), ("stop", "2 weeks"), ("rationale", "1% of the portfolio"),
])
def test_other_values_are_the_judges_own_words(key: str, text: str):
    assert ruling_value("zh", key, text) == text


def test_a_language_without_these_words_keeps_the_judges():
    assert ruling_value("ja", "horizon", "2 to 6 weeks") == "2 to 6 weeks"


def test_the_cards_rows_carry_them_and_the_record_keeps_english():
    decision = FinalDecision(signal="SELL", position_size="1.0% of the portfolio", entry="45.71", stop="51.97",
                             horizon="2-6 weeks", confidence=0.59, rationale="why", ticker="NVDA",
                             trade_date="2026-11-27")
    assert dict(decision.rows("zh"))["仓位"] == "投资组合的 1.0%"
    assert dict(decision.rows("zh"))["期限"] == "2–6 周"
    assert dict(decision.rows())["Position size"] == "1.0% of the portfolio"
    assert dict(decision.rows())["Horizon"] == "2-6 weeks"
