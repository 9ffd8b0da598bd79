"""The desk's state: the request, the four reports, two debates, the plans and the decision.

Pydantic types here are registered with the checkpoint serializer (see checkpoint.py).
"""
from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from .usage import RunUsage, merge_usage
from .words import DEFAULT_LANGUAGE, is_language, label, ruling_value

Signal = Literal["BUY", "SELL", "HOLD"]
# What the coordinator made of a message (graph/request/intent.py decides it).
Intent = Literal["analyze", "followup", "chat", "clarify", "record", "paper"]


class Turn(BaseModel):
    side: str
    persona: str
    text: str


class Debate(BaseModel):
    """A debate's transcript; histories and counts are read from the turns, not kept twice."""

    turns: list[Turn] = Field(default_factory=list)
    judge_decision: str = ""

    @property
    def count(self) -> int:
        return len(self.turns)

    @property
    def history(self) -> str:
        return "\n\n".join(f"{t.persona}: {t.text}" for t in self.turns)

    def history_of(self, side: str) -> str:
        return "\n\n".join(t.text for t in self.turns if t.side == side)

    @property
    def latest(self) -> Turn | None:
        return self.turns[-1] if self.turns else None

    def said(self, turn: Turn) -> Debate:
        return self.model_copy(update={"turns": [*self.turns, turn]})


class Ruling(BaseModel):
    """The ruling's shape as a model is asked to fill it: every field required and no bounds, so
    that strict structured output (OpenAI) and grammar-constrained decoding (llama.cpp) take it."""

    signal: Signal = Field(description="BUY, SELL or HOLD: the judge's decision")
    position_size: str = Field(description="e.g. '2% of portfolio' or '0% (stay flat)'")
    entry: str = Field(description="entry price or rule, e.g. 'limit 912.50' or 'n/a'")
    stop: str = Field(description="stop-loss price or rule, e.g. '865.00' or 'n/a'")
    horizon: str = Field(description="holding period, e.g. '2-6 weeks'")
    confidence: float = Field(description="0..1")
    rationale: str = Field(description="one paragraph: why")


class StatedCall(BaseModel):
    """The call a Research Manager's plan or a Trader's proposal states, as a model is asked to give it."""

    signal: Signal = Field(description="BUY, SELL or HOLD: the call the text states")


class FinalDecision(BaseModel):
    """The Risk Judge's ruling, as a trader would enter it."""

    signal: Signal = Field(description="BUY, SELL or HOLD")
    position_size: str = Field(description="e.g. '2% of portfolio' or '0% (stay flat)'")
    entry: str = Field(description="entry price or rule, e.g. 'limit 912.50' or 'n/a'")
    stop: str = Field(description="stop-loss price or rule, e.g. '865.00' or 'n/a'")
    horizon: str = Field(description="holding period, e.g. '2-6 weeks'")
    # None: the judge's words (read as lines, graph/models/ruling.py) stated none; never a guessed 0.5.
    confidence: float | None = Field(ge=0, le=1, description="0..1")
    rationale: str = Field(description="one paragraph: why")
    ticker: str = ""
    trade_date: str = ""
    # How the ruling was read (graph/models/shaped.py): "json_schema"/"json_object" (decoded under its
    # schema), "function_calling", or "lines" (the judge's own words). And, when the words the user
    # read name another signal than the structured ruling, the signal they name: the card says so.
    read: str = ""
    words_say: Signal | None = None

    def rows(self, language: str = DEFAULT_LANGUAGE) -> list[tuple[str, str]]:
        """The ruling as (label, value) rows, in DECISION_FIELDS order, confidence as 0.00; the
        labels in `language` for display (the case file and the record keep the English ones), and the
        size and horizon too when written as the demo judge writes them (ruling_value).
        A one-line field is kept on one line and an empty one reads "—": a small model's grammar
        filled the position size with a line break and left the entry empty (a table row broke)."""
        def value(key: str) -> str:
            if key == "confidence":
                return "—" if self.confidence is None else f"{self.confidence:.2f}"
            text = str(getattr(self, key))
            return text if key == "rationale" else ruling_value(language, key, " ".join(text.split())) or "—"
        return [(label(language, "fields", english, key), value(key)) for key, english in DECISION_FIELDS]


# The ruling's fields and the labels the judge writes them under ("Position size: 2%"): the one
# list for the judge's prompt reader, the card, the report, the record and the CLI.
DECISION_FIELDS: tuple[tuple[str, str], ...] = (
    ("signal", "Signal"), ("position_size", "Position size"), ("entry", "Entry"), ("stop", "Stop"),
    ("horizon", "Horizon"), ("confidence", "Confidence"), ("rationale", "Rationale"),
)


class Intervention(BaseModel):
    seq: int
    text: str
    answered_by: list[str] = Field(default_factory=list)


def merge_keys(old: dict | None, new: dict | None) -> dict:
    """Keyed records written by parallel nodes: each key is replaced whole (Overwrite resets)."""
    return {**(old or {}), **(new or {})}


def latest_seen(old: int, new: int) -> int:
    return max(old or 0, new or 0)


def merge_read(old: list[str] | None, new: list[str] | None) -> list[str]:
    """Inbox note keys read: a union in first-read order (parallel speakers and retried steps repeat keys)."""
    return list(dict.fromkeys([*(old or []), *(new or [])]))


