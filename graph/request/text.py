"""Small string helpers shared by the date, ticker and intent passes.

The passes find a phrase, then blank it out so later passes don't read it
again ("Mar 15" must not become the ticker MAR). Blanking keeps every index
where it was, so positions found in a lower-cased copy still point at the same
characters in the message as typed.
"""

from __future__ import annotations

import re
import unicodedata

from .guard import MAX_MESSAGE_CHARS, clean_message, strip_invisible

# The parser reads at most this much (after NFKC, which can expand a character up to
# 18-fold), which bounds all the regex work that follows.
MAX_INPUT_CHARS = MAX_MESSAGE_CHARS

# Typographic quotes, dashes, slashes and the minus sign read as their ASCII forms, so
# "2024\u201305\u201301" (en dashes) is a date and "Apple\u2019s" a possessive.
_ASCII_LOOKALIKES = str.maketrans({
    "\u2019": "'", "\u2018": "'", "\u201b": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"',
    "\u00a0": " ", "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
    "\u2015": "-", "\u2212": "-", "\u2044": "/", "\u2215": "/",
})  # fmt: skip
# Decimal digits of other scripts (Arabic-Indic "\u0662\u0660\u0662\u0664"); NFKC has already made
# full-width and superscript digits ASCII.
_OTHER_DIGIT = re.compile(r"(?![0-9])\d")


def normalize(text: object) -> str:
    """What the parser reads: the guard's cleaning (truncation first, no invisible or
    control characters), then NFKC (full-width letters and digits, odd spaces), ASCII
    quotes and dashes, ASCII digits, bounded length."""
    return prepare(clean_message(text).text)


def prepare(cleaned: str) -> str:
    """:func:`normalize` for text that has been through :func:`clean_message` already."""
    text = unicodedata.normalize("NFKC", strip_invisible(cleaned))[:MAX_INPUT_CHARS]
    text = strip_invisible(text).translate(_ASCII_LOOKALIKES)
    if not text.isascii():
        text = _OTHER_DIGIT.sub(lambda m: str(unicodedata.decimal(m.group(0), 0)), text)
    return text


def lower(s: str) -> str:
    """Lower-case without changing length (some characters lower to two)."""
    low = s.lower()
    if len(low) == len(s):
        return low
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
    match = re.search(r"([a-z']+)[^a-z']*$", low[max(0, start - 60) : start])
    return match.group(1) if match else ""


def next_words(low: str, end: int, n: int = 2) -> list[str]:
    """Up to ``n`` words right after ``end`` in lower-cased text."""
    return re.findall(r"[a-z']+", low[end : end + 60])[:n]


def sentence_start(s: str, start: int) -> bool:
    """Does ``start`` begin a sentence (where capitals say nothing)?"""
    before = s[max(0, start - 200) : start].rstrip(" \t\"'(*")
    return not before or before[-1] in ".!?\n:"
