"""Requests in Chinese and other languages: the case tables in tests/request/data/requests_*.tsv, the
language detected, and the parser's data files for them (names, date words, messages)."""

from __future__ import annotations

import csv
import re
import string
import tomllib
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from graph.request import parse_request
from graph.request.companies import is_known_ticker, normalize_ticker
from graph.request.language import detect_language
from graph.request.scripts import cjk_number
from graph.request.text import normalize
from graph.request.wordlists import DATA
from tests.support.hang import finishes

CASES = Path(__file__).parent / "data"
SUNDAY = date(2026, 11, 22)  # the default "today" of the tables, as in test_request.py


@dataclass(frozen=True)
class Case:
    text: str
    intent: str
    tickers: tuple[str, ...]
    trade_date: date | None
    language: str
    fragment: str | None
    today: date

    def __str__(self) -> str:
        return self.text


def load(name: str) -> list[Case]:
    cases = []
    for line in (CASES / name).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        text, intent, tickers, trade, language, fragment, today = line.split("\t")
        cases.append(Case(
            text=text,
            intent=intent,
            tickers=() if tickers == "-" else tuple(tickers.split("|")),
            trade_date=None if trade == "-" else date.fromisoformat(trade),
            language=language,
            fragment=None if fragment == "-" else fragment,
            today=SUNDAY if today == "-" else date.fromisoformat(today),
        ))
    return cases


ZH = load("requests_zh.tsv")
OTHER = load("requests_other.tsv")


def test_the_tables_are_large_enough() -> None:
    assert len(ZH) >= 100
    assert len(OTHER) >= 30
    assert {c.language for c in OTHER} >= {"es", "fr", "de", "ja"}
    texts = [c.text for c in ZH + OTHER]
    assert len(texts) == len(set(texts)), "a case is listed twice"


@pytest.mark.parametrize("case", ZH + OTHER, ids=str)
def test_request(case: Case) -> None:
    parsed = parse_request(case.text, case.today)
    assert parsed.intent == case.intent, parsed.reason
    assert parsed.language == case.language
    assert parsed.trade_date == case.trade_date, parsed.reason
    if case.intent == "clarify" and len(case.tickers) > 1:
        assert parsed.ticker is None
        for ticker in case.tickers:
            assert ticker in (parsed.question or ""), parsed.question
    elif case.intent != "chat":
        assert parsed.ticker == (case.tickers[0] if case.tickers else None), parsed.reason
    if case.fragment:
        assert case.fragment in (parsed.question or ""), parsed.question
    if case.intent == "clarify" and case.language in ("zh", "zh-Hant"):
        assert re.search(r"[\u4e00-\u9fff]", parsed.question or ""), "a Chinese request is answered in Chinese"
        assert not re.search(r"\b(?:the|which|should|type)\b", parsed.question or "", re.I), parsed.question


# --------------------------------------------------------------------------- the language


@pytest.mark.parametrize("text", [
    "NVDA", "nvda", "$NVDA", "AAPL 2024-05-01", "buy nvda", "analyze AAPL", "rerun", "hi", "thanks",
    "Apple", "tesla", "should i buy", "NVDA?", "what about last friday", "is coke a buy?", "Disney",
    "analyze Alphabet", "what do you think of tesla", "should I buy NVDA today?", "MSFT vs GOOGL",
    "how did your calls do", "sell TSLA now", "Mardi Gras rally in NVDA?",
])
def test_short_english_stays_english(text: str) -> None:
    assert detect_language(normalize(text)) == "en"
    assert parse_request(text, SUNDAY).language == "en"


@pytest.mark.parametrize("text, language", [
    ("英伟达", "zh"), ("輝達", "zh-Hant"), ("今日は", "ja"), ("トヨタ", "ja"), ("삼성전자 살까요", "ko"),
    ("NVDA kaufen", "de"), ("AAPL hoy", "es"), ("AAPL hier", "fr"), ("TSLA hace 3 días", "es"),
    ("¿Qué opinas de las acciones de Tesla esta semana?", "es"),
    ("Que pensez-vous des actions de Tesla cette semaine ?", "fr"),
    ("Was denkst du über die Aktie von Tesla?", "de"),
])
def test_language_is_detected(text: str, language: str) -> None:
    assert detect_language(normalize(text)) == language


def test_an_empty_message_is_english() -> None:
    assert parse_request("", SUNDAY).language == "en"


