"""ChatRun: a detached run per chat, interjections into its inbox, stop, errors, the decision."""
from __future__ import annotations

import asyncio

from graph.personas import ANALYSTS, PERSONAS

from chat.render import Plan
from chat.runs import ChatRun

from .conftest import wait_until


async def new_chat(service, emitter) -> ChatRun:
    return await service.chat(emitter.session.thread_id)


async def test_full_run_renders_every_persona_and_the_decision(service, emitter):
    chat = await new_chat(service, emitter)
    await chat.start("Should I buy NVDA today?", Plan())
    authors = emitter.authors()
    assert authors[0] == "Desk"
    assert [a for a in authors if a != "Desk"][4:] == list(PERSONAS[4:])
    card = emitter.by_author("Desk")[-1]
    assert "**Signal**" in card["output"], card["output"]
    elements = {e["type"]: e for e in emitter.named("element") if e["forId"] == card["id"]}
    assert set(elements) == {"image", "file"}
    assert not [m for m in emitter.by_author("Desk") if m["output"].startswith("⚠️")]
