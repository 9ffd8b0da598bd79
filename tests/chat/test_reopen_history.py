"""A thread read back for a page that reopens it (issue 21): each step after its parent (the page drops
a step read before its parent: every tool call, created before the analyst's message is shown), and
a chart's file typed as the JSON it was stored as (the page draws a chart only from a response typed
application/json). The page itself is tests/browser/test_reopen.py."""
from __future__ import annotations

from typing import Any

import chainlit as cl
import plotly.graph_objects as go  # type: ignore[import-untyped]

from chat import history
from chat.history.rows import parents_first


def _step(step_id: str, parent: str | None = None) -> Any:
    return {"id": step_id, "parentId": parent}


def test_a_step_read_before_its_parent_comes_right_after_it():
    steps = [_step("sub", "tool1"), _step("tool1", "msg"), _step("user"), _step("tool2", "msg"), _step("msg"),
             _step("late", "tool1"), _step("orphan", "gone"), _step("later")]
    order = [s["id"] for s in parents_first(steps)]
    assert order == ["user", "msg", "tool1", "sub", "tool2", "late", "orphan", "later"]
    in_order = [_step("a"), _step("b", "a"), _step("c")]
    assert parents_first(in_order) == in_order  # nothing moves when every parent comes first
    looped = [_step("x", "y"), _step("y", "x")]
    assert sorted(s["id"] for s in parents_first(looped)) == ["x", "y"]  # nothing lost


def test_a_chart_is_served_as_json_and_nothing_runs_as_a_page():
    assert history.served_type("application/json") == "application/json"
    assert history.served_type("text/markdown") == "text/markdown"
    for risky in ("text/html", "image/svg+xml", "application/xhtml+xml", "text/javascript", "",
                  None, "text/plain\r\nX-Evil: 1", "application/json; charset=utf-7"):
        assert history.served_type(risky) is None, risky


async def test_a_reopened_thread_has_its_tool_steps_and_its_chart_typed_json(alices_thread):
    layer, user, thread_id = alices_thread
    analyst = cl.Message(content="", author="Market Analyst")
    tool = cl.Step(name="get_price_history", type="tool", parent_id=analyst.id)  # stamped now...
    analyst.created_at = "2099-01-01T00:00:00.000000Z"                        # ...its message later
    tool.output = "rows"
    for step in (tool.to_dict(), analyst.to_dict()):
        await layer.create_step({**step, "threadId": thread_id})
    card = cl.Message(content="Signal: BUY", author="Desk")
    await layer.create_step({**card.to_dict(), "threadId": thread_id})
    chart = cl.Plotly(name="NVDA-2026-11-20-chart", figure=go.Figure(go.Scatter(y=[1, 2])), for_id=card.id)
    await layer.create_element(chart)
    thread = await layer.get_thread(thread_id)
    assert thread is not None
    ids = [s["id"] for s in thread["steps"]]
    assert ids.index(analyst.id) < ids.index(tool.id)
    [element] = thread.get("elements") or []
    assert await layer.stored_file(element["objectKey"]) == ("alice", "application/json")
    assert await layer.stored_file(f"{user.id}/nope/chart") == (None, None)
