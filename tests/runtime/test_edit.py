"""Editing the past (issue 13): a fork after any finished step re-runs only what follows it, the
next speaker reads the edited words, the original branch stays as it was and can be switched
back to, the decision change is stated, and interjections survive."""
from __future__ import annotations

from collections import Counter

import pytest
from langchain_core.messages import AIMessage

from graph.core.personas import RISK_JUDGE
from graph.core.state import FinalDecision
from graph.persistence.database import open_checkpointer, open_store
from graph.record.case import desk_notes, entries
from graph.record.edits import decision_change, edit_notes
from graph.runtime import branches
from graph.runtime.branches import EditRefused
from graph.runtime.desk import DeskRuntime
from tests.support.desk import TODAY, spoken
from tests.support.models import ScriptedChatModel, scripted_models, system_text

ASK = "should I buy NVDA today?"
EDIT = "EDITED-WORDS: the user says this turn should have read differently."

BULL, BEAR, MANAGER, TRADER = "Bull Researcher", "Bear Researcher", "Research Manager", "Trader"
RISKY, SAFE, NEUTRAL = "Risky Analyst", "Safe Analyst", "Neutral Analyst"
# Who speaks after each step, in order, with two investment rounds and one risk round.
AFTER_TRADER = [RISKY, SAFE, NEUTRAL, RISK_JUDGE]
AFTER_MANAGER = [TRADER, *AFTER_TRADER]
AFTER_ANALYSTS = [BULL, BEAR, BULL, BEAR, MANAGER, *AFTER_MANAGER]
DOWNSTREAM = {
    "market": AFTER_ANALYSTS,
    "fundamentals": AFTER_ANALYSTS,
    "bull-1": AFTER_ANALYSTS[1:],
    "bear-1": AFTER_ANALYSTS[2:],
    "bull-2": AFTER_ANALYSTS[3:],
    "bear-2": AFTER_ANALYSTS[4:],
    "manager": AFTER_MANAGER,
    "trader": AFTER_TRADER,
    "risky-1": AFTER_TRADER[1:],
    "neutral-1": [RISK_JUDGE],
}


def calls(model: ScriptedChatModel, since: int = 0) -> Counter[str]:
    return Counter(c["persona"] for c in model.calls[since:])


def model_calls(personas: list[str]) -> Counter[str]:
    """Model calls for these turns: the Risk Judge calls twice (its ruling, then the extraction)."""
    return Counter(personas) + Counter({RISK_JUDGE: personas.count(RISK_JUDGE)})


async def state_at(desk, checkpoint_id: str) -> dict:
    config = {"configurable": {"thread_id": desk.thread, "checkpoint_id": checkpoint_id}}
    return (await desk.graph.aget_state(config)).values


@pytest.fixture
async def decided(desk_factory):
    """A finished two-round analysis on a counting model."""
    model = ScriptedChatModel()
    desk = desk_factory(model, debate_rounds=2)
    await desk.ask(ASK)
    return desk, model, await desk.state()


@pytest.mark.parametrize("step_id", list(DOWNSTREAM))
async def test_an_edit_re_runs_only_what_follows_and_the_next_speaker_reads_it(decided, step_id):
    desk, model, before = decided
    history = await desk.runtime.history(desk.thread)
    assert [s.id for s in history] == ["market", "social", "news", "fundamentals", "bull-1", "bear-1", "bull-2",
                                       "bear-2", "manager", "trader", "risky-1", "safe-1", "neutral-1"]
    step = next(s for s in history if s.id == step_id)
    n = len(model.calls)

    fork = await desk.runtime.fork(desk.thread, step_id, EDIT)
    assert fork.next_personas == (DOWNSTREAM[step_id][0],)
    events = await desk.ask(None)

    # Only the speakers after the edit ran, each as often as its turns there; nobody before it.
    assert spoken(events) == DOWNSTREAM[step_id]
    assert calls(model, n) == model_calls(DOWNSTREAM[step_id])
    # The next speaker read the edited words in place of the original ones (the demo may say the
    # same words in two turns, so the original is counted, not looked for).
    first = model.calls[n]
    reader = first["persona"]
    assert reader == DOWNSTREAM[step_id][0]
    turn = AFTER_ANALYSTS.count(reader) - DOWNSTREAM[step_id].count(reader)
    then = system_text([c for c in model.calls[:n] if c["persona"] == reader][turn]["messages"])
    now = system_text(first["messages"])
    assert now.count(EDIT) == 1 and now.count(step.text) == then.count(step.text) - 1

    after = await desk.state()
    edited = next(s for s in await desk.runtime.history(desk.thread) if s.id == step_id)
    assert edited.text == EDIT and after["final_decision"] is not None
    # The persona's message was rewritten in place: the conversation has each turn once.
    was_ids = {m.id for m in before["messages"] if m.name == step.persona and m.content == step.text}
    assert [m.id in was_ids for m in after["messages"] if m.content == EDIT] == [True]
    assert Counter(m.name for m in after["messages"]) == Counter(m.name for m in before["messages"])

    # The original branch is still there, unchanged and readable.
    found = await desk.runtime.branches(desk.thread)
    assert [b.current for b in found] == [False, True]
    original = await state_at(desk, found[0].head)
    assert entries(original) == entries(before) and original["messages"] == before["messages"]
    assert original["final_decision"] == before["final_decision"] and original.get("forked") is None
    assert found[1].forked["step"] == step_id and found[1].forked["was"] == step.text


