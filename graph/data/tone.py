"""Headline and post tone: a tiny keyword scorer that works for any vendor's text.

It lives under :mod:`graph.data` so both the analyst tools (headline tone) and
the live vendor (labelling Reddit posts) can use it without importing each
other. The synthetic vendor's templates use the same words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["NEGATIVE_WORDS", "POSITIVE_WORDS", "headline_tone", "news_tone"]

POSITIVE_WORDS = frozenset(
    """
    beat beats boost boosts bullish buy cheer cheers climb climbs climbed cool cools gain gains
    gained growth hope hopes jump jumps jumped momentum optimism optimistic outperform
    outperforms profit profits rally rallies rallied rebound rebounds record rise rises rising
    rose soar soars soared strong stronger surge surges surged tops upbeat upgrade upgraded
    upgrades
    """.split()
)
NEGATIVE_WORDS = frozenset(
    """
    bankruptcy bearish concern concerns crash decline declines declined downgrade downgraded
    downgrades drop drops dropped fall falls fell fear fears investigation lawsuit layoffs loss
    losses miss misses missed plunge plunges plunged pressure probe recall recession selloff
    slide slides slid slump slumps slumped sticky tumble tumbles warning warns weak weaker
    weakness weigh weighs worries worry
    """.split()
)


def headline_tone(title: str) -> float:
    """-1..1 from positive/negative word counts; 0 when no word matches."""
    words = re.findall(r"[a-z]+", title.lower())
    positive = sum(word in POSITIVE_WORDS for word in words)
    negative = sum(word in NEGATIVE_WORDS for word in words)
    if positive + negative == 0:
        return 0.0
    return (positive - negative) / (positive + negative)


def news_tone(titles: Iterable[str]) -> float:
    """Mean headline tone (0.0 for no headlines), rounded to 2 decimals."""
    scores = [headline_tone(title) for title in titles]
    return round(sum(scores) / len(scores), 2) if scores else 0.0
