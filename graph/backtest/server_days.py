"""A backtest's days deliberated on a LangGraph Server (`python -m graph backtest … --server URL`).

The runner (graph/backtest/runner.py) keeps everything but the deliberation: the order, the point-in-time
gate, resuming, retries, the records (in this process's Store). `ServerDays` is its `Days` on a server that
serves the desk (langgraph.json, graph id `desk`): each day a background run on its own thread, which the
server's queue hands to a free worker; the runner keeps `concurrency` of them in flight.

- **Threads.** The server's thread ids are UUIDs, so a day's thread is the UUID5 of the account and the
  day's thread name (bt-<id>-<TICKER>-<YYYYMMDD>): the same day finds the same thread on a resume, two
  accounts never share one. The thread is created by, and so owned by, the authenticated account
  (graph/server_auth.py stamps and filters `owner`), with the backtest, ticker and day in its metadata.
- **Memory.** The run's context names the backtest (`backtest`, with the day as `today`); the server maps
  it to that backtest's own track record under the authenticated user (graph/core/context.py user_of), so
  days recall point in time from the backtest's calls as they do in process, and a client never names a
  user. The store API stays closed to the record; an account may only delete calls from its own
  backtests' records, which is what `forget` does (graph/server_auth.py).
- **Failures.** The run streams its custom events resumably; the runner replays them from the start
  (after a restart too) and counts a tool's time-out and the server vendor's `vendor_failed` events (graph/
  server.py) as the in-process runner counts its watched vendor's failures.
- **Stopping.** A runner stopped mid-way leaves its runs going on the server; resumed, it joins a day's
  run still in flight rather than starting another, and keeps the days that finished meanwhile.
"""
from __future__ import annotations

import base64
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import httpx
from langchain_core.messages import convert_to_messages
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from ..core.context import backtest_user
from ..core.errors import DeskError
from ..core.plan import RunPlan
from ..core.settings import Settings
from ..core.state import FinalDecision
from ..persistence.accounts import AccountError, normalize_name
from ..persistence.namespaces import user_label
from ..track.log import TRACK
from .record import Backtest
from .runner import DayTask, request_text
from .watch import VENDOR_FAILED

ASSISTANT = "desk"  # langgraph.json's graph id
# Fixed: a day's server thread id must be the same in every process that runs or resumes it.
THREADS = uuid.UUID("5d1b0f0e-7c1a-4b7e-9d44-2f1e0c6a9b21")
ACTIVE = ("pending", "running")
# A day's run is joined for as long as it takes (the server's queue may hold it a while); connecting and
# the other calls are short.
TIMEOUT = (30.0, None, 30.0, 30.0)  # connect, read, write, pool


class ServerDayError(DeskError):
    """The server could not be used, or a day's run on it ended without finishing (an error, a time-out, a
    cancel). Its words are the user's: a failure talking to the server is not the model's."""


def _about_server(account: ServerAccount, exc: httpx.HTTPError) -> ServerDayError:
    if isinstance(exc, httpx.HTTPStatusError) and _status(exc) == 401:
        return ServerDayError(f"The LangGraph Server at {account.url} refused the account {account.user!r}: "
                              "check the name and DESK_SERVER_PASSWORD.")
    if isinstance(exc, httpx.HTTPStatusError) and _status(exc) == 429:
        return ServerDayError(f"The LangGraph Server at {account.url} is throttling {account.user!r} after wrong "
                              "passwords; wait, then try again.")
    if isinstance(exc, httpx.HTTPStatusError):
        return ServerDayError(f"The LangGraph Server at {account.url} answered {_status(exc)}: "
                              f"{exc.response.text[:300]}")
    return ServerDayError(f"Cannot reach the LangGraph Server at {account.url} ({type(exc).__name__}: {exc}).")


