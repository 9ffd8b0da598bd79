"""A flood of notes is answered a few at a time, each quoted at a bounded length (issue 20, point 1):
10,000 notes went into one prompt before, and the run failed at the Risk Judge after a 103 KB
"not answered yet" message."""
from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from pathlib import Path

from graph.core.events import NotePickedUp
from graph.core.settings import Settings
from graph.notes.inbox import NOTE_PROMPT_CHARS, NOTES_PER_TURN, quoted_note
from graph.runtime.desk import DeskRuntime
from tests.support.desk import TODAY
from tests.support.models import HeldTurn


def test_a_long_note_is_quoted_cut_and_says_so():
    assert quoted_note("why?") == "why?"
    cut = quoted_note("x" * (NOTE_PROMPT_CHARS + 4_000))
    assert cut.startswith("x" * NOTE_PROMPT_CHARS) and cut.endswith("[cut: 4,000 more characters]")


async def test_each_speaker_takes_a_few_notes_of_a_flood_and_every_note_is_answered_once(tmp_path: Path,
                                                                                        no_model_env):
    settings = Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)
    thread = str(uuid.uuid4())
    held = HeldTurn("Market Analyst")
    async with DeskRuntime.open(settings, models=held.models) as desk:
        graph_input = await desk.new_input(thread, "should I buy NVDA today?")
        events: list = []

        async def collect() -> None:
            async for ev in desk.events(graph_input, thread, desk.context(today=TODAY)):
                events.append(ev)

        run = asyncio.ensure_future(collect())
        await held.reached()
        texts = [f"note {i}" for i in range(12)]
        for text in texts:
            await desk.inbox.post(thread, text)
        held.release()
        await asyncio.wait_for(run, 120)
    picked = [ev for ev in events if isinstance(ev, NotePickedUp)]
    per_speaker = Counter(ev.persona for ev in picked)
    assert max(per_speaker.values()) <= NOTES_PER_TURN, per_speaker
    assert sorted(ev.text for ev in picked) == sorted(texts), "each note answered, once"
    assert len(per_speaker) >= 3  # the flood was spread over the next speakers
