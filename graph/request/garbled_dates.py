"""The last finder: what looks like a date but no other finder could read ('2024-05-01-01',
'-2024-01-01', '2024 05 01'). It is asked back, never dropped in favour of today."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from .date_hits import RANK_ABSOLUTE, DateHit

# Digits joined by two or more date separators that no finder above could read.
_GARBLED = re.compile(r"\d[-/.]+\d+[-/.]+\d")
_SIGNED_COMPACT = re.compile(r"(?<!\S)[-+]((?:19|20)\d{6})(?![\w.,])")
_SPACED = re.compile(r"(?<![\w.$])((?:19|20)\d{2})\s+(\d{1,2})\s+(\d{1,2})(?![\w.])")
_ISO_INSIDE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")


def find_garbled(low: str, today: date) -> Iterable[DateHit]:
    """What looks like a date but is none of the above: '2024-05-01-01', '-2024-01-01',
    '2024-05-01xyz', '10000-01-01', '2024 05 01'. Asked back, never dropped for today."""
    for m in re.finditer(r"\S+", low):
        token = m.group(0)
        if token.startswith("$") or not _GARBLED.search(token[:64]):
            continue  # a price, or no date shape
        yield DateHit(m.start(), m.end(), token, None, RANK_ABSOLUTE, "unreadable date", ask="unreadable",
                       unclear=_why_garbled(token), suggest=_date_inside(token))
    for m in _SIGNED_COMPACT.finditer(low):
        yield DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "unreadable date", ask="unreadable",
                       unclear="a date can't have a sign in front", suggest=_date_inside(
                           f"{m.group(1)[:4]}-{m.group(1)[4:6]}-{m.group(1)[6:]}"))
    for m in _SPACED.finditer(low):
        suggest = _date_inside("-".join(m.groups()))
        yield DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "unreadable date", ask="unreadable",
                       unclear="the parts are separated by spaces", suggest=suggest)


def _why_garbled(token: str) -> str:
    core = token.strip("()[]{}<>\"'.,;:!?*")
    if core[:1] in ("-", "+"):
        return "a date can't have a sign in front"
    if re.search(r"[^\W\d_]", core):
        return "there are letters stuck to it"
    parts = [p for p in re.split(r"[-/.]+", core) if p]
    if len(parts) > 3:
        return "it has more than three parts"
    if any(len(p) > 4 for p in parts):
        return "a part of it has too many digits"
    return "it is not in a form I know"


def _date_inside(token: str) -> str | None:
    """A real YYYY-MM-DD inside a garbled token, to offer back."""
    m = _ISO_INSIDE.search(token[:64])
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
    except ValueError:
        return None
