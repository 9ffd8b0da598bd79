"""The demo deciders: the Research Manager's recommendation, the Trader's plan and the Risk
Judge's ruling, each from the signal handed to it and the levels the figures give; and the
ruling read back into a Ruling call (the decision's shape, graph/core/state.py)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_core.messages import AIMessage

from .demo_figures import Point, _subject, figures_in, fmt, number, read_points, score, sections, signal_of
from .demo_notes import _notes_block
from .ruling import parse_ruling

_PROPOSAL = re.compile(r"(?:FINAL TRANSACTION PROPOSAL|Recommendation|Signal):\s*\**\s*(BUY|SELL|HOLD)", re.I)


def _manager(system: str, notes) -> str:
    ticker, _, date = _subject(system)
    fig = figures_in(system)
    points = read_points(fig)
    sig = signal_of(points)
    lines = _notes_block(notes, fig, points, system)
    bulls = [p for p in points if p.stance > 0]
    bears = [p for p in points if p.stance < 0]
    lines.append(f"Recommendation: **{sig}** {ticker} as of {date}. The evidence scores {score(points):+d} "
                 f"({len(bulls)} bullish signals, {len(bears)} bearish).")
    if sig != "SELL" and bulls:
        lines.append("Strongest for it: " + "; ".join(p.text for p in bulls[:3]) + ".")
    if sig != "BUY" and bears:
        lines.append("Strongest against: " + "; ".join(p.text for p in bears[:3]) + ".")
    lines.append("I would change my mind if the trend and momentum signals flip.")
    return "\n\n".join(lines)


@dataclass(frozen=True)
class _Plan:
    """What the trader and the judge read: the signal handed to them and the levels to trade."""
    ticker: str
    points: list[Point]
    fig: dict[str, str]
    signal: str
    close: float | None
    atr: float | None

    @property
    def size(self) -> float:
        return min(5.0, 1.0 + 0.5 * abs(score(self.points)))

    def stop(self, atr_multiple: float = 2.0) -> float | None:
        if self.signal == "HOLD" or not (self.close and self.atr):
            return None
        offset = atr_multiple * self.atr
        return self.close - offset if self.signal == "BUY" else self.close + offset


def _plan(system: str, handed_over_in: str) -> _Plan:
    fig = figures_in(system)
    points = read_points(fig)
    handed = sections(system).get(handed_over_in, "")
    sig = m[1].upper() if (m := _PROPOSAL.search(handed)) else signal_of(points)
    return _Plan(_subject(system)[0], points, fig, sig, number(fig.get("Close")), number(fig.get("ATR 14")))


def _trader(system: str, notes) -> str:
    p = _plan(system, "Investment plan")
    lines = _notes_block(notes, p.fig, p.points, system)
    if p.signal == "HOLD" or not p.close:
        lines.append(f"No new position in {p.ticker}: the plan is to hold and watch the signals.")
    else:
        lines.append(f"{'Buy' if p.signal == 'BUY' else 'Sell'} {p.ticker} at {fmt(p.close)} (the last close), "
                     f"{p.size:.1f}% of the portfolio, stop at {fmt(p.stop())}"
                     + (f" (2 × ATR {fmt(p.atr)})" if p.atr else " (no ATR available: set it from your own levels)")
                     + ", horizon 2-6 weeks.")
    lines.append(f"FINAL TRANSACTION PROPOSAL: **{p.signal}**")
    return "\n\n".join(lines)


def _judge(system: str, notes) -> str:
    """The ruling in one line (what the card will show), then the reasoning in a line or two."""
    p = _plan(system, "Trader's plan")
    lines = _notes_block(notes, p.fig, p.points, system)
    volatile = bool(p.close and p.atr and p.atr / p.close > 0.03)
    size = 0.0 if p.signal == "HOLD" else p.size / (2 if volatile else 1)
    stop = p.stop()
    conf = round(min(0.9, 0.45 + 0.07 * abs(score(p.points))), 2)
    sized = f"{size:.1f}% of the portfolio at {fmt(p.close)}" if size else "no new position (0%)"
    stopped = f", stop {fmt(stop)}" if stop else ""
    lines.append(f"**{p.signal} {p.ticker}**: {sized}{stopped}, for 2-6 weeks; confidence {conf}.")
    why = [x.text for x in p.points if (x.stance > 0) == (p.signal != "SELL") and x.stance][:3]
    lines.append(f"Why: the evidence nets {score(p.points):+d}; "
                 f"{'; '.join(why) or 'no signal is strong enough to act on'}.")
    if volatile and size:
        lines.append("The Safe Analyst's point on volatility wins: the size is halved.")
    return "\n\n".join(lines)


_LEAD = re.compile(r"\*\*(?P<signal>BUY|SELL|HOLD) [^*]+\*\*: (?P<size>.+?)(?: at (?P<entry>[\d,.]+))?"
                   r"(?:, stop (?P<stop>[\d,.]+))?, for (?P<horizon>[^;]+); confidence (?P<confidence>[\d.]+)\.")


def _read_ruling(text: str) -> dict[str, object]:
    """The demo judge's ruling: `Field: value` lines (a scripted judge's), else its one-line lead."""
    args = parse_ruling(text)
    if args["signal"] is not None or not (m := _LEAD.search(text)):
        return args
    rest = text[m.end():].strip()
    return {"signal": m["signal"], "position_size": m["size"], "entry": m["entry"] or "n/a",
            "stop": m["stop"] or "n/a", "horizon": m["horizon"], "confidence": float(m["confidence"]),
            "rationale": " ".join(rest.replace("Why: ", "").split()) or "n/a"}


def _extract_decision(text: str) -> AIMessage:
    args = _read_ruling(sections(text).get("Ruling", text))
    return AIMessage(content="", tool_calls=[{"name": "Ruling", "args": args, "id": None, "type": "tool_call"}])
