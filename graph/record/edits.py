"""What an edit of the past changed: the decision before and after a fork, in words, for the card,
the CLI and the follow-up Desk (graph/runtime/branches.py makes the forks)."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..core.state import FinalDecision

_PERCENT = re.compile(r"-?\d+(?:\.\d+)?\s*%")


def short_decision(d: FinalDecision | None) -> str:
    """"SELL 1.8% at 0.80"; "HOLD at 0.55" (a hold has no size); "BUY" (no confidence stated); "no decision"."""
    if d is None:
        return "no decision"
    size = _PERCENT.search(d.position_size or "")
    sized = d.signal != "HOLD" and size is not None and float(size.group().rstrip("% ")) != 0
    sure = "" if d.confidence is None else f" at {d.confidence:.2f}"
    return f"{d.signal}{' ' + size.group().replace(' ', '') if sized and size else ''}{sure}"


def decision_change(before: FinalDecision | None, after: FinalDecision | None) -> str:
    """"was SELL 1.8% at 0.80 → now HOLD at 0.55", or "unchanged: …" when the ruling is the same."""
    was, now = short_decision(before), short_decision(after)
    return f"unchanged: {now}" if was == now else f"was {was} → now {now}"


def edit_change(state: Mapping[str, Any]) -> str | None:
    """The decision change of a forked branch once its run has a decision; None otherwise."""
    forked = state.get("forked")
    if not forked or state.get("final_decision") is None:
        return None
    return decision_change(forked.get("parent_decision"), state["final_decision"])


def edit_notes(state: Mapping[str, Any], quote: int = 600) -> str:
    """What the follow-up Desk reads about the edit this branch was forked by ("" when none)."""
    forked = state.get("forked")
    if not forked:
        return ""
    def cut(text: str) -> str:
        return text if len(text) <= quote else text[:quote].rstrip() + " …"
    # The change first: it is what "what changed after my edit?" asks for.
    said = f"The user rewrote the {forked['label']}'s words and the desk re-ran everything after them."
    if (change := edit_change(state)) is not None:
        said = f"Decision against the branch before the edit: {change}. {said}"
    lines = ["## The user's edit", said,
             f"Before: “{cut(str(forked.get('was') or ''))}”", f"After: “{cut(str(forked.get('now') or ''))}”"]
    return "\n".join(lines)
