"""A run's shape sent by a client is bounded like the chat's panel (issue 20, point 6): LangGraph
Server's input took debate rounds of 1000 (198 turns, then a raw recursion error) and -3 as sent."""
from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from graph.core.settings import Settings, bounded
from graph.runtime.desk import DeskRuntime
from tests.support.desk import TODAY


@pytest.mark.parametrize(("value", "kept"), [(3, 3), (1000, 1), (-3, 1), (0, 1), ("abc", 1), (True, 1), (2.5, 1)])
def test_rounds_outside_the_settings_bounds_are_the_default(value, kept):
    assert bounded("debate_rounds", value, 1) == kept


async def test_a_run_input_with_absurd_rounds_and_analysts_runs_a_bounded_shape(tmp_path: Path, no_model_env):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    thread = str(uuid.uuid4())
    async with DeskRuntime.open(settings) as desk:
        graph_input = await desk.new_input(thread, "should I buy NVDA today?")
        graph_input |= {"debate_rounds": 1000, "risk_rounds": -3, "analysts": ["market"] * 1000 + [{"x": 1}, "nope"]}
        async for _ in desk.events(graph_input, thread, desk.context(today=TODAY)):
            pass
        state = await desk.state(thread)
    assert (state["debate_rounds"], state["risk_rounds"], state["analysts"]) == (1, 1, ["market"])
    assert state["final_decision"] is not None
    bulls = [m for m in state["messages"] if getattr(m, "name", None) == "Bull Researcher"]
    assert len(bulls) == 1
