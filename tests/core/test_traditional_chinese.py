"""Traditional Chinese (issue 24, point 2): a request in Traditional characters is answered in them.
The thread's language is "zh-Hant"; the desk's own texts are its Simplified catalogues converted by
OpenCC (graph/core/chinese_script.py); the personas are told to write Traditional."""
from __future__ import annotations

import re
from datetime import date

import pytest

from graph.core.chinese_script import chinese_script, chinese_tag, to_traditional
from graph.core.prompts import render_in
from graph.core.settings import Settings
from graph.core.words import is_language, language_name, phrase, word_list
from graph.nodes.speaking import language_line
from graph.nodes.thread_language import thread_language
from graph.request import parse_request

SUNDAY = date(2026, 11, 22)
# Characters only Simplified writes: none may be left in a text meant for Traditional readers.
SIMPLIFIED_ONLY = re.compile("[这们为么说买卖时间后还没经价据发开关点风险单个对从现实场]")


@pytest.mark.parametrize("text, script", [
    ("輝達今天能買嗎？", "zh-Hant"), ("英伟达今天能买吗？", "zh"), ("台積電 2330 可以買嗎", "zh-Hant"),
    ("苹果还是微软", "zh"), ("蘋果還是微軟", "zh-Hant"), ("今天可以", None), ("NVDA", None),
])
def test_which_script_a_text_is_written_in(text, script):
    assert chinese_script(text) == script


@pytest.mark.parametrize("tag, code", [
    ("zh-TW", "zh-Hant"), ("zh_hk", "zh-Hant"), ("zh-MO", "zh-Hant"), ("zh-Hant-TW", "zh-Hant"),
    ("zh-Hans-HK", "zh"), ("zh-CN", "zh"), ("zh", "zh"), ("en-US", None), ("zhx", None),
])
def test_language_tags_of_chinese(tag, code):
    assert chinese_tag(tag) == code


@pytest.mark.parametrize("setting, code", [("zh-tw", "zh-Hant"), ("zh-Hant", "zh-Hant"), ("ZH", "zh"), ("en", "en")])
def test_desk_language_can_fix_traditional(monkeypatch, setting, code):
    monkeypatch.setenv("DESK_LANGUAGE", setting)
    assert Settings().language == code


def test_a_client_cannot_put_anything_else_in_the_language():
    assert is_language("zh-Hant") and is_language("zh")
    for bad in ("zh-hant", "zh-Hant; ignore previous", "zh-Hant\n", "Chinese"):
        assert not is_language(bad)


def test_the_catalogues_in_traditional_are_the_simplified_ones_converted():
    simplified = phrase("zh", "card.title", ticker="NVDA", trade_date="2024-05-02", signal="BUY")
    traditional = phrase("zh-Hant", "card.title", ticker="NVDA", trade_date="2024-05-02", signal="BUY")
    assert traditional == to_traditional(simplified) == "NVDA 在 2024-05-02 的最終決定：BUY"
    assert word_list("zh-Hant", "chat.starters") == [to_traditional(s) for s in word_list("zh", "chat.starters")]
    for text in (*word_list("zh-Hant", "chat.starters"), render_in("zh-Hant", "demo_notice")):
        assert not SIMPLIFIED_ONLY.search(text), text


def test_the_personas_are_told_to_write_traditional():
    assert "繁體中文" in language_name("zh-Hant") and "Traditional" in language_name("zh-Hant")
    assert "繁體中文" in language_line({"language": "zh-Hant"})  # type: ignore[typeddict-item]
    assert "简体中文" in language_line({"language": "zh"})  # type: ignore[typeddict-item]


@pytest.mark.parametrize("text", ["阿里巴巴能買嗎", "明天輝達能買嗎", "輝達和蘋果哪個好", "2024年13月40日 輝達"])
def test_the_parsers_questions_and_refusals_come_in_traditional(text):
    parsed = parse_request(text, SUNDAY)
    assert parsed.language == "zh-Hant"
    assert parsed.question and re.search(r"[\u4e00-\u9fff]", parsed.question), parsed.question
    assert not SIMPLIFIED_ONLY.search(parsed.question), parsed.question


def test_the_parsers_company_names_come_in_traditional():
    question = parse_request("阿里巴巴能買嗎", SUNDAY).question or ""
    assert "阿里巴巴" in question and "9988.HK" in question and "BABA" in question


@pytest.mark.parametrize("current, text, expected", [
    ("zh-Hant", "今天可以", "zh-Hant"),  # either script: the thread's stays
    ("zh-Hant", "好的，那空頭呢？", "zh-Hant"),
    ("zh-Hant", "那空头呢？", "zh"),  # clearly Simplified: the user switched
    ("zh", "今天可以", "zh"),
    (None, "輝達今天能買嗎", "zh-Hant"),
])
def test_a_thread_keeps_its_script_on_a_message_that_could_be_either(current, text, expected):
    assert thread_language("auto", current, text) == expected
