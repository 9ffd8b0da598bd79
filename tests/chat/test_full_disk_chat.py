"""A full disk as the chat shows it (issue 36, point 6): the run stops with the plain sentence, never "Something
went wrong" or a traceback, and what ran before stays on the page. Simulated: the failure is raised mid-run as
SQLite raises it on ENOSPC (tests/persistence/test_full_disk.py fills a real disk under the desk itself)."""
from __future__ import annotations

import sqlite3

import pytest

pytestmark = pytest.mark.faults


async def test_a_full_disk_mid_run_is_told_plainly_and_the_turns_before_stay(service, emitter):
    from langchain_core.messages import AIMessage

    from graph.models.registry import ModelRegistry

    class DiskFull(type(service.models.get(""))):
        async def reply(self, messages, *, persona, tools, tool_choice) -> AIMessage:
            if persona == "Bull Researcher":
                raise sqlite3.OperationalError("database or disk is full")
            return await super().reply(messages, persona=persona, tools=tools, tool_choice=tool_choice)

    service.models = ModelRegistry.fixed(DiskFull())
    chat = await service.chat(emitter.session.thread_id)
    await chat.start("Should I buy NVDA today?")
    last = emitter.by_author("Desk")[-1]["output"]
    assert last.startswith("⚠️") and "The server's disk is full: database or disk is full." in last, last
    assert "Something went wrong" not in last and "Traceback" not in last and "OperationalError" not in last
    assert "press Resume" in last
    assert emitter.by_author("Market Analyst"), "what ran before the failure stays"
    assert not chat.active
