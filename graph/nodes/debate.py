"""The speakers after the analysts: debaters from one factory, then the manager, trader and judge."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime

from ..core.context import DeskContext, user_of
from ..core.errors import DeskError
from ..core.personas import RESEARCH_MANAGER, RISK_JUDGE, TRADER, DebaterSpec, prompt_name
from ..core.prompts import render, without_instructions
from ..core.state import Debate, DeskState, FinalDecision, Ruling, StatedCall, Turn
from ..core.usage import Meter
from ..models.registry import ModelRegistry, Role
from ..models.ruling import decision_from_text, one_signal, parse_ruling, stated_call
from ..track.keeper import call_from
from ..track.log import DecisionLog
from ..track.recall import block_for
from .analysts import max_words
from .holdings import brief_of, sized
from .speaking import ask, blank, case_file, language_line, spoken, subject, take_notes, text_of

Node = Callable[..., Any]


async def _speak(models: ModelRegistry, model: BaseChatModel, state: DeskState, persona: str, notes: str,
                 role: Role, *, required: bool = False) -> tuple[str, Meter]:
    """One turn: its words, and the meter of what it spent. The prompt opens with the case file
    every speaker shares (everything said so far, append-only), then this persona's role
    (prompts/<persona>.md, with the length the role's output cap allows), then its turn and the
    user's notes: consecutive speakers' prompts share all but the newest turn as a prefix. The thread's
    language, when not English, is asked for after the role (speaking.language_line)."""
    limits = models.limits(role)
    meter = Meter.of(state, persona, models.settings.token_budget)
    # The track record's block for this persona comes after the shared case file, so the case file
    # stays the prefix every speaker's prompt shares (graph/track/recall.py).
    recalled = block_for(state.get("track_record"), persona)
    if persona in (TRADER, RISK_JUDGE) and (book := brief_of(state)):  # who sizes the trade reads the book
        recalled = f"{recalled}\n\n{book}" if recalled else book
    system = case_file(state) + "\n\n" + (recalled + "\n\n" if recalled else "") + render(
        prompt_name(persona), **subject(state), max_words=max_words(limits.max_tokens)) + language_line(state)
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
        called = await stated(models, models.deep(runtime.context), state, RESEARCH_MANAGER, plan, meter)
        return {"investment_plan": plan, "investment_debate": debate.model_copy(update={"judge_decision": plan}),
                "messages": [spoken(RESEARCH_MANAGER, plan)], **update, **called, **meter.update()}

    return research_manager


def make_trader(models: ModelRegistry) -> Node:
    async def trader(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        notes, update = await take_notes(state, runtime, TRADER)
        plan, meter = await _speak(models, models.quick(runtime.context), state, TRADER, notes, "turn")
        called = await stated(models, models.quick(runtime.context), state, TRADER, plan, meter)
        return {"trader_plan": plan, "messages": [spoken(TRADER, plan)], **update, **called, **meter.update()}

    return trader


async def stated(models: ModelRegistry, model: BaseChatModel, state: DeskState, persona: str, text: str,
                 meter: Meter) -> dict[str, Any]:
    """The call a manager's plan or a trader's proposal states, for the card and the track record:
    its call line when it has one that names one signal, else as the model gives it under the
    call's schema (or a tool call); nothing when neither says (never a guess)."""
    signal = stated_call(text)
    if signal is None and models.settings.structured_output != "lines" and not blank(text):
        prompt = [HumanMessage(render("call_extract", persona=persona, text=text, **subject(state)))]
        meter.check(prompt, models.limits("turn").max_tokens)
        shaped = await models.shapes.ask(models.capped(model, "turn"), StatedCall, prompt, meter=meter,
                                         config={"tags": ["nostream"], "metadata": {"persona": persona}})
        signal = shaped.value.signal if shaped is not None else None
    return {"plan_calls": {persona: signal}}


async def read_ruling(models: ModelRegistry, model: BaseChatModel, state: DeskState, ruling: str,
                      meter: Meter) -> FinalDecision | None:
    """The decision in the judge's ruling, as the model itself gives it: decoded under the ruling's
    schema where its server can (else through function calling), reading the judge's words only as
    the last resort; None when none of them names a signal (a decision is never guessed).

    The words the user read and the structured ruling must agree: when the words name one signal
    and the structured ruling another, the decision carries the words' (`words_say`) and the card
    says so, with the judge's own words."""
    ticker, trade_date = state.get("ticker") or "", state.get("trade_date") or ""
    # What the words say: their Signal line, else the one signal their prose names ("I'd sell here").
    said = parse_ruling(ruling)["signal"] or one_signal(ruling)
    shaped = None
    if models.settings.structured_output != "lines":
        prompt = [HumanMessage(render("decision_extract", ruling=ruling, **subject(state)))]
        meter.check(prompt, models.limits("ruling").max_tokens)
        # Tagged nostream: the user reads the judge's words, not the JSON.
        shaped = await models.shapes.ask(models.capped(model, "ruling"), Ruling, prompt, meter=meter,
                                         config={"tags": ["nostream"], "metadata": {"persona": RISK_JUDGE}})
    if shaped is not None:
        fields = shaped.value.model_dump()
        fields["confidence"] = min(1.0, max(0.0, fields["confidence"] / 100 if fields["confidence"] > 1
                                            else fields["confidence"]))
        decision: FinalDecision | None = FinalDecision(**fields, read=shaped.method)
    else:
        decision = decision_from_text(ruling, ticker, trade_date)
        if decision is not None:
            decision = decision.model_copy(update={"read": "lines"})
    if decision is None:
        return None
    disagree = said if said is not None and said != decision.signal else None
    # The card shows these fields: no instruction the judge echoed in them reaches it.
    shown = {k: without_instructions(getattr(decision, k)) for k in ("position_size", "entry", "stop", "horizon",
                                                                     "rationale")}
    return decision.model_copy(update={"ticker": ticker, "trade_date": trade_date, "words_say": disagree, **shown})


def make_risk_judge(models: ModelRegistry, data_label: str) -> Node:
    async def risk_judge(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        debate = state.get("risk_debate") or Debate()
        model = models.deep(runtime.context)
        notes, update = await take_notes(state, runtime, RISK_JUDGE)
        ruling, meter = await _speak(models, model, state, RISK_JUDGE, notes, "ruling", required=True)
        decision = await read_ruling(models, model, state, ruling, meter)
        if decision is None:  # a ruling without BUY, SELL or HOLD is not a decision; never guess one
            raise DeskError(key="errors.no_signal", persona=RISK_JUDGE)
        logged = _log(state, runtime, decision, data_label)
        try:
            out = {"final_decision": decision, "risk_debate": debate.model_copy(update={"judge_decision": ruling}),
                   "sizing": sized(state, decision), "messages": [spoken(RISK_JUDGE, ruling)], **update,
                   **meter.update()}
        finally:
            if logged is not None:
                # Written before the step ends (so before its checkpoint, and before anything can read the
                # log after the run): a crash either keeps both or re-runs the judge, which writes it again.
                await logged
        return out

    return risk_judge


def _log(state: DeskState, runtime: Runtime[DeskContext], decision: FinalDecision,
         data_label: str) -> asyncio.Task[None] | None:
    """The user's decision log entry (graph/track/): only a decision made is logged. Its write (a commit and,
    on SQLite, an fsync) starts now, beside the rest of the judge's step, which the caller awaits it after."""
    if runtime.store is None:
        return None
    config = get_config()
    user, source = user_of(config, runtime.context)
    call = call_from(state, decision, user=user, thread_id=str(config["configurable"]["thread_id"]), source=source,
                     data=data_label)
    return asyncio.create_task(DecisionLog(runtime.store).save(call), name="desk-decision-log")
