"""One function builds the one compiled graph, from one settings object.

coordinator ─┬─> analysts (selected, in parallel) ─> bull ⇄ bear ─> research_manager ─> trader
             │                                         ─> risky → safe → neutral ─> risk_judge ─> END
             ├─> desk (follow-up answered from the record) ─> END
             └─> END (chat or a clarifying question)
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from .analysts import Toolkit, make_analyst
from .context import DeskContext
from .coordinator import make_coordinator
from .data import make_vendor
from .data.vendor import Vendor
from .debate import make_debater, make_research_manager, make_risk_judge, make_trader
from .desk import make_desk
from .llm import Models, make_models
from .personas import ANALYST_BY_KIND, ANALYSTS, DEBATERS, INVESTMENT_SIDES, RISK_SIDES
from .routing import next_speaker
from .settings import Settings
from .state import Debate, DeskState
from .tools import make_toolkit


def selected(state: DeskState) -> list[str]:
    return [ANALYST_BY_KIND[k].node for k in state.get("analysts") or ANALYST_BY_KIND]


def make_request_route(parallel: bool):
    def route_request(state: DeskState) -> list[str] | str:
        intent = state.get("intent")
        if intent == "analyze":
            # In sequence (TradingAgents' order) the first analyst hands over to the next.
            return selected(state) if parallel else selected(state)[0]
        return "desk" if intent == "followup" else END
    return route_request


def analyst_route(node: str, parallel: bool, then):
    def route(state: DeskState) -> str:
        chosen = selected(state)
        if not parallel and node in chosen and chosen.index(node) + 1 < len(chosen):
            return chosen[chosen.index(node) + 1]
        return then(state)
    return route


def debate_route(debate_key: str, sides: Sequence[str], rounds_key: str, judge: str):
    """The edge after any speaker of a debate: the next side, or the judge."""
    def route(state: DeskState) -> str:
        debate = state.get(debate_key) or Debate()
        return next_speaker(debate, sides, state.get(rounds_key) or 1) or judge
    return route


def build_graph(settings: Settings | None = None, *, checkpointer=None, models: Models | None = None,
                vendor: Vendor | None = None, toolkit: Toolkit | None = None):
    settings = settings or Settings()
    models = models or make_models(settings)
    vendor = vendor or make_vendor(settings)
    quick, deep = models.quick, models.deep
    resolver: BaseChatModel | None = quick if models.live else None

    g = StateGraph(DeskState, context_schema=DeskContext)
    g.add_node("coordinator", make_coordinator(settings, resolver, models.notice))
    g.add_node("desk", make_desk(quick))
    toolkit = toolkit or partial(make_toolkit, vendor)
    for spec in ANALYSTS:
        g.add_node(spec.node, make_analyst(spec, quick, toolkit, settings.max_tool_rounds, vendor.label))
    for side, spec in DEBATERS.items():
        g.add_node(side, make_debater(spec, quick))
    g.add_node("research_manager", make_research_manager(deep))
    g.add_node("trader", make_trader(quick))
    g.add_node("risk_judge", make_risk_judge(deep))

    g.add_edge(START, "coordinator")
    parallel = settings.parallel_analysts
    analyst_nodes = [a.node for a in ANALYSTS]
    g.add_conditional_edges("coordinator", make_request_route(parallel), [*analyst_nodes, "desk", END])
    investment = debate_route("investment_debate", INVESTMENT_SIDES, "debate_rounds", "research_manager")
    risk = debate_route("risk_debate", RISK_SIDES, "risk_rounds", "risk_judge")
    # Every analyst hands over to the debate; parallel analysts finish in one step, so the bull starts once.
    for node in analyst_nodes:
        g.add_conditional_edges(node, analyst_route(node, parallel, investment),
                                [*analyst_nodes, *INVESTMENT_SIDES, "research_manager"])
    for node in INVESTMENT_SIDES:
        g.add_conditional_edges(node, investment, [*INVESTMENT_SIDES, "research_manager"])
    g.add_edge("research_manager", "trader")
    for node in ("trader", *RISK_SIDES):
        g.add_conditional_edges(node, risk, [*RISK_SIDES, "risk_judge"])
    g.add_edge("risk_judge", END)
    g.add_edge("desk", END)
    return g.compile(checkpointer=checkpointer, name="trading-desk")
