"""Quarters, halves and seasons, in English and Chinese (graph/request/period_dates.py), and the relative
phrases that read as today or as last year's end before ("this time last year", "the week before last",
"last May"). A quarter is its last day, as a month is; a half, a season and a fiscal quarter are asked."""

from __future__ import annotations

from datetime import date

import pytest

from graph.request import parse_request

SUNDAY = date(2026, 11, 22)
FRIDAY = date(2026, 11, 20)  # the last session on or before SUNDAY


@pytest.mark.parametrize("text, asked, trade", [
    ("NVDA Q3 2024", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA 2024 Q3", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA 3Q24", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA Q3'24", date(2024, 9, 30), date(2024, 9, 30)),
    ("how did NVDA look in the third quarter of 2024?", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA Q4 2023", date(2023, 12, 31), date(2023, 12, 29)),
    # without a year: the most recent such quarter; the current one is today
    ("NVDA in Q3", date(2026, 9, 30), date(2026, 9, 30)),
    ("NVDA Q1", date(2026, 3, 31), date(2026, 3, 31)),
    ("NVDA in Q4", SUNDAY, FRIDAY),
    ("should I have bought NVDA last quarter?", date(2026, 9, 30), date(2026, 9, 30)),
    ("NVDA at the end of Q2", date(2026, 6, 30), date(2026, 6, 30)),
    ("英伟达2024年第三季度", date(2024, 9, 30), date(2024, 9, 30)),
    ("英伟达 2024年Q3", date(2024, 9, 30), date(2024, 9, 30)),
    ("英伟达Q3 2024", date(2024, 9, 30), date(2024, 9, 30)),  # no word boundary between 达 and Q
    ("英伟达2024Q3怎么样", date(2024, 9, 30), date(2024, 9, 30)),
    ("英伟达去年三季度", date(2025, 9, 30), date(2025, 9, 30)),
    ("輝達去年第四季", date(2025, 12, 31), date(2025, 12, 31)),
    ("英伟达上季度", date(2026, 9, 30), date(2026, 9, 30)),
    ("英伟达一季度", date(2026, 3, 31), date(2026, 3, 31)),
    # a quarter with a relative year, the last quarter of a year, two quarters back (from a review)
    ("analyze NVDA in Q2 of last year", date(2025, 6, 30), date(2025, 6, 30)),
    ("NVDA last year's Q3", date(2025, 9, 30), date(2025, 9, 30)),
    ("analyze NVDA in the last quarter of 2024", date(2024, 12, 31), date(2024, 12, 31)),
    ("NVDA the quarter before last", date(2026, 6, 30), date(2026, 6, 30)),
    ("should I have bought NVDA in Q1, 2000 shares?", date(2026, 3, 31), date(2026, 3, 31)),
    ("英伟达2024年前三季度表现", date(2024, 9, 30), date(2024, 9, 30)),
    ("英伟达上一季度", date(2026, 9, 30), date(2026, 9, 30)),
    ("英伟达去年同期", date(2025, 11, 22), date(2025, 11, 21)),
    # from a second review: a question after another sentence, two back in Chinese, a year after a dash or slash
    ("should I buy NVDA? how did it do in Q3?", date(2026, 9, 30), date(2026, 9, 30)),
    ("英伟达上上季度", date(2026, 6, 30), date(2026, 6, 30)),
    ("NVDA q3-24", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA q3/24", date(2024, 9, 30), date(2024, 9, 30)),
    ("AMD Q4-2025", date(2025, 12, 31), date(2025, 12, 31)),
    # the other languages' quarters
    ("¿NVDA en el tercer trimestre de 2024?", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA el trimestre pasado", date(2026, 9, 30), date(2026, 9, 30)),
    ("NVDA troisième trimestre 2024", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA T3 2024", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA au troisième trimestre", date(2026, 9, 30), date(2026, 9, 30)),
    ("NVDA im dritten Quartal 2024", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA 3. Quartal 2024", date(2024, 9, 30), date(2024, 9, 30)),
    ("NVDA letztes Quartal", date(2026, 9, 30), date(2026, 9, 30)),
    ("NVDA 2024年第3四半期", date(2024, 9, 30), date(2024, 9, 30)),
    # read as today or as last year's December 31st before
    ("NVDA this time last year", date(2025, 11, 22), date(2025, 11, 21)),
    ("NVDA the week before last", date(2026, 11, 6), date(2026, 11, 6)),  # "last week" ends Nov 15 on a Sunday
    ("NVDA the month before last", date(2026, 9, 30), date(2026, 9, 30)),
    # "should ... have" looks back: the most recent March, not the coming one (it was refused before)
    ("should I have bought NVDA in March?", date(2026, 3, 31), date(2026, 3, 31)),
    ("should I have bought NVDA in Q1?", date(2026, 3, 31), date(2026, 3, 31)),
    ("would NVDA have been a buy in December", date(2025, 12, 31), date(2025, 12, 31)),
])
def test_read(text: str, asked: date, trade: date) -> None:
    p = parse_request(text, SUNDAY)
    assert (p.intent, p.asked_date, p.trade_date, p.question) == ("analyze", asked, trade, None)


@pytest.mark.parametrize("text, quoted", [
    ("NVDA last summer", "'last summer' doesn't say which day"),
    ("NVDA over the summer", "'over the summer' doesn't say which day"),
    ("NVDA summer 2024", "'summer 2024' doesn't say which day"),
    ("NVDA in the spring of 2024", "'in the spring of 2024' doesn't say which day"),
    ("NVDA H1 2024", "'H1 2024' doesn't say which day"),
    ("NVDA the first half of 2024", "'the first half of 2024' doesn't say which day"),
    ("NVDA fiscal Q3", "'fiscal Q3' doesn't say which day"),  # NVIDIA's fiscal Q3 ends in October
    ("NVDA FY25 Q3", "'FY25 Q3' doesn't say which day"),
    ("英伟达去年夏天", "“去年夏天”没有说明是哪一天"),
    ("英伟达2024年上半年", "“2024年上半年”没有说明是哪一天"),
    ("英伟达2025财年第三季度", "“2025财年第三季度”没有说明是哪一天"),
    ("should I have bought NVDA last May?", "'last May' could be 2026-05-31 or 2025-05-31"),
    ("NVDA early Q3", "'Q3' doesn't say which day"),  # a part of a quarter, as "early March"
    ("NVDA start of Q3 2025", "'Q3 2025' doesn't say which day"),
    ("NVDA Q3 2024 or Q4 2024", "more than one date (2024-09-30 or 2024-12-31)"),
])
def test_asked_back(text: str, quoted: str) -> None:
    p = parse_request(text, SUNDAY)
    assert p.intent == "clarify" and p.trade_date is None and quoted in (p.question or "")


@pytest.mark.parametrize("text, shown", [
    ("will NVDA rise in Q1?", "2027-03-31 is after today"),
    ("NVDA Q1 2027", "2027-03-31 is after today"),
    ("NVDA H2 2027", "'H2 2027' is after today"),
    ("英伟达明年一季度", "2027-03-31 晚于今天"),
    ("should I buy NVDA in December?", "2026-12-31 is after today"),
    ("will NVDA have a good run in December?", "2026-12-31 is after today"),  # "have" here is no perfect
    ("英伟达一季度会不会回调", "2027-03-31 晚于今天"),
    ("NVDA Q2 1985", "1985-06-30 is too far back"),
])
def test_refused(text: str, shown: str) -> None:
    p = parse_request(text, SUNDAY)
    assert p.intent == "clarify" and shown in (p.question or "")


@pytest.mark.parametrize("text", [
    "NVDA Q3 earnings, should I buy?", "NVDA Q3 2024 beat", "NVDA beat estimates last quarter",
    "NVDA rose 30% over the last quarter", "buy NVDA after this fall?", "is Q3 going to be strong for NVDA",
    "the last may be best: NVDA", "NVDA last may be cheap", "NVDA may fall",
    "英伟达三季度财报怎么样", "英伟达上季度业绩", "buy NVDA for Q1?",
    "Soll ich NVDA kaufen? Das dritte Quartal war stark", "NVDA h1 20% up, buy?",
    # amounts, chart time frames, moves, figures of speech, a show's season, results counted (from a review)
    "NVDA q3 1000 shares", "NVDA in Q4 1200 target?", "NVDA 1h 20 ema", "TSLA 2h 20 ema breakout",
    "analyze NVDA on the 1h 50 sma", "could NVDA fall 1000 points", "I lost a lot in the fall, should I buy NVDA now?",
    "NVDA's last fall was brutal, should I buy?", "should I buy NVDA after its last fall",
    "宁德时代的春天来了吗", "茅台的冬天过去了吗", "茅台春季躁动行情能持续吗", "英伟达秋季发布会后能买吗",
    "网飞鱿鱼游戏第二季上线后能买吗", "英伟达连续三季度超预期，还能买吗", "英伟达在中国庆祝成立日",
    # chips, Chinese words holding 一季度, reports in any language, spans, an explicit today (a second review)
    "NVDA H100 demand", "NVDA H200 shipments, buy?", "NVDA Q100", "英伟达下一季度会涨吗", "英伟达这一季度",
    "英伟达哪一季度最好", "英伟达单一季度涨幅", "英伟达Q3财报", "英伟达Q3營收", "英伟达2024Q3财报",
    "résultats de NVDA au troisième trimestre", "NVDA Ergebnisse im dritten Quartal", "NVDA Q3 2024 Zahlen",
    "NVDA tercer trimestre de 2025 ganancias", "NVDA 第3四半期決算", "NVDA since Q3", "自三季度以来英伟达涨了多少",
    "英伟达一季度至今", "英伟达今年一季度到现在", "NVDA before Q3 2025", "TSLA during spring break",
    "NVDA fell last quarter, should I buy today?", "英伟达三季度表现不错，现在能买吗？",
])
def test_not_a_date(text: str) -> None:
    p = parse_request(text, SUNDAY)
    assert (p.intent, p.asked_date, p.question) == ("analyze", SUNDAY, None)


def test_a_comparison_in_a_quarter_compares_on_its_last_day() -> None:
    from graph.compare.ask import read_comparison

    ask = read_comparison("苹果和微软2024Q3对比", SUNDAY)
    assert ask is not None and ask.tickers == ("AAPL", "MSFT") and ask.trade_date == date(2024, 9, 30)


def test_a_price_word_holding_a_company_name_is_not_that_company() -> None:
    # 价格力 holds 格力: the short name was dropped, 格力电器 stays
    p = parse_request("茅台价格力挺，能买吗", SUNDAY)
    assert (p.intent, p.ticker) == ("analyze", "600519.SS")
    assert parse_request("格力电器今天", SUNDAY).ticker == "000651.SZ"


@pytest.mark.parametrize("text", [
    "why was the bear worried about last quarter?", "熊方怎么看三季度？", "牛方提到上季度了吗",
    "what did the bull say about Q3 2025?", "explain the bull case for H2 2026",
])
def test_a_question_about_the_analysis_on_screen_that_talks_of_a_quarter_is_a_followup(text: str) -> None:
    # These re-ran the analysis at the quarter's end (or asked which day) before.
    p = parse_request(text, SUNDAY, has_decision=True, current_ticker="NVDA", current_date=FRIDAY)
    assert (p.intent, p.ticker, p.trade_date) == ("followup", "NVDA", FRIDAY)
