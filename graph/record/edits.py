"""What an edit of the past changed: the decision before and after a fork, in words, for the card,
the CLI and the follow-up Desk (graph/runtime/branches.py makes the forks)."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..core.personas import ANALYST_PERSONAS, DEBATERS, INVESTMENT_SIDES, RESEARCH_MANAGER, RISK_JUDGE
from ..core.plain import plain_line
from ..core.state import FinalDecision

_PERCENT = re.compile(r"-?\d+(?:\.\d+)?\s*%")
# Who rules on a turn: the Research Manager on the analysts' reports and the bull/bear debate, the Risk Judge on all.
_BEFORE_MANAGER = ANALYST_PERSONAS | {DEBATERS[side].persona for side in INVESTMENT_SIDES}
# A ruling's sentence that gives a reason (weighs, outweighs, counts the evidence), in English and Chinese.
_REASON = re.compile(r"outweigh|\bwins?\b|\bstrong|\bweak|\bbecause\b|\bevidence\b|\bagainst\b|\bsince\b"
                     r"|\bscores?\b|\bnets?\b|\bhalved\b|\bsignals?\b|因为|由于|胜过|超过|压倒|更强|更弱|证据|反对|理由|信号",
                     re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")
WHY_CHARS = 320  # of a ruling's reason, on the card's one line


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


def _reason(ruling: str, stated: bool = False) -> str:
    """The sentences of a ruling that give its reason (at most two, in plain words, cut at WHY_CHARS); "" if none.
    `stated`: the text is a reason by itself (the ruling's rationale), its first sentences do."""
    sentences = [s.strip() for s in _SENTENCE_END.split(plain_line(ruling)) if s.strip()]
    why = " ".join([s for s in sentences if stated or _REASON.search(s)][:2])
    return why if len(why) <= WHY_CHARS else why[:WHY_CHARS].rsplit(" ", 1)[0] + " …"


def edit_stands_because(state: Mapping[str, Any]) -> tuple[str, str] | None:
    """When an edit left the decision as it was: who ruled on the turns after the edited one (the Research
    Manager for an analyst's or a researcher's turn, else the Risk Judge) and the words of that ruling that
    say why, quoted from the record, never written here. None when the decision changed, or the user wrote
    the ruling itself, or no ruling gives a reason."""
    forked, change = state.get("forked"), edit_change(state)
    if not forked or change is None or not change.startswith("unchanged: "):
        return None
    edited = str(forked.get("persona") or "")
    if edited == RISK_JUDGE:
        return None
    decision = state.get("final_decision")
    judged = str(getattr(state.get("risk_debate"), "judge_decision", "") or "")
    rulings = [(RESEARCH_MANAGER, str(state.get("investment_plan") or ""))] if edited in _BEFORE_MANAGER else []
    rulings += [(RISK_JUDGE, judged)]
    if found := next(((who, why) for who, text in rulings if (why := _reason(text))), None):
        return found
    rationale = _reason(str(getattr(decision, "rationale", "") or ""), stated=True)
    return (RISK_JUDGE, rationale) if rationale else None
