"""Which language the desk answers a thread in: the setting's, else the request's, and a thread
keeps its language until a message is clearly written in another.

A thread's follow-ups are often too short to say anything ("NVDA?", "ok", "RSI?"): the detector
(graph/request/language.py) calls those English because English is its default, and a Chinese
thread must not switch to English on them. It names another language only when it is sure (a
script, a sure detection, a date or buy/sell word of that language), so that is taken as the
user's switch; English is taken only from a message with a few English words in it. Likewise a
thread in Traditional Chinese stays so on a message that could be either script ("好的").
"""
from __future__ import annotations

import re

from ..core.chinese_script import chinese_script, is_chinese
from ..core.words import DEFAULT_LANGUAGE, is_language
from ..request.language import detect_language

# Words a detection of English needs before it counts as the user writing English: the
# detector's own threshold for reading Latin text at all (graph/request/language.py).
ENGLISH_WORDS = 3
_WORD = re.compile(r"[^\W\d_]{2,}")


def _clearly_english(text: str) -> bool:
    """A few lower- or mixed-case Latin words: "why was the bear worried?", not "NVDA RSI?"."""
    return len([w for w in _WORD.findall(text) if w.isascii() and not w.isupper()]) >= ENGLISH_WORDS


def thread_language(setting: str, current: object, text: str, detected: str | None = None) -> str:
    """The language for this message of a thread: `setting` (DESK_LANGUAGE) when it is not "auto";
    else the message's when the thread has none yet (`current` is None in a new thread or one
    checkpointed before languages) or when the message is clearly in another; else the thread's.
    `detected` is the message's language as the request parser read it (detected here if not given)."""
    if setting != "auto":
        return setting
    found = detected if is_language(detected) else detect_language(text)
    if not is_language(current) or found == current:
        return found
    if is_chinese(found) and is_chinese(current) and chinese_script(text) is None:
        return str(current)
    if found != DEFAULT_LANGUAGE or _clearly_english(text):
        return found
    return str(current)
