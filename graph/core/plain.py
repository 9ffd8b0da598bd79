"""Markdown read as plain words on one line: what a one-line mention of a message shows (a folded turn in
the chat, a ruling's sentence quoted on the card). Quoted raw, "## 🔴 SELL NVDA > ✏️ …" or "- Risk Judge:
**SELL" showed its marks; read here, it is "🔴 SELL NVDA ✏️ …" and "Risk Judge: SELL". No I/O."""
from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_LINE_MARKS = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|[-*+•]\s+|\d+[.)]\s+)?(?:\[[ xX]\]\s+)?")
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]+)\]\([^)\n]*\)")
_EMPHASIS = re.compile(r"(\*{1,3}|~~)(?=\S)(.+?)(?<=\S)\1|(?<!\w)(_{1,3})(?=\S)(.+?)(?<=\S)\3(?!\w)")
_CODE = re.compile(r"`+([^`\n]*)`+")
# Marks left alone at a word's edge (an emphasis never closed); "snake_case" and "RSI > 70" keep theirs.
_LEFT = re.compile(r"(?<![\w*_`])[*_`]+(?=\w)|(?<=\w)[*_`]+(?![\w*_`])|\\(?=[\\`*_{}\[\]()#+\-.!>|~])")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")


def _line(line: str) -> str:
    if _RULE.match(line) or _TABLE_RULE.match(line):
        return ""
    line = _LINE_MARKS.sub("", line)
    if line.lstrip().startswith("|"):  # a table row: its cells, apart
        line = " · ".join(c.strip() for c in line.strip().strip("|").split("|") if c.strip())
    line = _IMAGE.sub(lambda m: m[1], line)
    line = _LINK.sub(lambda m: m[1], line)
    line = _CODE.sub(lambda m: m[1], line)
    for _ in range(3):  # nested emphasis ("***a***", "**_a_**")
        line = _EMPHASIS.sub(lambda m: m[2] if m[2] is not None else m[4], line)
    return _LEFT.sub("", line)


def plain_line(markdown: str) -> str:
    """`markdown`'s words on one line, without its marks: headings, emphasis, quotes, list bullets, code, links
    (their text), table rules; code fences' lines dropped, their contents kept."""
    words = (_line(line) for line in str(markdown or "").splitlines() if not _FENCE.match(line))
    return " ".join(" ".join(words).split())
