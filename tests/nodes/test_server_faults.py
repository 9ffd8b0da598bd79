"""The model server fails mid-run (issue 36, point 2): a 500, a 429 with Retry-After, a stream cut
mid-answer, a server that hangs. Each against the fake OpenAI server on loopback, ChatOpenAI as the
desk builds it: the client retries what failed before any word (honouring Retry-After); a cut or
stalled stream restarts the persona's call, its streamed words voided by a TurnRestarted event; when
the retries are spent the run stops with a plain sentence and resumes at that turn."""
from __future__ import annotations

from itertools import pairwise

import pytest

from graph.core.errors import DeskError, explain
from graph.core.events import Event, NodeDone, Token, TurnRestarted
from graph.core.settings import Settings
from tests.nodes.test_robust import ONE_ANALYST, asked, fault_for, live
from tests.support.desk import TODAY, LiveDesk
from tests.support.fake_openai import FakeOpenAI

pytestmark = pytest.mark.faults

QUESTION = "should I buy NVDA today?"
DRIVERS = ("Something went wrong", "RemoteProtocolError", "ConnectionReset", "InternalServerError", "Error code",
           "httpx", "Traceback", "出错了")


def page(events: list[Event], persona: str) -> str:
    """What a consumer that honours TurnRestarted shows of `persona`'s words: its tokens, each
    restarted call's words dropped."""
    text = ""
    for ev in events:
        if isinstance(ev, Token) and ev.persona == persona:
            text += ev.text
        elif isinstance(ev, TurnRestarted) and ev.persona == persona:
            assert text.endswith(ev.text), "the voided words are the last this persona streamed"
            text = text[: len(text) - len(ev.text)]
    return text


async def run(desk: LiveDesk, text: str | None, events: list[Event], **extra) -> None:
    """The run's events into `events` as they come, so a run that fails keeps what it streamed."""
    from langchain_core.messages import HumanMessage
    graph_input = None if text is None else {"messages": [HumanMessage(text)], **extra}
    async for ev in desk.runtime.events(graph_input, desk.thread, desk.runtime.context(today=TODAY)):
        events.append(ev)


def plain(exc: BaseException) -> None:
    for language in ("en", "zh"):
        told = explain(exc, language)
        assert not any(d in told for d in DRIVERS), told


# -- failures before any word: the client retries them ------------------------------------------

async def test_a_500_is_asked_again_by_the_client_and_the_run_goes_on(settings: Settings):
    with FakeOpenAI(fault=fault_for("Trader", "500", times=1)) as server:
        desk = live(settings, server, max_retries=2)
        events: list[Event] = []
        await run(desk, QUESTION, events, **ONE_ANALYST)
    assert len(asked(server, "Trader")) == 2
    assert (await desk.state())["trader_plan"] == "Trader here, answering the desk."
    assert not [ev for ev in events if isinstance(ev, TurnRestarted)], "nothing streamed: nothing to void"
    assert page(events, "Trader") == "Trader here, answering the desk."


async def test_a_429_is_asked_again_after_its_retry_after(settings: Settings):
    with FakeOpenAI(fault=fault_for("Bull Researcher", "429", times=1), retry_after="1") as server:
        desk = live(settings, server, max_retries=2)
        await desk.ask(QUESTION, **ONE_ANALYST)
    arrivals = [at for who, at in server.arrivals if who == "Bull Researcher"]
    assert len(arrivals) == 2
    # The client waited as the server asked (Retry-After: 1), not its own first backoff (0.375-0.5 s).
    assert arrivals[1] - arrivals[0] >= 0.95
    assert (await desk.state())["investment_debate"].turns[0].text == "Bull Researcher here, answering the desk."


@pytest.mark.parametrize("fault, words", [("500", "server error"), ("429", "rate-limiting")])
async def test_a_server_that_keeps_failing_stops_the_run_plainly_and_it_resumes(settings: Settings, fault, words):
    with FakeOpenAI(fault=fault_for("Trader", fault), retry_after="0") as server:
        desk = live(settings, server, max_retries=1)
        with pytest.raises(DeskError) as info:
            await desk.ask(QUESTION, **ONE_ANALYST)
        assert str(info.value).startswith("Trader: ") and words in str(info.value)
        plain(info.value)
        assert explain(info.value, "zh").startswith("交易员：")
        assert len(asked(server, "Trader")) == 2  # the first try and max_retries=1
        assert (await desk.runtime.interrupted(desk.thread)).personas == ("Trader",)
        server.fault = None  # the server is back
        await desk.ask(None)
    state = await desk.state()
    assert state["trader_plan"] == "Trader here, answering the desk." and state["final_decision"] is not None


# -- a stream cut mid-answer ------------------------------------------------------------------

async def test_a_cut_stream_voids_its_words_and_the_turn_is_said_once(settings: Settings):
    with FakeOpenAI(fault=fault_for("Trader", "cut", times=1), cut_after=3) as server:
        desk = live(settings, server)
        events: list[Event] = []
        await run(desk, QUESTION, events, **ONE_ANALYST)
    restarts = [ev for ev in events if isinstance(ev, TurnRestarted)]
    assert restarts == [TurnRestarted("Trader", "Trader here, answering", "cut")]
    tokens = "".join(ev.text for ev in events if isinstance(ev, Token) and ev.persona == "Trader")
    assert tokens == "Trader here, answering" + "Trader here, answering the desk."
    assert page(events, "Trader") == "Trader here, answering the desk."
    trader = [ev.spoken for ev in events if isinstance(ev, NodeDone) and ev.spoken is not None
              and ev.spoken.name == "Trader"]
    assert [m.content for m in trader] == ["Trader here, answering the desk."]
    state = await desk.state()
    assert [m.content for m in state["messages"] if m.name == "Trader"] == ["Trader here, answering the desk."]


