"""The Comparison step: once every desk of a comparison has ended, one model turn ranks the tickers with reasons
drawn from each desk's own debate (prompts/comparison.md), and the ranking is read back as data.

What the turn reads is each desk's record as a follow-up reads an earlier analysis (graph/record/case.py): its
ruling (signal, size, entry, stop, horizon, confidence, rationale) and the opening words of each speaker. A desk
with no decision (stopped, failed) is listed as such and is not to be ranked.

The ranking is read back, never invented: first from the turn's own lines ("1. **NVDA** — …"), then, when those do
not rank every decided ticker, through the desk's shaped-output ladder (graph/models/shaped.py) over the turn's
words; a ticker neither gives stays unranked, and a ticker without a decision is never ranked.
"""
from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from ..core.context import DeskContext
from ..core.events import Token, TurnRestarted
from ..core.personas import COMPARISON
from ..core.prompts import render
from ..core.state import FinalDecision
from ..core.words import DEFAULT_LANGUAGE, language_name, phrase
from ..models.registry import ModelRegistry
from ..nodes.speaking import ask, text_of
from ..record.case import past_analysis

NO_DECISION = "no decision"


@dataclass(frozen=True)
class DeskOutcome:
    """What one desk of a comparison came to, as the Comparison turn and the card read it."""

    ticker: str
    thread: str
    company: str = ""
    signal: str = ""           # "" when the desk has no decision
    size: str = ""
    confidence: float | None = None
    entry: str = ""
    stop: str = ""
    horizon: str = ""
    rationale: str = ""
    said: dict[str, str] = field(default_factory=dict)  # persona → the opening words of its turns
    why_none: str = ""         # why there is no decision (stopped, failed)

    @property
    def decided(self) -> bool:
        return bool(self.signal)


def outcome(ticker: str, thread: str, state: Mapping[str, Any], why_none: str = "",
            language: str = DEFAULT_LANGUAGE) -> DeskOutcome:
    """A desk's outcome from its thread's state (graph/record/case.py keeps each speaker's gist); `why_none`, when
    it made no decision, else the comparison's `language`'s words for that."""
    past = past_analysis(state) or {}
    d = state.get("final_decision")
    if not isinstance(d, FinalDecision) or d.ticker != ticker:
        return DeskOutcome(ticker, thread, str(past.get("company") or ""), said=dict(past.get("said") or {}),
                           why_none=why_none or phrase(language, "compare.no_decision_reached"))
    return DeskOutcome(ticker, thread, str(past.get("company") or ""), d.signal, d.position_size, d.confidence, d.entry,
                   d.stop, d.horizon, str(past.get("rationale") or ""), dict(past.get("said") or {}))


def _sure(confidence: float | None) -> str:
    return "—" if confidence is None else f"{confidence:.2f}"


def desks_markdown(outcomes: Sequence[DeskOutcome]) -> str:
    """Each desk's record under its own `### TICKER` heading: the ruling's fields, then its speakers' words."""
    out = []
    for o in outcomes:
        lines = [f"### {o.ticker}" + (f" ({o.company})" if o.company and o.company != o.ticker else "")]
        if o.decided:
            lines += [f"Signal: {o.signal}", f"Position size: {o.size}", f"Entry: {o.entry}", f"Stop: {o.stop}",
                      f"Horizon: {o.horizon}", f"Confidence: {_sure(o.confidence)}"]
            if o.rationale:
                lines.append(f"Rationale: {o.rationale}")
        else:
            lines.append(f"Signal: {NO_DECISION} ({o.why_none})")
        lines += [f"- {persona}: {words}" for persona, words in o.said.items()]
        out.append("\n".join(lines))
    return "\n\n".join(out)


@dataclass(frozen=True)
class Ranked:
    """One row of the ranking: a decided ticker's place (1 is the pick) and the turn's reason; `rank` None for a
    ticker the turn left unranked or that has no decision."""

    ticker: str
    rank: int | None
    reason: str = ""


