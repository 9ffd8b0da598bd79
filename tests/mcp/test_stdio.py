"""`python -m graph mcp` over stdio, driven by the `mcp` SDK's own client (issue 39): the tools listed with their
schemas, an analysis with a progress notification at each persona's turn, a follow-up on its thread, a cancellation
that stops the run as Stop does (the thread resumes), a comparison, the track record, a backtest planned then run by
its id, the book, a note sent the moment an analysis is listed (its run's, its Bear's), and a second user on the
same data folder who can neither list, read nor ask on the first one's threads. Two server processes serve the whole
module (alice's and bob's), in demo mode at the test pace."""
from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from mcp import types
from mcp.shared.exceptions import McpError

from graph.core.prompts import _plain, instruction_fragments
from tests.support.mcp_client import McpDesk, text_of

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TOOLS = {"analyse", "follow_up", "resume", "compare", "track_record", "plan_backtest", "run_backtest", "get_book",
         "list_threads"}
ANALYSIS_TURNS = 12  # four analysts, Bull, Bear, Research Manager, Trader, Risky, Safe, Neutral, Risk Judge
Progress = list[tuple[float, float | None, str | None]]


def _leaks(*texts: str) -> list[str]:
    """Sentences the desk writes only for its models, found in what the client was given."""
    plain = _plain("\n".join(texts))
    return [f for f in instruction_fragments() if f in plain]


def _no_traceback(text: str) -> None:
    assert "Traceback" not in text and 'File "' not in text, text


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp") / "data"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def alice(data_dir: Path) -> AsyncIterator[McpDesk]:
    desk = await McpDesk(data_dir, "alice").start()
    yield desk
    await desk.stop()
    _no_traceback(desk.log_path.read_text())  # a cancelled run, a refusal: nothing the server logs is a traceback


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def bob(data_dir: Path, alice: McpDesk) -> AsyncIterator[McpDesk]:
    desk = await McpDesk(data_dir, "bob").start()  # the same data folder, another user
    yield desk
    await desk.stop()
    _no_traceback(desk.log_path.read_text())


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def analysed(alice: McpDesk) -> tuple[types.CallToolResult, Progress]:
    progress: Progress = []
    result = await alice.call("analyse", {"request": "should I buy NVDA today?"}, progress)
    return result, progress


