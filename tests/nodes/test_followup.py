"""Follow-ups: after a Stop they answer from what was said so far; in a thread of several
analyses they can ask about any of them and compare them, without re-running one."""
from __future__ import annotations

import asyncio
from datetime import date

import pytest

from graph.core.personas import ANALYST_PERSONAS, DESK
from graph.request.intent import parse_request
from tests.support.desk import spoken
from tests.support.models import ScriptedChatModel


async def _stopped_at(desk_factory, persona: str):
    """A thread whose run was cut (as Stop does: the run task cancelled) when `persona` began."""
    reached = asyncio.Event()
    cut = {"on": True}

    async def script(who, messages, tools):
        if who == persona and cut["on"]:
            cut["on"] = False
            reached.set()
            await asyncio.sleep(3600)  # the run is cancelled here
        return None

    model = ScriptedChatModel(script=script)
    desk = desk_factory(model)
    task = asyncio.ensure_future(desk.ask("should I buy NVDA today?"))
    await asyncio.wait_for(reached.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return desk, model


async def test_a_follow_up_after_stop_answers_from_the_bears_words(desk_factory):
    desk, model = await _stopped_at(desk_factory, "Research Manager")
    assert (await desk.runtime.interrupted(desk.thread)) is not None
    bear = (await desk.state())["investment_debate"].history_of("bear")
    assert bear
    before = len(model.calls)
    events = await desk.ask("why was the bear worried?")
    answer = str((await desk.state())["messages"][-1].content)
    assert spoken(events) == [DESK]
    assert "Which stock" not in answer
    assert "Bear Researcher" in answer
    # The Desk quotes the Bear's own words, and nothing was re-run: one call, the Desk's.
    quoted = answer.split("Bear Researcher: “", 1)[1].split("”", 1)[0]
    flat = " ".join(bear.split())
    assert len(quoted) > 40 and all(sentence in flat for sentence in quoted.split(". "))
    assert [c["persona"] for c in model.calls[before:]] == [DESK]
    assert (await desk.state())["final_decision"] is None


async def _three_analyses(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    decisions = {}
    for ticker in ("NVDA", "AAPL", "TSLA"):
        await desk.ask(f"should I buy {ticker} today?")
        decisions[ticker] = (await desk.state())["final_decision"]
    return desk, model, decisions


async def test_a_thread_keeps_each_analysis_and_compare_names_the_previous_one(desk_factory):
    desk, model, decisions = await _three_analyses(desk_factory)
    state = await desk.state()
    assert [p["ticker"] for p in state["past_analyses"]] == ["NVDA", "AAPL"]
    assert "Bear Researcher" in state["past_analyses"][1]["said"]
    before = len(model.calls)
    events = await desk.ask("compare with the last decision")
    answer = str((await desk.state())["messages"][-1].content)
    assert spoken(events) == [DESK] and [c["persona"] for c in model.calls[before:]] == [DESK]
    now, then = answer.split("- Now: ")[1], answer.split("- Before: ")[1]
    assert now.startswith(f"TSLA 2024-05-06: {decisions['TSLA'].signal}")
    assert then.startswith(f"AAPL 2024-05-06: {decisions['AAPL'].signal}")
    assert "NVDA" in answer  # the rest of the thread is named too
    assert not any((await desk.state())["unverified"].values())  # every figure it quotes is on record


async def test_a_question_about_an_earlier_ticker_answers_from_it_without_a_new_analysis(desk_factory):
    desk, model, _ = await _three_analyses(desk_factory)
    aapl_bear = (await desk.state())["past_analyses"][1]["said"]["Bear Researcher"]
    before = len(model.calls)
    events = await desk.ask("why was the bear worried about AAPL?")
    state = await desk.state()
    answer = str(state["messages"][-1].content)
    assert spoken(events) == [DESK]
    assert not [c for c in model.calls[before:] if c["persona"] in ANALYST_PERSONAS]  # no analyst ran
    assert [c["persona"] for c in model.calls[before:]] == [DESK]
    assert state["ticker"] == "TSLA"  # the analysis on screen is still TSLA's
    assert "AAPL" in answer and f"Bear Researcher: “{aapl_bear}”" in answer


@pytest.mark.parametrize("text", ["should I buy AAPL?", "analyze AAPL again",
                                  "why was the bear worried about AAPL on 2024-04-01?"])
async def test_a_call_a_rerun_or_another_date_on_an_earlier_ticker_is_a_new_analysis(desk_factory, text):
    desk, _, _ = await _three_analyses(desk_factory)
    await desk.ask(text)
    state = await desk.state()
    assert state["intent"] == "analyze" and state["ticker"] == "AAPL" and state["final_decision"] is not None
    assert [p["ticker"] for p in state["past_analyses"]] == ["NVDA", "AAPL", "TSLA"]


@pytest.mark.parametrize(("text", "intent", "ticker"), [
    ("why was the bear worried about AAPL?", "followup", "AAPL"),
    ("what did the trader say about $AAPL", "followup", "AAPL"),
    ("compare this with AAPL", "followup", "AAPL"),
    ("should I buy AAPL?", "analyze", "AAPL"),
    ("AAPL", "analyze", "AAPL"),
    ("rerun AAPL", "analyze", "AAPL"),
    ("why was the bear worried about AAPL on 2024-04-01?", "analyze", "AAPL"),
    ("why was the bear worried about MSFT?", "analyze", "MSFT"),  # never analysed here
    ("compare with the last decision", "followup", "TSLA"),
])
def test_a_question_about_an_analysed_ticker_is_a_follow_up(text, intent, ticker):
    today = date(2024, 5, 6)
    parsed = parse_request(text, today, has_decision=True, current_ticker="TSLA", current_date=today,
                           analysed={"NVDA": today, "AAPL": today})
    assert (parsed.intent, parsed.ticker) == (intent, ticker), parsed.reason


def test_a_stopped_runs_words_make_a_question_a_follow_up_not_a_request_for_a_ticker():
    today = date(2024, 5, 6)
    stopped = parse_request("why was the bear worried?", today, has_decision=True, current_ticker="NVDA")
    assert stopped.intent == "followup"


@pytest.mark.parametrize("question", ["why not more conservative?", "why such a big stop?"])
async def test_a_follow_up_about_caution_quotes_the_risk_debate_and_the_ruling(desk_factory, question):
    """As a live model would: how cautious, how big, where the stop is, is answered from the risk
    debate and the judge's ruling, not from sentences that share a word with the question."""
    desk = desk_factory()
    await desk.ask("should I buy NVDA today?")
    ruling = (await desk.state())["risk_debate"].judge_decision
    assert "the size is halved" in ruling  # the demo judge sided with the Safe Analyst here
    await desk.ask(question)
    answer = str((await desk.state())["messages"][-1].content)
    lines = answer.splitlines()[1:]
    assert lines[0] == "- Risk Judge: “The Safe Analyst's point on volatility wins: the size is halved.”"
    assert any(line.startswith("- Safe Analyst: “") for line in lines)
    assert not any(p in answer for p in ("Bear Researcher", "Bull Researcher", "News Analyst"))


async def test_why_the_judge_was_cautious_is_answered_with_its_reason(desk_factory):
    """It quoted the ruling's first words and left out its reason (issue 35, point 3)."""
    desk = desk_factory()
    await desk.ask("should I buy NVDA today?")
    await desk.ask("why was the judge cautious?")
    lines = str((await desk.state())["messages"][-1].content).splitlines()[1:]
    assert lines[0] == "- Risk Judge: “The Safe Analyst's point on volatility wins: the size is halved.”"


@pytest.mark.parametrize(("question", "persona", "words"), [
    ("空头为什么担心？", "Bear Researcher", "The bear case for NVDA holds"),  # the card's own suggestion
    ("空頭為什麼擔心？", "Bear Researcher", "The bear case for NVDA holds"),
    ("多头怎么说？", "Bull Researcher", "The bull case for NVDA"),
    ("风险裁判为什么谨慎？", "Risk Judge", "The Safe Analyst's point on volatility wins: the size is halved."),
])
async def test_a_chinese_follow_up_names_a_persona_as_the_chat_shows_it(desk_factory, question, persona, words):
    """The follow-up the Chinese card suggests got "The record does not cover that" (issue 35, point 3)."""
    desk = desk_factory()
    await desk.ask("英伟达今天能买吗？")
    await desk.ask(question)
    answer = str((await desk.state())["messages"][-1].content)
    assert "does not cover" not in answer
    assert answer.splitlines()[1].startswith(f"- {persona}: “{words}"), answer


async def test_why_the_judge_was_cautious_with_a_book_stored_gives_the_judge_s_reason(tmp_path, no_model_env):
    """With a book stored, "the" in the question named the case file's "The user's book" section, and the
    answer quoted the book beside the ruling's first words (CI, 2026-11-28)."""
    import uuid
    from decimal import Decimal

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from graph.book.holdings import Book, Position
    from graph.book.store import BookStore
    from graph.core.settings import Settings
    from graph.persistence.checkpoint import SERDE
    from graph.runtime.desk import DeskRuntime
    from tests.support.desk import TODAY

    store = InMemoryStore()
    await BookStore(store).put("ana", Book((Position("NVDA", Decimal(200), Decimal(95)),), Decimal(20000)))
    runtime = DeskRuntime.build(Settings(DESK_DATA_DIR=tmp_path, DESK_DEMO_DELAY_MS=0), InMemorySaver(serde=SERDE),
                                store)
    thread = uuid.uuid4().hex
    for text in ("should I buy NVDA today?", "why was the judge cautious?"):
        async for _ in runtime.events(await runtime.new_input(thread, text), thread,
                                      runtime.context(today=TODAY, user="ana", source="chat")):
            pass
    lines = str((await runtime.state(thread))["messages"][-1].content).splitlines()[1:]
    assert lines[0] == "- Risk Judge: “The Safe Analyst's point on volatility wins: the size is halved.”"
    assert not any("user's book" in line for line in lines)
