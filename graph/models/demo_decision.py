"""The demo deciders: the Research Manager's recommendation, the Trader's plan and the Risk
Judge's ruling, each from the signal handed to it and the levels the figures give; and the
ruling read back into a Ruling call (the decision's shape, graph/core/state.py)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_core.messages import AIMessage

from ..core.holding import sessions
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


HORIZON = "2-6 weeks"  # the demo's holding horizon, read as the track record reads it (graph/core/holding.py)


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
        """Half the size when earnings fall inside the horizon."""
        full = min(5.0, 1.0 + 0.5 * abs(score(self.points)))
        return full / 2 if self.earnings_inside else full

    def stop(self, atr_multiple: float = 2.0) -> float | None:
        if self.signal == "HOLD" or not (self.close and self.atr):
            return None
        offset = atr_multiple * self.atr
        if self.signal == "BUY":  # an ex-dividend day in the window drops the price by the dividend: not a stop
            return self.close - offset - (self.dividend_inside or 0.0)
        return self.close + offset

    def _inside(self, label: str, after: str) -> tuple[str, int] | None:
        """An event's date and sessions away when it falls inside the horizon, else None."""
        day, away = self.fig.get(label), number(self.fig.get(after))
        if day is None or away is None or away > sessions(HORIZON):
            return None
        return str(day), int(away)

    @property
    def earnings_inside(self) -> tuple[str, int] | None:
        return self._inside("Next Earnings", "Earnings In Sessions")

    @property
    def dividend_inside(self) -> float | None:
        inside = self._inside("Next Ex-Dividend", "Ex-Dividend In Sessions")
        return number(self.fig.get("Dividend Per Share")) if inside else None

    def event_words(self) -> list[str]:
        """How each event inside the horizon changes the size, the stop or the timing (issue 38)."""
        out = []
        trading = self.signal != "HOLD"
        if earned := self.earnings_inside:
            day, away = earned
            if trading:
                timing = ("enter the other half only after the report" if away <= 5 else
                          "the stop stays, and a gap through it on the report is what the smaller size pays for")
                out.append(f"Earnings on {day} fall inside the {HORIZON} horizon ({away} sessions away): "
                           f"the size is halved into the report; {timing}.")
            else:
                out.append(f"Earnings on {day} fall inside the {HORIZON} horizon ({away} sessions away): "
                           "no position into the report; revisit once it is out.")
        if (ex := self._inside("Next Ex-Dividend", "Ex-Dividend In Sessions")) is not None:
            day, _ = ex
            amount = number(self.fig.get("Dividend Per Share"))
            paid = f" ({fmt(amount)} per share)" if amount is not None else ""
            if self.signal == "BUY":
                out.append(f"The ex-dividend date {day}{paid} is inside the horizon: the price drops by about the "
                           "dividend that day, so the stop sits that much lower.")
            elif self.signal == "SELL":
                out.append(f"The ex-dividend date {day}{paid} is inside the horizon: a short owes the dividend, "
                           "a cost of the trade; the stop is unchanged.")
        if (split := self._inside("Next Split", "Split In Sessions")) is not None and trading:
            out.append(f"The {self.fig.get('Split Ratio', '')} split on {split[0]} is inside the horizon: the stop "
                       "and entry are divided by the ratio that day; the position's value is unchanged.")
        return out


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
                     + f", horizon {HORIZON}.")
    if events := p.event_words():
        lines.append(" ".join(events))
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
    lines.append(f"**{p.signal} {p.ticker}**: {sized}{stopped}, for {HORIZON}; confidence {conf}.")
    why = [x.text for x in p.points if (x.stance > 0) == (p.signal != "SELL") and x.stance][:3]
    # What is scheduled inside the horizon belongs to the reasoning (and so to the card's rationale).
    lines.append(" ".join([f"Why: the evidence nets {score(p.points):+d}; "
                           f"{'; '.join(why) or 'no signal is strong enough to act on'}.", *p.event_words()]))
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