@dataclass(frozen=True)
class ServerAccount:
    """Where the days run and as whom: the desk account the server's auth checks (HTTP Basic)."""

    url: str
    user: str
    password: str = field(repr=False)  # never printed, never logged

    @property
    def identity(self) -> str:
        """The name the server knows the account by (graph/server_auth.py normalizes it the same way)."""
        try:
            return normalize_name(self.user)
        except AccountError:
            return self.user

    def headers(self) -> dict[str, str]:
        token = base64.b64encode(f"{self.user}:{self.password}".encode()).decode()
        return {"Authorization": f"Basic {token}"}


def account_from(settings: Settings, *, url: str | None = None, user: str | None = None,
                 password: str | None = None) -> ServerAccount | None:
    """The account of the settings (DESK_BACKTEST_SERVER, DESK_SERVER_USER, DESK_SERVER_PASSWORD), each
    overridden when given; None when no server is named (the days run in process)."""
    url = settings.backtest_server if url is None else url
    if not url:
        return None
    secret = settings.backtest_server_password
    password = password if password is not None else (secret.get_secret_value() if secret else None)
    user = user or settings.backtest_server_user
    if not user or password is None:
        raise ValueError("a backtest on a server needs the server's account: DESK_SERVER_USER and "
                         "DESK_SERVER_PASSWORD (or --server-user)")
    return ServerAccount(url.rstrip("/"), user, password)


def _status(exc: httpx.HTTPStatusError) -> int:
    return exc.response.status_code


