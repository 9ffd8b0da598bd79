"""Threads survive a restart: a new process-worth of objects answers from the SQLite checkpoint."""
from __future__ import annotations

import logging

from graph.checkpoint import open_checkpointer
from graph.state import FinalDecision
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
