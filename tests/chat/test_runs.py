"""ChatRun: a detached run per chat, interjections into its inbox, stop, errors, the decision."""
from __future__ import annotations

from chat.panel import NextAnalysis
from chat.runs import ChatRun
from graph.core.personas import DEFAULT_ANALYSTS as ANALYSTS  # the default analysis' (no Macro Analyst)
from graph.core.personas import PERSONAS
from graph.core.plan import RunPlan
from tests.support.waiting import wait_until


async def new_chat(service, emitter) -> ChatRun:
    return await service.chat(emitter.session.thread_id)


async def test_full_run_renders_every_persona_and_the_decision(service, emitter):
    chat = await new_chat(service, emitter)
    await chat.start("Should I buy NVDA today?")
    authors = emitter.authors()
    assert authors[0] == "Desk"
    assert [a for a in authors if a != "Desk"][4:] == list(PERSONAS[4:])
    card = emitter.by_author("Desk")[-1]
    assert "**Signal**" in card["output"], card["output"]
    elements = {e["type"]: e for e in emitter.named("element") if e["forId"] == card["id"]}
    assert set(elements) == {"plotly", "file"}
    assert not [m for m in emitter.by_author("Desk") if m["output"].startswith("⚠️")]


async def test_stop_cancels_the_run_and_the_thread_goes_on(service, emitter):
    service.models.get('').delay_ms = 3
    chat = await new_chat(service, emitter)
    chat.start("Should I buy NVDA today?")
    await wait_until(lambda: emitter.by_author("Bull Researcher"), what="the bull")
    assert await chat.stop()
    assert chat.task.done() and not chat.active
    assert emitter.by_author("Desk")[-1]["output"].startswith("Stopped")
    assert not emitter.by_author("Risk Judge")
    assert not [m for m in emitter.messages.values() if m.get("streaming")]
    state = await service.state(chat.thread_id)
    assert state["market_report"] and state.get("final_decision") is None
    assert not await chat.stop()  # nothing running any more
    # the next message works on the same thread
    await chat.start("why was the bear worried?")
    assert not [m for m in emitter.by_author("Desk") if m["output"].startswith("⚠️")]


async def test_an_interjection_is_acknowledged_and_answered_by_the_predicted_speaker(service, emitter):
    service.models.get('').delay_ms = 3
    chat = await new_chat(service, emitter)
    task = chat.start("Should I buy NVDA today?", NextAnalysis(RunPlan(debate_rounds=2)))
    await wait_until(lambda: emitter.by_author("Bull Researcher"), what="the bull")
    ack = await chat.interject("what about the China export ban?")
    # The Bear, unless its turn began (and read the inbox) between the Bull's words and the note: then the Bull's
    # second round. The prediction is made before the note is stored, so on a busy machine the Bear's turn can
    # begin in between (the Bull's second round answers); the acknowledgement then says who picked it up.
    assert any(f"**{p}** will answer this next" in ack.content for p in ("Bear Researcher", "Bull Researcher"))
    assert chat.active  # no second analysis: the same run goes on
    await task
    state = await service.state(chat.thread_id)
    [note] = state["interventions"]
    [answered] = note.answered_by
    assert note.text == "what about the China export ban?" and answered in ("Bear Researcher", "Bull Researcher")
    assert [m for m in emitter.by_author(answered) if "“what about the China export ban?”" in m["output"]]
    assert f"picked up by the **{answered}**" in emitter.messages[ack.id]["output"]
    assert len([m for m in emitter.by_author("Desk") if "**Signal**" in m["output"]]) == 1


async def test_a_note_to_a_persona_that_has_spoken_last_still_says_so_once_picked_up(service, emitter):
    """"bear, …" after the Bear's last turn: the acknowledgement says the Bear has had its last turn and who answers;
    once a speaker takes the note it says who did, and still that the Bear had spoken last."""
    service.models.get('').delay_ms = 3
    chat = await new_chat(service, emitter)
    task = chat.start("Should I buy NVDA today?")
    await wait_until(lambda: emitter.by_author("Trader"), what="the trader")
    ack = await chat.interject("bear, what about the China export rules?")
    assert "the **Bear Researcher** has had its last turn in this run" in ack.content
    await task
    [note] = (await service.state(chat.thread_id))["interventions"]
    [answered] = note.answered_by
    assert answered != "Bear Researcher"
    assert emitter.messages[ack.id]["output"].startswith(
        f"Noted — the **Bear Researcher** has had its last turn in this run; picked up by the **{answered}**.")


async def test_a_note_nobody_read_is_answered_after_the_run(service, emitter):
    service.models.get('').delay_ms = 3
    chat = await new_chat(service, emitter)
    chat.start("Should I buy NVDA today?")
    await wait_until(lambda: emitter.by_author("Risk Judge"), what="the judge")
    ack = await chat.interject("why was the bear worried?")
    assert "as soon as the current step finishes" in ack.content
    await wait_until(lambda: not chat.active, what="both runs")
    desk = [m["output"] for m in emitter.by_author("Desk")]
    card = next(i for i, text in enumerate(desk) if "**Signal**" in text)
    assert desk[-1] and card < len(desk) - 1  # the Desk answered after the decision
    state = await service.state(chat.thread_id)
    assert len(state["inbox_read"]) == 1  # answered, not left for the next analysis to read again


async def test_failures_are_shown_as_sentences(service, emitter, monkeypatch):
    async def broken(*args, **kwargs):
        raise ConnectionError("vendor unreachable")
        yield  # pragma: no cover

    monkeypatch.setattr("graph.runtime.desk.desk_events", broken)
    chat = await new_chat(service, emitter)
    await chat.start("Should I buy NVDA today?")
    last = emitter.by_author("Desk")[-1]["output"]
    assert last.startswith("⚠️") and "vendor unreachable" in last and "Traceback" not in last
    assert not chat.active


