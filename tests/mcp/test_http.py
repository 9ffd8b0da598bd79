"""MCP over streamable HTTP at the chat server's `/mcp` (issue 39), driven by the `mcp` SDK's own client: signed in
with HTTP Basic (an account) or a personal token; no account is 401, a page of another origin 403; the tools listed,
an analysis with a progress notification at each persona's turn, a follow-up, a cancellation that stops the run
and the thread resumes; the thread in the user's chat sidebar, told from its checkpoint when opened; another user
can neither use the session, list, read, ask on nor open it; a revoked token stops working at once.

One chat server (accounts mode: alice and bob) serves the module, in demo mode at the test pace."""
from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio
import socketio
from mcp import types
from mcp.shared.exceptions import McpError

from graph import Accounts, PersonalTokens
from tests.support.chat_server import Server
from tests.support.mcp_client import HttpMcpDesk, text_of
from tests.support.socket_client import DeskClient

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

PASSWORDS = {"alice": "alice-password", "bob": "bob-password"}
ANALYSIS_TURNS = 12
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "curl", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream"}
Progress = list[tuple[float, float | None, str | None]]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Server]:
    data = tmp_path_factory.mktemp("mcp-http")
    for name, password in PASSWORDS.items():
        Accounts(data).add(name, password)
    server = Server(data)
    server.start()
    yield server
    server.stop()
    assert "Traceback" not in server.log_text(), server.log_text()[-3000:]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def alice(server: Server) -> AsyncIterator[HttpMcpDesk]:
    desk = await HttpMcpDesk(server.base, server.data_dir, "alice",
                             auth=httpx.BasicAuth("alice", PASSWORDS["alice"])).start()
    yield desk
    await desk.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def bob(server: Server) -> AsyncIterator[HttpMcpDesk]:
    _, token = PersonalTokens(server.data_dir).create("bob", "test client")
    desk = await HttpMcpDesk(server.base, server.data_dir, "bob",
                             headers={"Authorization": f"Bearer {token}"}).start()
    yield desk
    await desk.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def analysed(alice: HttpMcpDesk) -> tuple[types.CallToolResult, Progress]:
    progress: Progress = []
    result = await alice.call("analyse", {"request": "should I buy NVDA today?"}, progress)
    return result, progress


async def _post(server: Server, headers: dict[str, str] | None = None, auth: httpx.Auth | None = None,
                body: object = INITIALIZE) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.base, auth=auth) as http:
        return await http.post("/mcp", json=body, headers=ACCEPT | (headers or {}))


@pytest.mark.parametrize("credentials", [
    {}, {"auth": httpx.BasicAuth("alice", "wrong password")}, {"auth": httpx.BasicAuth("nobody", "whatever1")},
    {"headers": {"Authorization": "Bearer desk_pat_" + "x" * 43}}, {"headers": {"Authorization": "Bearer x"}},
    {"headers": {"Authorization": "Basic not-base64!"}}, {"headers": {"Authorization": "Digest alice"}},
])
async def test_without_an_account_it_is_401(server: Server, credentials: dict) -> None:
    answer = await _post(server, **credentials)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith('Basic realm="Trading Desk"')
    assert "personal token" in answer.json()["error"]


async def test_the_sdk_client_without_an_account_is_refused(server: Server) -> None:
    with pytest.raises(Exception) as refused:  # the SDK raises the 401 out of its task group
        await HttpMcpDesk(server.base, server.data_dir, "anonymous").start(timeout=20)
    assert "401 Unauthorized" in str(refused.value)


async def test_a_page_of_another_origin_is_refused(server: Server) -> None:
    answer = await _post(server, {"Origin": "http://evil.example"}, httpx.BasicAuth("alice", PASSWORDS["alice"]))
    assert answer.status_code == 403


async def test_the_tools_are_listed(alice: HttpMcpDesk) -> None:
    listed = (await alice.session.list_tools()).tools
    assert {"analyse", "follow_up", "resume", "compare", "track_record", "plan_backtest", "run_backtest",
            "get_book", "list_threads"} == {t.name for t in listed}
    assert all(t.inputSchema["type"] == "object" and t.outputSchema for t in listed)
    assert "Demo mode" in (alice.instructions or "")


