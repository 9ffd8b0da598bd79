"""The four analysts, made by one factory: each a capped ReAct loop on its own message list.

The loop's messages live only inside the node, so parallel analysts never see each other's
tool chatter and the user-visible conversation only gets each analyst's report.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date
from functools import lru_cache
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from ..context import DeskContext
from ..events import ToolFinished, ToolStarted, emit
from ..models.registry import ModelRegistry
from ..personas import AnalystSpec, prompt_name
from ..prompts import render
from ..state import DeskState
from .speaking import ask, spoken, subject, take_notes, text_of

Toolkit = Callable[[str, date], dict[str, list[BaseTool]]]
Writer = Callable[[Any], None] | None


def make_analyst(spec: AnalystSpec, models: ModelRegistry, toolkit: Toolkit, max_tool_rounds: int,
                 data_label: str) -> Callable[..., Any]:
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
        with_tools = equipped(models.quick_name(runtime.context), ticker, trade_date)
        model = models.quick(runtime.context)
        notes, update = await take_notes(state, runtime, spec.persona)
        # The rules every analyst shares first, then this analyst's role: the four prompts open alike,
        # so a server that puts the tool schemas after the system text caches the common part once.
        system = (render("analyst", **subject(state), max_tool_rounds=max_tool_rounds, data_label=data_label)
                  + "\n\n" + render(prompt_name(spec.persona), **subject(state)))
        messages: list[BaseMessage] = [
            SystemMessage(system),
            HumanMessage(render("analyst_task", **subject(state), notes=notes)),
        ]
        write = runtime.stream_writer
        reply: AIMessage | None = None
        for round_no in range(max_tool_rounds + 1):
            if round_no == max_tool_rounds:
                # The budget is spent: one last call without tools forces the report.
                messages.append(HumanMessage(render("tool_budget_spent", max_tool_rounds=max_tool_rounds)))
                reply = await ask(model, messages, spec.persona)
            else:
                reply = await ask(with_tools, messages, spec.persona)
            messages.append(reply)
            if not reply.tool_calls:
                break
            results = await asyncio.gather(*(_run_tool(by_name, call, spec.persona, write)
                                             for call in reply.tool_calls))
            messages.extend(results)
            for result in results:  # a tool that says which window it showed sets the chart's
                if isinstance(result.artifact, dict) and "window_days" in result.artifact:
                    update["chart_window_days"] = int(result.artifact["window_days"])
        report = text_of(reply) if reply is not None else ""
        return {spec.report_key: report, "messages": [spoken(spec.persona, report)], **update}

    analyst.__name__ = spec.node
    return analyst


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