class Ranking(BaseModel):
    """The shaped-output schema: the tickers best first, each with the reason the turn gave."""

    order: list[str] = Field(description="the tickers ranked best first, as written in the comparison")
    reasons: list[str] = Field(default_factory=list, description="one short reason per ticker, in the same order")


_LINE = re.compile(r"^\s*(?:#+\s*)?(\d{1,2})\s*[.)、:]\s*\**\s*\$?([A-Za-z0-9.\-^=]{1,12})\**\s*(?:[—–:\-]+\s*)?(.*)$",
                   re.M)


def ranking_from_lines(text: str, outcomes: Sequence[DeskOutcome]) -> list[Ranked]:
    """The ranking the turn wrote as numbered lines, for the decided tickers it names (each once)."""
    decided = {o.ticker.upper(): o.ticker for o in outcomes if o.decided}
    found: dict[str, Ranked] = {}
    for m in _LINE.finditer(text):
        ticker = decided.get(m[2].upper().rstrip("."))
        if ticker is not None and ticker not in found:
            found[ticker] = Ranked(ticker, len(found) + 1, m[3].strip().strip("*").strip())
    return list(found.values())


def complete(read: Sequence[Ranked], outcomes: Sequence[DeskOutcome]) -> list[Ranked]:
    """The ranking as shown: the ranked tickers in order, then the decided ones left unranked, then those with no
    decision (each with why)."""
    ranked = {r.ticker for r in read}
    rest = [Ranked(o.ticker, None) for o in outcomes if o.decided and o.ticker not in ranked]
    none = [Ranked(o.ticker, None, o.why_none) for o in outcomes if not o.decided]
    return [*read, *rest, *none]


@dataclass
class ComparisonResult:
    text: str
    ranking: list[Ranked]
    read: str  # "lines", the shaped method, or "" (nothing could be read: every decided ticker unranked)

    def rows(self) -> list[dict[str, Any]]:
        return [asdict(r) for r in self.ranking]