async def test_an_analysis_reports_each_turn_and_a_follow_up_answers(
        alice: HttpMcpDesk, analysed: tuple[types.CallToolResult, Progress]) -> None:
    result, progress = analysed
    assert not result.isError, text_of(result)
    reply = result.structuredContent or {}
    assert reply["outcome"] == "decision" and reply["ruling"]["ticker"] == "NVDA"
    assert reply["tokens"]["total"] > 0
    assert [p for p, _, _ in progress] == [float(n) for n in range(1, ANALYSIS_TURNS + 1)]
    assert "Risk Judge" in (progress[-1][2] or "")
    followed = await alice.call("follow_up", {"thread_id": reply["thread_id"], "question": "why was the bear worried?"})
    assert not followed.isError and "Bear Researcher" in (followed.structuredContent or {})["said"]
    decision = (await alice.session.read_resource(f"desk://threads/{reply['thread_id']}/decision")).contents[0]
    assert isinstance(decision, types.TextResourceContents)
    assert json.loads(decision.text)["ruling"]["signal"] == reply["ruling"]["signal"]


async def test_a_cancellation_stops_the_run_and_it_resumes(alice: HttpMcpDesk) -> None:
    progress: Progress = []
    call = await alice.call_cancelled("analyse", {"ticker": "AMD", "trade_date": "2024-05-03"}, after=6,
                                      progress=progress)
    with pytest.raises(McpError):
        await call
    threads = (await alice.call("list_threads")).structuredContent or {}
    thread = next(t["thread_id"] for t in threads["threads"] if t["ticker"] == "AMD")
    resumed: Progress = []
    result = await alice.call("resume", {"thread_id": thread}, resumed)
    assert not result.isError, text_of(result)
    assert (result.structuredContent or {})["outcome"] == "decision"
    assert resumed and resumed[0][0] > 1 and resumed[-1][0] == ANALYSIS_TURNS


async def test_the_thread_is_in_the_users_sidebar_and_opens_told(server: Server, alice: HttpMcpDesk) -> None:
    # A thread of its own, and its own follow-up before the first opening: the module's tests may run on two
    # workers (pytest-xdist), each with its own server, so none may count on another's follow-up.
    result = await alice.call("analyse", {"request": "should I buy NVDA today?"})
    assert not result.isError, text_of(result)
    thread = (result.structuredContent or {})["thread_id"]
    before = await alice.call("follow_up", {"thread_id": thread, "question": "why was the bear worried?"})
    assert not before.isError, text_of(before)
    page = DeskClient(server.base, "alice", PASSWORDS["alice"])
    cookie = await page.login()
    async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": cookie}) as http:
        listed = (await http.post("/project/threads", json={"pagination": {"first": 20}, "filter": {}})).json()
    row = next(t for t in listed["data"] if t["id"] == thread)
    assert row["name"] == "should I buy NVDA today?"
    await page.connect(thread_id=thread, cookie=cookie)
    try:
        await page.wait_for(lambda: page.by_author("Bull Researcher") and page.by_author("Risk Judge"), 30,
                            "the debate, told from its checkpoint")
        intro = next(m["output"] for m in page.by_author("Desk") if "over MCP" in m.get("output", ""))
        assert "**NVDA**" in intro
        # The follow-up asked over MCP before this opening is told after the card, question and answer.
        await page.wait_for(lambda: [m for m in page.by_author("Desk") if "Bear Researcher" in m.get("output", "")
                                     and "stored deliberation" in m.get("output", "")], 30, "the follow-up's answer")
        assert [m["output"] for m in page.messages.values() if m.get("type") == "user_message"] == [
            "should I buy NVDA today?", "why was the bear worried?"]
    finally:
        await page.close()
    # Asked over MCP after that opening: told at the next one, once.
    asked = await alice.call("follow_up", {"thread_id": thread, "question": "what was the RSI?"})
    assert not asked.isError, text_of(asked)
    for told_now in (["what was the RSI?"], []):
        again = DeskClient(server.base, "alice", PASSWORDS["alice"])
        await again.connect(thread_id=thread, cookie=cookie)
        try:
            [resumed] = await again.wait_for(lambda: [d for n, d in again.events if n == "resume_thread"], 30,
                                             "the stored thread")
            if told_now:
                await again.wait_for(lambda: [m for m in again.messages.values() if "RSI 14" in m.get("output", "")],
                                     30, "the later follow-up's answer")
            await asyncio.sleep(1)  # anything told twice would have come by now
            stored = [s["output"] for s in resumed["steps"] if s.get("type") == "user_message"]
            new = [m["output"] for m in again.messages.values() if m.get("type") == "user_message"]
            assert new == told_now
            assert stored + new == ["should I buy NVDA today?", "why was the bear worried?", "what was the RSI?"]
        finally:
            await again.close()
    # bob's page cannot open it, nor does his sidebar list it.
    intruder = DeskClient(server.base, "bob", PASSWORDS["bob"])
    with pytest.raises(socketio.exceptions.ConnectionError):
        await intruder.connect(thread_id=thread)
    async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": await intruder.login()}) as http:
        theirs = (await http.post("/project/threads", json={"pagination": {"first": 20}, "filter": {}})).json()
    assert thread not in {t["id"] for t in theirs["data"]}


