"""The one input guard: what a user typed, made safe to store, show back and parse.

The chat and the CLI call :func:`clean_message` on every message *before* it is stored
anywhere (thread, checkpoint, history); :func:`graph.request.parse_request` applies it
again itself, so a direct caller is safe too. It:

* truncates first, by characters, to :data:`MAX_MESSAGE_CHARS`, so no later step
  (Unicode normalisation, regular expressions) ever sees more than that: a megabyte
  of U+FDFA (which NFKC expands 18-fold) costs microseconds, not a second;
* joins surrogate pairs and replaces a lone surrogate with U+FFFD (a lone one cannot
  be encoded as UTF-8, so nothing could store it);
* removes NULs and other control characters (tab and newlines stay) and every
  invisible format character (Unicode category Cf: zero-width spaces and joiners,
  bidi overrides, the soft hyphen, BOM, tag characters that can smuggle hidden text
  to a model, ...), which would otherwise change what a date or ticker reads as
  while looking the same ("20\u200c24-05-01"). A zero-width joiner inside an emoji
  sequence (👨‍👩‍👧) is kept for display; the parser drops it as well.

It never raises and never changes visible text other than cutting it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_MESSAGE_CHARS", "Cleaned", "clean_message", "strip_invisible"]

# Generous for a chat request ("should I buy NVDA today?" is 24 characters), small
# enough that everything after this step is bounded.
MAX_MESSAGE_CHARS = 4000

HOW_TO_ASK = "Type a ticker like `NVDA`, optionally with a date, e.g. `AAPL 2024-05-01`."

# Unicode category Cf (format characters) as of Unicode 15, with a little room in the
# blocks that grow; tests/request/test_bad_input.py checks this covers every Cf code point
# this Python knows. U+200D (ZWJ) is handled separately below.
_CF = (
    r"\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b\u200c\u200e\u200f"
    r"\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    r"\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f"
)
# Invisible letters and marks that are not Cf but render as nothing (Hangul fillers,
# the combining grapheme joiner, Khmer inherent vowels, Mongolian variation selectors).
_BLANK_MARKS = r"\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u180f\u3164\uffa0"
# Controls other than tab, LF and CR: NUL, escape sequences, DEL, C1.
_CONTROLS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f"
# Pictographs a ZWJ may join (emoji sequences), plus VS16 and skin tones before it.
_EMOJI = r"\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"

_UNSAFE = re.compile(
    rf"[{_CF}{_BLANK_MARKS}{_CONTROLS}]+|(?<![{_EMOJI}\ufe0f])\u200d|\u200d(?![{_EMOJI}])"
)
# Everything the parser drops on top: every ZWJ and the variation selectors.
_INVISIBLE_FOR_PARSING = re.compile(r"[\u200d\ufe00-\ufe0f\U000e0100-\U000e01ef]+")
_SURROGATE_PAIR = re.compile(r"[\ud800-\udbff][\udc00-\udfff]")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
_LINE_BREAKS = str.maketrans({"\u2028": "\n", "\u2029": "\n", "\x85": "\n"})


@dataclass(frozen=True)
class Cleaned:
    """A message made safe: ``text`` can be stored, shown and parsed."""

    text: str  # no lone surrogates, NULs or invisible characters; at most MAX_MESSAGE_CHARS
    problem: str | None = None  # for the user, when the message was cut or has nothing readable
    original_chars: int = 0  # length of the message as received
    truncated: bool = False
    removed: int = 0  # characters removed or replaced (invisible, control, broken)

    @property
    def usable(self) -> bool:
        """False when nothing readable is left (empty, blank or only invisible characters)."""
        return bool(self.text.strip())


def clean_message(text: object) -> Cleaned:
    """Make a message safe to store and parse. Fast on any size; never raises."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    original = len(text)
    truncated = original > MAX_MESSAGE_CHARS
    cut = text[:MAX_MESSAGE_CHARS] if truncated else text  # first: bounds every step below
    safe, broken = cut, 0
    if _LONE_SURROGATE.search(safe):
        safe = _SURROGATE_PAIR.sub(_join_pair, safe)
        safe, broken = _LONE_SURROGATE.subn("\ufffd", safe)
    joined = len(safe)
    safe = _UNSAFE.sub("", safe.translate(_LINE_BREAKS))
    removed = joined - len(safe) + broken
    usable = bool(safe.strip())
    problem = None
    if truncated:
        problem = f"Your message was {original:,} characters; the desk reads the first {MAX_MESSAGE_CHARS:,}."
        if not usable:
            problem = problem[:-1] + ", and they hold no readable text (only invisible or control characters). "
            problem += HOW_TO_ASK
    elif not usable:
        if cut.strip():
            problem = "Your message held only invisible or control characters, nothing the desk can read. "
        else:
            problem = "Your message was empty. "
        problem += HOW_TO_ASK
    return Cleaned(safe, problem, original, truncated, removed)


def strip_invisible(text: str) -> str:
    """What the parser reads: :func:`clean_message`'s text without joiners and variation selectors."""
    return _INVISIBLE_FOR_PARSING.sub("", text)


def _join_pair(m: re.Match[str]) -> str:
    high, low = ord(m.group(0)[0]), ord(m.group(0)[1])
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
