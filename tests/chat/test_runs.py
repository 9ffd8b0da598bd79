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


async def test_stop_cancels_the_run_and_the_thread_goes_on(service, emitter):
    service.models.quick.delay_ms = service.models.deep.delay_ms = 3
    chat = await new_chat(service, emitter)
    chat.start("Should I buy NVDA today?", Plan())
    await wait_until(lambda: emitter.by_author("Bull Researcher"), what="the bull")
    assert await chat.stop()
    assert chat.task.done() and not chat.active
    assert emitter.by_author("Desk")[-1]["output"].startswith("Stopped")
    assert not emitter.by_author("Risk Judge")
    assert not [m for m in emitter.messages.values() if m.get("streaming")]
    state = await service.state(chat.thread_id)
    assert state["market_report"] and state.get("final_decision") is None
    assert not await chat.stop()  # nothing running any more
    # the next message works on the same thread
    await chat.start("why was the bear worried?", Plan())
    assert not [m for m in emitter.by_author("Desk") if m["output"].startswith("⚠️")]