async def test_a_stream_cut_every_time_leaves_no_half_turn_and_resumes_at_that_turn(settings: Settings):
    with FakeOpenAI(fault=fault_for("Trader", "cut"), cut_after=2) as server:
        desk = live(settings, server)
        events: list[Event] = []
        with pytest.raises(DeskError) as info:
            await run(desk, QUESTION, events, **ONE_ANALYST)
        told = str(info.value)
        assert "Trader: the model server cut its answer off 3 times (the connection dropped mid-answer)" in told
        assert "resume" in told
        plain(info.value)
        assert "连接在回答中途断开" in explain(info.value, "zh")
        assert [ev.reason for ev in events if isinstance(ev, TurnRestarted)] == ["cut"] * 3
        assert page(events, "Trader") == "", "every cut-off start is void: the stopped turn shows none of it"
        assert (await desk.runtime.interrupted(desk.thread)).personas == ("Trader",)
        server.fault = None
        resumed: list[Event] = []
        await run(desk, None, resumed)
    assert page(resumed, "Trader") == "Trader here, answering the desk."
    state = await desk.state()
    assert [m.content for m in state["messages"] if m.name == "Trader"] == ["Trader here, answering the desk."]
    assert state["final_decision"] is not None


# -- a server that hangs ------------------------------------------------------------------------

async def test_a_server_that_hangs_before_answering_is_stopped_by_the_watchdog_and_asked_again(settings: Settings):
    with FakeOpenAI(fault=fault_for("Bear Researcher", "hang", times=1), stall_s=30) as server:
        desk = live(settings, server, stall_timeout_s=1.5)
        await desk.ask(QUESTION, **ONE_ANALYST)
    assert len(asked(server, "Bear Researcher")) == 2
    assert (await desk.state())["investment_debate"].turns[1].text == "Bear Researcher here, answering the desk."


async def test_a_server_that_hangs_mid_answer_voids_the_start_and_asks_again(settings: Settings):
    with FakeOpenAI(fault=fault_for("Bear Researcher", "stall_mid", times=1), stall_s=30, cut_after=2) as server:
        desk = live(settings, server, stall_timeout_s=1.5)
        events: list[Event] = []
        await run(desk, QUESTION, events, **ONE_ANALYST)
    assert [ev for ev in events if isinstance(ev, TurnRestarted)] == [
        TurnRestarted("Bear Researcher", "Bear Researcher", "stall")]
    assert page(events, "Bear Researcher") == "Bear Researcher here, answering the desk."


async def test_a_server_that_always_hangs_stops_the_run_plainly_and_it_resumes(settings: Settings):
    with FakeOpenAI(fault=fault_for("Bear Researcher", "hang"), stall_s=30) as server:
        desk = live(settings, server, stall_timeout_s=1.5)
        with pytest.raises(DeskError) as info:
            await desk.ask(QUESTION, **ONE_ANALYST)
        assert "Bear Researcher: the model sent nothing for 1.5 s, 2 times" in str(info.value)
        plain(info.value)
        assert (await desk.runtime.interrupted(desk.thread)).personas == ("Bear Researcher",)
        server.fault = None
        await desk.ask(None)
    assert (await desk.state())["final_decision"] is not None


async def test_a_retry_after_longer_than_the_stall_timeout_is_waited_out_not_taken_for_a_hang(settings: Settings):
    """The client waits the server's Retry-After before asking again; the stall watchdog hears of the wait
    (graph/models/waits.py), so a 429 asking for 2 s under a 1 s stall timeout is not a stall."""
    with FakeOpenAI(fault=fault_for("Bull Researcher", "429", times=2), retry_after="2") as server:
        desk = live(settings, server, max_retries=2, stall_timeout_s=1.0)
        await desk.ask(QUESTION, **ONE_ANALYST)
    arrivals = [at for who, at in server.arrivals if who == "Bull Researcher"]
    assert len(arrivals) == 3, "two 429s waited out, then the answer"
    assert all(b - a >= 1.95 for a, b in pairwise(arrivals))
    assert (await desk.state())["investment_debate"].turns[0].text == "Bull Researcher here, answering the desk."


def test_the_client_waits_are_read_as_the_client_reads_them():
    from graph.models.waits import BACKOFF_MAX_S, retry_wait
    assert retry_wait(429, {"retry-after": "3"}) == 3.0
    assert retry_wait(429, {"retry-after-ms": "1500"}) == 1.5
    assert retry_wait(503, {}) == BACKOFF_MAX_S
    assert retry_wait(429, {"retry-after": "600"}) == BACKOFF_MAX_S  # past the client's limit: it does not wait
    assert retry_wait(400, {"retry-after": "3"}) is None and retry_wait(200, {}) is None


async def test_a_turn_outside_the_graph_voids_its_cut_off_words_too(settings: Settings):
    """The Comparison's turn and its follow-ups stream outside the desk's graph (graph/compare/comparison.py
    streamed_turn): a cut there is voided by a TurnRestarted among its pieces."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from graph.compare.comparison import streamed_turn
    from graph.models.registry import ModelRegistry
    from tests.support.desk import live_settings

    with FakeOpenAI(fault=fault_for("Desk", "cut", times=1), cut_after=2) as server:
        models = ModelRegistry(live_settings(settings, server))
        messages = [SystemMessage("You are the **Desk** of the comparison."), HumanMessage("which was riskier?")]
        pieces = [p async for p in streamed_turn(models, "Desk", messages)]
    assert pieces[-1] == "Desk here, answering the desk."
    assert TurnRestarted("Desk", "Desk here,", "cut") in pieces
    assert page([p for p in pieces if not isinstance(p, str)], "Desk") == pieces[-1]
