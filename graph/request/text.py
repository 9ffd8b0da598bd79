"""Small string helpers shared by the date, ticker and intent passes.

The passes find a phrase, then blank it out so later passes don't read it
again ("Mar 15" must not become the ticker MAR). Blanking keeps every index
where it was, so positions found in a lower-cased copy still point at the same
characters in the message as typed.
"""

from __future__ import annotations

import re
import unicodedata

# Long pastes are truncated: nobody hides the ticker after 2000 characters,
# and it bounds the regex work.
MAX_INPUT_CHARS = 2000

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})


def normalize(text: object) -> str:
    """NFKC (full-width letters, odd spaces), ASCII quotes, bounded length."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return text[:MAX_INPUT_CHARS]


def lower(s: str) -> str:
    """Lower-case without changing length (some characters lower to two)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in s)


def blank(s: str, start: int, end: int) -> str:
    """Replace a span with spaces, keeping every other index where it was."""
    return s[:start] + " " * (end - start) + s[end:]


def is_shouted(msg: str) -> bool:
    """All-caps messages carry no case signal: 'CAN I BUY TSLA NOW'."""
    words = re.findall(r"[A-Za-z]{2,}", msg)
    if len(words) < 3:
        return False
    upper = sum(1 for w in words if w.isupper())
    return upper / len(words) >= 0.7


def prev_word(low: str, start: int) -> str:
    """The word just before ``start`` in lower-cased text ('' at the start)."""
    match = re.search(r"([a-z']+)[^a-z']*$", low[:start])
    return match.group(1) if match else ""


def next_words(low: str, end: int, n: int = 2) -> list[str]:
    """Up to ``n`` words right after ``end`` in lower-cased text."""
    return re.findall(r"[a-z']+", low[end : end + 60])[:n]


def sentence_start(s: str, start: int) -> bool:
    """Does ``start`` begin a sentence (where capitals say nothing)?"""
    before = s[:start].rstrip(" \t\"'(*")
    return not before or before[-1] in ".!?\n:"