async def test_the_decision_change_is_stated_and_the_follow_up_desk_reads_it(decided):
    """A trader's plan rewritten to HOLD: the demo judge follows the plan it is handed."""
    desk, model, before = decided
    was = before["final_decision"]
    assert was.signal == "SELL"
    await desk.runtime.fork(desk.thread, "trader", "No new position.\n\nFINAL TRANSACTION PROPOSAL: **HOLD**")
    await desk.ask(None)
    now = (await desk.state())["final_decision"]
    assert now.signal == "HOLD"
    line = f"was SELL {was.position_size.split()[0]} at {was.confidence:.2f} → now HOLD at {now.confidence:.2f}"
    assert await desk.runtime.edit_change(desk.thread) == line

    n = len(model.calls)
    events = await desk.ask("what changed after my edit?")
    assert spoken(events) == ["Desk"]
    prompt = system_text(model.calls[n]["messages"])
    assert line in prompt and "FINAL TRANSACTION PROPOSAL: **HOLD**" in prompt and "Trader" in prompt
    assert line in (await desk.state())["messages"][-1].content  # the demo Desk answers with it
    # The first decision is not a past decision of this branch: it is the branch it forked from.
    assert (await desk.state()).get("past_decisions", []) == before.get("past_decisions", [])


@pytest.mark.parametrize("before,after,line", [
    (("SELL", "1.8% of portfolio", 0.8), ("HOLD", "0% (no new position)", 0.55),
     "was SELL 1.8% at 0.80 → now HOLD at 0.55"),
    (("BUY", "2% of portfolio", 0.7), ("BUY", "2% of portfolio", 0.7), "unchanged: BUY 2% at 0.70"),
    (None, ("BUY", "0.5% of portfolio", 0.6), "was no decision → now BUY 0.5% at 0.60"),
])
def test_decision_change_line(before, after, line):
    def decision(fields):
        if fields is None:
            return None
        signal, size, conf = fields
        return FinalDecision(signal=signal, position_size=size, entry="n/a", stop="n/a", horizon="2w",
                                      confidence=conf, rationale="r")
    assert decision_change(decision(before), decision(after)) == line


async def test_switching_back_makes_the_original_branch_current_and_follow_ups_read_it(decided):
    desk, model, before = decided
    original_bull = next(s for s in await desk.runtime.history(desk.thread) if s.id == "bull-1").text
    await desk.runtime.fork(desk.thread, "bull-1", EDIT)
    await desk.ask(None)
    edited_head = next(b for b in await desk.runtime.branches(desk.thread) if b.current).head
    original = next(b for b in await desk.runtime.branches(desk.thread) if not b.current)

    switched = await desk.runtime.switch_branch(desk.thread, original.head[:20])
    assert switched.forked is None and switched.decision == before["final_decision"]
    now = await desk.state()
    assert entries(now) == entries(before) and now.get("forked") is None
    assert [s.text for s in await desk.runtime.history(desk.thread) if s.id == "bull-1"] == [original_bull]
    assert await desk.runtime.interrupted(desk.thread) is None  # switching runs nothing and leaves nothing pending
    # Still two branches (the switch extends the old one), the original current.
    found = await desk.runtime.branches(desk.thread)
    assert len(found) == 2 and [b.forked is None for b in found if b.current] == [True]

    n = len(model.calls)
    await desk.ask("what did the bull say?")
    prompt = system_text(model.calls[n]["messages"])
    assert original_bull in prompt and EDIT not in prompt

    await desk.runtime.switch_branch(desk.thread, edited_head)
    assert next(s for s in await desk.runtime.history(desk.thread) if s.id == "bull-1").text == EDIT


