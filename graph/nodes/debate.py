"""The speakers after the analysts: debaters from one factory, then the manager, trader and judge."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime

from ..core.context import DeskContext, user_of
from ..core.errors import DeskError
from ..core.personas import RESEARCH_MANAGER, RISK_JUDGE, TRADER, DebaterSpec, prompt_name
from ..core.prompts import render
from ..core.state import Debate, DeskState, FinalDecision, Turn
from ..core.usage import Meter
from ..models.registry import ModelRegistry, Role
from ..models.ruling import decision_from_text
from ..track.keeper import call_from
from ..track.log import DecisionLog
from ..track.recall import block_for
from .analysts import max_words
from .speaking import ask, case_file, spoken, subject, take_notes, text_of

Node = Callable[..., Any]


async def _speak(models: ModelRegistry, model: BaseChatModel, state: DeskState, persona: str, notes: str,
                 role: Role, *, required: bool = False) -> tuple[str, Meter]:
    """One turn: its words, and the meter of what it spent. The prompt opens with the case file
    every speaker shares (everything said so far, append-only), then this persona's role
    (prompts/<persona>.md, with the length the role's output cap allows), then its turn and the
    user's notes: consecutive speakers' prompts share all but the newest turn as a prefix."""
    limits = models.limits(role)
    meter = Meter.of(state, persona, models.settings.token_budget)
    # The track record's block for this persona comes after the shared case file, so the case file
    # stays the prefix every speaker's prompt shares (graph/track/recall.py).
    recalled = block_for(state.get("track_record"), persona)
    system = case_file(state) + "\n\n" + (recalled + "\n\n" if recalled else "") + render(
        prompt_name(persona), **subject(state), max_words=max_words(limits.max_tokens))
    reply = await ask(model, [SystemMessage(system), HumanMessage(render("your_turn", persona=persona, notes=notes))],
                      persona, required=required, limits=limits, meter=meter)
    return text_of(reply), meter


def make_debater(spec: DebaterSpec, models: ModelRegistry) -> Node:
    async def debater(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        debate: Debate = state.get(spec.debate_key) or Debate()  # type: ignore[assignment]
        notes, update = await take_notes(state, runtime, spec.persona)
        text, meter = await _speak(models, models.quick(runtime.context), state, spec.persona, notes, "turn")
        turn = Turn(side=spec.side, persona=spec.persona, text=text)
        return {spec.debate_key: debate.said(turn), "messages": [spoken(spec.persona, text)], **update,
                **meter.update()}

    debater.__name__ = spec.side
    return debater


def make_research_manager(models: ModelRegistry) -> Node:
    async def research_manager(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        debate = state.get("investment_debate") or Debate()
        notes, update = await take_notes(state, runtime, RESEARCH_MANAGER)
        plan, meter = await _speak(models, models.deep(runtime.context), state, RESEARCH_MANAGER, notes, "turn")
        return {"investment_plan": plan, "investment_debate": debate.model_copy(update={"judge_decision": plan}),
                "messages": [spoken(RESEARCH_MANAGER, plan)], **update, **meter.update()}

    return research_manager


def make_trader(models: ModelRegistry) -> Node:
    async def trader(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        notes, update = await take_notes(state, runtime, TRADER)
        plan, meter = await _speak(models, models.quick(runtime.context), state, TRADER, notes, "turn")
        return {"trader_plan": plan, "messages": [spoken(TRADER, plan)], **update, **meter.update()}

    return trader


def make_risk_judge(models: ModelRegistry, data_label: str) -> Node:
    async def risk_judge(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        debate = state.get("risk_debate") or Debate()
        model = models.deep(runtime.context)
        notes, update = await take_notes(state, runtime, RISK_JUDGE)
        ruling, meter = await _speak(models, model, state, RISK_JUDGE, notes, "ruling", required=True)
        ticker, trade_date = state.get("ticker") or "", state.get("trade_date") or ""
        # The extraction call is tagged nostream: the user sees the judge's words, not the JSON.
        # Function calling, not json_schema: a streaming ChatOpenAI parses json_schema through
        # the SDK's beta stream, which warns on every event (the analysts need tools anyway).
        limits = models.limits("ruling")
        extractor = models.capped(model, "ruling").with_structured_output(
            FinalDecision, method="function_calling", include_raw=True).with_config(
            tags=["nostream"], metadata={"persona": RISK_JUDGE})
        prompt = [HumanMessage(render("decision_extract", ruling=ruling, **subject(state)))]
        meter.check(prompt, limits.max_tokens)
        decision: object = None
        try:
            extracted = await extractor.ainvoke(prompt)
        except Exception:  # a model without structured output: read the lines the prompt asked for
            extracted = {}
        if isinstance(extracted, dict):
            if isinstance(raw := extracted.get("raw"), BaseMessage):
                meter.add(raw, prompt)
            decision = extracted.get("parsed")
        if not isinstance(decision, FinalDecision):
            decision = decision_from_text(ruling, ticker, trade_date)
        if decision is None:  # a ruling without BUY, SELL or HOLD is not a decision; never guess one
            raise DeskError(f"{RISK_JUDGE}: the ruling names no BUY, SELL or HOLD, so no decision was made. "
                            "Check the model, then type “resume” to ask the judge again.")
        decision = decision.model_copy(update={"ticker": ticker, "trade_date": trade_date})
        if runtime.store is not None:  # the user's decision log (graph/track/): only a decision made is logged
            config = get_config()
            user, source = user_of(config, runtime.context)
            await DecisionLog(runtime.store).save(call_from(
                state, decision, user=user, thread_id=str(config["configurable"]["thread_id"]), source=source,
                data=data_label))
        return {"final_decision": decision, "risk_debate": debate.model_copy(update={"judge_decision": ruling}),
                "messages": [spoken(RISK_JUDGE, ruling)], **update, **meter.update()}

    return risk_judge
