"""The last finder: what looks like a date but no other finder could read ('2024-05-01-01',
'-2024-01-01', '2024 05 01'). It is asked back, never dropped in favour of today."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from .date_hits import DateHit, found
from .date_meanings import Meaning

# Digits joined by two or more date separators that no finder above could read.
_GARBLED = re.compile(r"\d[-/.]+\d+[-/.]+\d")
_SIGNED_COMPACT = re.compile(r"(?<!\S)[-+]((?:19|20)\d{6})(?![\w.,])")
_SPACED = re.compile(r"(?<![\w.$])((?:19|20)\d{2})\s+(\d{1,2})\s+(\d{1,2})(?![\w.])")
_ISO_INSIDE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")


def find_garbled(low: str) -> Iterable[DateHit]:
    """What looks like a date but is none of the above: '2024-05-01-01', '-2024-01-01',
    '2024-05-01xyz', '10000-01-01', '2024 05 01'. Asked back, never dropped for today."""
    for m in re.finditer(r"\S+", low):
        token = m.group(0)
        if token.startswith("$") or not _GARBLED.search(token[:64]):
            continue  # a price, or no date shape
        yield _unreadable(m, _why_garbled(token), _date_inside(token))
    for m in _SIGNED_COMPACT.finditer(low):
        digits = m.group(1)
        suggest = _date_inside(f"{digits[:4]}-{digits[4:6]}-{digits[6:]}")
        yield _unreadable(m, "a date can't have a sign in front", suggest)
    for m in _SPACED.finditer(low):
        yield _unreadable(m, "the parts are separated by spaces", _date_inside("-".join(m.groups())))


def _unreadable(m: re.Match[str], why: str, suggest: str | None) -> DateHit:
    return found(m, Meaning("ask", ask="unreadable", reason=why, suggest=suggest), "unreadable date")


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
