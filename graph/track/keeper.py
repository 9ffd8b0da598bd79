"""The track record's one service: log a decision, settle what is due, recall for an analysis.

Used by the graph's nodes (the coordinator settles and recalls at the start of an analysis, the
Risk Judge logs its decision), by the runtime (a settlement pass when a server starts) and by the
CLI's `--record`. Settlement is lazy and idempotent: a call is scored once its window is over,
from the desk's own vendor, and written under its own id, so two processes settling at once write
the same figures to the same record (at worst both ask for its reflection; one is kept).
"""
from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from langgraph.store.base import BaseStore

from graph.core import clock

from ..core.context import DeskContext
from ..core.personas import DEBATERS
from ..core.state import Debate, FinalDecision
from ..data.vendor import Vendor
from ..models.registry import ModelRegistry
from .calls import Call
from .horizon import benchmark_for
from .log import DecisionLog
from .recall import recall
from .reflect import reflect
from .settle import is_due, settle

ARGUED_CHARS = 1500  # each debater's last turn, as the log keeps it
# Reflections a live pass writes at most (each is a deep-model call); the rest wait for the next pass.
REFLECT_PER_PASS = 3


def call_from(state: Mapping[str, Any], decision: FinalDecision, *, user: str, thread_id: str,
              source: str, data: str) -> Call:
    """The log's record of a decision: one id per analysis of the thread (its number among the
    thread's analyses), so an edited branch's decision replaces the one it forked from."""
    argued: dict[str, str] = {}
    for key in ("investment_debate", "risk_debate"):
        debate = state.get(key)
        for turn in debate.turns if isinstance(debate, Debate) else []:
            argued[turn.persona] = turn.text[:ARGUED_CHARS]  # the last turn of each wins
    forked = state.get("forked") or {}
    fields = decision.model_dump(include={"signal", "position_size", "entry", "stop", "horizon", "confidence",
                                          "rationale"})
    return Call(id=f"{thread_id}:{len(state.get('past_analyses') or [])}", user=user, thread_id=thread_id,
                branch=str(forked.get("id") or "original"), ticker=decision.ticker,
                company=str(state.get("company") or ""),
                trade_date=decision.trade_date, argued={p: argued[p] for p in _debater_order() if p in argued},
                plan_calls=dict(state.get("plan_calls") or {}),
                asset_class=str(state.get("asset_class") or ""),
                benchmark=benchmark_for(decision.ticker, state.get("asset_class") or None),
                data=data, source=source, recorded_at=clock.now().isoformat(), **fields)


def _debater_order() -> list[str]:
    return [d.persona for d in DEBATERS.values()]


class TrackRecord:
    def __init__(self, store: BaseStore, vendor: Vendor, models: ModelRegistry):
        self.log = DecisionLog(store)
        self.vendor = vendor
        self.models = models

    async def settle_due(self, user: str, today: date, context: DeskContext | None = None) -> list[dict[str, Any]]:
        """Score the user's calls whose window is over as of `today`, reflect on up to
        REFLECT_PER_PASS of the scored ones still without words (all of them in the demo), and
        return every call of the user as stored (plain JSON), updated. Only the calls it touches
        are read into `Call`s: at the start of an analysis that is usually none of them."""
        values = await self.log.values(user)
        reflections = 0
        for i, value in enumerate(values):
            outcome = value.get("outcome")
            if outcome is not None and outcome.get("reflection"):
                continue  # settled and reflected on: the common case
            call = Call.model_validate(value)
            if is_due(call, today):
                call = await asyncio.to_thread(settle, call, self.vendor, today)
            if call.outcome is not None and not call.outcome.reflection and (
                    not self.models.live or reflections < REFLECT_PER_PASS):
                reflections += 1
                call = await reflect(call, self.models, context)
            if (new := call.model_dump(mode="json")) != value:
                values[i] = await self._swap(call, value, new)
        return values

    async def _swap(self, call: Call, was: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        """Write the scored (or reflected) call only if its record is still the one this pass read:
        while the vendor and the model were asked, an edited branch may have decided it anew, or
        another process scored it. Then theirs stands. The Store has no compare-and-set; the
        window left is between this read and the write, not the whole of the vendor's and the
        model's calls."""
        current = await self.log.get(call.user, call.id)
        if current is not None and current.model_dump(mode="json") != was:
            return current.model_dump(mode="json")
        await self.log.save(call)
        return new

    async def recall(self, user: str, ticker: str, trade_date: str, today: date,
                     context: DeskContext | None = None) -> dict[str, Any]:
        """Settle what is due, then what an analysis of `ticker` on `trade_date` may know."""
        values = await self.settle_due(user, today, context)
        # Only calls made on the data this desk reads: demo lessons do not reach a live desk's prompts.
        return recall([v for v in values if v.get("data") in ("", None, self.vendor.label)], ticker, trade_date)

    async def calls(self, user: str, today: date, *, ticker: str | None = None) -> Sequence[Call]:
        """The user's calls for the record table (settled first where due)."""
        values = await self.settle_due(user, today)
        calls = [Call.model_validate(v) for v in values if ticker is None or v.get("ticker") == ticker]
        return sorted(calls, key=lambda c: (c.trade_date, c.recorded_at, c.id))

    async def settle_everyone(self, today: date) -> int:
        """The settlement pass at server start: every user's due calls. Returns how many users."""
        users = await self.log.users()
        for user in users:
            await self.settle_due(user, today)
        return len(users)
