"""Token accounting: per persona and per run, kept in the thread, and the run's budget."""
from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graph.core.personas import PERSONAS
from graph.core.usage import BudgetReached, RunUsage, Usage, merge_usage, run_total, tokens, usage_of, usage_summary
from graph.persistence.database import open_checkpointer
from tests.support.cli import run_cli
from tests.support.desk import LiveDesk, live_settings
from tests.support.fake_openai import FakeOpenAI
from tests.support.models import ScriptedChatModel


def live(settings, server: FakeOpenAI, **overrides) -> LiveDesk:
    return LiveDesk(live_settings(settings, server).model_copy(update=overrides))


def total_of(state) -> Usage:
    return run_total(state.get("usage"))


def per_persona_sum(state) -> Usage:
    personas = state["usage"]["personas"]
    keys = ("prompt", "cached", "completion", "calls", "estimated")
    return {k: sum(u.get(k, 0) for u in personas.values()) for k in keys}


async def test_every_persona_spends_and_the_counts_add_up_to_the_run_and_are_checkpointed(desk_factory, settings):
    model = ScriptedChatModel()
    async with open_checkpointer(settings) as saver:
        desk = desk_factory(model, checkpointer=saver)
        await desk.ask("should I buy NVDA today?")
        state = await desk.state()
    personas = state["usage"]["personas"]
    assert set(personas) == set(PERSONAS)
    assert per_persona_sum(state) == total_of(state)
    assert total_of(state)["calls"] == len(model.calls), "every model call is counted once"
    assert all(u["prompt"] > 0 and u["completion"] > 0 for u in personas.values())
    assert personas["Risk Judge"]["calls"] == 2, "the ruling and its extraction"
    assert total_of(state)["cached"] > 0, "the demo model reports the prefix it saw before as cached"
    async with open_checkpointer(settings) as saver:  # read back from the file, as after a restart
        again = desk_factory(model, checkpointer=saver, thread=desk.thread)
        assert (await again.state())["usage"] == state["usage"]


async def test_live_usage_is_what_the_server_reported(settings):
    with FakeOpenAI() as server:
        desk = live(settings, server)
        await desk.ask("should I buy NVDA today?", analysts=["market"])
    total = total_of(await desk.state())
    reported = server.usages
    assert total["calls"] == len(reported)
    assert total["prompt"] == sum(u["prompt_tokens"] for u in reported)
    assert total["completion"] == sum(u["completion_tokens"] for u in reported)
    assert total["cached"] == sum(u["prompt_tokens_details"]["cached_tokens"] for u in reported) > 0


async def test_a_new_message_starts_a_new_count_and_a_follow_up_is_counted(desk_factory):
    desk = desk_factory(ScriptedChatModel())
    await desk.ask("should I buy NVDA today?", analysts=["market"])
    first = (await desk.state())["usage"]
    await desk.ask("why was the bear worried?")
    after = (await desk.state())["usage"]
    assert after["run"] != first["run"]
    assert set(after["personas"]) == {"Desk"} and after["personas"]["Desk"]["calls"] == 1


async def test_the_budget_stops_the_desk_before_a_call_that_would_pass_it_and_a_larger_one_resumes(
        desk_factory, settings):
    unlimited = desk_factory(ScriptedChatModel())
    await unlimited.ask("should I buy NVDA today?", analysts=["market"])
    whole_run = tokens(total_of(await unlimited.state()))

    budget = whole_run // 2
    model = ScriptedChatModel()
    async with open_checkpointer(settings) as saver:
        desk = desk_factory(model, checkpointer=saver, token_budget=budget)
        with pytest.raises(BudgetReached) as info:
            await desk.ask("should I buy NVDA today?", analysts=["market"])
        message = str(info.value)
        assert f"token budget of {budget:,} is reached" in message
        assert "DESK_TOKEN_BUDGET" in message and "resume" in message
        stopped = await desk.runtime.interrupted(desk.thread)
        assert stopped is not None and message.startswith(stopped.personas[0])
        spent = tokens(total_of(await desk.state()))
        assert 0 < spent <= budget
        calls_before = len(model.calls)

        with pytest.raises(BudgetReached):  # resuming under the same budget asks no model
            await desk.ask(None)
        assert len(model.calls) == calls_before

        larger = desk_factory(model, checkpointer=saver, thread=desk.thread, token_budget=whole_run * 2)
        await larger.ask(None)
        state = await larger.state()
        assert await larger.runtime.interrupted(larger.thread) is None
    assert state["final_decision"] is not None
    assert per_persona_sum(state) == total_of(state)
    assert tokens(total_of(state)) > budget


