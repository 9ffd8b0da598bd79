"""The benchmark harness computes the ideal correctly (not: the machine is fast)."""
from __future__ import annotations

import asyncio

import pytest

from benchmarks.headless import Bench
from benchmarks.ideal import analyst_phase_ms, call_ms, ideal_ms
from benchmarks.latency import Call, Latency
from benchmarks.socket_bench import bull_starts, current_speaker
from benchmarks.support.socket_client import DeskClient

LAT = Latency(first_token_ms=100, per_token_ms=10, tool_ms=50)


def test_a_call_costs_first_token_then_one_step_per_further_word():
    assert call_ms(Call("Trader", 1, 0), LAT) == 100
    assert call_ms(Call("Trader", 11, 0), LAT) == 200
    assert call_ms(Call("Trader", 0, 0), LAT) == 100
    assert call_ms(Call("Market Analyst", 0, 3), LAT) == 150, "a round of parallel tools costs one tool_ms"


def test_ideal_takes_the_slowest_analyst_when_parallel_and_all_in_sequence():
    calls = [
        Call("Market Analyst", 0, 2), Call("Market Analyst", 21, 0),   # 150 + 300
        Call("News Analyst", 0, 1), Call("News Analyst", 1, 0),        # 150 + 100
        Call("Bull Researcher", 11, 0),                                # 200
        Call("Risk Judge", 11, 0), Call("Risk Judge", 0, 1),           # 200 + 100: its structured call runs no tool
    ]
    assert ideal_ms(calls, LAT) == 450 + 200 + 300
    assert ideal_ms(calls, LAT, parallel_analysts=False) == 450 + 250 + 200 + 300


def test_analyst_phase_is_measured_from_first_start_to_last_end():
    calls = [Call("Market Analyst", 1, 0, start=1.0, end=1.5), Call("News Analyst", 1, 0, start=1.1, end=2.0),
             Call("Bull Researcher", 1, 0, start=2.0, end=3.0)]
    assert analyst_phase_ms(calls) == pytest.approx(1000)


async def test_a_recorded_run_reproduces_its_ideal_from_the_latency_model(tmp_path):
    lat = Latency(first_token_ms=5, per_token_ms=0.2, tool_ms=5)
    bench = Bench(lat, tmp_path)
    run = await bench.run(checkpointer="memory")
    personas = {c.persona for c in run["calls"]}
    assert "?" not in personas and "Risk Judge" in personas
    # Every recorded call took at least its modelled time; the ideal is their critical path.
    for c in run["calls"]:
        assert (c.end - c.start) * 1000 >= call_ms(Call(c.persona, c.words, 0), lat) - 1
    assert run["wall_ms"] >= run["ideal_ms"] - 1
    assert run["ideal_ms"] <= run["inside_ms"] <= run["wall_ms"], "measured calls take at least their model time"
    assert run["steps"] == 11  # coordinator, analysts, bull, bear, manager, trader, risky, safe, neutral, judge + input


async def test_the_pickup_sees_the_bulls_turn_even_when_the_whole_debate_arrived_before_it_looked():
    # A busy machine: the client gets the Bull's turn and everything after it in one burst, so a
    # look at who speaks now finds the Risk Judge; and the Bull's turn ended before its first words
    # went out, so it came whole (new_message), not streamed. Waiting on the events still finds it.
    client = DeskClient("http://127.0.0.1:9")
    mark = len(client.events)

    async def burst() -> None:
        await asyncio.sleep(0.01)
        for event, name in (("stream_start", "Market Analyst"), ("new_message", "Bull Researcher"),
                            ("stream_start", "Bear Researcher"), ("stream_start", "Risk Judge")):
            await client._recorder(event)({"id": name, "name": name, "output": "", "type": "assistant_message"})

    arriving = asyncio.create_task(burst())
    at = await client.next_event(bull_starts, mark, 5, "the Bull's turn")
    await arriving
    assert client.events[at][1]["name"] == "Bull Researcher"
    assert current_speaker(client) == "Risk Judge", "polling who speaks now would have missed the Bull"
    with pytest.raises(AssertionError, match="waiting for a second Bull"):
        await client.next_event(bull_starts, at + 1, 0.05, "a second Bull")
