"""The graph's routes read only RouteState's keys (graph/core/state.py): LangGraph hands a route just the keys
its argument's type names, so a key a route read that RouteState lacked would be missing to it, and the run
would be routed wrong. Each route, at every step of real runs (in parallel and in sequence, one and two rounds),
reads no other key and picks what it picks from the whole state."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from graph.core.state import RouteState


class Reads(Mapping[str, Any]):
    """A state that notes every key read of it."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.values, self.read = dict(values), set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return self.values[key]

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return self.values.get(key, default)

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("a route walked the whole state")

    def __len__(self) -> int:
        return len(self.values)


@pytest.mark.parametrize("parallel, rounds", [(True, 1), (False, 2)])
async def test_every_route_reads_only_route_state_and_routes_as_with_the_whole_state(desk_factory, parallel,
                                                                                     rounds):
    desk = desk_factory(parallel_analysts=parallel)
    await desk.ask("should I buy NVDA today?", analysts=["market", "news"], debate_rounds=rounds, risk_rounds=rounds)
    states = [s.values async for s in desk.graph.aget_state_history(desk.config)]
    # The routes are coroutines (builder.py): LangGraph keeps one as the path's afunc.
    routes = [spec.path.afunc for branches in desk.graph.builder.branches.values() for spec in branches.values()]
    assert len(states) > 8 and routes
    keys = set(RouteState.__annotations__)
    for values in states:
        for route in routes:
            reads = Reads(values)
            picked = await route(reads)
            assert reads.read <= keys, (route.__name__, reads.read - keys)
            assert await route({k: v for k, v in values.items() if k in keys}) == picked