async def test_a_budget_too_small_for_the_first_call_stops_before_any_call(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model, token_budget=100)
    with pytest.raises(BudgetReached):
        await desk.ask("should I buy NVDA today?", analysts=["market"])
    assert model.calls == []


def test_counts_of_one_run_add_up_and_another_run_replaces_them():
    one = Usage(prompt=10, cached=4, completion=5, calls=1)
    a = merge_usage(RunUsage(run="r1", personas={"Trader": one}), RunUsage(run="r1", personas={"Trader": one}))
    assert a["personas"]["Trader"] == Usage(prompt=20, cached=8, completion=10, calls=2, estimated=0)
    b = merge_usage(a, RunUsage(run="r2", personas={"Desk": one}))
    assert b == RunUsage(run="r2", personas={"Desk": one})


def test_the_summary_leads_with_the_run_and_lists_personas_in_speaking_order():
    usage = RunUsage(run="r", personas={
        "Risk Judge": Usage(prompt=1500, cached=1000, completion=250, calls=2),
        "Market Analyst": Usage(prompt=1000, cached=0, completion=200, calls=1),
    })
    assert usage_summary(usage).splitlines() == [
        "Tokens this run: 2,950 tokens (2,500 prompt, 1,000 of them cached, 450 completion; 3 calls)",
        "- Market Analyst: 1,200 tokens (1,000 prompt, 200 completion; 1 call)",
        "- Risk Judge: 1,750 tokens (1,500 prompt, 1,000 of them cached, 250 completion; 2 calls)",
    ]
    assert usage_summary(None) == ""
    # In the thread's language: the personas by their labels, the figures as they are.
    assert usage_summary(usage, "zh").splitlines() == [
        "本次运行的 token：共 2,950 个 token（提示 2,500，其中 1,000 个来自缓存，生成 450；3 次调用）",
        "- 市场分析师：共 1,200 个 token（提示 1,000，生成 200；1 次调用）",
        "- 风险裁判：共 1,750 个 token（提示 1,500，其中 1,000 个来自缓存，生成 250；2 次调用）",
    ]
    assert usage_summary(usage, "zh-Hant").splitlines()[2] == (
        "- 風險裁判：共 1,750 個 token（提示 1,500，其中 1,000 個來自緩存，生成 250；2 次調用）")


def test_the_cli_shows_the_runs_tokens_when_it_ends(tmp_path):
    out = run_cli(tmp_path, "--today", "2024-05-06", "--analysts", "market", "should I buy NVDA today?")
    assert out.returncode == 0, out.stderr
    assert "\nTokens this run: " in out.stdout
    assert "- Market Analyst: " in out.stdout and "- Risk Judge: " in out.stdout


async def test_the_budget_also_bounds_a_live_run(settings):
    with FakeOpenAI() as server:
        desk = live(settings, server, token_budget=3000)
        with pytest.raises(BudgetReached):
            await desk.ask("should I buy NVDA today?", analysts=["market"])
    assert tokens(total_of(await desk.state())) <= 3000


async def test_an_empty_retry_is_counted_too(desk_factory):
    tries = {"n": 0}

    def empty_once(persona, messages, tools):
        if persona == "Trader" and tries["n"] == 0:
            tries["n"] += 1
            return AIMessage(content="")
        return None
    desk = desk_factory(ScriptedChatModel(script=empty_once))
    await desk.ask("should I buy NVDA today?", analysts=["market"])
    assert (await desk.state())["usage"]["personas"]["Trader"]["calls"] == 2


def test_a_server_that_sends_no_counts_gets_an_estimate_and_the_summary_says_so():
    # llama-cpp-python's server sends no usage when streaming: 0 tokens would be a false figure.
    prompt = [HumanMessage("x" * 400)]
    reply = AIMessage(content="y" * 40)
    spent = usage_of(reply, prompt)
    assert (spent["prompt"], spent["completion"], spent["estimated"]) == (100, 10, 1)
    summary = usage_summary(RunUsage(run="r", personas={"Trader": spent}))
    assert "110 tokens" in summary and "1 estimated from the text: the server sent no counts" in summary
    reported = AIMessage(content="y", usage_metadata={"input_tokens": 7, "output_tokens": 3, "total_tokens": 10})
    assert usage_of(reported, prompt)["estimated"] == 0 and usage_of(reported, prompt)["prompt"] == 7
