"""A logged call and, once its horizon has passed, its outcome: the track record's one record type.

A call is stored per user (graph/track/log.py) under `id` = "<thread>:<n>", n the thread's analysis
number: an edited branch of that analysis writes the same id, so its decision replaces the one it
forked from, while a new analysis in the thread is a new call.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ..core.state import Signal

Verdict = Literal["right", "wrong"]


class Outcome(BaseModel):
    """What the market did over the call's holding window, from the desk's own data vendor.

    Returns are fractions (0.012 is +1.2 %) from the trade date's close to the settle date's close;
    alpha is the call's raw return minus the benchmark's over the same two closes."""

    settle_date: str                 # ISO: the last session of the holding window
    sessions: int                    # the holding window in trading sessions
    entry_close: float
    exit_close: float
    raw_return: float
    benchmark: str                   # e.g. "SPY"; "" for none (a currency pair, BTC-USD): alpha = its own return
    benchmark_return: float
    alpha: float
    stop_price: float | None = None  # read from the call's stop ("865.00"); None when it gave none
    stop_hit: str | None = None      # ISO date of the first session whose low (BUY) / high (SELL) crossed it
    verdict: Verdict
    reflection: str = ""             # the deep model's few sentences (graph/track/reflect.py)
    reflected_by: str = ""           # the model that wrote it ("demo" in demo mode)
    settled_at: str = ""             # ISO UTC time it was scored

    @property
    def against(self) -> str:
        """The benchmark as the record's English reads it: "SPY", or that there was none."""
        return self.benchmark or "no benchmark (its own return)"


class Call(BaseModel):
    """One decision of the Risk Judge, as the track record keeps it."""

    id: str
    user: str
    thread_id: str
    branch: str = "original"         # the edit's branch id when an edited branch decided it
    ticker: str
    company: str = ""
    trade_date: str                  # ISO
    signal: Signal
    position_size: str = ""
    entry: str = ""
    stop: str = ""
    horizon: str = ""
    confidence: float | None = None  # None: the judge stated none
    rationale: str = ""
    # The persona texts that argued, by persona name (Bull Researcher, Bear Researcher, Risky/Safe/
    # Neutral Analyst): their last turn each, cut to a bound (the record is read back into prompts).
    argued: dict[str, str] = Field(default_factory=dict)
    # The calls the Research Manager's plan and the Trader's proposal stated (None: they stated none).
    plan_calls: dict[str, Signal | None] = Field(default_factory=dict)
    # What the ticker is and what its calls are measured against, when recorded (graph/track/horizon.py):
    # "" for no benchmark (a currency pair, BTC-USD itself); None on a record made before classes.
    asset_class: str = ""
    benchmark: str | None = None
    data: str = ""                   # the vendor's label ("synthetic demo data", "Yahoo Finance …")
    source: str = "chat"             # chat, cli, server or backtest
    recorded_at: str = ""            # ISO UTC
    outcome: Outcome | None = None
    pending: str = ""                # why it is not settled yet ("settles after 2024-05-13", a vendor failure)

    @property
    def settled(self) -> bool:
        return self.outcome is not None
