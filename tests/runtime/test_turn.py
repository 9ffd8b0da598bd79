"""DeskRuntime.turn: the one way the chat and the CLI begin a run (lease, then the input)."""
from __future__ import annotations

import pytest

from graph.core.errors import DeskError
from graph.core.plan import RunPlan
from tests.support.desk import TODAY, spoken
from tests.support.models import ScriptedChatModel


async def test_a_new_message_runs_under_the_lease_with_its_plan(desk_factory):
    desk = desk_factory()
    runtime, thread = desk.runtime, desk.thread
    plan = RunPlan.of(runtime.settings, analysts=["market", "news"], debate_rounds=1, risk_rounds=1)
    async with runtime.turn(thread, "should I buy NVDA today?", plan) as turn:
        assert turn.plan == plan and turn.resumed is None
        assert (await runtime.leases.holder(thread)) is not None
        said = spoken([ev async for ev in turn.events(runtime.context(today=TODAY))])
    assert (await runtime.leases.holder(thread)) is None  # released when the block ends
    # The analysts run at once: which of them speaks first is up to the machine's load.
    assert said[0] == "Desk" and set(said[1:3]) == {"Market Analyst", "News Analyst"}
    assert said[-1] == "Risk Judge"
    assert (await runtime.state(thread))["final_decision"] is not None


async def test_a_resume_continues_with_the_plan_in_the_checkpoint(desk_factory):
    def fail_at_trader(persona, messages, tools):
        if persona == "Trader":
            raise RuntimeError("the model server went away")
        return None

    desk = desk_factory(ScriptedChatModel(script=fail_at_trader))
    runtime, thread = desk.runtime, desk.thread
    plan = RunPlan.of(runtime.settings, analysts=["market"], debate_rounds=1, risk_rounds=1)
    with pytest.raises(DeskError, match="the model server went away"):
        async with runtime.turn(thread, "should I buy NVDA today?", plan) as turn:
            async for _ in turn.events(runtime.context(today=TODAY)):
                pass
    assert (await runtime.interrupted(thread)).personas == ("Trader",)

    resumed = desk_factory(ScriptedChatModel(), thread=thread, checkpointer=runtime.checkpointer)
    async with resumed.runtime.turn(thread, None) as turn:
        assert turn.graph_input is None and turn.resumed is not None
        assert turn.plan == RunPlan.from_state(turn.resumed, resumed.runtime.settings.parallel_analysts)
        assert turn.plan.analysts == ("market",)
        said = spoken([ev async for ev in turn.events(resumed.runtime.context(today=TODAY))])
    assert said[0] == "Trader" and said[-1] == "Risk Judge"
