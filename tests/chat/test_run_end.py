"""What the chat shows when a turn and a run end: figures the data lacks, and the tokens spent."""
from __future__ import annotations

from langchain_core.messages import AIMessage

from chat.views.render import Renderer
from graph.core.events import NodeDone
from graph.core.plan import RunPlan
from tests.support.waiting import wait_until


async def test_a_turn_citing_a_figure_the_data_lacks_says_so_on_its_message(emitter):
    r = Renderer(RunPlan())
    turn = AIMessage(content="Revenue jumped 47.3% last quarter.", name="Bull Researcher")
    await r.handle(NodeDone("bull_researcher", {"messages": [turn], "unverified": {"Bull Researcher#0": ["47.3%"]}}))
    [bull] = emitter.by_author("Bull Researcher")
    assert bull["output"].startswith("Revenue jumped 47.3% last quarter.")
    assert bull["output"].endswith("⚠ 1 figure not found in the data: 47.3%")


async def test_a_turn_whose_figures_are_all_found_carries_no_warning(emitter):
    r = Renderer(RunPlan())
    turn = AIMessage(content="The close was 182.46.", name="Bull Researcher")
    await r.handle(NodeDone("bull_researcher", {"messages": [turn], "unverified": {"Bull Researcher#0": []}}))
    [bull] = emitter.by_author("Bull Researcher")
    assert "⚠" not in bull["output"]


async def test_the_decision_card_shows_the_runs_tokens_with_each_persona_folded_under_it(service, emitter):
    chat = await service.chat(emitter.session.thread_id)
    await chat.start("Should I buy NVDA today?")
    card = next(m for m in emitter.by_author("Desk") if "**Signal**" in m["output"])
    assert "Tokens this run:" in card["output"]
    [spend] = [m for m in emitter.messages.values() if m.get("name") == "tokens per persona"]
    assert spend["parentId"] == card["id"]
    lines = spend["output"].splitlines()
    assert [line.split(":")[0] for line in lines][:2] == ["- Market Analyst", "- Social Analyst"]
    assert any(line.startswith("- Risk Judge:") for line in lines)


async def test_a_stopped_run_says_what_it_spent(service, emitter):
    service.models.get('').delay_ms = 3
    chat = await service.chat(emitter.session.thread_id)
    chat.start("Should I buy NVDA today?")
    await wait_until(lambda: emitter.by_author("Bull Researcher"), what="the bull")
    assert await chat.stop()
    stopped = emitter.by_author("Desk")[-1]["output"]
    assert stopped.startswith("Stopped") and "Tokens this run:" in stopped
