"""Weak models and flaky servers: the desk finishes, or stops with a sentence and a resumable thread.

Live cases run ChatOpenAI against the fake OpenAI server with one fault injected per request
(tests/support/fake_openai.py FAULTS); scripted cases use the scripted model in-process.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graph.core.errors import DeskError
from graph.core.events import ToolStarted
from graph.core.settings import Settings
from graph.models.registry import ModelRegistry
from graph.nodes.analysts import FETCHED_BY_DESK
from tests.support.desk import LiveDesk, live_settings
from tests.support.fake_openai import FakeOpenAI
from tests.support.models import ScriptedChatModel, human_text, system_text

ONE_ANALYST = {"analysts": ["market"]}


def fault_for(persona: str, fault: str, times: int | None = None,
              when: Callable[[dict], bool] = lambda body: True) -> Callable[[dict, str], str | None]:
    """`fault` for `persona`'s requests that match `when`: the first `times` of them (all: None)."""
    seen: Counter[str] = Counter()

    def decide(body: dict, who: str) -> str | None:
        if who != persona or not when(body):
            return None
        seen[who] += 1
        return fault if times is None or seen[who] <= times else None
    return decide


def asked(server: FakeOpenAI, persona: str) -> list[dict]:
    return [r for r in server.requests if f"You are the **{persona}**" in json.dumps(r["messages"])
            and r["messages"][0]["role"] == "system"
            and f"You are the **{persona}**" in str(r["messages"][0]["content"])]


def with_tools(body: dict) -> bool:
    return bool(body.get("tools")) and body.get("tool_choice") in (None, "auto")


def no_tools(body: dict) -> bool:
    return not body.get("tools")


def live(settings: Settings, server: FakeOpenAI, **overrides) -> LiveDesk:
    return LiveDesk(live_settings(settings, server).model_copy(update=overrides))


# -- empty, blank, cut, stalled ---------------------------------------------------------------

async def test_blank_answers_are_asked_again_then_recorded_as_no_answer(desk_factory):
    def blank(persona, messages, tools):
        return AIMessage(content=" \n\t\u200b ") if persona == "Bull Researcher" else None
    model = ScriptedChatModel(script=blank)
    desk = desk_factory(model)
    await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    state = await desk.state()
    bull = [t for t in state["investment_debate"].turns if t.persona == "Bull Researcher"]
    assert [t.text for t in bull] == ["(no answer: the model returned nothing, 3 times)"]
    assert Counter(c["persona"] for c in model.calls)["Bull Researcher"] == 3
    assert state["final_decision"] is not None, "a debater's silence does not stop the desk"


@pytest.mark.parametrize("fault", ["empty", "blank", "no_chunks"])
async def test_empty_answers_from_the_server_are_asked_again(settings, fault):
    with FakeOpenAI(fault=fault_for("Bull Researcher", fault, times=2)) as server:
        desk = live(settings, server)
        await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    state = await desk.state()
    assert state["investment_debate"].turns[0].text == "Bull Researcher here, answering the desk."
    assert len(asked(server, "Bull Researcher")) == 3
    assert state["final_decision"] is not None


async def test_a_stream_cut_mid_answer_is_asked_again(settings):
    with FakeOpenAI(fault=fault_for("Trader", "cut", times=1)) as server:
        desk = live(settings, server)
        await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    state = await desk.state()
    assert state["trader_plan"] == "Trader here, answering the desk."
    assert len(asked(server, "Trader")) == 2
    assert state["final_decision"] is not None


async def test_a_stream_cut_every_time_stops_with_a_clear_message_and_resumes(settings):
    with FakeOpenAI(fault=fault_for("Trader", "cut")) as server:
        desk = live(settings, server)
        with pytest.raises(DeskError) as info:
            await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
        assert "Trader: the model server cut its answer off 3 times" in str(info.value)
        assert "resume" in str(info.value)
        assert (await desk.runtime.interrupted(desk.thread)).personas == ("Trader",)
        server.fault = None  # the server is fixed
        await desk.ask(None)
    assert (await desk.state())["final_decision"] is not None


async def test_a_stalled_call_is_cancelled_and_asked_once_more(settings):
    with FakeOpenAI(fault=fault_for("Bear Researcher", "stall", times=1), stall_s=30) as server:
        desk = live(settings, server, stall_timeout_s=2.0)
        await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    state = await desk.state()
    assert state["investment_debate"].turns[1].text == "Bear Researcher here, answering the desk."
    assert len(asked(server, "Bear Researcher")) == 2


