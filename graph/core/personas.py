"""Who speaks at the desk: every persona fact lives here, as data, so nodes come from
factories and every consumer (routing, prompts, chat, record, demo model) reads one table."""
from __future__ import annotations

from dataclasses import dataclass

from .words import label

DESK = "Desk"


@dataclass(frozen=True)
class AnalystSpec:
    kind: str         # selectable name, also the toolkit key
    persona: str
    node: str
    report_key: str   # the state field the report goes to
    default: bool = True  # in the analysis when nobody chose (DESK_ANALYSTS, the panel, the CLI)


@dataclass(frozen=True)
class DebaterSpec:
    side: str
    persona: str
    debate_key: str   # the state field of the debate it speaks in


ANALYSTS: tuple[AnalystSpec, ...] = (
    AnalystSpec("market", "Market Analyst", "market_analyst", "market_report"),
    AnalystSpec("social", "Social Analyst", "social_analyst", "sentiment_report"),
    AnalystSpec("news", "News Analyst", "news_analyst", "news_report"),
    AnalystSpec("fundamentals", "Fundamentals Analyst", "fundamentals_analyst", "fundamentals_report"),
    # Chosen, not default (issue 38): its report and tool round would grow every default decision's tokens.
    AnalystSpec("macro", "Macro Analyst", "macro_analyst", "macro_report", default=False),
)
ANALYST_BY_KIND = {a.kind: a for a in ANALYSTS}
# Every analyst one may choose, and the ones an analysis has when nobody chose.
ANALYST_KINDS: tuple[str, ...] = tuple(a.kind for a in ANALYSTS)
DEFAULT_ANALYSTS: tuple[AnalystSpec, ...] = tuple(a for a in ANALYSTS if a.default)
DEFAULT_ANALYST_KINDS: tuple[str, ...] = tuple(a.kind for a in DEFAULT_ANALYSTS)
ANALYST_PERSONAS: frozenset[str] = frozenset(a.persona for a in ANALYSTS)
REPORT_KEYS: tuple[str, ...] = tuple(a.report_key for a in ANALYSTS)

INVESTMENT_SIDES = ("bull", "bear")
RISK_SIDES = ("risky", "safe", "neutral")

DEBATERS: dict[str, DebaterSpec] = {
    "bull": DebaterSpec("bull", "Bull Researcher", "investment_debate"),
    "bear": DebaterSpec("bear", "Bear Researcher", "investment_debate"),
    "risky": DebaterSpec("risky", "Risky Analyst", "risk_debate"),
    "safe": DebaterSpec("safe", "Safe Analyst", "risk_debate"),
    "neutral": DebaterSpec("neutral", "Neutral Analyst", "risk_debate"),
}
SIDE_OF: dict[str, str] = {d.persona: d.side for d in DEBATERS.values()}

RESEARCH_MANAGER = "Research Manager"
TRADER = "Trader"
RISK_JUDGE = "Risk Judge"
# Not a speaker of the desk's graph: the turn after several desks decided, ranking them (graph/compare/).
COMPARISON = "Comparison"

# Who speaks in each graph node (the Desk in the coordinator and the follow-up).
PERSONA_OF_NODE: dict[str, str] = {
    **{a.node: a.persona for a in ANALYSTS}, **{side: d.persona for side, d in DEBATERS.items()},
    "research_manager": RESEARCH_MANAGER, "trader": TRADER, "risk_judge": RISK_JUDGE,
    "coordinator": DESK, "followup": DESK,
}

# Every persona that may speak in an analysis, in speaking order (a chosen analyst included), for stream
# consumers; PERSONAS are those of the default analysis, the ones every run hears (tests count on them).
ALL_PERSONAS: tuple[str, ...] = (
    *(a.persona for a in ANALYSTS),
    *(DEBATERS[s].persona for s in INVESTMENT_SIDES), RESEARCH_MANAGER, TRADER,
    *(DEBATERS[s].persona for s in RISK_SIDES), RISK_JUDGE,
)
PERSONAS: tuple[str, ...] = tuple(p for p in ALL_PERSONAS
                                  if p not in {a.persona for a in ANALYSTS if a not in DEFAULT_ANALYSTS})


def prompt_name(persona: str) -> str:
    """prompts/<snake_case persona>.md"""
    return persona.lower().replace(" ", "_")


def persona_label(persona: str, language: str) -> str:
    """How a persona is shown to a user of `language` ("空头研究员" for the Bear Researcher in
    Chinese); the persona's own name where the language has no label for it. Only for display:
    persona ids, state keys and prompts stay English (prompts/words_<language>.md holds the labels)."""
    return label(language, "personas", persona)
