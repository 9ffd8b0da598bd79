"""Who is speaking, as the page shows it: the persona's name, and in a debate its round, in the
thread's language.

Chainlit draws a message's avatar for `metadata["avatarName"]` (else the author) and names the
image after it; public/desk.js writes that name above the message. So a debate turn carries
"Bull Researcher · round 2" there, while its author stays the persona (history, follow-ups
and tests key on it), and the avatar route maps the label back to the persona's picture.

In another language ("空头研究员 · 第 2 轮") the label travels as `metadata["deskSpeaker"]`, which
desk.js reads off the socket's messages (a new message, a stream's start, a reopened thread's steps)
and writes instead. The avatar name stays English: the avatar route, the speaker's colour in
desk.css and every test find the persona by it, in any language, with no table of labels back to
personas; and the label is stored with the message, so a reopened thread shows it too.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph import RunPlan, persona_label, phrase

from .languages import DEFAULT

SEPARATOR = " · "
LABEL = "deskSpeaker"  # the metadata key desk.js reads


def speaker_label(persona: str, round_: int = 0, language: str = DEFAULT, tag: str = "") -> str:
    """The label above a turn: "Bull Researcher · round 2", in Chinese "多头研究员 · 第 2 轮"; in a comparison
    its desk's ticker (`tag`) follows the persona: "Bear Researcher · AMD · round 2"."""
    shown = persona_label(persona, language) + (f"{SEPARATOR}{tag}" if tag else "")
    return f"{shown}{SEPARATOR}{phrase(language, 'chat.round', n=round_)}" if round_ else shown


def speaker_persona(label: str) -> str:
    """The persona of an (English) label (the label itself when it names no round)."""
    return label.split(SEPARATOR, 1)[0].strip()


def turn_round(plan: RunPlan, started: Sequence[str], persona: str) -> int:
    """The round of `persona`'s turn opening now, given the personas whose turns started before
    it in this run (0 outside a debate)."""
    turns = [slot for slot in plan.slots() if slot.persona == persona]
    done = list(started).count(persona)
    return turns[done].round if done < len(turns) else 0


def label_metadata(persona: str, round_: int = 0, language: str = DEFAULT, tag: str = "") -> dict[str, Any]:
    """The metadata that makes the page show a speaker's round (or its desk's ticker, `tag`) and, in another
    language than English, its label ({} for an English persona outside a debate and a comparison)."""
    english = speaker_label(persona, round_, tag=tag)
    out: dict[str, Any] = {"avatarName": english} if round_ or tag else {}
    if language != DEFAULT and (shown := speaker_label(persona, round_, language, tag)) != english:
        out[LABEL] = shown
    return out


def speaker_metadata(plan: RunPlan, started: Sequence[str], persona: str, language: str = DEFAULT,
                     tag: str = "") -> dict[str, Any]:
    """The message metadata for `persona`'s turn opening now."""
    return label_metadata(persona, turn_round(plan, started, persona), language, tag)