async def test_the_edited_turn_is_the_users_own_words_so_its_figure_flags_are_dropped(desk_factory):
    """The Bull invents 47.3%; the user rewrites the Bull's turn keeping that figure: the turn is
    no longer flagged, and the Bear citing it from the user's words is not flagged either. On
    the original branch both flags stay."""
    def script(persona, messages, tools):
        if persona == BULL:
            return AIMessage(content="Revenue jumped 47.3% last quarter; buy.")
        if persona == BEAR:
            return AIMessage(content="Even 47.3% growth would not save it.")
        return None

    desk = desk_factory(ScriptedChatModel(script=script))
    await desk.ask(ASK, analysts=["market"])
    before = await desk.state()
    assert before["unverified"][f"{BULL}#0"] == ["47.3%"] and before["unverified"][f"{BEAR}#0"] == ["47.3%"]

    fork = await desk.runtime.fork(desk.thread, "bull-1", "My own numbers: revenue jumped 47.3% last quarter.")
    forked = await state_at(desk, fork.checkpoint_id)
    assert forked["unverified"][f"{BULL}#0"] == []
    await desk.ask(None)
    after = await desk.state()
    assert after["unverified"][f"{BULL}#0"] == [] and after["unverified"][f"{BEAR}#0"] == []
    original = next(b for b in await desk.runtime.branches(desk.thread) if not b.current)
    assert (await state_at(desk, original.head))["unverified"][f"{BULL}#0"] == ["47.3%"]


async def test_a_branch_keeps_its_key_as_it_grows(decided):
    desk, _model, _before = decided
    [original] = await desk.runtime.branches(desk.thread)
    assert original.key == branches.ORIGINAL
    fork = await desk.runtime.fork(desk.thread, "trader", "Hold.\n\nFINAL TRANSACTION PROPOSAL: **HOLD**")
    await desk.ask(None)
    edited = next(b for b in await desk.runtime.branches(desk.thread) if b.current)
    assert edited.key != original.key and edited.head != fork.checkpoint_id
    await desk.ask("why hold?")  # a follow-up moves the head, not the key
    assert next(b for b in await desk.runtime.branches(desk.thread) if b.current).key == edited.key
    assert (await desk.runtime.switch_branch(desk.thread, original.head)).key == branches.ORIGINAL


async def test_an_edit_of_an_edited_branch_compares_with_the_branch_it_came_from(decided):
    desk, _model, _before = decided
    await desk.runtime.fork(desk.thread, "trader", "Hold.\n\nFINAL TRANSACTION PROPOSAL: **HOLD**")
    await desk.ask(None)
    hold = (await desk.state())["final_decision"]
    await desk.runtime.fork(desk.thread, "risky-1", "Go bigger on whatever the plan says.")
    await desk.ask(None)
    forked = (await desk.state())["forked"]
    assert forked["parent_decision"] == hold and forked["step"] == "risky-1"
    assert len(await desk.runtime.branches(desk.thread)) == 3
    # The second fork kept the first edit: it forked from the edited branch.
    assert next(s for s in await desk.runtime.history(desk.thread) if s.id == "trader").text.startswith("Hold.")


def first_word(note) -> str:
    """A note told by its first word (note numbers are time-based, not 1, 2, 3)."""
    return note.text.split(",")[0]


async def test_interjections_belong_to_the_branch_they_were_sent_on(desk_factory):
    """Note 1 is posted while the Bull speaks (the Bear answers it), note 2 while the Trader speaks
    (the Risky Analyst answers it). A fork at the Research Manager keeps note 1 answered by the
    Bear. Note 2 was sent on the original branch, about its Trader's plan: the new branch does not
    answer it again (issue 35, point 6: the Bear of a new branch answered a note sent to the old one)."""
    posted = set()

    async def post_during(persona, messages, tools):
        notes = {BULL: "Bear, what about the export ban?", TRADER: "Risky, is that size sane?"}
        if persona in notes and persona not in posted:
            posted.add(persona)
            await desk.post(notes[persona])
        return None

    model = ScriptedChatModel(script=post_during)
    desk = desk_factory(model)
    await desk.ask(ASK)
    before = await desk.state()
    assert [(first_word(i), i.answered_by) for i in before["interventions"]] == [("Bear", [BEAR]), ("Risky", [RISKY])]

    await desk.runtime.fork(desk.thread, "manager", "FINAL TRANSACTION PROPOSAL: **HOLD**")
    n = len(model.calls)
    await desk.ask(None)
    after = await desk.state()
    assert [(first_word(i), i.answered_by) for i in after["interventions"]] == [("Bear", [BEAR])]
    assert not any(note in str(m.content) for note in ("is that size sane?", "export ban")
                   for c in model.calls[n:] for m in c["messages"][1:])
    assert "export ban" in desk_notes(after)
    # The original branch still says who answered what there.
    original = next(b for b in await desk.runtime.branches(desk.thread) if not b.current)
    assert [(first_word(i), i.answered_by) for i in (await state_at(desk, original.head))["interventions"]] == [
        ("Bear", [BEAR]), ("Risky", [RISKY])]