async def test_a_model_failure_mid_run_is_explained(service, emitter):
    from langchain_core.messages import AIMessage

    class Down(type(service.models.get(""))):
        async def reply(self, messages, *, persona, tools, tool_choice) -> AIMessage:
            if persona == "Bull Researcher":
                raise TimeoutError("read timed out")
            return await super().reply(messages, persona=persona, tools=tools, tool_choice=tool_choice)

    from graph.models.registry import ModelRegistry
    service.models = ModelRegistry.fixed(Down())
    chat = await new_chat(service, emitter)
    await chat.start("Should I buy NVDA today?")
    last = emitter.by_author("Desk")[-1]["output"]
    assert last.startswith("⚠️ Bull Researcher:") and "did not answer in time" in last
    assert emitter.by_author("Market Analyst")  # what ran before the failure stays
    assert emitter.named("desk_stages")[-1]["title"] == "Failed"


async def test_a_note_outlives_the_chat_that_took_it(service, emitter):
    chat = await new_chat(service, emitter)
    await chat.start("Should I buy NVDA today?", NextAnalysis(RunPlan(analysts=("market",))))
    runtime = await service.runtime()
    await runtime.inbox.post(chat.thread_id, "early note")  # as if a run had crashed before reading it
    fresh = await service.chat(chat.thread_id)  # what on_chat_resume builds after a restart
    assert fresh is not chat
    note = await runtime.inbox.post(fresh.thread_id, "next note")
    assert [n.text for n in await runtime.inbox.all(fresh.thread_id)] == ["early note", note.text]
    assert [a for a in emitter.authors() if a.endswith("Analyst")][:1] == ["Market Analyst"]
    assert not emitter.by_author("News Analyst")


async def test_live_chats_can_pick_their_model_names(tmp_path, monkeypatch):
    from chat.panel import next_analysis
    from chat.runs import DeskService
    from graph.core.settings import Settings

    monkeypatch.delenv("DESK_MODE", raising=False)
    live = Settings(DESK_DATA_DIR=tmp_path, OPENAI_BASE_URL="http://127.0.0.1:9/v1", DESK_DATA_VENDOR="synthetic")
    chosen = next_analysis({"quick_model": "qwen2.5:7b", "deep_model": "llama3.1:70b"}, live)
    assert chosen.models == ("qwen2.5:7b", "llama3.1:70b")
    assert next_analysis({}, live).models == (live.quick_model, live.deep_model)
    demo = Settings(DESK_DATA_DIR=tmp_path, DESK_MODE="demo")
    assert next_analysis({"quick_model": "x"}, demo).models is None

    # One compiled graph whatever the models: the run's context names them, the registry builds
    # each name once.
    service = DeskService(live)
    try:
        runtime = await service.runtime()
        quick, deep = chosen.models
        context = runtime.context(quick_model=quick, deep_model=deep)
        assert runtime.models.quick(context).model_name == "qwen2.5:7b"
        assert runtime.models.deep(context).model_name == "llama3.1:70b"
        assert runtime.models.quick(context) is runtime.models.get("qwen2.5:7b")
        assert runtime.models.quick(runtime.context()).model_name == live.quick_model
        assert (await service.runtime()).graph is runtime.graph
    finally:
        await service.close()


async def test_a_stopped_run_resumes_from_its_last_finished_turn(service, emitter):
    service.models.get('').delay_ms = 3
    chat = await new_chat(service, emitter)
    chat.start("Should I buy NVDA today?")
    await wait_until(lambda: emitter.by_author("Bear Researcher"), what="the bear")
    assert await chat.stop()
    stopped = await chat.interrupted()
    assert stopped is not None and stopped.personas
    analysts_before = sum(len(emitter.by_author(a.persona)) for a in ANALYSTS)
    await chat.start(None)  # what the Resume button and "resume" do
    assert sum(len(emitter.by_author(a.persona)) for a in ANALYSTS) == analysts_before, "analysts not redone"
    assert (await service.state(chat.thread_id))["final_decision"] is not None
    assert await chat.interrupted() is None
    assert len([m for m in emitter.by_author("Desk") if "**Signal**" in m["output"]]) == 1


async def test_stop_while_a_decided_run_closes_up_leaves_the_decision_and_says_nothing_runs(
        service, emitter, monkeypatch):
    """/stop that arrives after the decision, while the run offers its Edit buttons (CI caught it once):
    the run is not cut short (a cancel there ended it with no word, or named a decided thread "stopped")."""
    import asyncio

    import chat.runs as runs

    closing, go_on = asyncio.Event(), asyncio.Event()

    async def slow_offer(*args, **kwargs):
        closing.set()
        await go_on.wait()

    monkeypatch.setattr(runs, "offer_edits", slow_offer)
    chat = await new_chat(service, emitter)
    task = chat.start("Should I buy NVDA today?")
    await asyncio.wait_for(closing.wait(), 60)
    stopping = asyncio.ensure_future(chat.stop())
    await asyncio.sleep(0.05)
    assert not stopping.done() and not task.done()  # it waits for the closing up, not cancels it
    go_on.set()
    assert await stopping is False  # nothing was running any more: the chat says so
    assert task.done() and not task.cancelled()
    assert not [m for m in emitter.by_author("Desk") if m["output"].startswith("Stopped")]
    assert (await service.state(chat.thread_id))["final_decision"]