class _Tokens(AsyncCallbackHandler):
    """The turn's words as they stream, for a consumer outside a graph (the graph's own "messages" stream is
    the same callback)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | TurnRestarted | None] = asyncio.Queue()

    async def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        if isinstance(token, str) and token:
            self.queue.put_nowait(token)


async def streamed_turn(models: ModelRegistry, persona: str, messages: list[Any],
                        context: DeskContext | None = None) -> AsyncIterator[Token | TurnRestarted | str]:
    """One model turn outside the desk's graph, as its speakers' turns are made (graph/nodes/speaking.py `ask`:
    capped, empty answers asked again, stalls watched): its words as Token events as they stream, then the
    whole text (a str) last; a TurnRestarted where a call cut off is asked again (its words void)."""
    tokens = _Tokens()
    model = models.deep(context).with_config(callbacks=[tokens])
    call = asyncio.create_task(ask(model, messages, persona, limits=models.limits("turn"),
                                   restarted=tokens.queue.put_nowait))
    call.add_done_callback(lambda _: tokens.queue.put_nowait(None))
    try:
        while (piece := await tokens.queue.get()) is not None:
            yield Token(persona, piece) if isinstance(piece, str) else piece
        yield text_of(await call)
    finally:
        if not call.done():
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await call


def _language_line(language: str) -> str:
    return "" if language == DEFAULT_LANGUAGE else "\n\n" + render("language", language=language_name(language))


class ComparisonTurn:
    """The Comparison persona's turn over the desks' outcomes: `stream()` its words, then `result`."""

    def __init__(self, models: ModelRegistry, outcomes: Sequence[DeskOutcome], trade_date: str, *,
                 language: str = DEFAULT_LANGUAGE, context: DeskContext | None = None) -> None:
        self.models = models
        self.outcomes = list(outcomes)
        self.trade_date = trade_date
        self.language = language
        self.context = context
        self.result: ComparisonResult | None = None

    def prompt(self) -> list[Any]:
        system = render("comparison", desks=desks_markdown(self.outcomes), trade_date=self.trade_date,
                        tickers=", ".join(o.ticker for o in self.outcomes), language=_language_line(self.language))
        return [SystemMessage(system), HumanMessage("Rank the tickers.")]

    async def stream(self) -> AsyncIterator[Token | TurnRestarted]:
        """The turn's words as Token events of the Comparison persona (a TurnRestarted voids a cut-off call's);
        `result` is set once they end."""
        messages = self.prompt()
        text = ""
        async for piece in streamed_turn(self.models, COMPARISON, messages, self.context):
            if not isinstance(piece, str):
                yield piece
            else:
                text = piece
        self.result = await self._read(text, messages)

    async def _read(self, text: str, messages: list[Any]) -> ComparisonResult:
        read, how = ranking_from_lines(text, self.outcomes), "lines"
        decided = [o for o in self.outcomes if o.decided]
        if len(read) < len(decided):
            shaped = await self.models.shapes.ask(self.models.deep(self.context), Ranking,
                                                  [*messages, HumanMessage(
                                                      "Your comparison was:\n\n" + text
                                                      + "\n\nGive its ranking: the tickers best first.")])
            if shaped is not None:
                names = {o.ticker.upper(): o.ticker for o in decided}
                order = list(dict.fromkeys(names[t.upper()] for t in shaped.value.order if t.upper() in names))
                reasons = [*shaped.value.reasons, *([""] * len(order))]
                read = [Ranked(t, i + 1, reasons[i]) for i, t in enumerate(order)]
                how = shaped.method
        return ComparisonResult(text, complete(read, self.outcomes), how if read else "")


def ranking_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """The ranking as the follow-up reads it: one line per ticker, its place (or why it has none)."""
    out = []
    for r in rows:
        place = f"{r['rank']}." if r.get("rank") else "Not ranked:"
        out.append(f"{place} {r['ticker']}" + (f" — {r['reason']}" if r.get("reason") else ""))
    return "\n".join(out)


def followup_prompt(outcomes: Sequence[DeskOutcome], rows: Sequence[Mapping[str, Any]], trade_date: str, question: str,
                    language: str = DEFAULT_LANGUAGE) -> list[Any]:
    """A follow-up in the comparison's thread ("which was riskier?"), for the Desk to answer from the desks'
    records and the ranking (prompts/comparison_followup.md)."""
    system = render("comparison_followup", desks=desks_markdown(outcomes), ranking=ranking_markdown(rows),
                    trade_date=trade_date, tickers=", ".join(o.ticker for o in outcomes),
                    language=_language_line(language))
    return [SystemMessage(system), HumanMessage(question)]


def side_by_side(outcomes: Sequence[DeskOutcome], rows: Sequence[Mapping[str, Any]],
                 language: str = DEFAULT_LANGUAGE) -> tuple[list[str], list[list[str]]]:
    """The card's table, the same in the chat and the terminal: a row per ticker in ranking order (rank, ticker,
    signal, size, confidence, entry, stop), a ticker without a decision said so."""
    say = lambda key: phrase(language, "compare." + key)  # noqa: E731 - one word per column below
    headers = [say(k) for k in ("card_rank", "card_ticker", "card_signal", "card_size", "card_confidence",
                                "card_entry", "card_stop")]
    by_ticker = {o.ticker: o for o in outcomes}
    order = [str(r["ticker"]) for r in rows if r["ticker"] in by_ticker]
    order += [o.ticker for o in outcomes if o.ticker not in order]
    ranks = {str(r["ticker"]): r.get("rank") for r in rows}
    body = []
    for ticker in order:
        o = by_ticker[ticker]
        rank = str(ranks.get(ticker) or say("card_unranked"))
        if o.decided:
            body.append([rank, ticker, o.signal, o.size, _sure(o.confidence), o.entry, o.stop])
        else:
            body.append([rank, ticker, say("card_no_decision"), "—", "—", "—", "—"])
    return headers, body