class ServerDays:
    """The runner's `Days` on a LangGraph Server, as `account`."""

    def __init__(self, account: ServerAccount, client: LangGraphClient | None = None):
        self.account = account
        # api_key=None: a LangSmith key in the environment is not sent to a desk server.
        self.client = client or get_client(url=account.url, api_key=None, headers=account.headers(), timeout=TIMEOUT)

    async def check(self) -> None:
        """That the server answers, takes the account and serves the desk (ServerDayError otherwise)."""
        try:
            served = await self.client.assistants.search(graph_id=ASSISTANT, limit=1)
        except httpx.HTTPError as e:
            raise _about_server(self.account, e) from e
        if not served:
            raise ServerDayError(f"{self.account.url} does not serve the desk (graph id {ASSISTANT!r})")

    async def aclose(self) -> None:
        await self.client.aclose()

    # -- Days ------------------------------------------------------------------------------------------

    def thread(self, backtest: Backtest, ticker: str, day: date) -> str:
        return str(uuid.uuid5(THREADS, f"{self.account.identity}\n{backtest.thread(ticker, day)}"))

    async def state(self, thread: str) -> dict[str, Any]:
        values, _ = await self._snapshot(thread)
        return values or {}

    async def deliberate(self, backtest: Backtest, task: DayTask, plan: RunPlan, *,
                         fresh: bool) -> tuple[dict[str, Any], list[str]]:
        try:
            return await self._deliberate(backtest, task, plan, fresh=fresh)
        except httpx.HTTPError as e:  # the day fails with the server's reason (and a resume tries it again)
            raise _about_server(self.account, e) from e

    async def _deliberate(self, backtest: Backtest, task: DayTask, plan: RunPlan, *,
                          fresh: bool) -> tuple[dict[str, Any], list[str]]:
        thread = task.thread
        if fresh:
            await self.forget(backtest, thread)
            await self._delete(thread)
        run_id = await self._in_flight(thread)  # a runner stopped mid-way left it going: join it
        if run_id is None:
            values, pending = await self._snapshot(thread)
            if values is None:
                await self.client.threads.create(
                    thread_id=thread, if_exists="do_nothing",
                    metadata={"backtest": backtest.id, "ticker": task.ticker, "day": task.day.isoformat(),
                              "name": backtest.thread(task.ticker, task.day)})
            # A thread stopped half-way goes on from its last checkpoint (input None), as in process.
            graph_input = None if pending else {
                "messages": [{"role": "user", "content": request_text(task.ticker, task.day)}],
                **plan.state_fields()}
            run = await self.client.runs.create(
                thread, ASSISTANT, input=graph_input,
                context={"today": task.day.isoformat(), "backtest": backtest.id},
                stream_mode="custom", stream_resumable=True, multitask_strategy="reject")
            run_id = run["run_id"]
        failures, error = await self._follow(thread, run_id)
        status = (await self.client.runs.get(thread, run_id))["status"]
        if status != "success":
            raise ServerDayError(f"the server's run ended {status}" + (f": {error}" if error else ""))
        return await self.state(thread), failures

    async def forget(self, backtest: Backtest, thread: str) -> None:
        """The thread's calls out of the backtest's memory on the server: the log's ids are
        <thread>:<its analysis number>, and a day's thread holds one analysis (two if the desk once
        did not decide and was asked again)."""
        values, _ = await self._snapshot(thread)
        if values is None:
            return
        space = [TRACK, user_label(backtest_user(self.account.identity, backtest.id))]
        for number in range(len(values.get("past_analyses") or []) + 1):
            try:
                await self.client.store.delete_item(space, key=f"{thread}:{number}")
            except httpx.HTTPStatusError as e:
                if _status(e) != 404:
                    raise

    # -- the server's side -----------------------------------------------------------------------------

    async def _snapshot(self, thread: str) -> tuple[dict[str, Any] | None, bool]:
        """The thread's values (the decision and messages read back into the desk's types) and whether
        a run stopped in it half-way; (None, False) when the server has no such thread."""
        try:
            snapshot = await self.client.threads.get_state(thread)
        except httpx.HTTPStatusError as e:
            if _status(e) == 404:
                return None, False
            raise
        raw = snapshot.get("values")
        values: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
        if isinstance(decision := values.get("final_decision"), dict):
            values["final_decision"] = FinalDecision.model_validate(decision)
        try:
            values["messages"] = convert_to_messages(values.get("messages") or [])
        except (ValueError, NotImplementedError):
            values["messages"] = []
        return values, bool(snapshot.get("next"))

    async def _in_flight(self, thread: str) -> str | None:
        """The id of a run of the thread still queued or running on the server."""
        try:
            runs = await self.client.runs.list(thread, limit=10)
        except httpx.HTTPStatusError as e:
            if _status(e) == 404:
                return None
            raise
        return next((str(r["run_id"]) for r in runs if r["status"] in ACTIVE), None)

    async def _follow(self, thread: str, run_id: str) -> tuple[list[str], str]:
        """Replay the run's custom events from its first (last_event_id "0": a resumable run keeps them)
        until it ends: the vendor failures among them, and the error it ended with, if any."""
        failures: list[str] = []
        error = ""
        async for part in self.client.runs.join_stream(thread, run_id, stream_mode="custom", last_event_id="0"):
            data = part.data if isinstance(part.data, dict) else {}
            if part.event == "custom":
                if data.get("event") == "tool_finished" and str(data.get("result", "")).startswith("no data: timeout"):
                    failures.append(f"{data.get('tool')}: timeout")  # as the in-process runner counts it
                elif data.get("event") == VENDOR_FAILED:
                    failures.append(f"{data.get('what')}: {data.get('reason')}")
            elif part.event == "error":
                error = str(data.get("message") or data.get("error") or data)
        # The stream may end with the connection rather than the run: wait for the run itself.
        await self.client.runs.join(thread, run_id)
        return failures, error

    async def _delete(self, thread: str) -> None:
        try:
            await self.client.threads.delete(thread)
        except httpx.HTTPStatusError as e:
            if _status(e) != 404:
                raise


@asynccontextmanager
async def server_days(account: ServerAccount) -> AsyncIterator[ServerDays]:
    """A checked connection to the server as `account`, closed after."""
    days = ServerDays(account)
    try:
        await days.check()
        yield days
    finally:
        await days.aclose()


@asynccontextmanager
async def settings_days(settings: Settings) -> AsyncIterator[ServerDays | None]:
    """Where the settings say a backtest's days run (the chat's way in): a checked `ServerDays` on
    DESK_BACKTEST_SERVER as DESK_SERVER_USER, or None (in process) when no server is set. Pass it to
    `Runner(..., days=...)`. The days run, and their memory is kept, as that account: the server knows
    no other user."""
    account = account_from(settings)
    if account is None:
        yield None
        return
    async with server_days(account) as days:
        yield days
