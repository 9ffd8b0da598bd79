"""The demo model: a deterministic offline policy that calls the tools and argues from their numbers.

It is what runs when no model is configured. It is not canned text: analysts call the
bound tools and write from the tool artifacts; every later speaker reads the figures in
the analysts' "Key figure" tables, rebuts the previous speaker, quotes any user
interjection it answers, and the decision follows from the data. Its only contract with
the prompts is their visible structure: `**TICKER** (Company)`, `## Section` headings (the case
file's parts, each contribution under a `### Persona` heading), `| label | value |` rows and
the quoted interjection.

Who writes what: reading the prompt and the figures, :mod:`graph.models.demo_figures`; answering a
user's note, :mod:`graph.models.demo_notes`; the analysts, :mod:`graph.models.demo_analyst`; the
bull, the bear and the risk committee, :mod:`graph.models.demo_debate`; the Research Manager, the
Trader and the Risk Judge, :mod:`graph.models.demo_decision`; the Desk's follow-ups,
:mod:`graph.models.demo_desk`.
"""
from __future__ import annotations

import re

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from ..core.personas import (
    ANALYST_PERSONAS,
    COMPARISON,
    DESK,
    RESEARCH_MANAGER,
    RISK_JUDGE,
    SIDE_OF,
    TRADER,
)
from .demo_analyst import _analyst
from .demo_compare import _comparison
from .demo_debate import _debater
from .demo_decision import _extract_decision, _judge, _manager, _trader
from .demo_desk import _desk
from .policy import PolicyChatModel

_NOTE = re.compile(r"interjected: “(.*?)”", re.S)
_COMPARED = "\n## The ranking\n"  # a follow-up about a comparison (prompts/comparison_followup.md)


class DemoChatModel(PolicyChatModel):
    """Deterministic offline desk model (see module docstring)."""

    @property
    def _llm_type(self) -> str:
        return "demo"

    async def reply(self, messages, *, persona, tools, tool_choice) -> AIMessage:
        system = "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))
        human = "\n".join(str(m.content) for m in messages if isinstance(m, HumanMessage))
        notes = _NOTE.findall(human)
        if tools and tool_choice and any(t["function"]["name"] == "Ruling" for t in tools):
            return _extract_decision(system + "\n" + human)
        if persona in ANALYST_PERSONAS:
            return _analyst(persona, messages, system, tools, notes)
        if persona in SIDE_OF:
            return AIMessage(content=_debater(persona, SIDE_OF[persona], system, notes))
        if persona == RESEARCH_MANAGER:
            return AIMessage(content=_manager(system, notes))
        if persona == TRADER:
            return AIMessage(content=_trader(system, notes))
        if persona == RISK_JUDGE:
            return AIMessage(content=_judge(system, notes))
        if persona == COMPARISON or (persona == DESK and _COMPARED in system):  # graph/compare/
            return AIMessage(content=_comparison(system, human))
        if persona == DESK:
            return AIMessage(content=_desk(system, human))
        return AIMessage(content="I have no role on this desk.")
