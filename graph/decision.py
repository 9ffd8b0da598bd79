"""Reading a ruling written as `Field: value` lines (the Risk Judge's prompt asks for them)."""
from __future__ import annotations

import re

from .state import FinalDecision

_FIELDS = {"signal": "Signal", "position_size": "Position size", "entry": "Entry", "stop": "Stop",
           "horizon": "Horizon", "confidence": "Confidence", "rationale": "Rationale"}


def parse_ruling(text: str) -> dict:
    out: dict = {}
    for key, label in _FIELDS.items():
        m = re.search(rf"^\W*{label}\W*:\s*\**\s*(.+?)\**\s*$", text, re.M | re.I)
        if m:
            out[key] = m[1].strip()
    sig = re.search(r"\b(BUY|SELL|HOLD)\b", out.get("signal", ""), re.I)
    out["signal"] = sig[1].upper() if sig else "HOLD"
    conf = re.search(r"\d*\.?\d+", out.get("confidence", ""))
    value = float(conf[0]) if conf else 0.5
    out["confidence"] = value / 100 if value > 1 else value
    return out


def decision_from_text(text: str, ticker: str, trade_date: str) -> FinalDecision:
    """The fallback when a model cannot produce structured output: read the lines it wrote."""
    fields = parse_ruling(text)
    return FinalDecision(
        signal=fields["signal"], position_size=fields.get("position_size", "n/a"), entry=fields.get("entry", "n/a"),
        stop=fields.get("stop", "n/a"), horizon=fields.get("horizon", "n/a"),
        confidence=min(1.0, max(0.0, fields["confidence"])),
        rationale=fields.get("rationale") or text.strip()[-600:], ticker=ticker, trade_date=trade_date,
    )
