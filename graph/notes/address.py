"""Who answers an interjection, and the store item that posts one from outside the desk's process.

A note that names a persona with a turn still to come ("Bear, what about the China export ban?")
waits for that persona's next turn; any other note goes to the next speaker. The address is
decided when the note is posted (graph/runtime/notes.py), from the server's run plan and
checkpoint (not from what a page has shown), and stored with the note (`to`). Readers check it
again when they read: a persona whose turns are over by then (the prediction raced its last
turn) no longer holds its notes back.

LangGraph Server clients post with `client.store.put_item(*note_item(thread_id, text))`: the same
namespace, key and value as `Inbox.post`, so the next speaker's `take_notes` reads it like a note
typed in the chat. Keys are unique, so posters never overwrite each other.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, NamedTuple

from ..core.chinese_script import to_simplified
from ..core.personas import (
    ANALYST_PERSONAS,
    ANALYSTS,
    DEBATERS,
    PERSONA_OF_NODE,
    RESEARCH_MANAGER,
    RISK_JUDGE,
    TRADER,
    persona_label,
)
from ..core.plan import RunPlan
from .inbox import MAX_NOTES, new_note

__all__ = ["MAX_NOTES", "NoteItem", "address", "named", "note_item", "started_at_read", "waiting"]


class NoteItem(NamedTuple):
    """A store item: `client.store.put_item(*item)` (its namespace argument is positional-only)."""
    namespace: list[str]
    key: str
    value: dict[str, Any]


def note_item(thread_id: str, text: str, to: str | None = None) -> NoteItem:
    """The item that posts `text` to a thread's inbox (for the next speaker, or for persona `to`)."""
    key, value = new_note(text, to)
    return NoteItem(["inbox", thread_id], key, value)


# -- names -----------------------------------------------------------------

# Short names count only as an address: first in the message ("Bear, …", "bear: …") or after "@".
# Common words ("safe", "neutral", "bear market") elsewhere in a sentence name nobody.
_SHORT: dict[str, str] = {
    **{side: d.persona for side, d in DEBATERS.items()},
    "aggressive": DEBATERS["risky"].persona, "conservative": DEBATERS["safe"].persona,
    "manager": RESEARCH_MANAGER, "trader": TRADER, "judge": RISK_JUDGE,
    **{a.kind: a.persona for a in ANALYSTS}, "sentiment": ANALYSTS[1].persona,
}
# Full names count anywhere: "what does the Risk Judge make of rates?"
_FULL: dict[str, str] = {
    **{p.lower(): p for p in PERSONA_OF_NODE.values()},
    "research manager": RESEARCH_MANAGER, "risk judge": RISK_JUDGE,
    **{f"{side} analyst": d.persona for side, d in DEBATERS.items()},
    **{f"{side} researcher": d.persona for side, d in DEBATERS.items()},
    "sentiment analyst": ANALYSTS[1].persona,
}


# In Chinese: the names the chat shows above each message (prompts/words_zh.md: "空头研究员") count
# anywhere, as full names do; the short ones people say ("空头，出口管制呢？", "裁判为什么谨慎？") only as an
# address, first in the message or after "@" (空头 alone is also a short position). Traditional
# characters are read through their simplified form.
_ZH_FULL: dict[str, str] = {persona_label(p, "zh"): p for p in PERSONA_OF_NODE.values()}
_ZH_SHORT: dict[str, str] = {
    "多头": DEBATERS["bull"].persona, "空头": DEBATERS["bear"].persona, "激进": DEBATERS["risky"].persona,
    "保守": DEBATERS["safe"].persona, "中性": DEBATERS["neutral"].persona, "经理": RESEARCH_MANAGER,
    "交易员": TRADER, "裁判": RISK_JUDGE, "法官": RISK_JUDGE,
}


def _alt(names: Iterable[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


@cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    short = _alt(_SHORT)
    full = _alt(_FULL)
    zh_short, zh_full = _alt(_ZH_SHORT), _alt(_ZH_FULL)
    # "Bear, …" / "hey bear: …" / "Bear Researcher — …" at the start
    lead = re.compile(rf"^\W*(?:(?:hey|ok|okay|so|and)\s+)?(?:the\s+)?({full}|{short})\b(?!\s+market)", re.I)
    at = re.compile(rf"@\s*({full}|{short})\b", re.I)
    anywhere = re.compile(rf"\b({full})\b", re.I)
    # Chinese has no spaces between words: no \b, and a short name first in the message
    zh_lead = re.compile(rf"^\W*(?:那么|那|请问|请)?({zh_full}|{zh_short})")
    zh_at = re.compile(rf"@\s*({zh_full}|{zh_short})")
    zh_anywhere = re.compile(rf"({zh_full})")
    return lead, at, anywhere, zh_lead, zh_at, zh_anywhere


def _persona(word: str) -> str | None:
    word = " ".join(word.lower().split())
    return _FULL.get(word) or _SHORT.get(word) or _ZH_FULL.get(word) or _ZH_SHORT.get(word)


def named(text: str) -> list[str]:
    """The personas a message names, in the order it names them (in English or Chinese)."""
    text = to_simplified(text)
    found: list[tuple[int, str]] = []
    for pattern in _patterns():
        found += [(m.start(1), p) for m in pattern.finditer(text) if (p := _persona(m.group(1)))]
    return list(dict.fromkeys(p for _, p in sorted(found)))


# -- turns -----------------------------------------------------------------

def waiting(plan: RunPlan, started: Iterable[str]) -> set[str]:
    """The personas with a turn of the plan still to start, given the personas whose turns started
    (each start counted; a debater speaks once per round)."""
    left = Counter(s.persona for s in plan.slots())
    left.subtract(Counter(started))
    return {p for p, n in left.items() if n > 0}


def address(text: str, plan: RunPlan, started: Iterable[str]) -> str | None:
    """The persona a note waits for: the first it names with a turn still to start; else None."""
    ahead = waiting(plan, started)
    return next((p for p in named(text) if p in ahead), None)


def started_at_read(plan: RunPlan, state: Mapping[str, Any], reader: str) -> list[str]:
    """Whose turns have started when `reader` starts its own: the finished ones, the reader, and,
    when an analyst reads, every analyst (they start together)."""
    started = [*plan.spoken(state), reader]
    if reader in ANALYST_PERSONAS:
        started += [s.persona for s in plan.analyst_slots() if s.persona not in started]
    return started
