"""The desk over the Model Context Protocol, served by the chat's own server at `/mcp` (streamable HTTP, the `mcp`
SDK's session manager), for programs that ask the desk for a person: Claude Desktop, Cursor, an agent framework.

- **Who asks**: every request carries HTTP Basic with a desk account or a personal token (chat/web/programs.py);
  without one the answer is 401, while a login is locked out 429. The app's origin check (chat/web/origins.py) runs
  in front of it as of every request. The SDK ties each MCP session to the user who opened it: another user naming
  that session gets "Session not found".
- **What it does**: graph's MCP server (graph/mcp/: the tools, resources and progress the stdio server has), for
  the user of each request, on the chat's own desk runtime.
- **Threads**: an analysis made over MCP is an ordinary thread of the user's in the chat. It gets its Chainlit row
  (owned by the user, named by what was asked) as it starts, so it is in the sidebar, and it is told from its
  checkpoint on its first opening, as a scheduled run is (chat/features/headless.py). A thread the user made in
  the chat can be asked about over MCP too; another user's is "no thread of yours" either way.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import chainlit as cl
from fastapi import FastAPI
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from graph import (
    DESK,
    DeskRuntime,
    LoginThrottled,
    McpService,
    OwnedThread,
    ThreadOwners,
    build_mcp_server,
    live_holder,
    phrase,
)

from ..speakers import label_metadata
from ..web.door import history
from ..web.programs import CHALLENGE, ProgramAuth
from ..web.tokens import CLIENT_ADDRESS
from .headless import own_thread, tell_follow_ups, tell_on_first_open


class _ClientGone(logging.Filter):
    """The SDK logs a traceback when a client ends its session while the session's event stream is open (a
    DELETE, as every client sends on closing): that is a client leaving, not an error of the server's."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and type(record.exc_info[1]).__name__ == "ClosedResourceError")


logging.getLogger("mcp.server.streamable_http").addFilter(_ClientGone())
logging.getLogger("mcp.server.lowlevel.server").setLevel(logging.WARNING)  # not a line per request

ROUTE = "/mcp"
MADE = "mcp"  # the thread's metadata key: made over MCP
WAITING = "mcp_waiting"  # the metadata of the note said while the thread still runs over MCP (not a telling)
STARTING_S = 30.0  # how long a request waits for the server's start


class ChatOwners:
    """Whose each thread is, for MCP in the chat's server: the chat's history first (its threads table, where the
    user's chat threads are), else the desk's Store; a thread claimed over MCP gets its row in the history, named
    by what was asked, so it shows in the user's sidebar."""

    def __init__(self, desk: DeskRuntime) -> None:
        self.store: ThreadOwners = desk.owners

    @staticmethod
    async def _chat_owner(thread_id: str) -> str | None:
        layer = history()
        if layer is None:
            return None
        try:
            return await layer.thread_owner(thread_id)
        except Exception:  # not a chat thread id (a compared desk's is made by the desk, not a page)
            return None

    async def owns(self, user: str, thread_id: str) -> bool:
        owner = await self._chat_owner(thread_id)
        if owner is not None:
            return owner == user
        return await self.store.owns(user, thread_id)

    async def claim(self, user: str, thread_id: str, *, source: str, title: str = "") -> bool:
        owner = await self._chat_owner(thread_id)
        if owner is not None and owner != user:
            return False
        if not await self.store.claim(user, thread_id, source=source, title=title):
            return False
        name = " ".join(title.split())[:120] or thread_id
        return owner is not None or await own_thread(thread_id, user, name, {MADE: {"source": source}})

    async def threads(self, user: str) -> list[OwnedThread]:
        return await self.store.threads(user)


def _challenge(message: str, status: int = 401, retry_after: float | None = None) -> JSONResponse:
    headers = {"WWW-Authenticate": CHALLENGE} if status == 401 else {}
    if retry_after is not None:
        headers["Retry-After"] = str(max(1, round(retry_after)))
    return JSONResponse({"error": message}, status_code=status, headers=headers)


