"""The chat's own texts in a Chinese thread (issue 24, point 2): the errors the user reads, the Stop and
Resume buttons, the edit dialogue, the settings panel, the sidebar's thread names, the CLI's opening
line. English stays as it was (tests/core/test_errors.py, tests/chat/test_settings_guard.py, ...)."""
from __future__ import annotations

import re
from datetime import UTC, datetime

import httpx
import openai
import pytest

from chat.edits import EDIT_PROMPT_MARK, EDIT_PROMPT_START, switch_action
from chat.features.edit_actions import _label, _prompt
from chat.panel import check_settings, describe, next_analysis, settings_widgets
from chat.runs import resume_action
from chat.views.thread_names import NAME_RUNNING, NAME_STOPPED, thread_title
from graph import Settings, Step
from graph.core.errors import NO_TOOLS, DeskError, explain
from graph.core.usage import BudgetReached
from graph.core.words import _catalogue, phrase
from graph.nodes.speaking import EmptyAnswer, Stalled

REQUEST = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
RESPONSE = httpx.Response(429, request=REQUEST)
HAN = re.compile(r"[\u4e00-\u9fff]")


def test_the_error_words_are_the_same_keys_in_both_catalogues():
    english, chinese = _catalogue("en")["errors"], _catalogue("zh")["errors"]
    assert set(chinese) == set(english)


@pytest.mark.parametrize("exc, english", [
    (TimeoutError(), "The model did not answer in time."),
    (openai.RateLimitError("slow down", response=RESPONSE, body=None), "rate-limiting"),
    (openai.AuthenticationError("bad key", response=httpx.Response(401, request=REQUEST), body=None), "API key"),
    (openai.APIConnectionError(request=REQUEST), "Cannot reach the model server"),
    (openai.NotFoundError("model llama9 not found", response=httpx.Response(404, request=REQUEST), body=None),
     "does not know the configured model"),
    (RuntimeError("registry.ollama.ai/library/gemma does not support tools"), "cannot call tools"),
    (ValueError("odd"), "Something went wrong: ValueError: odd"),
])
def test_each_kind_of_error_is_explained_in_chinese(exc, english):
    assert english in explain(exc)
    told = explain(exc, "zh")
    assert HAN.search(told) and english not in told, told


def test_the_desks_own_failures_are_told_in_chinese_with_the_persona_label():
    empty = EmptyAnswer(key="errors.empty_answer", persona="Risk Judge", tries=3)
    assert str(empty).startswith("Risk Judge: the model returned an empty answer 3 times")
    assert explain(empty, "zh").startswith("风险裁判：模型 3 次都返回了空回答")
    stalled = Stalled(key="errors.stalled", persona="Bear Researcher", seconds=60.0, tries=2)
    assert "60 s" in str(stalled) and "空头研究员：模型 60 秒内" in explain(stalled, "zh")
    budget = BudgetReached(key="errors.budget", persona="Trader", budget=100000, spent=99000, need=2000)
    assert "100,000" in str(budget) and explain(budget, "zh").startswith("交易员：已达到 100,000 个 token")
    # A failure inside a failure (a cut stream's cause) is told in the same language.
    cut = DeskError(key="errors.cut", persona="Trader", tries=3, why=TimeoutError())
    assert "模型没有及时回答" in explain(cut, "zh") and "did not answer in time" in str(cut)
    wrapped = DeskError(key="errors.persona", persona="Market Analyst", why=TimeoutError())
    try:
        raise wrapped
    except DeskError as exc:
        assert explain(exc, "zh").startswith("市场分析师：模型没有及时回答")
    assert DeskError("a sentence of its own").told("zh") == "a sentence of its own"
    assert NO_TOOLS.startswith("The configured model cannot call tools")


def test_stop_and_resume_are_labelled_in_chinese():
    resume = resume_action("t", "zh")
    assert (resume.label, resume.tooltip) == ("继续", phrase("zh", "chat.resume_tooltip"))
    assert resume_action("t").label == "Resume"
    assert phrase("zh", "chat.stop") == "停止" and HAN.search(phrase("zh", "chat.stop_tooltip"))


