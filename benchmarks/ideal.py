"""The ideal wall time of a run: the model and tool latencies on the graph's critical path."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from graph import ANALYST_PERSONAS

from .latency import Call, Latency


def call_ms(call: Call, lat: Latency) -> float:
    """A call's own time: first token, then one word per `per_token_ms`. An analyst's reply
    with tool calls is followed by one round of them, run concurrently: one `tool_ms`. (Other
    personas have no tools; the Risk Judge's structured-output "tool call" runs nothing.)"""
    model = lat.first_token_ms + max(0, call.words - 1) * lat.per_token_ms
    runs_tools = call.tool_calls and call.persona in ANALYST_PERSONAS
    return model + (lat.tool_ms if runs_tools else 0.0)


def persona_ms(calls: Iterable[Call], lat: Latency, *, measured: bool = False) -> dict[str, float]:
    """Each persona's model and tool time: as the latency model defines it, or (measured=True)
    as its calls actually took, tool rounds still at their fixed cost."""
    totals: dict[str, float] = defaultdict(float)
    for c in calls:
        if measured:
            tools = lat.tool_ms if c.tool_calls and c.persona in ANALYST_PERSONAS else 0.0
            totals[c.persona] += (c.end - c.start) * 1000 + tools
        else:
            totals[c.persona] += call_ms(c, lat)
    return dict(totals)


def ideal_ms(calls: Iterable[Call], lat: Latency, *, parallel_analysts: bool = True, measured: bool = False) -> float:
    """Speakers after the analysts go one after another; the analysts' phase costs its
    slowest analyst when parallel, all of them when in sequence. With measured=True this is
    the time the run spent inside the model and the tools on its critical path."""
    totals = persona_ms(calls, lat, measured=measured)
    analysts = [ms for p, ms in totals.items() if p in ANALYST_PERSONAS]
    phase = (max(analysts) if parallel_analysts else sum(analysts)) if analysts else 0.0
    return phase + sum(ms for p, ms in totals.items() if p not in ANALYST_PERSONAS)


def analyst_phase_ms(calls: Iterable[Call]) -> float:
    """Measured: from the first analyst call's start to the last analyst call's end."""
    spans = [(c.start, c.end) for c in calls if c.persona in ANALYST_PERSONAS]
    return (max(e for _, e in spans) - min(s for s, _ in spans)) * 1000 if spans else 0.0