class McpEndpoint:
    """`/mcp`: the ASGI app in front of the SDK's session manager, and the manager's life in the server's."""

    def __init__(self, server: FastAPI, programs: ProgramAuth, runtime: Any) -> None:
        self.server = server
        self.programs = programs
        self.runtime = runtime  # () -> Awaitable[DeskRuntime]: the chat's desk, opened at the server's start
        self.desk: DeskRuntime | None = None
        self.services: dict[str, McpService] = {}
        self.manager: StreamableHTTPSessionManager | None = None
        self.started = asyncio.Event()
        self.closing = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    # -- Feature: nothing of a page's messages is MCP's ------------------------------------------------------

    def install(self) -> None:
        # In front of Chainlit's routes, whose catch-all would answer with the page.
        self.server.router.routes.insert(0, Route(ROUTE, endpoint=self, methods=None))

    async def answer(self, said: Any) -> bool:
        return False

    async def stop(self, thread_id: str) -> bool:
        return False  # a run over MCP is stopped by its client's cancellation

    async def reopened(self, thread_id: str, steps: list[Any]) -> None:
        return None

    # -- the server's life ---------------------------------------------------------------------------------

    def service(self, request: Any) -> McpService:
        """The user's service: the user the request was authenticated as (set on its scope by __call__)."""
        assert self.desk is not None
        user = str(request.scope["user"].username)
        if user not in self.services:
            self.services[user] = McpService(self.desk, user, owners=ChatOwners(self.desk))
        return self.services[user]

    async def start(self) -> None:
        self.desk = await self.runtime()
        self.manager = StreamableHTTPSessionManager(
            build_mcp_server(self.service, self.desk.models.notice),
            # The app's own origin check runs in front of every request (chat/web/origins.py), and every request
            # must authenticate: the SDK's Host check would refuse the names a deployment is reached by.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        self.task = asyncio.create_task(self._serve(self.manager), name="mcp-sessions")

    async def _serve(self, manager: StreamableHTTPSessionManager) -> None:
        async with manager.run():
            self.started.set()
            await self.closing.wait()

    async def close(self) -> None:
        self.closing.set()
        if self.task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(self.task, 20)

    # -- a request ------------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        authorization = next((v.decode("latin-1") for k, v in scope.get("headers") or []
                              if k.lower() == b"authorization"), None)
        try:
            user = await self.programs.user(authorization, CLIENT_ADDRESS.get())
        except LoginThrottled as locked:
            await _challenge("Too many failed logins: try again later.", 429, locked.retry_after)(
                scope, receive, send)
            return
        if user is None:
            await _challenge("Sign in: HTTP Basic with your desk account, or Authorization: Bearer with a personal "
                             "token (/token in the chat).")(scope, receive, send)
            return
        try:
            await asyncio.wait_for(self.started.wait(), STARTING_S)
        except TimeoutError:
            await _challenge("The desk is starting: try again in a moment.", 503)(scope, receive, send)
            return
        assert self.manager is not None
        who = AuthenticatedUser(AccessToken(token="", client_id=user, scopes=[]))
        await self.manager.handle_request({**scope, "user": who, "auth": None}, receive, send)


async def render_mcp(desk: DeskRuntime, thread_id: str, metadata: dict[str, Any], steps: list[Any],
                     language: str) -> None:
    """A thread made over MCP, opened in the chat: told from its checkpoint on its first opening, and the follow-ups
    asked over MCP since at each later one (call in on_chat_resume). While it still runs over MCP, the page is told
    so and nothing is told yet."""
    if not isinstance(metadata.get(MADE), dict):
        return
    told = [s for s in steps if not (isinstance(s.get("metadata"), dict) and s["metadata"].get(WAITING))]
    if await live_holder(desk.leases, thread_id) is not None:
        if not any(str(s.get("type", "")).endswith("_message") for s in told):
            await cl.Message(content=phrase(language, "chat.mcp_running"), author=DESK,
                             metadata={**label_metadata(DESK, language=language), WAITING: True}).send()
        return

    def intro(language: str, state: dict[str, Any]) -> str:
        return phrase(language, "chat.mcp_intro", ticker=str(state.get("ticker") or ""),
                      day=str(state.get("trade_date") or ""))

    tell_on_first_open(desk, thread_id, told, intro, "chat.mcp_gone")
    tell_follow_ups(desk, thread_id, told)  # opened before: what was asked over MCP since
