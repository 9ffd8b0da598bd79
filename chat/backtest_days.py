"""A backtest's day opened in the chat like any analysis: its debate, its card, follow-ups.

Each day of a backtest is its own LangGraph thread (`bt-<id>-<TICKER>-<YYYYMMDD>`, graph/backtest/record.py),
with checkpoints but no Chainlit thread: a backtest of 183 days must not put 183 threads in the sidebar. The
result links each day to `/backtest/<id>/<TICKER>/<YYYY-MM-DD>`; that route (`DayLinks.open_day`) checks the
signed-in user owns the backtest (its record is kept under their user, graph's Records), makes the day's
Chainlit thread the first time (owned by them, named "Backtest NVDA · 2024-01-03", its metadata naming the
backtest) and sends the page to /thread/<day thread>. Only the days opened appear in the sidebar.

The thread then has no stored messages: on_chat_resume calls `render_day`, which tells the day from its
checkpoint once Chainlit has shown the (empty) thread: the request, each persona's turn, the decision card
with its chart and report. Those messages are stored with the thread, so the next opening is the history's.
Another user's link is a 404, as the door answers for another user's thread.
"""
from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any

import chainlit as cl
from chainlit.logger import logger
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import RedirectResponse
from starlette.routing import Route

from graph import DESK, RISK_JUDGE, DeskRuntime, Records, inert_links, language_of, phrase

from .backtests import DAY_ROUTE
from .card import show_decision
from .door import history
from .history import BACKTEST_DAY_THREAD
from .logins import DeskAuth
from .speakers import label_metadata
from .tokens import request_token

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
        layer = history()
        if layer is None or not await desk.has_thread(thread_id):
            raise HTTPException(status_code=404, detail="This day has not run yet")
        owner = await layer.thread_owner(thread_id)
        if owner is None:
            persisted = await layer.get_user(user.identifier)
            if persisted is None:
                raise HTTPException(status_code=404, detail="Not found")
            await layer.update_thread(thread_id, name=f"Backtest {ticker} · {day.isoformat()}", user_id=persisted.id,
                                      metadata={BACKTEST_DAY: {"id": backtest_id, "ticker": ticker,
                                                               "day": day.isoformat()}})
            await layer.flush()  # stored before the page asks for it
        elif owner != user.identifier:
            raise HTTPException(status_code=404, detail="Not found")
        root = request.scope.get("root_path", "").rstrip("/")
        return RedirectResponse(f"{root}/thread/{thread_id}", status_code=303)


def render_day(desk: DeskRuntime, thread_id: str, metadata: dict[str, Any], steps: list[Any]) -> None:
    """On a day thread's first opening (no stored messages), tell the day from its checkpoint once Chainlit has
    shown the page the thread (what is sent before that, the page's resume would wipe)."""
    if not is_day_thread(thread_id) or any(str(s.get("type", "")).endswith("_message") for s in steps):
        return
    emitter = cl.context.emitter
    shown = emitter.resume_thread

    async def shown_then_told(thread: Any) -> None:
        await shown(thread)
        try:
            await _tell(desk, thread_id, metadata.get(BACKTEST_DAY) or {})
        except Exception:
            logger.exception("Could not show the backtest day %s", thread_id)

    emitter.resume_thread = shown_then_told  # type: ignore[method-assign,assignment]


async def _tell(desk: DeskRuntime, thread_id: str, about: dict[str, Any]) -> None:
    state = await desk.state(thread_id)
    language = language_of(state)
    m = BACKTEST_DAY_THREAD.fullmatch(thread_id)
    backtest_id = str(about.get("id") or (m[1] if m else ""))
    ticker = str(about.get("ticker") or state.get("ticker") or "")
    day = str(about.get("day") or state.get("trade_date") or "")
    if not state:
        await cl.Message(content=phrase(language, "chat.backtest_day_gone"), author=DESK).send()
        return
    await cl.Message(content=phrase(language, "chat.backtest_day_intro", id=backtest_id, ticker=ticker, day=day),
                     author=DESK, metadata=label_metadata(DESK, language=language)).send()
    asked = next((str(m.content) for m in state.get("messages") or [] if getattr(m, "type", "") == "human"), "")
    if asked:
        await cl.Message(content=asked, author="User", type="user_message").send()
    turns = [(step.persona, step.round, step.text) for step in await desk.history(thread_id)]
    # The judge's words are the last turn; the thread's steps (made for Edit) end before the ruling.
    judged = str(getattr(state.get("risk_debate"), "judge_decision", "") or "")
    if judged and RISK_JUDGE not in (persona for persona, _, _ in turns):
        turns.append((RISK_JUDGE, 0, judged))
    for persona, round_, text in turns:
        # A model's words: links made inert, as every turn is shown (chat/render.py).
        await cl.Message(content=inert_links(text), author=persona,
                         metadata=label_metadata(persona, round_, language)).send()
    with contextlib.suppress(Exception):  # no card (a day that failed) leaves the turns as they are
        await show_decision(thread_id, state, desk.vendor)
