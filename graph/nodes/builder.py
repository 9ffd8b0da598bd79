"""One function builds the one compiled graph, from one settings object.

coordinator ─┬─> analysts (selected, in parallel) ─> bull ⇄ bear ─> research_manager ─> trader
             │                                         ─> risky → safe → neutral ─> risk_judge ─> END
             ├─> followup (Desk answers from the record) ─> END
             └─> END (chat or a clarifying question)

Every edge after a speaker asks the run plan (graph/core/plan.py) who is next. The models are
chosen per run through the runtime context, so the graph does not depend on them.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from ..core.context import DeskContext
from ..core.personas import ANALYSTS, DEBATERS
from ..core.plan import RESEARCH_MANAGER_NODE, RISK_JUDGE_NODE, TRADER_NODE, RunPlan
from ..core.settings import Settings
from ..core.state import DeskState, RouteState
from ..data.vendor import Vendor
from ..models.registry import ModelRegistry
from ..paper.words import Score
from ..record.figures import checked
from ..tools import make_toolkit
from .analysts import Toolkit, make_analyst
from .coordinator import make_coordinator
from .debate import make_debater, make_research_manager, make_risk_judge, make_trader
from .followup import make_followup

FOLLOWUP = "followup"


def build_graph(settings: Settings, *, models: ModelRegistry, vendor: Vendor, toolkit: Toolkit | None = None,
                checkpointer: BaseCheckpointSaver[Any] | None = None,
                store: BaseStore | None = None, paper_score: Score | None = None
                ) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The desk's graph. `paper_score`: Table 1's figures of a paper book asked for in a run (LangGraph Server's graph
    passes graph/backtest/metrics.py's curve_metrics; the chat and the CLI route /paper before the graph)."""
    parallel = settings.parallel_analysts

    def plan(state: RouteState) -> RunPlan:
        return RunPlan.from_state(state, parallel)

    # The routes are coroutines though they never wait: LangGraph runs a plain function's route in a thread
    # pool, a hop to a worker thread and back (its wake-up and the GIL's hand-over) between every two speakers,
    # 1-3 ms of the critical path on a busy machine; a coroutine it awaits on the loop.
    async def route_request(state: RouteState) -> list[str] | str:
        intent = state.get("intent")
        if intent == "analyze":
            return plan(state).first_nodes()
        return FOLLOWUP if intent == "followup" else END

    async def next_turn(state: RouteState) -> str:
        return plan(state).next_node(state)

    def after_analyst(node: str) -> Callable[[RouteState], Awaitable[str]]:
        async def route(state: RouteState) -> str:
            # Parallel analysts all finish in one step, so the first debater starts once.
            return plan(state).next_analyst(node) or plan(state).next_node(state)
        return route

    g = StateGraph(DeskState, context_schema=DeskContext)
    _add_nodes(g, settings, models, vendor, toolkit or partial(make_toolkit, vendor), paper_score)
    analyst_nodes = [a.node for a in ANALYSTS]
    turn_nodes = [*DEBATERS, RESEARCH_MANAGER_NODE, TRADER_NODE, RISK_JUDGE_NODE]
    g.add_edge(START, "coordinator")
    g.add_conditional_edges("coordinator", route_request, [*analyst_nodes, FOLLOWUP, END])
    for node in analyst_nodes:
        g.add_conditional_edges(node, after_analyst(node), [*analyst_nodes, *turn_nodes])
    for node in turn_nodes[:-1]:
        g.add_conditional_edges(node, next_turn, turn_nodes)
    g.add_edge(RISK_JUDGE_NODE, END)
    g.add_edge(FOLLOWUP, END)
    return g.compile(checkpointer=checkpointer, store=store, name="trading-desk")


def _add_nodes(g: StateGraph[Any, Any, Any, Any], settings: Settings, models: ModelRegistry, vendor: Vendor,
               toolkit: Toolkit, paper_score: Score | None = None) -> None:
    """Every node of the desk: the coordinator, the follow-up, the analysts and the speakers after them."""
    g.add_node("coordinator", make_coordinator(settings, models, vendor, paper_score))
    # Every persona turn is followed by the check of the figures it cites (graph/record/figures.py).
    g.add_node(FOLLOWUP, checked(make_followup(models)))
    for spec in ANALYSTS:
        g.add_node(spec.node, checked(make_analyst(spec, models, toolkit, settings.max_tool_rounds, vendor.label)))
    for side, debater in DEBATERS.items():
        g.add_node(side, checked(make_debater(debater, models)))
    g.add_node(RESEARCH_MANAGER_NODE, checked(make_research_manager(models)))
    g.add_node(TRADER_NODE, checked(make_trader(models)))
    g.add_node(RISK_JUDGE_NODE, checked(make_risk_judge(models, vendor.label)))
