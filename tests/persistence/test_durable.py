"""Runs that survive: a run cut anywhere resumes from its last checkpoint, redoing nothing that
finished and answering the notes it had not read; an empty answer never becomes a decision."""
from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from langchain_core.messages import AIMessage

from graph.core.errors import DeskError
from graph.core.personas import PERSONAS
from graph.persistence.database import open_checkpointer, open_store
from tests.support.desk import spoken
from tests.support.models import ScriptedChatModel


async def cancel_when(run, reached: asyncio.Event) -> None:
    task = asyncio.ensure_future(run)
    await asyncio.wait_for(reached.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def calls_per_persona(model: ScriptedChatModel) -> Counter[str]:
    return Counter(c["persona"] for c in model.calls)


@pytest.mark.parametrize("cut_at", ["Bull Researcher", "Research Manager", "Safe Analyst", "Risk Judge"])
async def test_a_run_cut_mid_turn_resumes_where_it_stopped_and_answers_the_pending_note(desk_factory, cut_at):
    """The cut is a cancellation of the run at the start of a persona's turn (what a stop, a
    dropped process or a kill leaves: the last checkpoint), with a note posted just before."""
    state = {"cut": True}
    reached = asyncio.Event()

    async def cut(persona, messages, tools):
        if persona == cut_at and state["cut"]:
            state["cut"] = False
            await desk.post(f"{cut_at}, what about the export ban?")
            reached.set()
            await asyncio.sleep(3600)  # the run goes away here
        return None

    model = ScriptedChatModel(script=cut)
    desk = desk_factory(model)
    await cancel_when(desk.ask("should I buy NVDA today?"), reached)
    interrupted = await desk.runtime.interrupted(desk.thread)
    assert interrupted is not None and cut_at in interrupted.personas
    before = calls_per_persona(model)

    events = await desk.ask(None)  # resume
    after = calls_per_persona(model) - before
    done = await desk.state()
    assert done["final_decision"] is not None
    # Every persona that finished before the cut is not asked again; the rest speak once.
    order = list(PERSONAS)
    resumed = order[order.index(cut_at):]
    assert set(after) == set(resumed), after
    assert spoken(events) == resumed
    [note] = done["interventions"]
    assert note.text.startswith(cut_at) and note.answered_by == [cut_at]
    assert await desk.runtime.interrupted(desk.thread) is None


async def test_a_run_resumes_after_a_restart_from_the_files_on_disk(desk_factory, settings):
    cut = {"on": True}
    reached = asyncio.Event()

    async def crash(persona, messages, tools):
        if persona == "Trader" and cut["on"]:
            reached.set()
            await asyncio.sleep(3600)
        return None

    model = ScriptedChatModel(script=crash)
    async with open_checkpointer(settings) as saver, open_store(settings) as store:
        desk = desk_factory(model, checkpointer=saver, store=store)
        await cancel_when(desk.ask("should I buy NVDA today?"), reached)
        await desk.post("Trader, keep it small")
    cut["on"] = False
    async with open_checkpointer(settings) as saver, open_store(settings) as store:  # "after the restart"
        again = desk_factory(model, checkpointer=saver, store=store, thread=desk.thread)
        assert (await again.runtime.interrupted(again.thread)).personas == ("Trader",)
        before = calls_per_persona(model)
        await again.ask(None)
        state = await again.state()
    assert state["final_decision"] is not None
    assert (calls_per_persona(model) - before)["Bull Researcher"] == 0
    assert [i.answered_by for i in state["interventions"]] == [["Trader"]]


def empty_for(*personas: str):
    def script(persona, messages, tools):
        return AIMessage(content="") if persona in personas or "*" in personas else None
    return script


async def test_an_empty_ruling_is_not_a_decision_and_the_thread_resumes(desk_factory):
    model = ScriptedChatModel(script=empty_for("Risk Judge"))
    desk = desk_factory(model)
    with pytest.raises(DeskError) as info:
        await desk.ask("should I buy NVDA today?")
    assert "Risk Judge" in str(info.value) and "no decision was made" in str(info.value)
    assert calls_per_persona(model)["Risk Judge"] == 3, "asked again before giving up"
    assert (await desk.state()).get("final_decision") is None
    model.script = None  # the server is fixed
    await desk.ask(None)
    assert (await desk.state())["final_decision"] is not None


async def test_empty_answers_everywhere_never_show_a_decision(desk_factory):
    model = ScriptedChatModel(script=empty_for("*"))
    desk = desk_factory(model)
    with pytest.raises(DeskError):
        await desk.ask("should I buy NVDA today?")
    state = await desk.state()
    assert state.get("final_decision") is None
    assert "no answer" in state["market_report"] and "no answer" in state["trader_plan"]


async def test_a_ruling_without_a_signal_is_not_a_decision(desk_factory):
    def vague(persona, messages, tools):
        if persona == "Risk Judge" and not tools:
            text = str(messages[-1].content)
            if "FinalDecision" in text or "extract" in text.lower():
                raise ValueError("no structured output")
            return AIMessage(content="Markets are uncertain; we should think about it.")
        return None

    desk = desk_factory(ScriptedChatModel(script=vague))
    with pytest.raises(DeskError) as info:
        await desk.ask("should I buy NVDA today?")
    assert "names no BUY, SELL or HOLD" in str(info.value)
    assert (await desk.state()).get("final_decision") is None
