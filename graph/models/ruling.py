"""Reading a ruling written as `Field: value` lines (the Risk Judge's prompt asks for them), in
English or in Chinese ("信号：卖出"), and reading one signal from a manager's or trader's words."""
from __future__ import annotations

import re

from ..core.state import DECISION_FIELDS, FinalDecision, Signal

# Each field's label as a ruling may write it: the English of DECISION_FIELDS, then Chinese
# (simplified and traditional) for a desk that speaks it.
LABELS: dict[str, tuple[str, ...]] = {
    "signal": ("信号", "信號", "决定", "決定", "最终决定", "最終決定", "操作建议", "操作建議", "最终交易建议",
               "最終交易建議", "交易建议", "交易建議", "建议", "建議"),
    "position_size": ("仓位", "倉位", "头寸规模", "頭寸規模", "头寸", "頭寸"),
    "entry": ("入场", "入場", "进场", "進場", "入场价", "入場價"),
    "stop": ("止损", "止損", "止损价", "止損價"),
    "horizon": ("期限", "持有期", "持有期限", "周期", "週期"),
    "confidence": ("置信度", "信心", "信心度"),
    "rationale": ("理由", "依据", "依據"),
}
# A signal as it may be written: the word itself, or its Chinese, simplified and traditional (buy / add / open;
# sell / reduce / close out; hold / wait). 买进 and 卖出 are Taiwan's usual words.
_SIGNAL_WORDS: dict[str, Signal] = {
    "买入": "BUY", "買入": "BUY", "买进": "BUY", "買進": "BUY", "增持": "BUY", "做多": "BUY", "加仓": "BUY",
    "加倉": "BUY", "建仓": "BUY", "建倉": "BUY",
    "卖出": "SELL", "賣出": "SELL", "卖掉": "SELL", "賣掉": "SELL", "减持": "SELL", "減持": "SELL", "做空": "SELL",
    "减仓": "SELL", "減倉": "SELL", "清仓": "SELL", "清倉": "SELL",
    "持有": "HOLD", "观望": "HOLD", "觀望": "HOLD", "持仓不动": "HOLD", "持倉不動": "HOLD",
}
_SIGNALS = re.compile(r"\b(BUY|SELL|HOLD)\b|(" + "|".join(map(re.escape, _SIGNAL_WORDS)) + ")", re.I)
# A manager's or trader's line that names its call: "FINAL TRANSACTION PROPOSAL: **BUY**", "Recommendation: Sell".
_CALL_LINE = re.compile(r"^\W*(?:FINAL TRANSACTION PROPOSAL|Recommendation|Signal|Decision|最终交易建议|最終交易建議"
                        r"|交易建议|交易建議|最终决定|最終決定|建议|建議|信号|信號)\W*[:：]"
                        r"\s*(.+)$", re.M | re.I)


def signals_in(text: str) -> set[Signal]:
    """Every signal a text names, English or Chinese."""
    found: set[Signal] = set()
    for m in _SIGNALS.finditer(text):
        found.add(m[1].upper() if m[1] else _SIGNAL_WORDS[m[2]])  # type: ignore[arg-type]
    return found


def one_signal(text: str) -> Signal | None:
    """The one signal a text names, or None for none or several ("BUY, SELL or HOLD" is a model
    echoing its template, and a decision nobody made must never be read into it)."""
    named = signals_in(text)
    return named.pop() if len(named) == 1 else None


def stated_call(text: str) -> Signal | None:
    """The call a manager's or trader's words state on their call line (the last one that names
    exactly one signal), else the signal their opening line begins with; None when neither is clear."""
    for m in reversed(list(_CALL_LINE.finditer(text))):
        if (signal := one_signal(m[1])) is not None:
            return signal
    # An opening line that begins with its call ("**Hold** for now"), not one that mentions a
    # signal on the way ("After weighing the Bull's BUY case…").
    first = next((line for line in text.splitlines() if line.strip()), "")
    opening = re.match(r"^\W*(\w+)", first)
    signal = one_signal(opening[1]) if opening else None
    return signal if signal is not None and one_signal(first) == signal else None  # "Buy or sell?" is none


def parse_ruling(text: str) -> dict[str, object]:
    out: dict[str, object] = {}
    text = text.replace(" · ", "\n")  # the judge's prompt asks for the fields on one line, ` · ` between them
    for key, label in DECISION_FIELDS:
        names = "|".join(re.escape(n) for n in (label, *LABELS.get(key, ())))
        m = re.search(rf"^\W*(?:{names})\W*?[:：]\s*\**\s*(.+?)\**\s*$", text, re.M | re.I)
        if m:
            out[key] = m[1].strip()
    out["signal"] = one_signal(str(out.get("signal", "")))
    conf = re.search(r"(\d*\.?\d+)(?:\s*(?:/|out\s+of)\s*(\d+))?", str(out.get("confidence", "")))
    value = float(conf[1]) / (float(conf[2]) or 1) if conf and conf[2] else float(conf[1]) if conf else None
    # none stated: none shown (a number is never made up); "70%" and "7/10" are 0.7
    out["confidence"] = None if value is None else min(1.0, max(0.0, value / 100 if value > 1 else value))
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
        confidence=fields["confidence"],  # parse_ruling made it a 0..1 float, or None when none was stated
        **{**given, "rationale": str(fields.get("rationale") or text.strip()[-600:])},
        ticker=ticker, trade_date=trade_date,
    )