def test_the_edit_dialogue_in_chinese():
    step = Step("bull-2", "Bull Researcher", "Bull Researcher, round 2", "Buy the dip.", "cp", "bull", 2)
    assert _label(step, "en") == "Bull Researcher, round 2" and _label(step, "zh") == "多头研究员，第 2 轮"
    english, chinese = _prompt(step, "en"), _prompt(step, "zh")
    assert english.startswith(f"{EDIT_PROMPT_START} the **Bull Researcher, round 2**. Send the words")
    assert chinese.startswith("✏️ 正在编辑**多头研究员，第 2 轮**的发言") and chinese.startswith(EDIT_PROMPT_MARK)
    assert chinese.endswith("~~~text\nBuy the dip.\n~~~")
    switch = switch_action("t", "h", phrase("zh", "chat.switch_back"), "zh")
    assert (switch.label, switch.tooltip) == ("切换回去", phrase("zh", "chat.switch_tooltip"))
    for key in ("edit_not_yours", "edit_running", "edit_gone", "switch_not_yours", "switch_running",
                "switch_unknown", "switch_current", "edited", "back_to_earlier"):
        assert HAN.search(phrase("zh", f"chat.{key}")), key
    assert phrase("zh", "chat.edit_kept", label="空头研究员") == "没有编辑：空头研究员的原话保持不变。"
    assert phrase("zh", "chat.edit_failed", reason="x").startswith("⚠️ 编辑没有成功")


def test_the_settings_panel_in_chinese():
    live = Settings(DESK_MODE="live", OPENAI_API_KEY="k")
    labels = {w.id: w.label for w in settings_widgets({}, live, "zh")}
    assert labels["analyst_market"] == "市场分析师" and labels["debate_rounds"] == "多空辩论轮数"
    assert labels["quick_model"].startswith("快速模型")
    switches = [w for w in settings_widgets({}, live, "zh") if w.id.startswith("analyst_")]
    assert {w.description for w in switches} == {"参加下一次分析"}
    assert describe(next_analysis({"debate_rounds": 2}, live), "zh").startswith("下一次分析：市场分析师、")
    assert "辩论 2 轮" in describe(next_analysis({"debate_rounds": 2}, live), "zh")
    checked = check_settings({"debate_rounds": 1000, "analyst_news": "abc", "junk": 1}, live)
    told = checked.refusal("zh") or ""
    assert told.startswith("设置没有改变：多空辩论轮数必须是1 到 5 之间的整数，而不是 1000")
    assert "新闻分析师必须是开或关" in told and "没有名为 'junk' 的设置" in told
    assert (checked.refusal() or "").startswith("Settings not changed: Bull ⇄ Bear debate rounds must be")
    assert (checked.refusal("zh", stored=True) or "").startswith("这个对话保存的设置中无效的部分被忽略")


def test_the_sidebar_names_a_chinese_thread_in_chinese():
    at = datetime(2024, 5, 3, 17, 42, tzinfo=UTC)
    state = {"ticker": "NVDA", "trade_date": "2024-05-03", "intent": "analyze", "language": "zh"}
    assert thread_title(state, status=NAME_RUNNING, at=at).endswith("· 进行中 · 17:42 UTC")
    assert thread_title(state, status=NAME_STOPPED, at=at).endswith("· 已停止 · 17:42 UTC")
    assert thread_title({**state, "language": "en"}, status=NAME_RUNNING, at=at).endswith("· running · 17:42 UTC")
    asked = {"intent": "clarify", "language": "zh", "pending_ticker": {"ticker": "XYZQ"}}
    assert thread_title({}, asked, asked="XYZQ", at=at) == "XYZQ · 未知代码？"
    assert thread_title({}, {"intent": "chat", "language": "zh"}, asked="?", at=at) == "提问 · 17:42 UTC"



def test_the_cli_opens_in_the_requests_language(tmp_path):
    from tests.support.cli import run_module as run
    out = run(["graph", "--today", "2024-05-06", "--analysts", "market", "--debate-rounds", "1", "--risk-rounds", "1",
               "--quiet-tools", "英伟达今天能买吗？"], tmp_path)
    assert out.returncode == 0, out.stderr
    opening = out.stdout.split("▶", 1)[0]
    assert "行情数据：" in opening and "演示" in opening and "Market data" not in opening, opening
