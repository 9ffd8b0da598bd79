"""Who is speaking, as the page shows it: the persona's name, and in a debate its round.

Chainlit draws a message's avatar for `metadata["avatarName"]` (else the author) and names the
image after it; public/desk.js writes that name above the message. So a debate turn carries
"Bull Researcher · round 2" there, while its author stays the persona (history, follow-ups
and tests key on it), and the avatar route maps the label back to the persona's picture.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph import RunPlan

SEPARATOR = " · "


def speaker_label(persona: str, round_: int = 0) -> str:
    return f"{persona}{SEPARATOR}round {round_}" if round_ else persona


def speaker_persona(label: str) -> str:
    """The persona of a label (the label itself when it names no round)."""
    return label.split(SEPARATOR, 1)[0].strip()


def turn_round(plan: RunPlan, started: Sequence[str], persona: str) -> int:
    """The round of `persona`'s turn opening now, given the personas whose turns started before
    it in this run (0 outside a debate)."""
    turns = [slot for slot in plan.slots() if slot.persona == persona]
    done = list(started).count(persona)
    return turns[done].round if done < len(turns) else 0


def speaker_metadata(plan: RunPlan, started: Sequence[str], persona: str) -> dict[str, Any]:
    """The message metadata that makes the page show a debate turn's round ({} elsewhere)."""
    round_ = turn_round(plan, started, persona)
    return {"avatarName": speaker_label(persona, round_)} if round_ else {}
