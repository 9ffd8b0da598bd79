"""Interjections that name a persona: "Bear, …" waits for the Bear's next turn when the Bear has one
left, else the next speaker takes it; the acknowledgement says who, from the server's run plan."""
from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from chat.runs import acknowledgement
from graph.core.context import thread_config
from graph.core.events import Event, NotePickedUp
from graph.core.plan import RunPlan
from graph.core.settings import Settings
from graph.notes.address import address, named
from graph.runtime.desk import DeskRuntime
from graph.runtime.notes import Posted, post_note
from tests.support.desk import TODAY
from tests.support.models import HeldTurn

BEAR, BULL, TRADER = "Bear Researcher", "Bull Researcher", "Trader"


async def note_while(tmp_path: Path, speaking: str, text: str, to: str | None = None,
                     addressed: bool = True) -> tuple[Posted | None, list[NotePickedUp]]:
    """A demo run held while `speaking` speaks, `text` posted then (addressed from the server's
    view, or raw with `to`); who picked it up."""
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    thread = str(uuid.uuid4())
    held = HeldTurn(speaking)
    async with DeskRuntime.open(settings, models=held.models) as desk:
        graph_input = await desk.new_input(thread, "should I buy NVDA today?")
        run = asyncio.ensure_future(_collect(desk, graph_input, thread))
        await held.reached()
        await _saved(desk, thread)
        sent = await post_note(desk, thread, text) if addressed else None
        if not addressed:
            await desk.inbox.post(thread, text, to)
        held.release()
        events = await asyncio.wait_for(run, 120)
    return sent, [ev for ev in events if isinstance(ev, NotePickedUp)]


async def _saved(desk: DeskRuntime, thread: str) -> None:
    """Until the run's own steps are saved, so that the note is addressed from who has spoken in them (before
    that it is addressed from what the run said as it began, every turn ahead: test_notes_first_moments.py)."""
    for _ in range(200):
        if (await desk.graph.aget_state(thread_config(thread))).values.get("intent") == "analyze":
            return
        await asyncio.sleep(0.01)


async def _collect(desk: DeskRuntime, graph_input: Any, thread: str) -> list[Event]:
    return [ev async for ev in desk.events(graph_input, thread, desk.context(today=TODAY))]


async def test_a_note_naming_the_bear_waits_for_the_bear_when_the_bull_speaks_next(tmp_path: Path, no_model_env):
    text = "Bear, what about the China export ban?"
    sent, picked = await note_while(tmp_path, "Market Analyst", text)  # the Bull is about to speak
    assert sent is not None and sent.note.to == BEAR
    assert acknowledgement(sent) == f"Noted — the **{BEAR}** will answer this."
    assert [(ev.persona, ev.text) for ev in picked] == [(BEAR, text)], "the Bear, not the Bull"


async def test_a_note_naming_nobody_goes_to_the_next_speaker(tmp_path: Path, no_model_env):
    text = "what about the China export ban?"
    sent, picked = await note_while(tmp_path, "Market Analyst", text)
    assert sent is not None and sent.note.to is None
    assert acknowledgement(sent) == f"Noted — the **{BULL}** will answer this next."
    assert [(ev.persona, ev.text) for ev in picked] == [(BULL, text)]


async def test_a_note_naming_a_persona_whose_turns_are_over_goes_to_the_next_speaker(tmp_path: Path,
                                                                                     no_model_env):
    text = "Bear, was the export ban priced in?"
    sent, picked = await note_while(tmp_path, "Research Manager", text)  # one round: the Bear is done
    assert sent is not None and sent.note.to is None and sent.finished == BEAR
    # Said at once (issue 35, point 6: "Noted — the Trader will answer" left the user guessing why)
    assert acknowledgement(sent) == (f"Noted — the **{BEAR}** has had its last turn in this run, so the "
                                     f"**{TRADER}** will answer this next.")
    assert [(ev.persona, ev.text) for ev in picked] == [(TRADER, text)]


async def test_a_chinese_note_to_a_persona_whose_turns_are_over_says_so_in_chinese(tmp_path: Path, no_model_env):
    text = "空头，出口禁令已经定价了吗？"
    sent, picked = await note_while(tmp_path, "Research Manager", text)
    assert sent is not None and sent.finished == BEAR
    assert acknowledgement(sent, "zh") == "收到——**空头研究员**在本次讨论中已经发言完毕，接下来由**交易员**回答。"
    assert [(ev.persona, ev.text) for ev in picked] == [(TRADER, text)]


async def test_a_chinese_note_naming_the_bear_waits_for_the_bear(tmp_path: Path, no_model_env):
    text = "空头，出口禁令呢？"
    sent, picked = await note_while(tmp_path, "Market Analyst", text)
    assert sent is not None and sent.note.to == BEAR
    assert [(ev.persona, ev.text) for ev in picked] == [(BEAR, text)], "the Bear, not the Bull"


async def test_a_note_held_for_a_persona_that_has_spoken_its_last_is_not_stuck(tmp_path: Path, no_model_env):
    """Addressed as the Bear's last turn began (the prediction raced it): the next reader takes it."""
    text = "Bear, and the margins?"
    _, picked = await note_while(tmp_path, "Research Manager", text, to=BEAR, addressed=False)
    assert [(ev.persona, ev.text) for ev in picked] == [(TRADER, text)]


@pytest.mark.parametrize(("text", "who"), [
    ("Bear, what about the China export ban?", [BEAR]),
    ("@bull is the rally priced in?", [BULL]),
    ("hey trader: size it smaller", [TRADER]),
    ("What does the Risk Judge make of rates?", ["Risk Judge"]),
    ("market analyst, which indicators?", ["Market Analyst"]),
    ("is it safe to hold through a bear market?", []),
    ("what about the market news?", []),
    # in Chinese, as the chat names them above their messages, or shortly as an address
    ("空头，出口管制呢？", [BEAR]),
    ("空頭，出口管制呢？", [BEAR]),
    ("@多头 涨势已经定价了吗？", [BULL]),
    ("那交易员呢？仓位小一点", [TRADER]),
    ("风险裁判怎么看利率？", ["Risk Judge"]),
    ("市场分析师，用了哪些指标？", ["Market Analyst"]),
    ("我持有空头头寸，要平仓吗？", []),  # 空头 inside a sentence is a short position
])
def test_the_personas_a_note_names(text: str, who: list[str]) -> None:
    assert named(text) == who


def test_the_address_is_the_first_named_persona_with_a_turn_to_start() -> None:
    plan = RunPlan(debate_rounds=2)
    analysts = [s.persona for s in plan.analyst_slots()]
    assert address("Bear, and the Trader?", plan, [*analysts, BULL, BEAR]) == BEAR  # round 2 to come
    assert address("Bear, and the Trader?", plan, [*analysts, BULL, BEAR, BULL, BEAR]) == TRADER
    assert address("what now?", plan, analysts) is None

