"""Threads survive a restart: a new process-worth of objects answers from the SQLite checkpoint."""
from __future__ import annotations

import logging

from graph.core.state import FinalDecision
from graph.persistence.database import open_checkpointer
from tests.support.desk import spoken
from tests.support.models import ScriptedChatModel


async def test_a_thread_resumes_from_sqlite_after_a_restart(desk_factory, settings, caplog):
    caplog.set_level(logging.WARNING)
    async with open_checkpointer(settings) as saver:
        first = desk_factory(checkpointer=saver)
        await first.ask("should I buy NVDA today?")
        decision = (await first.state())["final_decision"]
    assert settings.checkpoint_path.exists()

    async with open_checkpointer(settings) as saver:  # "after the restart": new saver, new graph
        model = ScriptedChatModel()
        again = desk_factory(model, checkpointer=saver, thread=first.thread)
        state = await again.state()
        assert isinstance(state["final_decision"], FinalDecision)
        assert state["final_decision"] == decision
        events = await again.ask("why was the bear worried?")
        assert spoken(events) == ["Desk"]
        assert [c["persona"] for c in model.calls] == ["Desk"]
        assert "Bear Researcher" in (await again.state())["messages"][-1].content
    assert not [r for r in caplog.records if "unregistered type" in r.getMessage()]


def test_checkpoints_written_before_the_move_to_graph_core_still_load(caplog):
    """Threads stored before the state types moved to graph/core/ name them as graph.state.X."""
    from graph.core.state import Debate, Turn
    from graph.persistence.checkpoint import SERDE

    caplog.set_level(logging.WARNING)
    debate = Debate(turns=[Turn(side="bull", persona="Bull Researcher", text="Margins.")])
    moved = {t: t.__module__ for t in (Debate, Turn)}
    try:
        for t in moved:
            t.__module__ = "graph.state"      # as the old code wrote them
        blob = SERDE.dumps_typed({"investment_debate": debate})
    finally:
        for t, module in moved.items():
            t.__module__ = module
    assert b"graph.state" in blob[1] and b"graph.core.state" not in blob[1]
    loaded = SERDE.loads_typed(blob)["investment_debate"]
    assert isinstance(loaded, Debate) and loaded == debate
    assert not [r for r in caplog.records if "Blocked" in r.getMessage() or "unregistered" in r.getMessage()]
