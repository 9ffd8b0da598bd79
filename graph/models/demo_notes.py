"""The demo model's answer to a user's note: what our data has on the note's words, and what
that means for the speaker's side; plainly nothing when the data has nothing on it."""
from __future__ import annotations

import re

from ..record.case import ANALYST_REPORTS
from .demo_figures import Point, sections

_TOPICS = {
    "RSI 14": ("rsi", "overbought", "oversold", "momentum"),
    "MACD Hist": ("macd",),
    "SMA 50": ("trend", "moving average", "sma", "50-day", "50 day"),
    "SMA 200": ("200-day", "200 day", "sma", "long-term trend"),
    "ATR 14": ("volatil", "atr", "swing", "risk"),
    "P/E": ("valuation", "expensive", "cheap", "p/e", "pe ", "multiple"),
    "Revenue Growth YoY %": ("growth", "revenue", "sales"),
    "Profit Margin %": ("margin", "profit"),
    "Debt/Equity": ("debt", "leverage", "balance sheet"),
    "Social Score": ("sentiment", "reddit", "social", "twitter", "retail", "crowd"),
    "News Tone": ("news", "headline", "earnings", "guidance"),
    "Macro Tone": ("macro", "fed", "rates", "china", "export", "tariff", "inflation", "recession", "war"),
    "Close": ("price", "entry", "close"),
}


# Words that carry no subject of their own in a note ("Bear, what about the ... ?").
_NOTE_FILLER = frozenset("""
    a an the and or but of to in on for at by with from as is are was were be been it its this that these those
    what whats about how why when where who which does do did can could would should will shall may might must
    you your we our us i me my he she they them his her their there here any some more most much many so than
    then too very just also not no yes if ok okay hey please think thoughts say said tell mean really still
    bull bear bulls bears researcher researchers analyst analysts risky safe neutral manager trader judge desk
    market social news fundamentals risk research
""".split())
# What a note's words are about, when our data has no word of them: the figure closest to it.
_NEAR = {"ban": "Macro Tone", "sanction": "Macro Tone", "regulat": "Macro Tone", "election": "Macro Tone",
         "demand": "News Tone", "lawsuit": "News Tone", "ceo": "News Tone", "product": "News Tone"}


# Cues that name an event, not a figure: the figure is only the nearest thing our data has on it.
_EVENT_CUES = frozenset({"china", "export", "tariff", "war", "fed", "rates", "inflation", "recession"})
# A speaker's earlier answer to a note is not data about it.
_ANSWERS = re.compile(r"You asked|interjected|Nothing in our data|Our data does mention|nearest figures")


def note_words(note: str) -> list[str]:
    """The words a note is about: "Bear, what about the China export ban?" -> china, export, ban."""
    words = [w for w in re.findall(r"[a-z][a-z0-9'/-]*", note.lower()) if w not in _NOTE_FILLER and len(w) > 2]
    return list(dict.fromkeys(words))


def _mentions(text: str, words: list[str]) -> list[str]:
    """Headlines, posts and sentences of `text` that contain one of `words` (whole words)."""
    if not words:
        return []
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.I)
    out = []
    for piece in re.split(r"(?<=[.!?])\s+|\s+·\s+|\n", text):
        piece = piece.strip().lstrip("-*#> ").strip()
        if piece and not piece.startswith("|") and pattern.search(piece) and piece not in out:
            out.append(piece)
    return out


def answer_note(note: str, fig: dict[str, str], points: list[Point], record: str = "", stance: int = 0) -> str:
    """A speaker's answer to the user's note: it quotes the note, says what our data has on its
    words (the headlines or posts that mention them, the figures on its subject), what that
    means for this speaker's side (`stance`: +1 bull, -1 bear, 0 neither), and says plainly
    when the data has nothing on it, instead of guessing."""
    words = note_words(note)
    lower = note.lower()
    named = [label for label, cues in _TOPICS.items()
             if label in fig and any(c in lower for c in cues if c not in _EVENT_CUES)]
    near = [label for label, cues in _TOPICS.items()
            if label in fig and label not in named and any(c in lower for c in cues if c in _EVENT_CUES)]
    near += [label for cue, label in _NEAR.items() if cue in lower and label in fig and label not in named + near]
    hits = named + near
    mentioned = [m.removeprefix("Notable: ") for m in _mentions(record, words)
                 if not _ANSWERS.search(m) and note not in m][:2]
    about = ", ".join(f"“{w}”" for w in words[:4]) or "that"
    out = [f"You asked: “{note}”."]
    if mentioned:
        out.append("Our data does mention it: " + "; ".join(f"“{m}”" for m in mentioned) + ".")
    elif not named:
        out.append(f"Nothing in our data mentions {about}: no headline, post or figure, so I will not put a "
                   "number on it.")
    on_it = [p for p in points if p.label in hits]
    if on_it:
        lead = "What our figures say on it: " if mentioned or named else "The nearest figures we have: "
        out.append(lead + "; ".join(p.text for p in on_it[:3]) + ".")
        if stance:
            mine = [p for p in on_it if p.stance == stance]
            against = [p for p in on_it if p.stance == -stance]
            side = "bull" if stance > 0 else "bear"
            if mine and not against:
                out.append(f"That backs the {side} case.")
            elif against and not mine:
                out.append(f"That cuts against the {side} case, and I grant it; it does not outweigh the rest.")
            else:
                out.append("It cuts both ways, so it does not change my case.")
    elif hits:
        out.append("The figures on it: " + ", ".join(f"{h} {fig[h]}" for h in hits[:3]) + ".")
    elif points:
        out.append(f"What the data does show that comes closest: {points[0].text}.")
    return " ".join(out)


def _notes_block(notes: list[str], fig, points, record: str = "", stance: int = 0) -> list[str]:
    # What the data says is in the analysts' reports (their headlines and posts), not in the debate.
    record = sections(record).get(ANALYST_REPORTS, record)
    return [answer_note(n, fig, points, record, stance) for n in notes]