async def test_another_user_can_neither_use_the_session_nor_read_the_thread(
        server: Server, alice: HttpMcpDesk, bob: HttpMcpDesk, analysed: tuple[types.CallToolResult, Progress]) -> None:
    thread = (analysed[0].structuredContent or {})["thread_id"]
    listed = (await bob.call("list_threads")).structuredContent or {}
    assert thread not in {t["thread_id"] for t in listed["threads"]}
    with pytest.raises(McpError) as refused:
        await bob.session.read_resource(f"desk://threads/{thread}/report")
    assert refused.value.error.message == f"There is no thread {thread} of yours."
    asked = await bob.call("follow_up", {"thread_id": thread, "question": "why was the bear worried?"})
    assert asked.isError and text_of(asked) == f"There is no thread {thread} of yours."
    # alice's MCP session, named by bob's credentials: as if there were none.
    session = alice.session_id()
    assert session
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "list_threads", "arguments": {}}}
    stolen = await _post(server, {"Authorization": bob.headers["Authorization"], "mcp-session-id": session,
                                  "mcp-protocol-version": "2025-06-18"}, body=call)
    assert stolen.status_code == 404 and thread not in stolen.text


async def test_a_revoked_token_stops_working_at_once(server: Server) -> None:
    tokens = PersonalTokens(server.data_dir)
    made, secret = tokens.create("alice", "revoked soon")
    bearer = {"Authorization": f"Bearer {secret}"}
    assert (await _post(server, bearer)).status_code == 200
    assert tokens.revoke("alice", made.id)
    assert (await _post(server, bearer)).status_code == 401


async def test_a_message_to_a_running_thread_is_a_note_for_its_run(alice: HttpMcpDesk) -> None:
    progress: Progress = []
    reached = asyncio.Event()

    async def heard(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))
        if len(progress) >= 5:  # the Bull speaks: the analysts are done
            reached.set()

    asked = "should I buy INTC on 2024-05-03?"
    analysis = asyncio.create_task(alice.session.call_tool("analyse", {"request": asked}, progress_callback=heard))
    await asyncio.wait_for(reached.wait(), 60)
    threads = (await alice.call("list_threads")).structuredContent or {}
    thread = next(t["thread_id"] for t in threads["threads"] if t["title"] == asked)
    noted = await alice.call("follow_up", {"thread_id": thread, "question": "Bear, what about the debt?"})
    assert not noted.isError, text_of(noted)
    reply = noted.structuredContent or {}
    assert reply["outcome"] == "noted" and "Bear Researcher will answer this" in reply["said"], reply
    done = await analysis
    assert not done.isError and (done.structuredContent or {})["outcome"] == "decision"
    report = (await alice.session.read_resource(f"desk://threads/{thread}/report")).contents[0]
    assert isinstance(report, types.TextResourceContents) and "what about the debt?" in report.text