async def test_the_tools_are_listed_with_a_description_and_schemas(alice: McpDesk) -> None:
    listed = (await alice.session.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        assert tool.description and len(tool.description) > 40, tool.name
        assert tool.inputSchema["type"] == "object" and tool.outputSchema and tool.outputSchema["type"] == "object"
    analyse = next(t for t in listed if t.name == "analyse")
    assert {"request", "ticker", "trade_date", "thread_id"} <= set(analyse.inputSchema["properties"])
    assert {"thread_id", "ruling", "tokens", "outcome"} <= set(analyse.outputSchema["properties"])
    assert "Demo mode" in (alice.instructions or "")  # said as the client connects, as the CLI's first line
    templates = (await alice.session.list_resource_templates()).resourceTemplates
    assert {t.uriTemplate for t in templates} == {"desk://threads/{thread_id}/report",
                                                  "desk://threads/{thread_id}/decision"}


async def test_an_analysis_reports_each_personas_turn_and_returns_the_ruling(
        alice: McpDesk, analysed: tuple[types.CallToolResult, Progress]) -> None:
    result, progress = analysed
    assert not result.isError, text_of(result)
    reply = result.structuredContent
    assert reply is not None and reply["outcome"] == "decision"
    ruling = reply["ruling"]
    assert ruling["ticker"] == "NVDA" and ruling["signal"] in ("BUY", "SELL", "HOLD")
    assert all(ruling[k] for k in ("size", "entry", "stop", "horizon", "rationale", "trade_date"))
    assert 0 <= ruling["confidence"] <= 1
    assert reply["tokens"]["total"] > 0 and reply["tokens"]["by_persona"]["Risk Judge"] > 0
    assert reply["data"] == "synthetic demo data"
    text = text_of(result)
    assert ruling["signal"] in text and reply["thread_id"] in text
    # the class and the benchmark the card names (issue 37)
    assert (ruling["asset_class"], ruling["benchmark"]) == ("equity", "SPY")
    assert "NVDA is a stock. Benchmark: SPY" in text
    # A notification at each persona's turn, numbered, out of the plan's turns, ending with the judge.
    assert [p for p, _, _ in progress] == [float(n) for n in range(1, ANALYSIS_TURNS + 1)]
    assert {t for _, t, _ in progress} == {float(ANALYSIS_TURNS)}
    messages = [m or "" for _, _, m in progress]
    assert any("Bull Researcher" in m for m in messages) and "Risk Judge" in messages[-1]
    assert not _leaks(text)
    # An ordinary thread of alice's: listed, its report and decision readable, its call in her record.
    listed = (await alice.call("list_threads")).structuredContent
    assert listed is not None and reply["thread_id"] in {t["thread_id"] for t in listed["threads"]}
    report = await alice.session.read_resource(f"desk://threads/{reply['thread_id']}/report")
    markdown = report.contents[0]
    assert isinstance(markdown, types.TextResourceContents) and markdown.mimeType == "text/markdown"
    assert markdown.text.startswith("# Trading Desk report: NVDA") and "Bull Researcher" in markdown.text
    assert not _leaks(markdown.text)
    decision = (await alice.session.read_resource(f"desk://threads/{reply['thread_id']}/decision")).contents[0]
    assert isinstance(decision, types.TextResourceContents)
    assert json.loads(decision.text)["ruling"]["signal"] == ruling["signal"]
    record = await alice.call("track_record", {"ticker": "NVDA"})
    calls = (record.structuredContent or {})["calls"]
    assert reply["thread_id"] in {c["thread_id"] for c in calls}
    resources = {str(r.uri) for r in (await alice.session.list_resources()).resources}
    assert f"desk://threads/{reply['thread_id']}/report" in resources


async def test_a_follow_up_is_answered_from_the_thread(
        alice: McpDesk, analysed: tuple[types.CallToolResult, Progress]) -> None:
    thread = (analysed[0].structuredContent or {})["thread_id"]
    progress: Progress = []
    result = await alice.call("follow_up", {"thread_id": thread, "question": "why was the bear worried?"}, progress)
    assert not result.isError, text_of(result)
    reply = result.structuredContent or {}
    assert reply["thread_id"] == thread and reply["outcome"] == "answer" and reply["ruling"] is None
    assert "Bear Researcher" in reply["said"] and reply["said"] in text_of(result)
    assert progress  # the Desk's turn
    assert not _leaks(text_of(result))


async def test_a_request_in_chinese_is_answered_in_chinese(alice: McpDesk) -> None:
    progress: Progress = []
    result = await alice.call("analyse", {"request": "英伟达今天能买吗？"}, progress)
    assert not result.isError, text_of(result)
    reply = result.structuredContent or {}
    assert reply["language"] == "zh" and reply["ruling"]["ticker"] == "NVDA"
    assert any("多头研究员" in (m or "") for _, _, m in progress), progress  # persona labels in Chinese


async def test_a_cancellation_stops_the_run_and_the_thread_resumes(alice: McpDesk) -> None:
    progress: Progress = []
    call = await alice.call_cancelled("analyse", {"ticker": "AMD", "trade_date": "2024-05-03"}, after=5,
                                      progress=progress)
    with pytest.raises(McpError):
        await call
    threads = (await alice.call("list_threads")).structuredContent or {}
    thread = next(t["thread_id"] for t in threads["threads"] if t["ticker"] == "AMD")
    decision = (await alice.session.read_resource(f"desk://threads/{thread}/decision")).contents[0]
    assert isinstance(decision, types.TextResourceContents)
    stopped = json.loads(decision.text)
    assert stopped["ruling"] is None and stopped["resumable"] is True  # stopped as Stop stops: no decision
    resumed: Progress = []
    result = await alice.call("resume", {"thread_id": thread}, resumed)
    assert not result.isError, text_of(result)
    reply = result.structuredContent or {}
    assert reply["outcome"] == "decision" and reply["ruling"]["trade_date"] == "2024-05-03"
    # Finished turns are not asked again: the resumed run counts on from those already spoken.
    assert resumed and resumed[0][0] > 1 and resumed[-1][0] == ANALYSIS_TURNS
    again = await alice.call("resume", {"thread_id": thread})
    assert again.isError and text_of(again) == f"Thread {thread} has no stopped run to resume."


async def test_another_user_can_neither_list_nor_read_nor_ask_on_a_thread(
        alice: McpDesk, bob: McpDesk, analysed: tuple[types.CallToolResult, Progress]) -> None:
    thread = (analysed[0].structuredContent or {})["thread_id"]
    listed = (await bob.call("list_threads")).structuredContent or {}
    assert thread not in {t["thread_id"] for t in listed["threads"]}
    assert not [r for r in (await bob.session.list_resources()).resources if thread in str(r.uri)]
    for part in ("report", "decision"):
        with pytest.raises(McpError) as refused:
            await bob.session.read_resource(f"desk://threads/{thread}/{part}")
        assert refused.value.error.message == f"There is no thread {thread} of yours."
    for tool, arguments in (("follow_up", {"thread_id": thread, "question": "why was the bear worried?"}),
                            ("resume", {"thread_id": thread}),
                            ("analyse", {"request": "should I buy AMD today?", "thread_id": thread})):
        result = await bob.call(tool, arguments)
        assert result.isError and text_of(result) == f"There is no thread {thread} of yours.", tool
    record = (await bob.call("track_record")).structuredContent or {}
    assert thread not in {c["thread_id"] for c in record["calls"]}
    # What bob may not read is not the reason: a thread nobody has reads the same.
    with pytest.raises(McpError) as unknown:
        await bob.session.read_resource("desk://threads/no-such-thread/report")
    assert unknown.value.error.message == "There is no thread no-such-thread of yours."


async def test_a_comparison_runs_a_desk_per_ticker_and_ranks_them(alice: McpDesk) -> None:
    progress: Progress = []
    result = await alice.call("compare", {"request": "NVDA or AMD?"}, progress)
    assert not result.isError, text_of(result)
    reply = result.structuredContent or {}
    assert [d["ticker"] for d in reply["desks"]] == ["NVDA", "AMD"]
    assert all(d["ruling"]["signal"] in ("BUY", "SELL", "HOLD") for d in reply["desks"])
    assert reply["comparison"] and reply["tokens"]["total"] > 0
    assert any("· AMD" in (m or "") for _, _, m in progress)
    threads = {t["thread_id"] for t in ((await alice.call("list_threads")).structuredContent or {})["threads"]}
    assert {reply["thread_id"], *(d["thread_id"] for d in reply["desks"])} <= threads
    followed = await alice.call("follow_up", {"thread_id": reply["thread_id"], "question": "which was riskier?"})
    assert not followed.isError and (followed.structuredContent or {})["said"]
    assert not _leaks(text_of(result), text_of(followed))


async def test_a_backtest_is_planned_with_its_cost_and_runs_only_by_its_id(alice: McpDesk, bob: McpDesk) -> None:
    planned = await alice.call("plan_backtest", {"tickers": ["NVDA"], "start": "2024-03-04", "end": "2024-03-05"})
    assert not planned.isError, text_of(planned)
    plan = planned.structuredContent or {}
    assert plan["deliberations"] == 2 and plan["expected_tokens"] > 0 and plan["plan_id"] in text_of(planned)
    assert "tokens" in plan["statement"]
    # Another user's plan reads as none; a plan runs once.
    stolen = await bob.call("run_backtest", {"plan_id": plan["plan_id"]})
    assert stolen.isError and plan["plan_id"] in text_of(stolen)
    progress: Progress = []
    ran = await alice.call("run_backtest", {"plan_id": plan["plan_id"]}, progress)
    assert not ran.isError, text_of(ran)
    reply = ran.structuredContent or {}
    assert reply["complete"] and reply["days"] == 2 and reply["failed"] == 0
    assert "| B&H |" in reply["table"] and "| Trading Desk |" in reply["table"] and reply["table"] in text_of(ran)
    assert [p for p, _, _ in progress] == [1.0, 2.0]
    again = await alice.call("run_backtest", {"plan_id": plan["plan_id"]})
    assert again.isError
    worded = await alice.call("plan_backtest", {"request": "backtest AAPL from January to March 2024"})
    assert not worded.isError and (worded.structuredContent or {})["tickers"] == ["AAPL"]


async def test_refusals_and_mistakes_are_one_plain_sentence(alice: McpDesk) -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("analyse", {}), ("analyse", {"request": "I hold 200 NVDA at 95"}), ("analyse", {"nonsense": 1}),
        ("follow_up", {"thread_id": "not-a-thread", "question": "why?"}), ("compare", {"request": "NVDA"}),
        ("plan_backtest", {"tickers": ["NVDA"]}), ("run_backtest", {"plan_id": "0" * 32}), ("no_such_tool", {}),
    ]
    for tool, arguments in cases:
        result = await alice.call(tool, arguments)
        text = text_of(result)
        assert result.isError and text and "\n" not in text.strip(), (tool, text)
        _no_traceback(text)
    book = await alice.call("get_book")
    assert not book.isError and (book.structuredContent or {})["positions"] == []


