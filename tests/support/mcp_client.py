"""The desk's MCP server driven by the `mcp` SDK's own client, as Claude Desktop or Cursor would: the real
`python -m graph mcp` in demo mode over stdio (mcp.client.stdio.stdio_client), or the real chat server's `/mcp` over
streamable HTTP (mcp.client.streamable_http.streamable_http_client), each with a ClientSession.

The SDK's client lives in anyio task groups that must be entered and left by one task, while a module's tests each
run in a task of their own: `McpDesk` holds the client in a task of its own, and the tests call its session from
theirs (a request only writes to the session's streams and waits for its own answer)."""
from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TextIO

import httpx
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from benchmarks.support.chat_server import ROOT
from tests.support.clock import python_path
from tests.support.env import demo_env


class McpDesk:
    """One `python -m graph mcp --user USER` on the data folder `data_dir` (several users may share one)."""

    def __init__(self, data_dir: Path, user: str, **env: str) -> None:
        self.data_dir, self.user, self.extra_env = data_dir, user, env
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._done = asyncio.Event()
        self._log: TextIO | None = None
        self.instructions: str | None = None  # what the server told the client as it connected

    @property
    def session(self) -> ClientSession:
        assert self._session is not None, "start() first"
        return self._session

    @property
    def log_path(self) -> Path:
        return self.data_dir / f"mcp-{self.user}.log"

    def parameters(self) -> StdioServerParameters:
        env = demo_env(**{"DESK_MODE": "demo", "DESK_DATA_DIR": str(self.data_dir), "PYTHONUNBUFFERED": "1",
                          "PYTHONPATH": python_path(ROOT)} | self.extra_env)
        return StdioServerParameters(command=sys.executable, args=["-m", "graph", "mcp", "--user", self.user],
                                     env=env, cwd=str(ROOT))

    async def start(self, timeout: float = 60) -> McpDesk:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "a")  # noqa: SIM115 - open while the server runs, closed by stop()
        self._task = asyncio.create_task(self._hold(), name=f"mcp-{self.user}")
        ready = asyncio.create_task(self._ready.wait())
        await asyncio.wait({ready, self._task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if not self._ready.is_set():
            ready.cancel()
            failed = self._task.exception() if self._task.done() and not self._task.cancelled() else None
            await self.stop()
            raise RuntimeError(f"the MCP server did not start: {failed!r} {self.log_path.read_text()}")
        return self

    @contextlib.asynccontextmanager
    async def _streams(self) -> AsyncIterator[tuple[Any, Any]]:
        assert self._log is not None
        async with stdio_client(self.parameters(), errlog=self._log) as (read, write):
            yield read, write

    async def _hold(self) -> None:
        async with self._streams() as (read, write), ClientSession(read, write) as session:
            self.instructions = (await session.initialize()).instructions
            self._session = session
            self._ready.set()
            await self._done.wait()

    async def stop(self) -> None:
        self._done.set()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 30)
        if self._log is not None:
            self._log.close()

    async def call(self, name: str, arguments: dict[str, Any] | None = None,
                   progress: list[tuple[float, float | None, str | None]] | None = None) -> types.CallToolResult:
        async def heard(value: float, total: float | None, message: str | None) -> None:
            if progress is not None:
                progress.append((value, total, message))

        return await self.session.call_tool(name, arguments or {}, progress_callback=heard)

    async def call_cancelled(self, name: str, arguments: dict[str, Any], after: int,
                             progress: list[tuple[float, float | None, str | None]],
                             timeout: float = 60) -> Awaitable[Any]:
        """Call a tool and cancel the call (notifications/cancelled) once `after` progress notifications came;
        the call itself, to await (it ends in the SDK's McpError)."""
        reached = asyncio.Event()

        async def heard(value: float, total: float | None, message: str | None) -> None:
            progress.append((value, total, message))
            if len(progress) >= after:
                reached.set()

        request_id = self.session._request_id  # the id the SDK gives the next request
        call = asyncio.create_task(self.session.call_tool(name, arguments, progress_callback=heard))
        waiting = asyncio.create_task(reached.wait())
        await asyncio.wait({waiting, call}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        assert reached.is_set(), f"no {after} progress notifications before the call ended: {progress}"
        await self.session.send_notification(types.ClientNotification(types.CancelledNotification(
            params=types.CancelledNotificationParams(requestId=request_id, reason="the test cancels it"))))
        return call


class HttpMcpDesk(McpDesk):
    """A client of a running chat server's `/mcp` (tests/support/chat_server.py Server), signed in with `auth`
    (httpx's BasicAuth, or the headers {"Authorization": "Bearer …"})."""

    def __init__(self, base: str, data_dir: Path, user: str, *, auth: httpx.Auth | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(data_dir, user)
        self.url = f"{base}/mcp"
        self.auth, self.headers = auth, headers or {}
        self.session_id: Callable[[], str | None] = lambda: None

    @contextlib.asynccontextmanager
    async def _streams(self) -> AsyncIterator[tuple[Any, Any]]:
        timeout = httpx.Timeout(30, read=300)
        async with httpx.AsyncClient(auth=self.auth, headers=self.headers, timeout=timeout) as http, \
                streamable_http_client(self.url, http_client=http) as (read, write, session_id):
            self.session_id = session_id
            yield read, write


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
