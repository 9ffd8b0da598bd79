"""Follow-ups: after a Stop they answer from what was said so far; in a thread of several
analyses they can ask about any of them and compare them, without re-running one."""
from __future__ import annotations

import asyncio

import pytest

from graph.personas import DESK
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
    assert len(quoted) > 40 and quoted[:80] in bear
    assert [c["persona"] for c in model.calls[before:]] == [DESK]
    assert (await desk.state())["final_decision"] is None
