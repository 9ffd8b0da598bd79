"""The scale-out benchmarks (issue 12): two chat processes on one Postgres serve chats spread over
them, each chat on its own server to the end, with no other chat's words; and the CPU profile
summary counts what it is meant to (waits left out, each sample once, in the first area it is in)."""
from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.scale import measure
from benchmarks.server_cpu import areas, top
from tests.support.postgres import PostgresServer


@pytest.mark.e2e
@pytest.mark.postgres
async def test_chats_spread_over_two_processes_on_one_postgres_all_reach_a_decision(
        postgres_server: PostgresServer, tmp_path: Path):
    result = await measure(postgres_server.create_database(), 2, 4, tmp_path, delay_ms=1, run_timeout=240)

    assert result["completed"] == 4 and result["decisions"] == 4
    assert result["completed_per_server"] == [2, 2]           # chat i stayed on server i mod 2
    assert result["with_foreign_words"] == 0
    assert result["first_token_s"]["n"] == 4 and result["run_s"]["n"] == 4
    assert result["log"]["traceback"] == 0 and result["log"]["pool_timeout"] == 0, result["first_traceback"]
    assert len(result["server_cpu_s"]) == 2 and all(cpu > 0 for cpu in result["server_cpu_s"])


MAIN = "thread (1): MainThread;main (chainlit/cli/__init__.py:1)"
PROFILE = "\n".join([  # py-spy's raw format: a thread's stack, outermost first, then its sample count
    f"{MAIN};ChatRun._run (chat/runs.py:1);price_chart (chat/views/card.py:1);add_hline (plotly/basedatatypes.py:1) 6",
    f"{MAIN};Renderer.handle (chat/views/render.py:1);AsyncServer.emit (socketio/async_server.py:1) 3",
    f"{MAIN};ask (graph/nodes/speaking.py:1);ahandle_event (langchain_core/callbacks/manager.py:1) 1",
    f"{MAIN};_run_once (nest_asyncio.py:1);EpollSelector.select (selectors.py:468) 50",
    "thread (2): history-writer_0;_worker (concurrent/futures/thread.py:83);"
    "HistoryWriter._apply (chat/history/writer.py:1) 2",
    "thread (3): asyncio_0;_worker (concurrent/futures/thread.py:81) 40",
])


def test_the_profile_summary_leaves_waits_out_and_counts_each_sample_once(tmp_path: Path):
    spy = tmp_path / "spy.txt"
    spy.write_text(PROFILE)

    by_area = areas(spy)
    assert by_area.splitlines()[0] == "12 busy samples, by area"   # 50 + 40 waiting samples left out
    shares = {line[8:]: line[:6].strip() for line in by_area.splitlines()[1:]}
    assert shares == {"the decision chart (plotly)": "50.0%",
                      "socket emits (chainlit emitter, socket.io)": "25.0%",   # not "rendering": emits first
                      "chat history writes (data layer)": "16.7%",
                      "langchain (messages, callbacks) and pydantic": "8.3%"}  # the innermost known frame
    functions = top(spy)
    assert "12 samples" in functions and "EpollSelector.select" not in functions
