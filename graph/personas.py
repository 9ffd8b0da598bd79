"""Who speaks at the desk: the personas as data, so nodes come from factories, not copies."""
from __future__ import annotations

from dataclasses import dataclass

DESK = "Desk"


@dataclass(frozen=True)
class AnalystSpec:
    kind: str         # selectable name, also the toolkit key
    persona: str
    node: str
    report_key: str   # the state field the report goes to


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
)
ANALYST_BY_KIND = {a.kind: a for a in ANALYSTS}

INVESTMENT_SIDES = ("bull", "bear")
RISK_SIDES = ("risky", "safe", "neutral")

DEBATERS: dict[str, DebaterSpec] = {
    "bull": DebaterSpec("bull", "Bull Researcher", "investment_debate"),
    "bear": DebaterSpec("bear", "Bear Researcher", "investment_debate"),
    "risky": DebaterSpec("risky", "Risky Analyst", "risk_debate"),
    "safe": DebaterSpec("safe", "Safe Analyst", "risk_debate"),
    "neutral": DebaterSpec("neutral", "Neutral Analyst", "risk_debate"),
}

RESEARCH_MANAGER = "Research Manager"
TRADER = "Trader"
RISK_JUDGE = "Risk Judge"

# Every persona in speaking order, for stream consumers and tests.
PERSONAS: tuple[str, ...] = (
    *(a.persona for a in ANALYSTS),
    "Bull Researcher", "Bear Researcher", RESEARCH_MANAGER, TRADER,
    "Risky Analyst", "Safe Analyst", "Neutral Analyst", RISK_JUDGE,
)


def prompt_name(persona: str) -> str:
    """prompts/<snake_case persona>.md"""
    return persona.lower().replace(" ", "_")
