"""The record of a deliberation: one walk over the state, in speaking order, and the ways it is
read — the case file every speaker after the analysts (and the follow-up Desk) reads first, the
Desk's notes on the outcome, and the downloadable report."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.links import inert_links
from ..core.personas import ANALYSTS, RESEARCH_MANAGER, RISK_JUDGE, SIDE_OF, TRADER
from ..core.state import Debate, FinalDecision
from .edits import edit_notes


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


def turn_key(persona: str, earlier: int) -> str:
    """A contribution's key in the figure checks (graph/record/figures.py): its persona and how many
    contributions that persona made before it in this run ("Bull Researcher#1" is the second)."""
    return f"{persona}#{earlier}"


def checked_entries(state: Mapping[str, Any]) -> list[tuple[Entry, str]]:
    """entries(), each with the key its figure check is kept under in state["unverified"]."""
    seen: dict[str, int] = {}
    out = []
    for entry in entries(state):
        out.append((entry, turn_key(entry.persona, seen.get(entry.persona, 0))))
        seen[entry.persona] = seen.get(entry.persona, 0) + 1
    return out


def decision_line(d: FinalDecision) -> str:
    sure = "" if d.confidence is None else f" (confidence {d.confidence:.2f})"
    return f"{d.ticker} {d.trade_date}: {d.signal}{sure}"


def _interjections(state: Mapping[str, Any]) -> list[str]:
    return [f"- “{i.text}” (answered by {', '.join(i.answered_by) or 'nobody yet'})"
            for i in state.get("interventions") or []]


# The case file's parts: the debates as entries() groups them, but the plans and the ruling under
# their own headings, so a speaker (and the demo model) finds what was handed over to it.
_CASE_PART = {RESEARCH_MANAGER: "Investment plan", TRADER: "Trader's plan", RISK_JUDGE: "Risk Judge's ruling"}
NO_REPORTS = "(no analyst reports)"


# A debate turn the next speaker does not answer is carried by its claims (issue 41): its opening
# paragraph, which every debater's prompt asks to state its conclusion, at most this many characters.
CLAIM_CHARS = 400
CUT = " […]"  # after a turn's claims: the rest of the turn is left out
_PARAGRAPH_END = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s)")


def claims(text: str) -> str:
    """A debate turn as the case file carries it once a later contribution follows it: its opening
    paragraph (its conclusion), cut at a sentence end within CLAIM_CHARS, then CUT; the whole turn when
    that is all of it. A literal prefix of the turn: the prompt that carried the turn whole and the one
    that carries its claims share everything up to CUT, so a server's prefix cache still reuses it."""
    body = text.rstrip()
    lead = body.lstrip()
    start = len(body) - len(lead)
    end = m.start() + start if (m := _PARAGRAPH_END.search(lead)) else len(body)
    if end > start + CLAIM_CHARS:
        window = body[:start + CLAIM_CHARS]
        stops = [m.end() for m in _SENTENCE_END.finditer(window)]
        end = stops[-1] if stops else (window.rfind(" ") if " " in window[start:] else len(window))
    return body if end >= len(body) else body[:end].rstrip() + CUT


def _carried(said: list[Entry], i: int) -> str:
    """An entry's words in the case file: a debate turn followed by a later contribution by its claims
    (each side's claims stay, the last turn, the one the next speaker answers, stays whole); reports,
    plans and the ruling whole."""
    entry = said[i]
    return claims(entry.text) if entry.persona in SIDE_OF and i < len(said) - 1 else entry.text


def reused(case: str) -> str:
    """The part of a speaker's case file the next speaker's opens with, which a server's prefix cache
    reuses: all of it, but of a last debate turn only its claims (the next file carries it cut)."""
    head, sep, last = case.rpartition("\n### ")
    persona, _, text = last.partition("\n")
    if not sep or persona not in SIDE_OF:
        return case
    return f"{head}{sep}{persona}\n{claims(text).removesuffix(CUT)}"


IN_FULL = "The debate turns above in full"


