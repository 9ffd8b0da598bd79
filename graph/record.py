"""The record of a deliberation: one walk over the state, in speaking order, and the two ways
it is read — the follow-up Desk's context (grouped by persona) and the downloadable report."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .personas import ANALYSTS, RESEARCH_MANAGER, RISK_JUDGE, TRADER
from .state import Debate, FinalDecision


@dataclass(frozen=True)
class Entry:
    """One contribution: who said it, in which part of the deliberation."""
    part: str
    persona: str
    text: str


ANALYST_REPORTS, INVESTMENT_DEBATE, TRADE, RISK_DEBATE = "Analyst reports", "Investment debate", "Trader", "Risk debate"


def entries(state: Mapping[str, Any]) -> list[Entry]:
    """Everything the desk said about the current analysis, in speaking order."""
    out = [Entry(ANALYST_REPORTS, a.persona, state[a.report_key]) for a in ANALYSTS if state.get(a.report_key)]
    investment: Debate = state.get("investment_debate") or Debate()
    out += [Entry(INVESTMENT_DEBATE, t.persona, t.text) for t in investment.turns]
    if state.get("investment_plan"):
        out.append(Entry(INVESTMENT_DEBATE, RESEARCH_MANAGER, state["investment_plan"]))
    if state.get("trader_plan"):
        out.append(Entry(TRADE, TRADER, state["trader_plan"]))
    risk: Debate = state.get("risk_debate") or Debate()
    out += [Entry(RISK_DEBATE, t.persona, t.text) for t in risk.turns]
    if risk.judge_decision:
        out.append(Entry(RISK_DEBATE, RISK_JUDGE, risk.judge_decision))
    return out


def decision_line(d: FinalDecision) -> str:
    return f"{d.ticker} {d.trade_date}: {d.signal} (confidence {d.confidence:.2f})"


def _interjections(state: Mapping[str, Any]) -> list[str]:
    return [f"- “{i.text}” (answered by {', '.join(i.answered_by) or 'nobody yet'})"
            for i in state.get("interventions") or []]


def record_text(state: Mapping[str, Any]) -> str:
    """The stored deliberation as `## <persona>` sections a model (or the demo policy) can quote."""
    parts = []
    if (d := state.get("final_decision")) is not None:
        parts.append("## Final decision\n" + "\n".join(f"{label}: {value}" for label, value in d.rows()))
    by_persona: dict[str, list[str]] = {}
    for entry in entries(state):
        by_persona.setdefault(entry.persona, []).append(entry.text)
    if not any(e.part == ANALYST_REPORTS for e in entries(state)):
        parts.append("## Reports\n(no analyst reports)")
    parts += [f"## {persona}\n" + "\n\n".join(texts) for persona, texts in by_persona.items()]
    if lines := _interjections(state):
        parts.append("## User interjections\n" + "\n".join(lines))
    if past := state.get("past_decisions"):
        parts.append("## Earlier decisions in this chat\n" + "\n".join(f"- {decision_line(p)}" for p in past))
    return "\n\n".join(parts)


def report_markdown(state: Mapping[str, Any], data_label: str = "") -> str:
    """The whole deliberation as one Markdown document, in speaking order."""
    ticker = state.get("ticker") or "?"
    company = state.get("company") or ticker
    out = [f"# Trading Desk report: {ticker} ({company}), {state.get('trade_date') or '?'}", ""]
    if data_label:
        out += [f"_Data: {data_label}._", ""]
    if (d := state.get("final_decision")) is not None:
        rows = d.rows()
        out += ["## Final decision", "", f"- Signal: **{d.signal}**"]
        out += [f"- {label}: {value}" for label, value in rows if label not in ("Signal", "Rationale")]
        out += ["", d.rationale, ""]
    part = None
    for entry in entries(state):
        if entry.part != part:
            part = entry.part
            out += [f"## {part}", ""]
        if entry.persona != part:  # the Trader's part is the Trader
            out += [f"### {entry.persona}", ""]
        out += [entry.text, ""]
    if lines := _interjections(state):
        out += ["## Your interjections", "", *lines, ""]
    if past := state.get("past_decisions"):
        out += ["## Earlier decisions in this chat", "", *(f"- {decision_line(p)}" for p in past)]
    return "\n".join(out).rstrip() + "\n"
