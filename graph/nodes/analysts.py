"""The four analysts, made by one factory: each a capped ReAct loop on its own message list.

The loop's messages live only inside the node, so parallel analysts never see each other's
tool chatter and the user-visible conversation only gets each analyst's report.
"""
from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, InvalidToolCall, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from ..core.context import DeskContext
from ..core.events import ToolFinished, ToolStarted, emit
from ..core.personas import AnalystSpec, persona_label, prompt_name
from ..core.prompts import has_prompt, render
from ..core.state import DeskState, language_of
from ..core.usage import Meter
from ..core.words import label, phrase
from ..models.registry import CallLimits, ModelRegistry
from ..models.tool_text import calls_in_text
from ..record.figures import tool_evidence
from ..tools.events import events_of
from .speaking import (
    NO_ANSWER_START,
    NoTools,
    ask,
    blank,
    language_line,
    opening,
    spoken,
    subject,
    take_notes,
    text_of,
)

Toolkit = Callable[[str, date], dict[str, list[BaseTool]]]
Writer = Callable[[Any], None] | None


def make_analyst(spec: AnalystSpec, models: ModelRegistry, toolkit: Toolkit, max_tool_rounds: int,
                 data_label: str) -> Callable[..., Any]:
    # Models whose server refused the tools: their analysts get the data fetched for them,
    # without a refused request per analyst and run.
    no_tools: set[str] = set()

    @lru_cache(maxsize=64)
    def tools_for(ticker: str, trade_date: str) -> dict[str, BaseTool]:
        # Building tools and their schemas costs milliseconds; a ticker and date get them once.
        return {t.name: t for t in toolkit(ticker, date.fromisoformat(trade_date))[spec.kind]}

    @lru_cache(maxsize=64)
    def equipped(model_name: str, ticker: str, trade_date: str) -> Runnable[Any, Any]:
        return models.get(model_name).bind_tools(list(tools_for(ticker, trade_date).values()))

    async def analyst(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        ticker, trade_date = state["ticker"] or "", state["trade_date"] or ""
        by_name = tools_for(ticker, trade_date)
        if not by_name:  # no source for this analyst's data (the Macro Analyst without FRED_API_KEY)
            _, update = await take_notes(state, runtime, spec.persona)
            report = no_source(spec, language_of(state))  # one plain line, no model asked
            return {spec.report_key: report, "messages": [spoken(spec.persona, report)], **update}
        name = models.quick_name(runtime.context)
        with_tools = equipped(name, ticker, trade_date)
        model = models.quick(runtime.context)
        limits = models.limits("report")
        meter = Meter.of(state, spec.persona, models.settings.token_budget)
        notes, update = await take_notes(state, runtime, spec.persona)
        turn = _Turn(spec.persona, by_name, model, limits, meter, runtime.stream_writer, update,
                     _opening(spec, state, notes, max_tool_rounds, data_label, limits.max_tokens))
        report = await turn.report(with_tools, name, no_tools, max_tool_rounds) or ""
        if lacking := missing_data(turn.fetched, language_of(state)):
            report = f"{report.rstrip()}\n\n{lacking}" if report.strip() else lacking
        return {spec.report_key: report, "messages": [spoken(spec.persona, report)], **update, **meter.update(),
                **tool_evidence(spec.persona, turn.fetched), **events_of(turn.fetched)}

    analyst.__name__ = spec.node
    return analyst


def _opening(spec: AnalystSpec, state: DeskState, notes: str, max_tool_rounds: int, data_label: str,
             max_tokens: int | None) -> list[BaseMessage]:
    """An analyst's first messages: the desk's opening (the case file opens with it too), the rules every
    analyst shares, then this analyst's role (the four prompts open alike, so a server that puts the tool
    schemas after the system text caches the common part once, and the first speaker after them its
    opening), then the thread's language when not English, then the task with the user's notes."""
    system = (render("analyst", opening=opening(state), **subject(state), max_tool_rounds=max_tool_rounds,
                     data_label=data_label, max_words=max_words(max_tokens))
              + "\n\n" + _role(spec, state) + language_line(state))
    return [SystemMessage(system), HumanMessage(render("analyst_task", **subject(state), notes=notes))]


EQUITY = "equity"


def _role(spec: AnalystSpec, state: DeskState) -> str:
    """An analyst's role, then what it must know of instruments that are not a company's shares
    (prompts/<persona>_not_equity.md, where there is one: funds, coins, indices, currencies, futures),
    unless this one is a company's shares: a stock's prompt does not carry the rules for a fund it will
    never read (issue 41). An unknown class reads them."""
    name = prompt_name(spec.persona)
    role = render(name, **subject(state))
    if state.get("asset_class") != EQUITY and has_prompt(other := f"{name}_not_equity"):
        role += "\n\n" + render(other, **subject(state))
    return role


@dataclass
class _Turn:
    """One analyst's turn: its ReAct loop's messages and the tool results it fetched."""
    persona: str
    by_name: dict[str, BaseTool]
    model: BaseChatModel
    limits: CallLimits
    meter: Meter
    write: Writer
    update: dict[str, Any]  # the state update (notes read, the chart's window)
    messages: list[BaseMessage]
    fetched: list[ToolMessage] = field(default_factory=list)  # every result, for graph/record/figures.py
    ran_tools: bool = False

    async def report(self, with_tools: Runnable[Any, Any], model_name: str, no_tools: set[str],
                     max_tool_rounds: int) -> str | None:
        """Rounds of tool calls until the model writes its report, within `max_tool_rounds`."""
        for round_no in range(max_tool_rounds + 1):
            if round_no == max_tool_rounds:
                # The budget is spent: one last call without tools forces the report.
                self.messages.append(HumanMessage(render("tool_budget_spent", max_tool_rounds=max_tool_rounds)))
                return _report(await self.ask(self.model, self.messages), self.by_name, self.persona)
            if model_name in no_tools:
                return await self.from_fetched_data(render("tool_data_no_tools"))
            try:
                reply = await self.ask(with_tools, self.messages)
            except NoTools:
                no_tools.add(model_name)
                return await self.from_fetched_data(render("tool_data_no_tools"))
            report = await self.answer(reply)
            if report is not None:
                return report
        return None

    async def ask(self, model: BaseChatModel | Runnable[Any, Any], messages: list[BaseMessage]) -> AIMessage:
        return await ask(model, messages, self.persona, limits=self.limits, meter=self.meter)

    async def answer(self, reply: AIMessage) -> str | None:
        """Run the tools a reply calls (None: the loop goes on), or take it as the report."""
        for call in [*reply.tool_calls, *reply.invalid_tool_calls]:  # some servers send no ids, but
            call["id"] = call.get("id") or f"call_{uuid.uuid4().hex[:12]}"  # an answer must name its call
        self.messages.append(reply)
        if reply.tool_calls or reply.invalid_tool_calls:
            self.messages.extend(await self.run(reply.tool_calls))
            self.messages.extend(_refuse(call, self.persona, self.write) for call in reply.invalid_tool_calls)
            self.ran_tools = self.ran_tools or bool(reply.tool_calls)  # refused calls brought no data
            return None
        calls, _ = calls_in_text(text_of(reply), self.by_name)
        if calls:  # the model wrote its calls as text: run them, and answer in text too
            self.messages.append(HumanMessage(render("tool_results", results=_as_text(await self.run(calls)))))
            self.ran_tools = True
            return None
        if not self.ran_tools and not text_of(reply).startswith(NO_ANSWER_START):
            self.messages.pop()  # a report from no data is not kept: its figures can only be made up
            return await self.from_fetched_data(render("tool_data_not_called"))
        return text_of(reply)

    async def run(self, calls: list[Any]) -> list[ToolMessage]:
        results = await asyncio.gather(*(_run_tool(self.by_name, call, self.persona, self.write) for call in calls))
        self.fetched.extend(results)
        for result in results:  # a tool that says which window it showed sets the chart's
            if isinstance(result.artifact, dict) and "window_days" in result.artifact:
                self.update["chart_window_days"] = int(result.artifact["window_days"])
        return list(results)

    async def from_fetched_data(self, why: str) -> str:
        """The report from every tool's default answer, fetched by the desk: for a model that
        cannot call tools, or wrote a report without calling any (its figures would be made up)."""
        results = await self.run([{"name": n, "args": {}, "id": f"call_desk_{i}"} for i, n in enumerate(self.by_name)])
        prompt = HumanMessage(render("tool_data", why=why, results=_as_text(results)))
        report = _report(await self.ask(self.model, [*self.messages, prompt]), self.by_name, self.persona)
        # The report says where its data came from: a reader of a weak model's report should know.
        return report if report.startswith(NO_ANSWER_START) else f"{report}\n\n{FETCHED_BY_DESK}"


def no_source(spec: AnalystSpec, language: str) -> str:
    """What an analyst with no data source says (its kind's line in the catalogue, else the general one)."""
    try:
        return phrase(language, f"no_source.{spec.kind}")
    except KeyError:
        return phrase(language, "no_source.default", persona=persona_label(spec.persona, language))


def missing_data(results: list[ToolMessage], language: str) -> str:
    """One plain line in the thread's language naming the data a vendor failed to give (an error or no answer
    within DESK_VENDOR_TIMEOUT_S) and that no later call of the same tool brought: whatever the model wrote,
    the report says what it lacks (issue 36). "" when nothing is missing."""
    failed: list[str] = []
    answered: set[str] = set()
    for result in results:
        art = result.artifact if isinstance(result.artifact, dict) else {}
        name = str(art.get("tool") or result.name or "")
        if art.get("failed"):
            failed.append(name)
        elif art and not art.get("error"):
            answered.add(name)
    lacking = [name for name in dict.fromkeys(failed) if name not in answered]
    if not lacking:
        return ""
    what = phrase(language, "missing_data.separator").join(
        label(language, "missing_data", name.removeprefix("get_").replace("_", " "), name) for name in lacking)
    return phrase(language, "missing_data.line", what=what)


FETCHED_BY_DESK = "_(The model called no tool itself: this report is written from the data the desk fetched for it.)_"


def max_words(max_tokens: int | None) -> int:
    """The length a prompt asks for, well inside the output cap (a word is ~1.3 tokens, and a
    model asked for N words often writes more): 40% of the cap, in tens."""
    return max(30, round((max_tokens or 1000) * 0.4 / 10) * 10)


def _report(reply: AIMessage, by_name: dict[str, BaseTool], persona: str) -> str:
    """The report a final call gave, without tool calls written as text; a reply that was nothing
    but calls is no report."""
    calls, rest = calls_in_text(text_of(reply), by_name)
    if calls and blank(rest):
        return render("no_report", persona=persona)
    return rest if calls else text_of(reply)


def _as_text(results: list[ToolMessage]) -> str:
    return "\n\n".join(f"### {m.name}\n{m.content}" for m in results)


def _refuse(call: InvalidToolCall, persona: str, write: Writer) -> ToolMessage:
    """A call whose arguments are not valid JSON gets an error the model can correct."""
    name, call_id = str(call.get("name") or "unknown"), str(call.get("id") or "")
    text = render("tool_args_invalid", tool=name, error=str(call.get("error") or "not a JSON object"))
    emit(write, ToolStarted(persona, name, {"arguments": str(call.get("args") or "")}, call_id))
    emit(write, ToolFinished(persona, name, call_id, text))
    return ToolMessage(content=text, tool_call_id=call_id, name=name, status="error")


async def _run_tool(by_name: dict[str, BaseTool], call: Any, persona: str, write: Writer) -> ToolMessage:
    name, call_id = call["name"], str(call["id"])
    emit(write, ToolStarted(persona, name, dict(call.get("args") or {}), call_id))
    tool = by_name.get(name)
    if tool is None:
        msg = ToolMessage(content=f"no data: there is no tool named {name}", tool_call_id=call_id,
                          name=name, status="error")
    else:
        try:
            msg = await tool.ainvoke({**call, "type": "tool_call"})
        except Exception as exc:  # a broken tool must not sink the analyst: it reports no data
            msg = ToolMessage(content=f"no data: {name} failed ({exc})", tool_call_id=call_id,
                              name=name, status="error")
    emit(write, ToolFinished(persona, name, call_id, str(msg.content)[:500]))
    return msg