def in_full(state: Mapping[str, Any]) -> str:
    """The debate turns the case file carries by their claims, word for word: what the follow-up Desk
    reads after its notes (a question may be about any word said); "" when none was shortened."""
    said = entries(state)
    cut = [e for i, e in enumerate(said) if _carried(said, i) != e.text]
    return "\n\n".join([f"## {IN_FULL}", *(f"### {e.persona}\n{e.text}" for e in cut)]) if cut else ""


def case_record(state: Mapping[str, Any]) -> str:
    """Everything said about the current analysis so far, in speaking order: a `## <part>` heading
    per part, a `### <persona>` heading per contribution.

    Reports, plans and the ruling are carried whole; debate turns by their claims, but the last one
    whole (`claims`): later rounds do not resend every word (issue 41). Each speaker's record starts
    with the record the previous speaker read up to the claims of its last turn, so a server's prefix
    cache skips all of it but the newest turn (and the rest of the one before it)."""
    said = entries(state)
    out: list[str] = []
    part = None
    for i, entry in enumerate(said):
        name = _CASE_PART.get(entry.persona, entry.part)
        if name != part:
            part = name
            out.append(f"## {name}")
        out.append(f"### {entry.persona}\n{_carried(said, i)}")
    if not any(e.part == ANALYST_REPORTS for e in said):
        out.insert(0, f"## {ANALYST_REPORTS}\n{NO_REPORTS}")
    return "\n\n".join(out)


# What a past analysis keeps of each speaker: its opening (the conclusion, as the prompts ask it
# to lead with) and at most this many characters of it.
GIST_CHARS = 320
EARLIER_ANALYSES = "Earlier analyses in this chat"
STOPPED = "stopped before a decision"


def gist(text: str, sentences: int = 2) -> str:
    """A contribution's opening sentences on one line, a table or heading never among them."""
    lines = [ln.strip() for ln in text.splitlines()
             if ln.strip() and not ln.lstrip().startswith(("|", "#", ">"))]
    flat = " ".join(lines)
    parts = [p for p in flat.replace("**", "").split(". ") if p.strip()]
    out = ". ".join(parts[:sentences]).strip()
    if len(parts) > sentences:
        out += "."
    return out if len(out) <= GIST_CHARS else out[:GIST_CHARS].rsplit(" ", 1)[0] + " …"


