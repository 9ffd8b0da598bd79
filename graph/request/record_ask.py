"""Whether a message asks for the desk's track record ("how have your calls done?", "/record",
"what did you decide on NVDA last time, and were you right?"), rather than for a new analysis."""
from __future__ import annotations

import re

_ASKS = re.compile(
    r"^\s*/record\b"
    r"|\b(?:your|the\s+desk'?s?|my)\s+track\s+record\b|^\W*track\s+record\W*$"
    r"|\bhow\s+(?:have|did|are|were)\s+(?:your|the\s+desk'?s?|my)\s+(?:past\s+|previous\s+|last\s+)?"
    r"(?:calls?|decisions?|picks?|trades?|recommendations?)\b"
    r"|\b(?:were\s+you|was\s+the\s+desk|was\s+(?:that|your|the\s+desk'?s?)\s+(?:last\s+)?call)\s+right\b"
    r"|\bwhat\s+did\s+(?:you|the\s+desk)\s+(?:decide|say|call|recommend)\b.*\blast\s+time\b"
    r"|\byour\s+(?:past|previous|earlier|last)\s+(?:calls|decisions|picks)\b"
    r"|\byour\s+hit\s+rate\b",
    re.I | re.S)


def asks_for_record(text: str) -> bool:
    return _ASKS.search(text) is not None
