"""Reading a ruling written as `Field: value` lines (the Risk Judge's prompt asks for them)."""
from __future__ import annotations

import re

from ..core.state import DECISION_FIELDS, FinalDecision


def parse_ruling(text: str) -> dict[str, object]:
    out: dict[str, object] = {}
    text = text.replace(" · ", "\n")  # the judge's prompt asks for the fields on one line, ` · ` between them
    for key, label in DECISION_FIELDS:
        m = re.search(rf"^\W*{label}\W*:\s*\**\s*(.+?)\**\s*$", text, re.M | re.I)
        if m:
            out[key] = m[1].strip()
    # Exactly one signal: "BUY, SELL or HOLD" is a small model echoing the prompt's template, and
    # a decision nobody made must never be read into it.
    named = {s.upper() for s in re.findall(r"\b(BUY|SELL|HOLD)\b", str(out.get("signal", "")), re.I)}
    out["signal"] = named.pop() if len(named) == 1 else None
    conf = re.search(r"\d*\.?\d+", str(out.get("confidence", "")))
    value = float(conf[0]) if conf else 0.5
    out["confidence"] = value / 100 if value > 1 else value
    return out


def decision_from_text(text: str, ticker: str, trade_date: str) -> FinalDecision | None:
    """The fallback when a model cannot produce structured output: read the lines it wrote.
    None when they name no signal: a decision is never guessed."""
    fields = parse_ruling(text)
    if fields["signal"] is None:
        return None
    given = {key: str(fields.get(key, "n/a")) for key, _ in DECISION_FIELDS if key not in ("signal", "confidence")}
    return FinalDecision(
        signal=fields["signal"],  # parse_ruling made it BUY, SELL or HOLD
        confidence=min(1.0, max(0.0, float(str(fields["confidence"])))),
        **{**given, "rationale": str(fields.get("rationale") or text.strip()[-600:])},
        ticker=ticker, trade_date=trade_date,
    )