def merge_interventions(old: list[Intervention], new: list[Intervention]) -> list[Intervention]:
    """Keyed by note number: a note read twice (parallel speakers, a retried step) is kept once."""
    by_seq = {i.seq: i for i in old or []}
    for item in new or []:
        if item.seq in by_seq:
            known = by_seq[item.seq]
            names = known.answered_by + [n for n in item.answered_by if n not in known.answered_by]
            by_seq[item.seq] = known.model_copy(update={"answered_by": names})
        else:
            by_seq[item.seq] = item
    return [by_seq[k] for k in sorted(by_seq)]


class DeskState(TypedDict, total=False):
    # The user-visible conversation: the user's messages and what each persona said.
    messages: Annotated[list[AnyMessage], add_messages]

    # The request, set by the coordinator.
    intent: Intent
    ticker: str | None
    company: str | None
    # ISO date: the last session of the ticker's market (its class's calendar) on or before the date asked
    trade_date: str | None
    asked_date: str | None
    # What the ticker is (graph/core/assets.py AssetClass: "equity", "fund", "index", "crypto", "currency",
    # "future"): the vendor's metadata when live, the symbol's reading in demo.
    asset_class: str | None
    analysts: list[str]
    debate_rounds: int
    risk_rounds: int

    market_report: str
    sentiment_report: str
    news_report: str
    fundamentals_report: str
    macro_report: str  # the Macro Analyst's, when chosen (issue 38)

    investment_debate: Debate
    investment_plan: str
    trader_plan: str
    # The call the manager's plan and the trader's proposal state, by persona (graph/nodes/debate.py
    # `stated`): the card and the track record show them beside the judge's.
    plan_calls: Annotated[dict[str, Signal | None], merge_keys]
    risk_debate: Debate
    final_decision: FinalDecision | None

    interventions: Annotated[list[Intervention], merge_interventions]
    # The highest inbox note number already recorded; max() because parallel analysts may all write it.
    inbox_seen: Annotated[int, latest_seen]
    # The inbox note keys already recorded (graph/notes/inbox.py): a union, so notes posted at once from
    # several processes are each read once; inbox_seen stays for threads checkpointed before keys.
    inbox_read: Annotated[list[str], merge_read]
    past_decisions: Annotated[list[FinalDecision], operator.add]
    # The thread's earlier analyses, oldest first (graph/record/case.py past_analysis): subject, decision
    # and each speaker's gist, so a follow-up can ask about any of them and compare them.
    past_analyses: Annotated[list[dict[str, Any]], operator.add]
    # Calendar days of prices the market analyst read: the chart shows the same window.
    chart_window_days: int
    # Tokens this run spent, per persona (graph/core/usage.py); every speaker adds what it spent.
    usage: Annotated[RunUsage, merge_usage]
    # The figure check (graph/record/figures.py), reset by each new analysis: the numbers each analyst's
    # tools returned, and per turn ("Bull Researcher#1") the figures it cited that the data lacks.
    tool_figures: Annotated[dict[str, list[float]], merge_keys]
    unverified: Annotated[dict[str, list[str]], merge_keys]
    # What was scheduled in the holding window as of the trade date (graph/tools/events.py), by "kind day":
    # earnings, dividends and splits the analysts' events tool returned. Reset by each new analysis.
    events: Annotated[dict[str, Any], merge_keys]
    # A demo request for a ticker the desk does not know, waiting for the user to confirm it
    # (ticker, asked_date); cleared by the next message either way.
    pending_ticker: dict[str, str] | None
    # What this analysis recalled of the user's track record (graph/track/recall.py), point in time:
    # the calls, the card's line and the blocks the speakers read. Plain JSON; a new analysis resets it.
    track_record: dict[str, Any] | None
    # The user's whole record as the Desk last showed it ("/record"): follow-ups may ask about it.
    record_shown: str | None
    # The edit this branch was forked by (graph/runtime/branches.py): the step, its words before and
    # after, and the decision of the branch it forked from. A new analysis clears it.
    forked: dict[str, Any] | None
    # The user's book as this analysis knows it (graph/book/brief.py: holdings priced at the trade date's
    # closes, and the brief the Trader and the Risk Judge read), and the ruling sized against it
    # (graph/book/sizing.py, as plain JSON). None without a book; a new analysis resets both.
    book: dict[str, Any] | None
    sizing: dict[str, Any] | None
    # The language the desk answers this thread in, an ISO 639 code ("zh"), set by the coordinator
    # (graph/nodes/thread_language.py). Absent in threads checkpointed before it: read it with
    # language_of, which takes that (or anything not a code) as English.
    language: str | None


class RouteState(TypedDict, total=False):
    """What the graph's routes read of the state (graph/nodes/builder.py, graph/core/plan.py): the plan
    and where the run stands. LangGraph hands a route only the keys its argument's type names, read
    afresh with the step's writes; typed as the whole DeskState, every route after a turn copied every
    channel and merged the turn's writes into them (the conversation's messages, the usage, the figure
    check), on the critical path between two speakers."""
    intent: Intent
    analysts: list[str]
    debate_rounds: int
    risk_rounds: int
    investment_debate: Debate
    investment_plan: str
    trader_plan: str
    risk_debate: Debate
    final_decision: FinalDecision | None


def language_of(state: Mapping[str, Any]) -> str:
    """The thread's language; English for a thread that never set one."""
    code = state.get("language")
    return code if is_language(code) else DEFAULT_LANGUAGE
