"""A backtest's day opened in the chat like any analysis: its debate, its card, follow-ups.

Each day of a backtest is its own LangGraph thread (`bt-<id>-<TICKER>-<YYYYMMDD>`, graph/backtest/record.py),
with checkpoints but no Chainlit thread: a backtest of 183 days must not put 183 threads in the sidebar. The
result links each day to `/backtest/<id>/<TICKER>/<YYYY-MM-DD>`; that route (`DayLinks.open_day`) checks the
signed-in user owns the backtest (its record is kept under their user, graph's Records), makes the day's
Chainlit thread the first time (owned by them, named "Backtest NVDA · 2024-01-03", its metadata naming the
backtest) and sends the page to /thread/<day thread>. Only the days opened appear in the sidebar.

The thread then has no stored messages: on_chat_resume calls `render_day`, which tells the day from its
checkpoint once Chainlit has shown the (empty) thread (chat/features/headless.py, as a watch's scheduled run is told):
the request, each persona's turn, the decision card with its chart and report. Those messages are stored with
the thread, so the next opening is the history's.
Another user's link is a 404, as the door answers for another user's thread.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import RedirectResponse
from starlette.routing import Route

from graph import DeskRuntime, Records, phrase

from ..history import BACKTEST_DAY_THREAD
from ..web.logins import DeskAuth
from ..web.tokens import request_token
from .backtests import DAY_ROUTE
from .headless import own_thread, tell_on_first_open

BACKTEST_DAY = "backtest_day"  # the day thread's metadata: {"id", "ticker", "day"}


def is_day_thread(thread_id: str | None) -> bool:
    return bool(thread_id) and BACKTEST_DAY_THREAD.fullmatch(thread_id or "") is not None


class DayLinks:
    """The route that opens a backtest's day as a thread of its owner's."""

    def __init__(self, auth: DeskAuth, runtime: Callable[[], Awaitable[DeskRuntime]]) -> None:
        self.auth = auth
        self.runtime = runtime

    def install(self, server: FastAPI) -> None:
        # In front of Chainlit's catch-all page route, which would answer it with the page.
        server.router.routes.insert(0, Route(f"{DAY_ROUTE}/{{backtest_id}}/{{ticker}}/{{day}}", self.open_day,
                                             methods=["GET"]))

    async def open_day(self, request: Request) -> RedirectResponse:
        user = self.auth.user_of(request_token(request.headers.get("cookie"), request.headers.get("authorization")))
        if user is None:
            raise HTTPException(status_code=401, detail="Not authenticated")
        backtest_id, ticker = request.path_params["backtest_id"], request.path_params["ticker"]
        try:
            day = date.fromisoformat(request.path_params["day"])
        except ValueError:
            raise HTTPException(status_code=404, detail="Not found") from None
        desk = await self.runtime()
        # Another user's backtest is not found: it is looked up under the signed-in user's own records.
        backtest = await Records(desk.store).get(user.identifier, backtest_id)
        if backtest is None or day not in backtest.plan.days.get(ticker, ()):
            raise HTTPException(status_code=404, detail="Not found")
        thread_id = backtest.thread(ticker, day)
        if not await desk.has_thread(thread_id):
            raise HTTPException(status_code=404, detail="This day has not run yet")
        if not await own_thread(thread_id, user.identifier, f"Backtest {ticker} · {day.isoformat()}",
                                {BACKTEST_DAY: {"id": backtest_id, "ticker": ticker, "day": day.isoformat()}}):
            raise HTTPException(status_code=404, detail="Not found")
        root = request.scope.get("root_path", "").rstrip("/")
        return RedirectResponse(f"{root}/thread/{thread_id}", status_code=303)


def render_day(desk: DeskRuntime, thread_id: str, metadata: dict[str, Any], steps: list[Any]) -> None:
    """On a day thread's first opening (no stored messages), tell the day from its checkpoint
    (chat/features/headless.py)."""
    if not is_day_thread(thread_id):
        return
    about = metadata.get(BACKTEST_DAY) or {}
    m = BACKTEST_DAY_THREAD.fullmatch(thread_id)

    def intro(language: str, state: dict[str, Any]) -> str:
        return phrase(language, "chat.backtest_day_intro", id=str(about.get("id") or (m[1] if m else "")),
                      ticker=str(about.get("ticker") or state.get("ticker") or ""),
                      day=str(about.get("day") or state.get("trade_date") or ""))

    tell_on_first_open(desk, thread_id, steps, intro, "chat.backtest_day_gone")
