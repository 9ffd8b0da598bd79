"""Synthetic headlines and social posts: templates whose tone follows the recent price move
(the tone words match the keyword scorer in :mod:`graph.data.tone`), dated after the close so
no text predates its move. See :mod:`graph.data.synthetic`."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pandas as pd

from graph.data.synthetic_company import _pick, _unit
from graph.data.synthetic_prices import _close_series, _sessions, _trailing_return
from graph.data.vendor import NewsItem

# --------------------------------------------------------------------------
# Text templates (tone words match the keyword scorer in graph.data.tone)
# --------------------------------------------------------------------------

_NEWS_TEMPLATES = {
    "positive": (
        "{name} shares rally as investors cheer strong demand",
        "{ticker} stock climbs {move} this week on upbeat outlook",
        "Analysts upgrade {name} after record quarter momentum",
        "{name} gains as buyers return; shares up {move} in five sessions",
        "{ticker} jumps on growth optimism",
    ),
    "negative": (
        "{name} shares slide as demand concerns weigh",
        "{ticker} stock falls {move} this week amid weak guidance fears",
        "Analysts downgrade {name} as losses mount",
        "{name} slumps; sellers in control after {move} drop",
        "{ticker} drops on margin pressure worries",
    ),
    "neutral": (
        "{name} to present at industry conference next month",
        "{ticker} trades sideways as investors await earnings",
        "{name} announces executive appointment",
        "What to watch for {ticker} ahead of the next quarterly report",
    ),
}
_MACRO_TEMPLATES = {
    "positive": (
        "Stocks rally as inflation cools and rate-cut hopes rise",
        "Markets climb on strong jobs data",
        "Equities gain as earnings season beats expectations",
        "Broad market jumps; investor optimism returns",
        "Indexes rise to record as consumer spending stays strong",
    ),
    "negative": (
        "Stocks slide as inflation fears return",
        "Markets fall on weak manufacturing data",
        "Equities drop as recession worries mount",
        "Broad selloff deepens amid rate-hike concerns",
        "Indexes slump as bond yields surge on sticky inflation",
    ),
    "neutral": (
        "Central bank holds rates steady, as expected",
        "Markets mixed ahead of key economic data",
        "Treasury yields little changed in quiet session",
        "Investors weigh central bank minutes and housing data",
    ),
}
_PUBLISHERS = ("Synthetic Wire", "Demo Markets Daily", "Simulated Street Journal")

_POST_TEMPLATES = {
    "bullish": (
        "${ticker} looking strong, adding more here",
        "${ticker} breaking out, this run has legs",
        "Long ${ticker}. Trend is your friend",
        "${ticker} dip got bought fast, bulls in charge",
    ),
    "bearish": (
        "${ticker} looks heavy, trimming my position",
        "${ticker} losing support, careful here",
        "Short ${ticker}, momentum is fading",
        "${ticker} can't hold a bounce, staying away",
    ),
    None: (
        "Anyone watching ${ticker} today?",
        "${ticker} volume is interesting this afternoon",
        "What's the catalyst for ${ticker} next?",
    ),
}


def _tone(move: float, *parts: object, threshold: float = 0.03) -> str:
    """Tone of a headline: follows the move, with some noise near zero."""
    if move > threshold:
        return "positive"
    if move < -threshold:
        return "negative"
    noise = _unit(*parts)
    return "positive" if noise < 0.2 else "negative" if noise > 0.8 else "neutral"


def _after_close(day: pd.Timestamp, *parts: object, span_minutes: int = 240) -> datetime:
    """A timestamp after the 16:00 close, so text never predates its price move."""
    minutes = 5 + int(_unit(*parts) * span_minutes)
    return datetime.combine(day.date(), time(16, 0)) + timedelta(minutes=minutes)


def _headlines(key: str, start: date, end: date, templates: dict, fill: dict) -> list[NewsItem]:
    closes = _close_series(key)
    items = []
    for day in _sessions(start, end, key):
        count_draw = _unit(key, "news-count", day.date())
        count = 0 if count_draw < 0.45 else 1 if count_draw < 0.85 else 2
        move = _trailing_return(closes, day, 5)
        for j in range(count):
            tone = _tone(move, key, "news-tone", day.date(), j)
            title = _pick(templates[tone], key, "news-title", day.date(), j).format(move=f"{abs(move):.1%}", **fill)
            items.append(
                NewsItem(
                    published=_after_close(day, key, "news-time", day.date(), j),
                    title=title,
                    publisher=_pick(_PUBLISHERS, key, "publisher", day.date(), j),
                    summary=f"Synthetic headline generated from the simulated price path "
                            f"({move:+.1%} over 5 sessions).",
                    url=None,
                )
            )
    return sorted(items, key=lambda item: item.published, reverse=True)
