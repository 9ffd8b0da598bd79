"""The demo's Comparison turn and its follow-ups (graph/compare/), written from the desks' records in the prompt.

The ranking is the desks' own, ordered by a rule a reader can check: BUY before HOLD before SELL; among BUYs the
higher confidence first, among SELLs the lower (the less sure the desk is of a fall, the better for a buyer); a
tie by the smaller distance from entry to stop. Each reason quotes the speaker whose side won (the Bull for a BUY,
the Bear for a SELL, the Risk Judge's rationale for a HOLD). A follow-up answers "which was riskier?" from the
distance to each stop and the size, and anything else from the speakers' words nearest the question.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .demo_figures import sections

_ORDER = {"BUY": 0, "HOLD": 1, "SELL": 2}
_RISK_WORDS = re.compile(r"risk|safe|stop|volatil|cautio|danger|drawdown|loss|size|风险|稳|止损|波动")
_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")


@dataclass
class _Desk:
    ticker: str
    fields: dict[str, str] = field(default_factory=dict)
    said: dict[str, str] = field(default_factory=dict)

    @property
    def signal(self) -> str:
        return self.fields.get("Signal", "").split()[0] if self.fields.get("Signal") else ""

    @property
    def decided(self) -> bool:
        return self.signal in _ORDER

    @property
    def confidence(self) -> float | None:
        """None when the ruling stated none ("Confidence: —")."""
        return _number(self.fields.get("Confidence", ""))

    def sure(self) -> str:
        return "no confidence stated" if self.confidence is None else f"confidence {self.confidence:.2f}"

    def stop_distance(self) -> float | None:
        """How far the stop is from the entry, in % of the entry."""
        entry, stop = _number(self.fields.get("Entry", "")), _number(self.fields.get("Stop", ""))
        if not entry or stop is None:
            return None
        return abs(entry - stop) / entry * 100

    def key(self) -> tuple[int, float, float]:
        sure = self.confidence or 0.0  # an unstated confidence ranks as the least sure
        confidence = -sure if self.signal == "BUY" else sure
        distance = self.stop_distance()
        return _ORDER[self.signal], confidence, distance if distance is not None else 1e9

    def reason(self) -> str:
        speaker = {"BUY": "Bull Researcher", "SELL": "Bear Researcher"}.get(self.signal)
        if speaker and self.said.get(speaker):
            return f"the {speaker.split()[0]} argued “{_first(self.said[speaker]).rstrip('.')}”"
        if rationale := self.fields.get("Rationale"):
            return f"the Risk Judge ruled “{_first(rationale).rstrip('.')}”"
        return "the Risk Judge gave no reason"


def _number(text: str) -> float | None:
    m = _NUMBER.search(text or "")
    return float(m[0].replace(",", "")) if m else None


def _first(text: str) -> str:
    sentence = re.split(r"(?<=[.!?])\s", text.split(" / ")[0].strip())[0]
    return sentence if len(sentence) <= 200 else sentence[:200].rsplit(" ", 1)[0] + " …"


def _desks(system: str) -> list[_Desk]:
    out = []
    body = sections(system).get("The desks", "") or system
    for m in re.finditer(r"^### (\S+)[^\n]*\n(.*?)(?=^### |^## |\Z)", body, re.M | re.S):
        desk = _Desk(m[1])
        for line in m[2].splitlines():
            if fm := re.match(r"^([A-Z][a-z]+(?: [a-z]+)?): (.+)$", line):
                desk.fields[fm[1]] = fm[2].strip()
            elif sm := re.match(r"^- ([^:]+): (.+)$", line):
                desk.said[sm[1].strip()] = sm[2].strip()
        out.append(desk)
    return out


def _ranked(desks: list[_Desk]) -> list[_Desk]:
    return sorted((d for d in desks if d.decided), key=_Desk.key)


def _comparison(system: str, human: str) -> str:
    """The Comparison turn (no ranking in the prompt yet), or a follow-up about it (the ranking is there)."""
    desks = _desks(system)
    if "## The ranking" in system:
        return _followup(desks, human)
    ranked = _ranked(desks)
    out = ["From each desk's own ruling and debate:", ""]
    for i, d in enumerate(ranked, 1):
        out.append(f"{i}. **{d.ticker}** — {d.signal}, {d.sure()}, size "
                   f"{d.fields.get('Position size', 'n/a')}: {d.reason()}.")
    for d in (d for d in desks if not d.decided):
        why = re.sub(r"^no decision\s*\(?|\)$", "", d.fields.get("Signal", "")).strip() or "stopped"
        out.append(f"\nNot ranked: **{d.ticker}** — no decision ({why}).")
    if ranked:
        pick = ranked[0]
        # The risk to the pick is the losing side's case: the Bear's against a BUY, the Bull's against a SELL.
        against = {"BUY": "Bear Researcher", "SELL": "Bull Researcher"}.get(pick.signal, "Safe Analyst")
        risk = pick.said.get(against, "")
        out.append(f"\n**Pick: {pick.ticker}.**" + (f" The risk to it, in the {against.split()[0]}'s words: "
                                                     f"“{_first(risk)}”" if risk else ""))
    else:
        out.append("\nNo desk reached a decision, so there is nothing to rank.")
    return "\n".join(out)


def _followup(desks: list[_Desk], question: str) -> str:
    q = question.lower()
    decided = [d for d in desks if d.decided]
    if _RISK_WORDS.search(q) and decided:
        with_stops = [(d, d.stop_distance()) for d in decided]
        known = [(d, s) for d, s in with_stops if s is not None]
        out = ["From the desks' rulings:"]
        for d, s in with_stops:
            stop = f"stop {d.fields.get('Stop')}, {s:.1f} % from entry" if s is not None else "no stop price"
            out.append(f"- {d.ticker}: {d.signal}, size {d.fields.get('Position size', 'n/a')}, {stop}.")
        if known:
            riskier = max(known, key=lambda x: x[1])[0]
            safe = riskier.said.get("Safe Analyst")
            out.append(f"The riskier is {riskier.ticker}: its stop is the furthest from entry."
                       + (f" Its Safe Analyst said “{_first(safe)}”" if safe else ""))
        return "\n".join(out)
    words = {w for w in re.findall(r"[a-z]{3,}", q)}
    out = ["From the compared desks:"]
    for d in desks:
        best = max(((len(words & set(re.findall(r"[a-z]{3,}", text.lower()))), name, text)
                    for name, text in d.said.items()), default=None)
        signal = d.signal or "no decision"
        if best and best[0]:
            out.append(f"- {d.ticker} ({signal}): {best[1]}: “{_first(best[2])}”")
        else:
            out.append(f"- {d.ticker}: {signal}" + (f", {d.sure()}" if d.decided else "") + ".")
    return "\n".join(out)
