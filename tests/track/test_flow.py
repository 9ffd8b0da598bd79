"""The track record through the desk: decisions logged per user, recalled point in time by later
analyses (and only into the prompts that should read them), asked for as a table, never mixed
between users; a stopped run logs nothing and an edited branch's decision replaces its parent's."""
from __future__ import annotations

import contextlib
from datetime import date
from typing import Any

from langchain_core.messages import HumanMessage

from graph.core.errors import DeskError
from graph.core.events import AlphaCurve, Event, NodeDone, Said
from graph.track.log import DecisionLog
from graph.track.recall import RECALL_CHARS
from tests.support.models import ScriptedChatModel, system_text

# Far enough after every trade date below that each call's window (5 sessions by default) is over.
LATER = date(2024, 7, 1)


async def run(desk: Any, text: str, *, user: str = "alice", today: date = LATER,
              thread: str | None = None) -> list[Event]:
    context = desk.runtime.context(today=today, user=user, source="chat")
    graph_input = {"messages": [HumanMessage(text)], "analysts": ["market"], "debate_rounds": 1, "risk_rounds": 1}
    return [ev async for ev in desk.runtime.events(graph_input, thread or desk.thread, context)]


def recalled(events: list[Event]) -> dict[str, Any] | None:
    return next((ev.update.get("track_record") for ev in events
                 if isinstance(ev, NodeDone) and ev.node == "coordinator"), None)


def prompts_of(model: ScriptedChatModel, persona: str) -> list[str]:
    return [system_text(c["messages"]) for c in model.calls if c["persona"] == persona]


async def test_a_decision_is_logged_for_its_user_with_what_was_argued(desk_factory):
    desk = desk_factory()
    await run(desk, "should I buy NVDA on 2024-05-01?")
    [call] = await DecisionLog(desk.runtime.store).calls("alice")
    state = await desk.state()
    decision = state["final_decision"]
    assert (call.id, call.user, call.thread_id, call.source) == (f"{desk.thread}:0", "alice", desk.thread, "chat")
    assert (call.ticker, call.trade_date, call.signal, call.stop, call.horizon) == (
        "NVDA", "2024-05-01", decision.signal, decision.stop, decision.horizon)
    assert {"Bull Researcher", "Bear Researcher", "Safe Analyst"} <= call.argued.keys()
    assert call.outcome is None and call.data == desk.runtime.vendor.label
    assert await DecisionLog(desk.runtime.store).calls("bob") == []