async def test_a_note_sent_the_moment_an_analysis_is_listed_is_for_its_run_and_its_bear(alice: McpDesk) -> None:
    """A client that starts an analysis and, as soon as list_threads shows the thread, sends a note to it: the note
    is that run's (not a second run racing it for the thread), addressed to the Bear however few of the run's
    steps are saved yet, and the Bear answers it."""
    asked = "should I buy MSFT on 2024-05-03?"
    analysis = asyncio.create_task(alice.call("analyse", {"request": asked}))
    thread = None
    while thread is None and not analysis.done():
        listed = (await alice.call("list_threads")).structuredContent or {}
        thread = next((t["thread_id"] for t in listed["threads"] if t["title"] == asked), None)
    assert thread, "listed while it runs"
    text = "Bear, what about the debt?"
    noted = await alice.call("follow_up", {"thread_id": thread, "question": text})
    assert not noted.isError, text_of(noted)
    reply = noted.structuredContent or {}
    assert reply["outcome"] == "noted" and "the Bear Researcher will answer this." in reply["said"], reply
    done = await analysis
    assert not done.isError and (done.structuredContent or {})["outcome"] == "decision", text_of(done)
    report = (await alice.session.read_resource(f"desk://threads/{thread}/report")).contents[0]
    assert isinstance(report, types.TextResourceContents)
    assert f"“{text}” (answered by Bear Researcher)" in report.text