async def test_a_model_that_stalls_again_stops_with_a_clear_message_and_resumes(settings):
    with FakeOpenAI(fault=fault_for("Bear Researcher", "stall"), stall_s=30) as server:
        desk = live(settings, server, stall_timeout_s=2.0)
        with pytest.raises(DeskError) as info:
            await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
        assert "Bear Researcher: the model sent nothing for 2 s, 2 times" in str(info.value)
        assert "DESK_STALL_TIMEOUT_S" in str(info.value) and "resume" in str(info.value)
        assert len(asked(server, "Bear Researcher")) == 2
        assert (await desk.runtime.interrupted(desk.thread)).personas == ("Bear Researcher",)
        server.fault = None
        await desk.ask(None)
    assert (await desk.state())["final_decision"] is not None


async def test_a_judge_without_words_stops_the_run_and_the_thread_resumes(settings):
    with FakeOpenAI(fault=fault_for("Risk Judge", "blank", when=no_tools)) as server:
        desk = live(settings, server)
        with pytest.raises(DeskError) as info:
            await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
        assert "Risk Judge" in str(info.value) and "no decision was made" in str(info.value)
        assert (await desk.state()).get("final_decision") is None
        assert (await desk.runtime.interrupted(desk.thread)).personas == ("Risk Judge",)
        server.fault = None
        await desk.ask(None)
    assert (await desk.state())["final_decision"].signal == "BUY"


# -- tools: written as text, malformed, never called, refused ------------------------------------

async def test_a_tool_call_written_as_text_is_run(settings):
    with FakeOpenAI(fault=fault_for("Market Analyst", "text_call", times=1, when=with_tools)) as server:
        desk = live(settings, server)
        events = await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    assert [e.tool for e in events if isinstance(e, ToolStarted)] == ["get_price_history"]
    second = asked(server, "Market Analyst")[1]["messages"]
    assert second[-2]["role"] == "assistant" and '"name": "get_price_history"' in second[-2]["content"]
    assert second[-1]["role"] == "user" and second[-1]["content"].startswith("The tools answered:")
    state = await desk.state()
    assert "The tool said: NVDA daily prices" in state["market_report"]
    assert state["final_decision"] is not None


async def test_malformed_tool_arguments_get_an_error_the_model_can_act_on(settings):
    with FakeOpenAI(fault=fault_for("Market Analyst", "bad_args", times=1, when=with_tools)) as server:
        desk = live(settings, server)
        await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    second = asked(server, "Market Analyst")[1]["messages"]
    call, answer = second[-2], second[-1]
    assert call["tool_calls"][0]["function"]["arguments"] == '{"lookback_days": thirty}'
    assert answer["role"] == "tool" and answer["tool_call_id"] == call["tool_calls"][0]["id"]
    assert "not valid JSON" in answer["content"] and "Call get_price_history again" in answer["content"]
    assert (await desk.state())["final_decision"] is not None


TEXT_CALLS = [
    '<tool_call>\n{"name": "get_indicators", "arguments": {}}\n</tool_call>',
    '```json\n{"name": "get_indicators", "parameters": {}}\n```',
    '{"type": "function", "function": {"name": "get_indicators", "arguments": "{}"}}',
    "<function=get_indicators>{}</function>",
    "get_indicators()",
]


@pytest.mark.parametrize("text", TEXT_CALLS)
async def test_the_usual_ways_of_writing_a_call_as_text_are_read(desk_factory, text):
    def writes_calls(persona, messages, tools):
        if persona == "Market Analyst" and len(messages) == 2:
            return AIMessage(content=text)
        return None  # then the demo model: it calls its tools, and writes from their results
    model = ScriptedChatModel(script=writes_calls)
    desk = desk_factory(model)
    events = await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    tools = [e.tool for e in events if isinstance(e, ToolStarted)]
    assert tools[0] == "get_indicators"
    second = [c for c in model.calls if c["persona"] == "Market Analyst"][1]["messages"]
    assert isinstance(second[-1], HumanMessage) and "### get_indicators" in second[-1].content
    assert "| Key figure |" in (await desk.state())["market_report"]


async def test_invalid_arguments_from_a_model_without_call_ids_are_answered(desk_factory):
    bad = {"name": "get_price_history", "args": '{"lookback_days": thirty}', "id": None, "error": "not JSON",
           "type": "invalid_tool_call"}

    def malformed(persona, messages, tools):
        if persona == "Market Analyst" and len(messages) == 2:
            return AIMessage(content="", invalid_tool_calls=[bad])
        return None
    model = ScriptedChatModel(script=malformed)
    desk = desk_factory(model)
    await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    second = [c for c in model.calls if c["persona"] == "Market Analyst"][1]["messages"]
    [asked_for] = second[-2].invalid_tool_calls
    assert isinstance(second[-1], ToolMessage) and second[-1].status == "error"
    assert asked_for["id"] and second[-1].tool_call_id == asked_for["id"]
    assert "not valid JSON" in second[-1].content
    assert (await desk.state())["final_decision"] is not None


