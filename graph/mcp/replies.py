"""What the MCP server's tools return, as structured content: each model is also the tool's output schema, so a client
(and the model behind it) knows the fields before it calls. Plain values only; the words beside them (each tool's
short text) are the server's."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..core.assets import SERVED, AssetClass, classify
from ..core.state import FinalDecision
from ..core.usage import RunUsage, run_total, tokens
from ..track.horizon import benchmark_for


class Ruling(BaseModel):
    """The Risk Judge's final decision, as the card shows it."""

    ticker: str
    trade_date: str = Field(description="ISO date the analysis is as of (the last session on or before the day asked)")
    signal: Literal["BUY", "SELL", "HOLD"]
    size: str = Field(description="position size, e.g. '2% of portfolio'")
    entry: str
    stop: str
    horizon: str
    confidence: float | None = Field(description="0..1; null when the judge stated none")
    rationale: str
    asset_class: Literal["equity", "fund", "index", "crypto", "currency", "future"] | None = Field(
        None, description="what the ticker is (graph/core/assets.py): its calendar, units and benchmark follow it")
    benchmark: str = Field("", description="what the call is scored against, as on the card (SPY for a US stock, "
                                           "BTC-USD for another coin); empty: none, the call is scored on its "
                                           "own return (a currency pair, a benchmark itself)")

    @classmethod
    def of(cls, decision: FinalDecision, asset_class: str | None = None) -> Ruling:
        """The ruling with its class (the one the run read from the vendor, `asset_class`, else read from the
        ticker) and the benchmark the card names."""
        try:
            kind = AssetClass(asset_class) if asset_class else classify(decision.ticker)
        except ValueError:
            kind = classify(decision.ticker)
        return cls(ticker=decision.ticker, trade_date=decision.trade_date, signal=decision.signal,
                   size=decision.position_size, entry=decision.entry, stop=decision.stop, horizon=decision.horizon,
                   confidence=decision.confidence, rationale=decision.rationale,
                   asset_class=kind.value if kind in SERVED else None, benchmark=benchmark_for(decision.ticker, kind))


class Tokens(BaseModel):
    """What the run spent, as the models reported it (estimated for a server that reports none)."""

    total: int = 0
    prompt: int = 0
    cached: int = Field(0, description="prompt tokens a server served from its prefix cache")
    completion: int = 0
    calls: int = 0
    by_persona: dict[str, int] = Field(default_factory=dict)

    @classmethod
    def of(cls, usage: RunUsage | None) -> Tokens:
        total = run_total(usage)
        personas = usage["personas"] if usage else {}
        return cls(total=tokens(total), prompt=total["prompt"], cached=total["cached"],
                   completion=total["completion"], calls=total["calls"],
                   by_persona={p: tokens(u) for p, u in personas.items()})

    def add(self, other: Tokens) -> Tokens:
        by = dict(self.by_persona)
        for persona, n in other.by_persona.items():
            by[persona] = by.get(persona, 0) + n
        return Tokens(total=self.total + other.total, prompt=self.prompt + other.prompt,
                      cached=self.cached + other.cached, completion=self.completion + other.completion,
                      calls=self.calls + other.calls, by_persona=by)


Outcome = Literal["decision", "answer", "question", "stopped", "noted"]


class DeskReply(BaseModel):
    """An analysis, a follow-up or a resumed run of one thread."""

    thread_id: str = Field(description="the thread: ask follow-ups on it, read desk://threads/{thread_id}/report")
    outcome: Outcome = Field(description="decision: the desk ruled; answer: a follow-up was answered; question: "
                                         "the desk asks back (no ticker, an impossible date); stopped: the run "
                                         "ended without a ruling (resume it); noted: the thread was running, so "
                                         "the message was passed on to that run, whose persona answers it there")
    ruling: Ruling | None = None
    said: str = Field("", description="the Desk's answer or question, or why the run stopped")
    language: str = Field("en", description="the language the thread answers in")
    tokens: Tokens = Field(default_factory=Tokens)
    data: str = Field("", description="where the market data came from; \"synthetic demo data\" in demo mode")


class CompareDesk(BaseModel):
    ticker: str
    thread_id: str = Field(description="this ticker's own desk thread (an ordinary analysis thread)")
    ruling: Ruling | None = None
    why_none: str = ""


class CompareReply(BaseModel):
    thread_id: str = Field(description="the comparison's thread: follow-ups about the comparison go here")
    trade_date: str
    desks: list[CompareDesk]
    ranking: list[dict[str, Any]] = Field(default_factory=list, description="the Comparison turn's ranking, best first")
    comparison: str = Field("", description="the Comparison turn's words")
    tokens: Tokens = Field(default_factory=Tokens)


class RecordedCall(BaseModel):
    thread_id: str
    ticker: str
    trade_date: str
    signal: str
    size: str = ""
    horizon: str = ""
    confidence: float | None = None
    status: Literal["settled", "pending"]
    verdict: str | None = Field(None, description="right or wrong, once settled")
    alpha: float | None = Field(None, description="the stock's return minus its benchmark's, as a fraction")
    settle_date: str | None = None
    pending: str = Field("", description="why it is not settled yet")


class RecordReply(BaseModel):
    ticker: str | None = None
    calls: list[RecordedCall]
    settled: int
    right: int
    hit_rate: float | None = None
    mean_alpha: float | None = Field(None, description="the mean alpha the calls earned (a SELL earns the opposite)")


class BacktestPlanReply(BaseModel):
    plan_id: str = Field(description="run it with the run_backtest tool; nothing runs until then")
    tickers: list[str]
    start: str
    end: str
    deliberations: int = Field(description="tickers × trading days to deliberate")
    expected_tokens: int
    expected_calls: int
    statement: str = Field(description="the plan and its cost in words")


class BacktestReply(BaseModel):
    backtest_id: str
    table: str = Field(description="Table 1 in Markdown: CR %, ARR %, SR, MDD % per strategy and ticker")
    days: int
    failed: int
    tokens: int
    complete: bool


class Holding(BaseModel):
    symbol: str
    quantity: str
    cost: str | None = None


class BookReply(BaseModel):
    positions: list[Holding]
    cash: str | None = None
    text: str = ""


class ThreadInfo(BaseModel):
    thread_id: str
    title: str
    at: str
    ticker: str | None = None
    signal: str | None = None