async def test_a_note_waiting_when_the_server_stops_is_answered_when_the_run_resumes(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The server stopped while a run's note waits for the Bear: nothing it logs is a traceback, and the note is
    kept: the next server's resume of the run has the Bear answer it."""
    data_dir = tmp_path_factory.mktemp("mcp-stop") / "data"
    first = await McpDesk(data_dir, "carol").start()
    asked, text = "should I buy AMZN on 2024-05-03?", "Bear, what about the margins?"
    progress: Progress = []
    try:
        analysis = asyncio.create_task(first.call("analyse", {"request": asked}, progress))
        thread = None
        while thread is None and not analysis.done():
            listed = (await first.call("list_threads")).structuredContent or {}
            thread = next((t["thread_id"] for t in listed["threads"] if t["title"] == asked), None)
        assert thread, "listed while it runs"
        noted = await first.call("follow_up", {"thread_id": thread, "question": text})
        assert "the Bear Researcher will answer this." in (noted.structuredContent or {}).get("said", ""), noted
        while len(progress) < 2 and not analysis.done():  # the analysts speak: the Bear's turn is ahead
            await asyncio.sleep(0.01)
        assert not analysis.done(), "stopped mid-run"
    finally:
        await first.stop()
    analysis.cancel()
    _no_traceback(first.log_path.read_text())
    second = await McpDesk(data_dir, "carol").start()
    try:
        resumed = await second.call("resume", {"thread_id": thread})
        assert not resumed.isError, text_of(resumed)
        assert (resumed.structuredContent or {})["outcome"] == "decision"
        report = (await second.session.read_resource(f"desk://threads/{thread}/report")).contents[0]
        assert isinstance(report, types.TextResourceContents)
        assert f"“{text}” (answered by Bear Researcher)" in report.text
    finally:
        await second.stop()
    _no_traceback(second.log_path.read_text())