async def test_a_report_written_without_any_tool_is_redone_from_fetched_data(desk_factory):
    def guesses(persona, messages, tools):
        if persona != "Market Analyst":
            return None
        if "fetched every tool's data" in human_text(messages):
            return AIMessage(content="Report from the fetched data.")
        return AIMessage(content="NVDA looks great, RSI 99 and rising.")  # from no data at all
    model = ScriptedChatModel(script=guesses)
    desk = desk_factory(model)
    events = await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    assert {e.tool for e in events if isinstance(e, ToolStarted)} == {"get_price_history", "get_indicators"}
    calls = [c for c in model.calls if c["persona"] == "Market Analyst"]
    assert [bool(c["tools"]) for c in calls] == [True, False]
    assert "RSI 99" not in "".join(str(m.content) for m in calls[1]["messages"]), "the guess is dropped"
    assert "### get_indicators" in human_text(calls[1]["messages"])
    assert (await desk.state())["market_report"] == f"Report from the fetched data.\n\n{FETCHED_BY_DESK}"


async def test_a_model_that_only_ever_writes_calls_gets_its_report_forced_and_the_desk_goes_on(desk_factory):
    def loops(persona, messages, tools):
        if persona == "Market Analyst":
            return AIMessage(content='{"name": "get_price_history", "arguments": {}}')
        return None
    model = ScriptedChatModel(script=loops)
    desk = desk_factory(model, max_tool_rounds=2)
    await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    calls = [c for c in model.calls if c["persona"] == "Market Analyst"]
    assert [bool(c["tools"]) for c in calls] == [True, True, False]
    state = await desk.state()
    assert state["market_report"] == ("(no report: Market Analyst's model kept asking for tools instead of writing "
                                      "its report)")
    assert state["final_decision"] is not None


# -- output caps ----------------------------------------------------------------------------------

async def test_each_role_sends_its_output_cap_under_both_names(settings):
    with FakeOpenAI() as server:
        desk = live(settings, server)
        await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    caps = {}
    for persona in ("Market Analyst", "Bull Researcher", "Research Manager", "Trader", "Safe Analyst", "Risk Judge"):
        caps[persona] = {(r.get("max_completion_tokens"), r.get("max_tokens")) for r in asked(server, persona)}
    assert caps == {"Market Analyst": {(900, 900)}, "Bull Researcher": {(500, 500)}, "Research Manager": {(500, 500)},
                    "Trader": {(500, 500)}, "Safe Analyst": {(500, 500)}, "Risk Judge": {(700, 700)}}
    extraction = [r for r in server.requests if "Risk Judge**, recording" in json.dumps(r["messages"])]
    assert extraction and all(r["max_tokens"] == 700 for r in extraction), "the judge's extraction is capped too"
    stated = [r for r in server.requests if "call the **" in json.dumps(r["messages"])]
    assert stated and all(r["max_tokens"] == 500 for r in stated), "so is reading the manager's and trader's calls"


async def test_a_runaway_answer_stops_at_the_cap(settings):
    with FakeOpenAI(fault=fault_for("Bull Researcher", "runaway")) as server:
        desk = live(settings, server, turn_tokens=64)
        await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    state = await desk.state()
    assert len(state["investment_debate"].turns[0].text.split()) == 64
    assert state["final_decision"] is not None


def test_openai_itself_gets_the_cap_under_its_own_name_only(no_model_env):
    openai = ModelRegistry(Settings(OPENAI_API_KEY="sk-test"))
    local = ModelRegistry(Settings(OPENAI_BASE_URL="http://127.0.0.1:8080/v1"))
    assert openai.limits("turn").fields == {"max_tokens": 500}
    assert local.limits("report").fields == {"max_tokens": 900, "extra_body": {"max_tokens": 900}}
    assert local.limits("ruling").max_tokens == 700 and local.limits("ruling").stall_timeout_s == 60


async def test_prompts_ask_for_a_length_inside_the_cap(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model, turn_tokens=1000, report_tokens=500)
    await desk.ask("should I buy NVDA today?", **ONE_ANALYST)
    prompt: dict[str, str] = {}
    for c in model.calls:  # each persona's first call: its turn (the judge's second is the extraction)
        prompt.setdefault(c["persona"], system_text(c["messages"]))
    assert "at most about 400 words" in prompt["Bull Researcher"]
    assert "at most about 200 words" in prompt["Market Analyst"]
    assert "At most about 280 words in all." in prompt["Risk Judge"]