# --------------------------------------------------------------------------- codes and numbers


@pytest.mark.parametrize("raw, expected", [
    ("600519.SH", "600519.SS"), ("600519.ss", "600519.SS"), ("000001.sz", "000001.SZ"),
    ("700.HK", "0700.HK"), ("00700.HK", "0700.HK"), ("09988.HK", "9988.HK"),
])
def test_normalize_mainland_and_hong_kong(raw: str, expected: str) -> None:
    assert normalize_ticker(raw) == expected


@pytest.mark.parametrize("text", [
    "I have 600000 dollars, what should I buy?", "buy 600000 shares", "AAPL 20240501", "2024年5月1日",
    "买700股", "价格到600519", "港股 2025 年表现",
])
def test_numbers_that_are_not_codes(text: str) -> None:
    parsed = parse_request(text, SUNDAY)
    assert parsed.ticker in (None, "AAPL"), parsed.reason


@pytest.mark.parametrize("text, n", [("3", 3), ("三", 3), ("十", 10), ("十五", 15), ("二十", 20), ("两百", 200),
                                     ("二〇二四", 2024), ("x", None)])
def test_chinese_numerals(text: str, n: int | None) -> None:
    assert cjk_number(text) == n


# --------------------------------------------------------------------------- the data files


def _tsv(name: str) -> list[list[str]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("name, columns", [("date_phrases.tsv", 3), ("listing_cues.tsv", 2), ("call_words.tsv", 2)])
def test_tsv_data_is_sorted_unique_and_well_formed(name: str, columns: int) -> None:
    rows = _tsv(name)
    assert rows and all(len(r) == columns for r in rows), name
    keys = [r[0] for r in rows]
    assert keys == sorted(set(keys)), f"{name}: keep it sorted, one entry per line, no duplicates"
    assert all(k == k.lower() for k in keys), name


def test_date_phrases_have_known_meanings() -> None:
    for phrase, language, meaning in _tsv("date_phrases.tsv"):
        assert language in {"zh", "ja", "es", "fr", "de"}, phrase
        assert re.fullmatch(r"today|now|lastweek|(?:day|monthend|yearend|month|year|weekday|number):[+-]?\d+"
                            r"|unit:(?:day|week|month|year)|marker", meaning), phrase


def test_cjk_names_name_known_tickers_once() -> None:
    lines = (DATA / "companies_cjk.csv").read_text(encoding="utf-8").splitlines()
    seen: set[str] = set()
    for row in csv.DictReader(lines):
        for ticker in row["tickers"].split("|"):
            assert is_known_ticker(ticker), f"{ticker} is not in companies.csv"
        for name in row["names"].split("|"):
            assert name and name not in seen, f"{name} is listed twice"
            assert re.search(r"[\u3040-\u30ff\u3400-\u9fff]", name), f"{name}: English names go in companies.csv"
            seen.add(name)


def _catalogue(language: str) -> dict[str, str]:
    return tomllib.loads((DATA / f"messages_{language}.toml").read_text(encoding="utf-8"))


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_message_catalogues_match_english() -> None:
    english = _catalogue("en")
    for path in DATA.iterdir():
        if path.name.startswith("messages_") and path.name.endswith(".toml"):
            language = path.name[len("messages_"):-len(".toml")]
            for key, text in _catalogue(language).items():
                assert key in english, f"{path.name}: {key} is not a key of messages_en.toml"
                assert _fields(text) <= _fields(english[key]), f"{path.name}: {key} has unknown placeholders"
    chinese = _catalogue("zh")
    assert set(chinese) == set(english), "every Chinese message is written"


# --------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize("text", [
    "三天前" * 1300, "上上上上周" * 800, "先週 の " * 1000, " " * 3990 + "金曜", "1" * 4000, "一" * 3990 + "天前",
    "港股 " + "0" * 3990, "1一" * 2000, "12月" * 1300, "el viernes pasado hace 3 días " * 130, "sh" * 2000,
], ids=lambda t: f"{t[:6]}…{len(t)}")
def test_long_cjk_and_foreign_input_parses(text: str) -> None:
    # Two \s* in a row over a long run of blanks, or an unbounded count, once made one of these
    # take minutes; the whole parse of 4,000 characters is a few milliseconds.
    finishes(parse_request, text, SUNDAY)  # once minutes of backtracking; a few milliseconds now