def past_analysis(state: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a thread keeps of the analysis on screen when a new one starts: its subject, its
    decision (or that it was stopped) and each speaker's gist, so follow-ups can ask about it and
    compare it later. Plain values only (the checkpoint stores them as they are). None: nothing said."""
    said = entries(state)
    if not state.get("ticker") or not said:
        return None
    by_persona: dict[str, list[str]] = {}
    for entry in said:
        by_persona.setdefault(entry.persona, []).append(gist(entry.text))
    d: FinalDecision | None = state.get("final_decision")
    return {
        "ticker": state["ticker"], "company": state.get("company") or state["ticker"],
        "trade_date": state.get("trade_date") or "",
        "decision": decision_line(d) if d is not None else f"{state['ticker']} {state.get('trade_date')}: {STOPPED}",
        "rationale": gist(d.rationale, 3) if d is not None else "",
        "said": {persona: " / ".join(dict.fromkeys(texts)) for persona, texts in by_persona.items()},
    }


def _earlier_analyses(past: list[dict[str, Any]]) -> str:
    """The thread's earlier analyses, oldest first: a `### decision` heading each, then its speakers."""
    out = [f"## {EARLIER_ANALYSES}\nOldest first; the analysis above is the newest. Each with its decision and "
           "the opening words of each speaker."]
    for p in past:
        lines = [f"### {p['decision']}"]
        if p.get("rationale"):
            lines.append(f"- Rationale: {p['rationale']}")
        lines += [f"- {persona}: {words}" for persona, words in p.get("said", {}).items()]
        out.append("\n".join(lines))
    return "\n\n".join(out)


def _book_notes(state: Mapping[str, Any]) -> str:
    """The user's book as the Trader and the Risk Judge read it, and the decision sized against it."""
    book, sizing = state.get("book"), state.get("sizing") or {}
    if not isinstance(book, dict) or not book.get("brief"):
        return ""
    lines = [str(book["brief"])]
    if summary := sizing.get("summary"):
        lines.append(f"\nThe decision against this book: {summary}.")
    if sizing.get("cash_before"):
        lines.append(f"Position {sizing.get('before') or 'none'} -> {sizing.get('after') or 'none'}; "
                     f"cash {sizing['cash_before']} -> {sizing.get('cash_after')}.")
    if isinstance(settles := sizing.get("settles"), dict) and settles.get("date"):
        lines.append("Settles daily (a future: marked to each session's settlement price, margined every exchange "
                     f"day from {settles['date']})." if settles.get("daily") else
                     f"Settles {settles.get('rule')}: a trade on {settles.get('trade_date')} settles on "
                     f"{settles['date']}.")
    return "\n".join(lines)


def desk_notes(state: Mapping[str, Any]) -> str:
    """What the follow-up Desk reads after the case file: the decision as recorded, the user's
    interjections and the thread's earlier analyses (and decisions kept without one)."""
    parts = []
    if (d := state.get("final_decision")) is not None:
        parts.append("## Final decision\n" + "\n".join(f"{label}: {value}" for label, value in d.rows()))
    if lines := _interjections(state):
        parts.append("## User interjections\n" + "\n".join(lines))
    analyses = state.get("past_analyses") or []
    if analyses:
        parts.append(_earlier_analyses(analyses))
    covered = {(a["ticker"], a["trade_date"]) for a in analyses}
    if past := [p for p in state.get("past_decisions") or [] if (p.ticker, p.trade_date) not in covered]:
        parts.append("## Earlier decisions in this chat\n" + "\n".join(f"- {decision_line(p)}" for p in past))
    if book := _book_notes(state):  # the user's book (graph/book/): "what does this do to my portfolio?"
        parts.append(book)
    if (recalled := state.get("track_record") or {}).get("shared"):  # the user's record (graph/track/)
        parts.append(str(recalled["shared"]))
    if shown := state.get("record_shown"):  # the whole record, as "/record" showed it
        parts.append("## The user's track record, as the Desk last showed it\n" + str(shown))
    if edit := edit_notes(state):  # this branch was forked by an edit: what changed (graph/runtime/branches.py)
        parts.append(edit)
    return "\n\n".join(parts)


def _unverified_lines(state: Mapping[str, Any]) -> list[str]:
    """Per persona, in speaking order, the figures its turns cited that the data does not hold."""
    flagged = state.get("unverified") or {}
    by_persona: dict[str, list[str]] = {}
    for entry, key in checked_entries(state):
        for figure in flagged.get(key, []):
            if figure not in by_persona.setdefault(entry.persona, []):
                by_persona[entry.persona].append(figure)
    return [f"- {persona}: {', '.join(figures)}" for persona, figures in by_persona.items() if figures]


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
        out += ["", inert_links(d.rationale), ""]
    part = None
    flagged = state.get("unverified") or {}
    for entry, key in checked_entries(state):
        if entry.part != part:
            part = entry.part
            out += [f"## {part}", ""]
        if entry.persona != part:  # the Trader's part is the Trader
            out += [f"### {entry.persona}", ""]
        out += [inert_links(entry.text), ""]  # a Markdown viewer would load its images
        if figures := flagged.get(key):
            out += [f"> ⚠ {len(figures)} figure{'s' if len(figures) != 1 else ''} not found in the data "
                    f"(no tool result, report or earlier turn holds them): {', '.join(figures)}", ""]
    if lines := _unverified_lines(state):
        out += ["## Figures not found in the data", "",
                "Numbers these speakers cited that no tool result, report or earlier turn of this run holds "
                "(rounding allowed; dates, periods, small counts and the desk's own stops and sizes are not checked):",
                "", *lines, ""]
    if lines := _interjections(state):
        out += ["## Your interjections", "", *lines, ""]
    if past := state.get("past_decisions"):
        out += ["## Earlier decisions in this chat", "", *(f"- {decision_line(p)}" for p in past)]
    return "\n".join(out).rstrip() + "\n"