async def test_a_later_analysis_recalls_only_calls_settled_by_its_trade_date(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    await run(desk, "should I buy NVDA on 2024-03-01?")
    # The demo judge's horizon is "2-6 weeks", 30 sessions: on 2024-03-15 the first call's window
    # is not over, so nothing is recalled.
    early = recalled(await run(desk, "and NVDA on 2024-03-15?"))
    assert early is not None and early["same"] == [] and early["shared"] == ""
    assert not any("track record" in p for p in prompts_of(model, "Research Manager"))
    model.calls.clear()
    late = recalled(await run(desk, "and NVDA on 2024-06-03?"))
    assert late is not None
    # Both earlier calls are scored by then, and recalled newest first.
    assert [c["trade_date"] for c in late["same"]] == ["2024-03-15", "2024-03-01"]
    assert all(c["outcome"]["settle_date"] <= "2024-06-03" for c in late["same"])
    assert late["same"][0]["outcome"]["reflection"].startswith("Demo reflection")
    calls = await DecisionLog(desk.runtime.store).calls("alice")
    assert [c.trade_date for c in calls] == ["2024-03-01", "2024-03-15", "2024-06-03"]
    assert all(c.settled for c in calls[:2]) and not calls[2].settled
    # The manager, trader and judge read the whole record after the shared case file; the bull its own side's.
    for persona in ("Research Manager", "Trader", "Risk Judge"):
        [prompt] = prompts_of(model, persona)[:1]
        assert "The desk's track record" in prompt and prompt.index("case file") < prompt.index("track record")
    bull = prompts_of(model, "Bull Researcher")[0]
    assert "Your side's record on NVDA" in bull and "The desk's track record" not in bull
    assert not any("track record" in p or "side's record" in p for p in prompts_of(model, "Risky Analyst"))
    # The figures of the record are evidence: citing them is not flagged.
    assert late["line"].startswith("2 past calls: ")


async def test_the_recalled_block_is_bounded(desk_factory):
    desk = desk_factory()
    log = DecisionLog(desk.runtime.store)
    await run(desk, "should I buy NVDA on 2024-03-01?")
    [call] = await log.calls("alice")
    long = "word " * 400
    for n in range(40):  # forty more settled calls, each with a long lesson
        await log.save(call.model_copy(update={"id": f"x:{n}", "ticker": "AAPL" if n % 2 else "NVDA",
                                               "rationale": long}))
    track = recalled(await run(desk, "and NVDA on 2024-06-03?"))
    assert track is not None
    assert len(track["same"]) == 3 and len(track["lessons"]) == 3
    assert len(track["shared"]) < RECALL_CHARS + 600  # the entries' bound plus the template's words


async def test_two_users_records_never_mix(desk_factory):
    desk = desk_factory()
    await run(desk, "should I buy NVDA on 2024-03-01?", user="alice")
    other = desk_factory(store=desk.runtime.store)  # the same store, bob's own thread
    bobs = await run(other, "should I buy NVDA on 2024-06-03?", user="bob")
    assert recalled(bobs)["same"] == []  # alice's call is not bob's
    answer = await run(other, "/record", user="bob")
    said = [ev.text for ev in answer if isinstance(ev, Said)]
    assert said and "2024-03-01" not in said[-1] and "2024-06-03" in said[-1]
    mine = await run(desk, "how have your calls done?", user="alice")
    text = [ev.text for ev in mine if isinstance(ev, Said)][-1]
    assert "2024-03-01" in text and "2024-06-03" not in text


async def test_the_record_is_a_table_with_its_alpha_curve(desk_factory):
    desk = desk_factory()
    await run(desk, "should I buy NVDA on 2024-03-01?")
    await run(desk, "should I buy AAPL on 2024-03-04?")
    events = await run(desk, "what did you decide on NVDA last time, and were you right?")
    text = [ev.text for ev in events if isinstance(ev, Said)][-1]
    assert "Your track record on NVDA" in text and "Last time on **NVDA** (2024-03-01)" in text
    assert "| Date | Ticker |" in text and "AAPL" not in text
    [curve] = [ev for ev in events if isinstance(ev, AlphaCurve)]
    assert curve.ticker == "NVDA" and len(curve.points) == 1
    assert (await desk.state())["intent"] == "record"
    everything = await run(desk, "/record")
    [curve] = [ev for ev in everything if isinstance(ev, AlphaCurve)]
    assert len(curve.points) == 2


async def test_a_failed_run_logs_nothing_and_its_resume_logs_once(desk_factory):
    def fail_at_judge(persona, messages, tools):
        if persona == "Risk Judge":
            raise RuntimeError("the model server went away")
        return None

    desk = desk_factory(ScriptedChatModel(script=fail_at_judge))
    with contextlib.suppress(DeskError):
        await run(desk, "should I buy NVDA on 2024-05-01?")
    assert await DecisionLog(desk.runtime.store).calls("alice") == []
    resumed = desk_factory(thread=desk.thread, checkpointer=desk.runtime.checkpointer, store=desk.runtime.store)
    context = resumed.runtime.context(today=LATER, user="alice", source="chat")
    [ev async for ev in resumed.runtime.events(None, desk.thread, context)]
    assert len(await DecisionLog(desk.runtime.store).calls("alice")) == 1


async def test_an_edited_branch_replaces_the_call_it_forked_from(desk_factory):
    desk = desk_factory()
    await run(desk, "should I buy NVDA on 2024-05-01?")
    [before] = await DecisionLog(desk.runtime.store).calls("alice")
    await desk.runtime.fork(desk.thread, "trader", "No new position.\n\nFINAL TRANSACTION PROPOSAL: **HOLD**")
    context = desk.runtime.context(today=LATER, user="alice", source="chat")
    [ev async for ev in desk.runtime.events(None, desk.thread, context)]
    [after] = await DecisionLog(desk.runtime.store).calls("alice")
    assert after.id == before.id and after.branch != "original" and after.recorded_at > before.recorded_at
    # A new analysis in the same thread is a call of its own.
    await run(desk, "and AAPL on 2024-05-02?")
    assert [c.id for c in await DecisionLog(desk.runtime.store).calls("alice")] == [
        f"{desk.thread}:0", f"{desk.thread}:1"]


async def test_a_followup_asks_about_the_record_shown(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    await run(desk, "should I buy NVDA on 2024-03-01?")
    other = desk_factory(model, store=desk.runtime.store)  # a new chat of the same user: no analysis in it
    await run(other, "/record")
    model.calls.clear()
    events = await run(other, "which of those calls was wrong, and by how much?")
    assert (await other.state())["intent"] == "followup"
    [prompt] = prompts_of(model, "Desk")
    assert "| 2024-03-01 | NVDA |" in prompt and "no analysis yet" in prompt
    answer = next(ev for ev in events if isinstance(ev, NodeDone) and ev.node == "followup").spoken
    assert answer is not None and str(answer.content).startswith("From your track record:")
    assert "2024-03-01" in str(answer.content)
    # In a chat with an analysis, the record shown goes to the Desk's notes beside the case file.
    await run(desk, "/record")
    model.calls.clear()
    await run(desk, "which of those calls was wrong?")
    [prompt] = prompts_of(model, "Desk")
    assert "The user's track record, as the Desk last showed it" in prompt and "case file" in prompt


def test_what_counts_as_asking_for_the_record():
    from graph.request.record_ask import asks_for_record

    for asked in ("/record", "how have your calls done?", "track record",
                  "what did you decide on NVDA last time, and were you right?", "was your last call right?"):
        assert asks_for_record(asked), asked
    for other in ("should I buy BRK-B given Buffett's track record?", "was it right to ignore the RSI?",
                  "what's the hit rate of MACD?", "should I buy NVDA today?"):
        assert not asks_for_record(other), other


async def test_a_demo_call_is_neither_scored_on_live_prices_nor_recalled_by_a_live_desk(desk_factory):
    desk = desk_factory()
    await run(desk, "should I buy NVDA on 2024-03-01?")
    log = DecisionLog(desk.runtime.store)
    [call] = await log.calls("alice")
    await log.save(call.model_copy(update={"data": "Yahoo Finance (yfinance)"}))  # as if a live desk made it
    track = recalled(await run(desk, "and NVDA on 2024-06-03?"))
    assert track is not None and track["same"] == []
    [live_call, _] = await log.calls("alice")
    assert not live_call.settled and "this desk reads synthetic demo data" in live_call.pending


async def test_a_call_re_decided_while_it_was_being_scored_keeps_the_new_decision(desk_factory):
    from graph.track.keeper import TrackRecord

    desk = desk_factory()
    await run(desk, "should I buy NVDA on 2024-03-01?")
    track = TrackRecord(desk.runtime.store, desk.runtime.vendor, desk.runtime.models)
    [call] = await track.log.calls("alice")
    redecided = call.model_copy(update={"signal": "HOLD", "recorded_at": call.recorded_at + "x"})

    real = track.log.values

    async def values_then_edit(user, **kw):  # the pass reads, then an edited branch writes anew
        read = await real(user, **kw)
        await track.log.save(redecided)
        return read

    track.log.values = values_then_edit  # type: ignore[method-assign]
    await track.settle_due("alice", LATER)
    [kept] = await DecisionLog(desk.runtime.store).calls("alice")
    assert kept.signal == "HOLD" and not kept.settled  # the edit stands; the next pass scores it