async def test_past_decisions_survive_and_a_new_analysis_forgets_the_edit(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    await desk.ask("should I buy NVDA on 2024-05-01?")
    first = (await desk.state())["final_decision"]
    await desk.ask(ASK)
    await desk.runtime.fork(desk.thread, "bull-1", EDIT)
    await desk.ask(None)
    state = await desk.state()
    assert state["past_decisions"] == [first] and state["forked"]["step"] == "bull-1"
    await desk.ask("should I buy AAPL today?")
    state = await desk.state()
    assert state.get("forked") is None and edit_notes(state) == ""
    assert [d.ticker for d in state["past_decisions"]] == ["NVDA", "NVDA"]
    # Steps are those of the analysis at the head: AAPL's.
    assert all("AAPL" in s.text or s.id != "market" for s in await desk.runtime.history(desk.thread))


async def test_sequential_analysts_re_run_the_analysts_after_the_edited_one(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model, parallel_analysts=False)
    await desk.ask(ASK)
    before = await desk.state()
    n = len(model.calls)
    social = next(s for s in await desk.runtime.history(desk.thread) if s.id == "social")
    await desk.runtime.fork(desk.thread, "social", EDIT)
    events = await desk.ask(None)
    assert spoken(events)[:3] == ["News Analyst", "Fundamentals Analyst", BULL]
    assert {"Market Analyst", "Social Analyst"}.isdisjoint(calls(model, n))
    # It forked right after the Social Analyst, before the News Analyst had spoken: no turn twice.
    assert not (await state_at(desk, social.checkpoint_id)).get("news_report")
    assert Counter(m.name for m in (await desk.state())["messages"]) == Counter(m.name for m in before["messages"])


async def test_refused_edits_say_why(decided):
    desk, _model, _before = decided
    with pytest.raises(EditRefused, match=r"no step 'bull-3'.*bull-2"):
        await desk.runtime.fork(desk.thread, "bull-3", EDIT)
    with pytest.raises(EditRefused, match="empty"):
        await desk.runtime.fork(desk.thread, "bull-1", " \u200b\n")
    with pytest.raises(EditRefused, match="no single branch"):
        await desk.runtime.switch_branch(desk.thread, "nope")
    assert len(await desk.runtime.branches(desk.thread)) == 1


async def test_a_fork_survives_reopening_the_thread_files(settings):
    """A runtime on the SQLite checkpointer and store; a second one opened on the same files."""
    model = ScriptedChatModel()
    thread = "reopen-edit"
    context = DeskRuntime.context(today=TODAY)

    async def run(desk: DeskRuntime, graph_input) -> None:
        async for _ in desk.events(graph_input, thread, context):
            pass

    async with open_checkpointer(settings) as saver, open_store(settings) as store:
        desk = DeskRuntime.build(settings, saver, store, models=scripted_models(model))
        await run(desk, await desk.new_input(thread, ASK))
        before = await desk.state(thread)
        await desk.fork(thread, "trader", "Hold off.\n\nFINAL TRANSACTION PROPOSAL: **HOLD**")
        await run(desk, None)
        change = await desk.edit_change(thread)

    async with open_checkpointer(settings) as saver, open_store(settings) as store:
        desk = DeskRuntime.build(settings, saver, store, models=scripted_models(model))
        assert await desk.edit_change(thread) == change and change.startswith("was SELL")
        found = await desk.branches(thread)
        assert [b.current for b in found] == [False, True] and found[1].forked["step"] == "trader"
        assert next(s for s in await desk.history(thread) if s.id == "trader").text.startswith("Hold off.")
        await desk.switch_branch(thread, found[0].head)
        assert entries(await desk.state(thread)) == entries(before)


async def test_a_note_sent_during_the_new_branch_s_run_is_answered_there(desk_factory):
    state = {"forked": False, "posted": False}

    async def post_on_new_branch(persona, messages, tools):
        if state["forked"] and persona == TRADER and not state["posted"]:
            state["posted"] = True
            await desk.post("Risky, is the new size sane?")
        return None

    desk = desk_factory(ScriptedChatModel(script=post_on_new_branch))
    await desk.ask(ASK)
    await desk.runtime.fork(desk.thread, "manager", "FINAL TRANSACTION PROPOSAL: **HOLD**")
    state["forked"] = True
    await desk.ask(None)
    after = await desk.state()
    assert [(first_word(i), i.answered_by) for i in after["interventions"]] == [("Risky", [RISKY])]
