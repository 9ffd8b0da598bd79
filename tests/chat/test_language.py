"""The chat in the thread's language (issue 24, point 2, chat side): speakers' labels, the stage list,
the card, the chat's own sentences and the page's words; English unchanged (over the socket:
test_language_e2e.py)."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage

from chat.languages import page_language, primary
from chat.runs import acknowledgement
from chat.speakers import LABEL, label_metadata, speaker_label, speaker_metadata
from chat.views.card import card_markdown
from chat.views.render import Renderer
from chat.views.stages import StageList
from chat.web.serving import PAGE_WORDS, Serving
from graph.core.events import NodeDone, Said, Token
from graph.core.personas import DESK, PERSONAS
from graph.core.plan import RunPlan
from graph.core.settings import Settings
from graph.core.state import FinalDecision
from graph.core.words import _catalogue, phrase
from graph.notes.inbox import Note
from graph.runtime.notes import Posted

DECISION = FinalDecision(signal="SELL", position_size="1.8% of portfolio", entry="42.93", stop="49.49",
                         horizon="2-6 weeks", confidence=0.8, rationale="Trend is down.", ticker="NVDA",
                         trade_date="2024-05-03", words_say="BUY", read="json_schema")
CALLS = {"Research Manager": "SELL", "Trader": "HOLD"}


def test_the_chinese_chat_words_are_the_english_ones_keys():
    """Both catalogues in step: a key only Chinese has would never be read, one it lacks falls back to English."""
    english, chinese = _catalogue("en")["chat"], _catalogue("zh")["chat"]
    assert set(chinese) == set(english)
    assert len(chinese["starters"]) == len(english["starters"])
    for key, text in english.items():  # the same placeholders, so the code fills either
        if isinstance(text, str):
            assert set(_fields(text)) == set(_fields(chinese[key])), key


def _fields(text: str) -> list[str]:
    import string
    return [name for _, name, _, _ in string.Formatter().parse(text) if name]


@pytest.mark.parametrize("tag, code", [("zh-CN", "zh"), ("zh-CN,zh;q=0.9,en;q=0.8", "zh"), ("zh_TW", "zh-Hant"),
                                       ("en-US", "en"), ("de-DE,de;q=0.9", "de"), ("", "en"), (None, "en"),
                                       ("*", "en"), ("zh-HK,zh;q=0.9", "zh-Hant"), ("zh-Hans-HK", "zh")])
def test_the_browsers_language_is_its_first_choices_iso_code(tag, code):
    assert primary(tag) == code


def test_desk_language_fixes_the_pages_language_too(no_model_env, monkeypatch):
    assert page_language(Settings(), "zh-CN") == "zh"
    monkeypatch.setenv("DESK_LANGUAGE", "en")
    assert page_language(Settings(), "zh-CN") == "en"


def test_a_speakers_label_in_chinese_keeps_its_english_avatar():
    assert speaker_label("Bull Researcher", 2, "zh") == "多头研究员 · 第 2 轮"
    assert label_metadata("Bull Researcher", 2, "zh") == {"avatarName": "Bull Researcher · round 2",
                                                         LABEL: "多头研究员 · 第 2 轮"}
    assert label_metadata("Market Analyst", 0, "zh") == {LABEL: "市场分析师"}
    assert label_metadata(DESK, language="zh") == {LABEL: "交易台"}
    # English, and a language whose catalogue has no labels, as before: the avatar name alone.
    assert label_metadata("Bull Researcher", 2) == {"avatarName": "Bull Researcher · round 2"}
    assert label_metadata("Market Analyst") == label_metadata("Market Analyst", 0, "fr") == {}


async def test_a_chinese_run_labels_its_speakers_and_stages(emitter):
    r = Renderer(RunPlan(debate_rounds=2), language="zh")
    await r.handle(Said(DESK, "正在分析 **NVDA**。"))
    await r.handle(Token("Market Analyst", "Pulling data."))
    await r.handle(NodeDone("bull", {"messages": [AIMessage(content="Up.", name="Bull Researcher")]}))
    desk, = emitter.by_author(DESK)
    assert desk["metadata"][LABEL] == "交易台"
    assert emitter.by_author("Market Analyst")[0]["metadata"] == {LABEL: "市场分析师"}
    assert emitter.by_author("Bull Researcher")[0]["metadata"] == {"avatarName": "Bull Researcher · round 1",
                                                                   LABEL: "多头研究员 · 第 1 轮"}
    await r.progress.drained()
    sent = emitter.named("desk_stages")[-1]
    assert sent["title"] == "讨论中…"
    titles = [s["title"] for s in sent["stages"]]
    assert titles[:2] == ["市场分析师", "社交媒体分析师"]
    assert "多空辩论（2 轮）" in titles and "风险辩论（1 轮）" in titles and titles[-1] == "风险裁判"


async def test_the_coordinators_update_sets_the_runs_language(emitter):
    r = Renderer(RunPlan())  # reckoned English before the run; the coordinator says Chinese
    await r.handle(NodeDone("coordinator", {"language": "zh", "intent": "analyze"}))
    await r.handle(Token("Trader", "Buy."))
    assert emitter.by_author("Trader")[0]["metadata"] == {LABEL: "交易员"}


def test_an_english_stage_list_is_the_plans():
    plan = RunPlan(debate_rounds=2)
    assert [s["title"] for s in StageList(plan).payload()["stages"]] == [s.title for s in plan.stages()]
    assert StageList(plan).title == "Deliberating…"


def test_the_card_in_chinese():
    card = card_markdown(DECISION, "synthetic demo data", record="1 past call: 1 right", judge_words="Signal: BUY",
                         plan_calls=CALLS, language="zh")
    for label in ("**信号**", "**仓位**", "**入场**", "**止损**", "**期限**", "**置信度**"):
        assert f"| {label} |" in card
    assert "**决策链：** 研究经理 SELL → 交易员 HOLD → 风险裁判 SELL。" in card
    assert "**业绩记录：** 1 past call: 1 right。" in card
    assert "> ⚠ 风险裁判的原话是 **BUY**，但结构化裁决是 **SELL**" in card
    assert "**理由。** Trend is down." in card and "**风险裁判的原话。**" in card
    assert "_裁决读取：按 JSON 模式解码。数据来自 合成演示数据。_" in card
    assert phrase("zh", "chat.card_closing") in card
    for english in ("Position size", "Along the way", "Track record", "Rationale", "Ruling read", "Figures from"):
        assert english not in card


def test_the_card_in_english_is_as_it_was():
    card = card_markdown(DECISION, "synthetic demo data", record="1 past call: 1 right", judge_words="Signal: BUY",
                         plan_calls=CALLS)
    for line in ("| **Position size** | 1.8% of portfolio |",
                 "**Along the way:** Research Manager SELL → Trader HOLD → Risk Judge SELL.",
                 "**Track record:** 1 past call: 1 right.",
                 "> ⚠ The judge's words say **BUY**, but its structured ruling says **SELL**: the two disagree. "
                 "Read the judge's own words below before acting.",
                 "**Rationale.** Trend is down.", "**The judge's words.**",
                 "_Ruling read under its JSON schema. Figures from synthetic demo data._",
                 "The chart and the full report of the deliberation are attached. "
                 "Ask a follow-up (“why was the bear worried?”) or a new ticker any time."):
        assert line in card.splitlines()


def test_a_note_is_acknowledged_in_the_threads_language():
    to_bear = Posted(Note(seq=1, text="中国出口禁令呢？", to="Bear Researcher"), None)
    assert acknowledgement(to_bear, "zh") == "收到——将由**空头研究员**回答。"
    assert acknowledgement(to_bear) == "Noted — the **Bear Researcher** will answer this."
    nobody = Posted(Note(seq=2, text="?"), None)
    assert acknowledgement(nobody, "zh") == phrase("zh", "chat.noted_desk")


def test_every_persona_has_a_chinese_speaker_label():
    assert all(label_metadata(p, language="zh").get(LABEL) not in (None, p) for p in PERSONAS)


@pytest.mark.parametrize("accept, badge", [("zh-CN,zh;q=0.9", "演示模式 · 合成数据，没有真实数字"),
                                           ("en-US,en;q=0.9", "Demo mode · synthetic data, no real figures"),
                                           (None, "Demo mode · synthetic data, no real figures")])
async def test_the_page_gets_its_words_in_the_browsers_language(no_model_env, accept, badge):
    from starlette.requests import Request
    headers = [(b"accept-language", accept.encode())] if accept else []
    # Not chat.app's (test_app.py imports it on a data folder of its own): the same routes, on none.
    serving = Serving(SimpleNamespace(local=True), None, lambda: False, Settings())  # type: ignore[arg-type]
    facts = json.loads((await serving.page_facts(Request({"type": "http", "method": "GET", "path": "/desk/ui.json",
                                                         "headers": headers}))).body)
    assert facts["words"]["badge"] == badge
    assert set(facts["words"]) == set(PAGE_WORDS)


def test_speaker_metadata_follows_the_plans_rounds():
    plan = RunPlan(debate_rounds=2)
    assert speaker_metadata(plan, ["Bull Researcher", "Bear Researcher"], "Bull Researcher", "zh")[LABEL] \
        == "多头研究员 · 第 2 轮"
