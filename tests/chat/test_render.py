"""Events to UI: a message per persona turn, parallel streams, tool steps, progress, prediction."""
from __future__ import annotations

from langchain_core.messages import AIMessage

from chat.render import Renderer
from graph.events import NodeDone, Said, Token, ToolFinished, ToolStarted
from graph.plan import RunPlan as Plan


def done(node: str, persona: str, text: str) -> NodeDone:
    return NodeDone(node, {"messages": [AIMessage(content=text, name=persona)]})


async def test_parallel_analysts_stream_into_their_own_messages_with_tool_steps(emitter):
    r = Renderer(Plan())
    await r.handle(Said("Desk", "Analyzing **NVDA**."))
    await r.handle(Token("Market Analyst", "Pulling "))
    await r.handle(Token("News Analyst", "Reading "))
    await r.handle(Token("Market Analyst", "data."))
    await r.handle(ToolStarted("Market Analyst", "get_price_history", {"lookback_days": 120}, "c1"))
    await r.handle(ToolFinished("Market Analyst", "get_price_history", "c1", "x" * 900))
    await r.handle(Token("Market Analyst", "Bullish."))
    await r.handle(Token("News Analyst", "news."))
    await r.handle(done("market_analyst", "Market Analyst", "Bullish."))
    await r.handle(done("news_analyst", "News Analyst", "Reading news."))

    market, = emitter.by_author("Market Analyst")
    news, = emitter.by_author("News Analyst")
    assert market["id"] != news["id"]
    assert market["output"] == "Pulling data.\n\nBullish." and not market["streaming"]
    assert news["output"] == "Reading news."
    starts = [d["name"] for d in emitter.named("stream_start")]
    assert starts == ["Market Analyst", "News Analyst"], "each opens once, with its first words"
    assert not [d for d in emitter.named("new_message") if d["type"] == "assistant_message" and d["name"] != "Desk"]
    step = next(m for m in emitter.messages.values() if m["type"] == "tool")
    assert step["name"] == "get_price_history" and step["parentId"] == market["id"]
    assert '"lookback_days": 120' in step["input"] and len(step["output"]) < 500
    await r.progress.drained()  # the stage list is redrawn in the background
    tasklist = emitter.named("element")[-1]
    assert tasklist["type"] == "tasklist"
    assert emitter.by_author("Desk")[0]["output"] == "Analyzing **NVDA**."


async def test_a_turn_without_tokens_is_shown_whole(emitter):
    r = Renderer(Plan())
    await r.handle(done("trader", "Trader", "Buy 100 at 10."))
    assert emitter.by_author("Trader")[0]["output"] == "Buy 100 at 10."


async def test_next_speaker_follows_the_debate_order_and_rounds(emitter):
    r = Renderer(Plan(debate_rounds=2, risk_rounds=1))
    assert r.next_speaker() is None  # the coordinator is still reading the request
    await r.handle(Token("Market Analyst", "a"))
    assert r.next_speaker() == "Bull Researcher"
    expected = ["Bear Researcher", "Bull Researcher", "Bear Researcher", "Research Manager", "Trader",
                "Risky Analyst", "Safe Analyst", "Neutral Analyst", "Risk Judge", None]
    for speaker, nxt in zip(["Bull Researcher", "Bear Researcher", "Bull Researcher", "Bear Researcher",
                             "Research Manager", "Trader", "Risky Analyst", "Safe Analyst", "Neutral Analyst",
                             "Risk Judge"], expected):
        await r.handle(Token(speaker, "x"))
        await r.handle(done(speaker.lower(), speaker, "x"))
        assert r.next_speaker() == nxt, speaker
    assert r.decided is False  # only the risk_judge node makes a decision


async def test_progress_marks_stages_and_stop_fails_the_running_one(emitter):
    r = Renderer(Plan(analysts=("market",)))
    await r.handle(Token("Market Analyst", "a"))
    await r.handle(done("market_analyst", "Market Analyst", "a"))
    await r.handle(Token("Bull Researcher", "b"))
    await r.close_open(" — *stopped*")
    await r.finish("Stopped", failed=True)
    import json
    content = json.loads(r.progress.tasklist.content)
    status = {t["title"]: t["status"] for t in content["tasks"]}
    assert status["Market Analyst"] == "done"
    assert status["Bull ⇄ Bear debate (1 round)"] == "failed"
    assert status["Risk Judge"] == "ready"
    assert emitter.by_author("Bull Researcher")[0]["output"].endswith("*stopped*")


async def test_next_speaker_with_analysts_in_sequence(emitter):
    r = Renderer(Plan(analysts=("market", "news"), parallel_analysts=False))
    await r.handle(Token("Market Analyst", "a"))
    assert r.next_speaker() == "News Analyst"
    await r.handle(done("market_analyst", "Market Analyst", "a"))
    await r.handle(Token("News Analyst", "b"))
    assert r.next_speaker() == "Bull Researcher"
