"""The user's book in the deliberation (graph/nodes/holdings.py, graph/book/brief.py): the Trader and the Risk
Judge read it, priced at the trade date's closes; the ruling is sized against it (whole shares, cash, weights)
and kept in the run, shown on the card and in the CLI, and given to follow-ups. Without a book nothing
changes; one user's book never reaches another's run."""
from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from chat.views.card import card_markdown
from graph.book.holdings import Book, Position
from graph.book.store import BookStore
from graph.core.settings import Settings
from graph.data.synthetic import SyntheticVendor
from graph.persistence.checkpoint import SERDE
from graph.record.case import desk_notes
from graph.runtime.desk import DeskRuntime
from tests.support.desk import TODAY
from tests.support.models import ScriptedChatModel, scripted_models, system_text

ANA, BOB = "ana@example.com", "bob@example.com"


async def _run(store: InMemoryStore, user: str, text: str = "should I buy NVDA today?",
               **settings: Any) -> tuple[dict[str, Any], ScriptedChatModel, DeskRuntime, str]:
    model = ScriptedChatModel(delay_ms=0)
    runtime = DeskRuntime.build(Settings(**settings), InMemorySaver(serde=SERDE), store, models=scripted_models(model),
                                vendor=SyntheticVendor())
    thread = uuid.uuid4().hex
    async for _ in runtime.events(await runtime.new_input(thread, text), thread,
                                  runtime.context(today=TODAY, user=user, source="chat")):
        pass
    return await runtime.state(thread), model, runtime, thread


def _prompt_of(model: ScriptedChatModel, persona: str) -> str:
    return "\n".join(system_text(c["messages"]) for c in model.calls if c["persona"] == persona)


async def test_the_trader_and_the_judge_size_against_the_book() -> None:
    store = InMemoryStore()
    await BookStore(store).put(ANA, Book((Position("NVDA", Decimal(200), Decimal(95)),
                                          Position("AAPL", Decimal(50), None)), Decimal(20000)))
    state, model, _, _ = await _run(store, ANA)
    book = state["book"]
    close = Decimal(book["prices"]["NVDA"])
    assert book["trade_date"] == state["trade_date"] and set(book["prices"]) == {"NVDA", "AAPL"}
    for persona in ("Trader", "Risk Judge"):
        prompt = _prompt_of(model, persona)
        assert "## The user's book" in prompt and "They hold 200 NVDA @ 95.00" in prompt, persona
        assert "Shorting is not allowed" in prompt
    for persona in ("Bull Researcher", "Market Analyst", "Research Manager"):
        assert "## The user's book" not in _prompt_of(model, persona), persona
    # the ruling sized exactly: whole shares at the close, cash and position before and after
    decision, sizing = state["final_decision"], state["sizing"]
    value = Decimal(20000) + 200 * close + 50 * Decimal(book["prices"]["AAPL"])
    assert sizing["cash_before"] == "20,000.00" and sizing["before"] == "200 NVDA @ 95.00"
    if decision.signal == "HOLD":
        assert sizing["action"] == "hold" and sizing["after"] == sizing["before"]
    else:
        pct = Decimal(decision.position_size.split("%")[0].split()[-1])
        wanted = int(value * pct / 100 / close)
        if decision.signal == "SELL":
            assert sizing["action"] == "sell" and sizing["shares"] == str(min(wanted, 200))
        else:
            assert sizing["action"] in ("buy",) and int(sizing["shares"]) <= wanted
    card = card_markdown(decision, "synthetic", sizing=sizing)
    assert "**Your book:**" in card and "**Position:** 200 NVDA @ 95.00 →" in card
    notes = desk_notes(state)
    assert "The decision against this book:" in notes and "They hold 200 NVDA" in notes


async def test_a_sell_with_nothing_held_says_stay_out_or_short() -> None:
    store = InMemoryStore()
    await BookStore(store).put(ANA, Book((Position("AAPL", Decimal(10), Decimal(150)),), Decimal(5000)))
    state, model, _, _ = await _run(store, ANA)
    assert "They hold no NVDA." in _prompt_of(model, "Risk Judge")
    if state["final_decision"].signal == "SELL":
        assert state["sizing"]["action"] == "stay out"
    allowed, model, _, _ = await _run(store, ANA, DESK_ALLOW_SHORT=True)
    assert "Shorting is allowed" in _prompt_of(model, "Risk Judge")
    if allowed["final_decision"].signal == "SELL":
        assert allowed["sizing"]["action"] == "short"


async def test_without_a_book_nothing_changes_and_no_one_reads_anothers() -> None:
    store = InMemoryStore()
    await BookStore(store).put(ANA, Book((Position("NVDA", Decimal(200), Decimal(95)),), Decimal(20000)))
    state, model, _, _ = await _run(store, BOB)  # bob has no book; ana's is not his
    assert state.get("book") is None and state.get("sizing") is None
    assert "## The user's book" not in _prompt_of(model, "Risk Judge")
    assert "**Your book:**" not in card_markdown(state["final_decision"], "synthetic", sizing=state.get("sizing"))


@pytest.mark.parametrize("question", ["what does this do to my portfolio?"])
async def test_a_followup_reads_the_book_and_the_sizing(question: str) -> None:
    store = InMemoryStore()
    await BookStore(store).put(ANA, Book((Position("NVDA", Decimal(200), Decimal(95)),), Decimal(20000)))
    _, model, runtime, thread = await _run(store, ANA)
    async for _ in runtime.events(await runtime.new_input(thread, question), thread,
                                  runtime.context(today=TODAY, user=ANA, source="chat")):
        pass
    after = await runtime.state(thread)
    assert after["intent"] == "followup"
    desk_prompt = "\n".join(system_text(c["messages"]) for c in model.calls[-3:])
    assert "The decision against this book:" in desk_prompt


async def test_an_edits_re_run_sizes_against_the_book_stored_since() -> None:
    """Issue 35, point 5: a book stored after the analysis (the fork would keep the analysis's "no book") is read
    again for an edit's re-run, so its card has the "Your book" line; one dropped since is gone; the Risk
    Judge's own words edited re-run nothing that reads it."""
    store = InMemoryStore()
    before, _, runtime, thread = await _run(store, ANA)
    assert before["book"] is None and before["sizing"] is None
    await BookStore(store).put(ANA, Book((Position("NVDA", Decimal(200), Decimal(95)),), Decimal(20000)))
    await BookStore(store).put(BOB, Book((Position("NVDA", Decimal(7), Decimal(1)),), Decimal(1)))
    await runtime.fork(thread, "bull-1", "The bull case is strong: I would buy.", user=ANA)
    async for _ in runtime.events(None, thread, runtime.context(today=TODAY, user=ANA, source="chat")):
        pass
    after = await runtime.state(thread)
    assert after["book"]["brief"] and "200 NVDA" in after["book"]["brief"]
    assert after["sizing"] and after["sizing"]["before"] == "200 NVDA @ 95.00"
    assert "**Your book:**" in card_markdown(after["final_decision"], "synthetic", sizing=after["sizing"])

    assert await BookStore(store).remove(ANA)
    await runtime.fork(thread, "trader", "Hold.\n\nFINAL TRANSACTION PROPOSAL: **HOLD**", user=ANA)
    async for _ in runtime.events(None, thread, runtime.context(today=TODAY, user=ANA, source="chat")):
        pass
    assert (await runtime.state(thread))["book"] is None
