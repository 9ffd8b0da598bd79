"""The four analysts, made by one factory: each a capped ReAct loop on its own message list.

The loop's messages live only inside the node, so parallel analysts never see each other's
tool chatter and the user-visible conversation only gets each analyst's report.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date
from functools import lru_cache

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from .context import DeskContext
from .personas import AnalystSpec, prompt_name
from .prompts import render
from .state import DeskState
from .turns import ask, spoken, subject, take_notes

Toolkit = Callable[[str, date], dict[str, list[BaseTool]]]


def make_analyst(spec: AnalystSpec, model: BaseChatModel, toolkit: Toolkit, max_tool_rounds: int,
                 data_label: str):
    @lru_cache(maxsize=64)
    def equipped(ticker: str, trade_date: str):
        # Building tools and their schemas costs milliseconds; a ticker and date get them once.
        tools = toolkit(ticker, date.fromisoformat(trade_date))[spec.kind]
        return {t.name: t for t in tools}, model.bind_tools(tools)

    async def analyst(state: DeskState, runtime: Runtime[DeskContext]) -> dict:
        by_name, with_tools = equipped(state["ticker"], state["trade_date"])
        notes, update = take_notes(state, runtime, spec.persona)
        messages: list[BaseMessage] = [
            SystemMessage(render(prompt_name(spec.persona), **subject(state), max_tool_rounds=max_tool_rounds,
                                 data_label=data_label)),
            HumanMessage(render("analyst_task", **subject(state), notes=notes)),
        ]
        write = runtime.stream_writer

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
            messages.extend(await asyncio.gather(*(_run_tool(by_name, call, spec.persona, write)
                                                   for call in reply.tool_calls)))
        report = reply.content if isinstance(reply.content, str) else str(reply.content)
        return {spec.report_key: report, "messages": [spoken(spec.persona, report)], **update}

    analyst.__name__ = spec.node
    return analyst


async def _run_tool(by_name: dict[str, BaseTool], call: dict, persona: str, write) -> ToolMessage:
    if write:
        write({"event": "tool_start", "persona": persona, "tool": call["name"], "args": call["args"], "id": call["id"]})
    tool = by_name.get(call["name"])
    if tool is None:
        msg = ToolMessage(content=f"no data: there is no tool named {call['name']}", tool_call_id=call["id"],
                          name=call["name"], status="error")
    else:
        try:
            msg = await tool.ainvoke({**call, "type": "tool_call"})
        except Exception as exc:  # a broken tool must not sink the analyst: it reports no data
            msg = ToolMessage(content=f"no data: {call['name']} failed ({exc})", tool_call_id=call["id"],
                              name=call["name"], status="error")
    if write:
        write({"event": "tool_end", "persona": persona, "tool": call["name"], "id": call["id"],
               "result": str(msg.content)[:500]})
    return msg
