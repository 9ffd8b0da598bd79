"""Events to UI: a message per persona turn, parallel streams, tool steps, progress, prediction."""
from __future__ import annotations

from langchain_core.messages import AIMessage

from chat.views.render import Renderer
from graph.core.events import NodeDone, Said, Token, ToolFinished, ToolStarted, TurnRestarted
from graph.core.plan import RunPlan as Plan


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
    # Its words before the tool call showed while it worked; the turn ends with its report.
    assert market["output"] == "Bullish." and not market["streaming"]
    assert news["output"] == "Reading news."
    starts = [d["name"] for d in emitter.named("stream_start")]
    assert starts == ["Market Analyst", "News Analyst"], "each opens once, with its first words"
    assert not [d for d in emitter.named("new_message") if d["type"] == "assistant_message" and d["name"] != "Desk"]
    step = next(m for m in emitter.messages.values() if m["type"] == "tool")
    assert step["name"] == "get_price_history" and step["parentId"] == market["id"]
    assert '"lookback_days": 120' in step["input"] and len(step["output"]) < 500
    await r.progress.drained()  # the stage list is redrawn in the background
    stages = emitter.named("desk_stages")[-1]["stages"]
    assert {"title": "Market Analyst", "status": "done"} in stages
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
    sent = emitter.named("desk_stages")[-1]
    assert sent["title"] == "Stopped"
    status = {t["title"]: t["status"] for t in sent["stages"]}
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


LONG_TABLE = "\n".join(["| Key figure | Value |", "|---|---|", *(f"| Figure {i} | {i}.5 |" for i in range(17))])


async def test_a_long_table_never_streams_and_is_folded_under_its_message(emitter):
    r = Renderer(Plan())
    text = f"My read is **bearish**.\n\nKey figures (source: synthetic):\n\n{LONG_TABLE}"
    for word in text.split(" "):
        await r.handle(Token("Market Analyst", word + " "))
    await r.handle(done("market_analyst", "Market Analyst", text))
    streamed = [d["token"] for d in emitter.named("stream_token")]
    streamed += [d["output"] for d in emitter.named("stream_start")]
    assert not [t for t in streamed if "|" in t], "no table row was sent while it streamed"
    market, = emitter.by_author("Market Analyst")
    assert market["output"] == "My read is **bearish**.\n\nKey figures (source: synthetic): 17 rows, folded below."
    fold, = [m for m in emitter.messages.values() if m["parentId"] == market["id"] and m["type"] != "tool"]
    assert fold["name"] == "key figures (17 rows)" and fold["output"] == LONG_TABLE


async def test_a_short_table_stays_in_the_message(emitter):
    r = Renderer(Plan())
    table = "| Key figure | Value |\n|---|---|\n| Posts | 26 |\n| Social Score | -0.7 |"
    text = f"My read is mixed.\n\n{table}"
    await r.handle(Token("Social Analyst", text))
    await r.handle(done("social_analyst", "Social Analyst", text))
    social, = emitter.by_author("Social Analyst")
    assert social["output"] == text
    assert not [m for m in emitter.messages.values() if m.get("parentId") == social["id"]]


async def test_words_that_come_faster_than_the_page_takes_them_go_out_together(emitter):
    r = Renderer(Plan())
    words = [f"word{i} " for i in range(200)]
    for word in words:
        await r.handle(Token("Bull Researcher", word))
    await r.handle(done("bull", "Bull Researcher", "".join(words)))
    sends = [n for n, d in emitter.events if n in ("stream_start", "stream_token", "update_message")
             and d.get("id") == emitter.by_author("Bull Researcher")[0]["id"]]
    assert len(sends) <= 3, "200 words within one pacing gap: opened, then ended with its whole text"
    assert emitter.by_author("Bull Researcher")[0]["output"] == "".join(words).strip()


async def test_a_quick_tool_call_is_shown_once_ended(emitter):
    r = Renderer(Plan())
    await r.handle(ToolStarted("News Analyst", "get_company_news", {}, "c1"))
    await r.handle(ToolFinished("News Analyst", "get_company_news", "c1", "4 headlines"))
    shown = [d for n, d in emitter.events if n in ("new_message", "update_message") and d["type"] == "tool"]
    assert len(shown) == 1 and shown[0]["output"] == "4 headlines" and shown[0]["end"]
    news, = [d for n, d in emitter.events if n == "stream_start" and d["name"] == "News Analyst"]
    assert shown[0]["parentId"] == news["id"], "the message it belongs to is on the page first"


async def test_an_answer_asked_again_ends_with_its_words_once(emitter):
    r = Renderer(Plan())
    await r.handle(Token("Bull Researcher", "The bull case "))  # a stalled answer, then the retry
    await r.handle(Token("Bull Researcher", "The bull case holds."))
    await r.handle(done("bull", "Bull Researcher", "The bull case holds."))
    assert emitter.by_author("Bull Researcher")[0]["output"] == "The bull case holds."


async def test_a_cut_off_call_is_taken_off_the_page_before_its_words_come_again(emitter):
    """Issue 36, point 2: a stream cut mid-answer is asked again; the words it streamed are void."""
    r = Renderer(Plan())
    await r.handle(Token("Trader", "Trader here, "))   # the page has it at once (nothing sent before)
    await r.handle(Token("Trader", "answering"))
    trader, = emitter.by_author("Trader")
    assert trader["output"].startswith("Trader here,")
    await r.handle(TurnRestarted("Trader", "Trader here, answering", "cut"))
    assert emitter.by_author("Trader")[0]["output"] == "", "the void words are gone from the page at once"
    await r.handle(Token("Trader", "Trader here, answering the desk."))
    await r.handle(done("trader", "Trader", "Trader here, answering the desk."))
    trader, = emitter.by_author("Trader")
    assert trader["output"] == "Trader here, answering the desk."
    pages = [d.get("output", "") for n, d in emitter.events if d.get("id") == trader["id"]]
    assert not [p for p in pages if p.count("Trader here") > 1], "never shown twice, at no moment"


async def test_a_run_that_stops_after_cut_off_calls_keeps_none_of_their_words(emitter):
    r = Renderer(Plan())
    await r.handle(Token("Market Analyst", "Pulling data."))
    await r.handle(ToolStarted("Market Analyst", "get_price_history", {}, "c1"))
    await r.handle(ToolFinished("Market Analyst", "get_price_history", "c1", "rows"))
    await r.handle(Token("Market Analyst", " The trend"))  # a paragraph begins after the tool call
    await r.handle(TurnRestarted("Market Analyst", " The trend", "cut"))
    await r.handle(Token("Market Analyst", " The"))
    await r.handle(TurnRestarted("Market Analyst", " The", "cut"))
    await r.close_open(" — *interrupted*")  # the retries are spent: the run stops
    market, = emitter.by_author("Market Analyst")
    assert market["output"] == "Pulling data. — *interrupted*"


def stop_action():
    import chainlit as cl

    return cl.Action(name="stop_run", payload={}, label="Stop")


async def test_a_run_that_continues_carries_its_stop_from_its_first_turn_or_under_the_edited_one(emitter):
    """Issue 35, point 5: an edit's re-run had no Stop (its Stop went with a Desk opening it has not). Under the
    edited turn from the start (stop_under); a resume's under its first speaker's message; a new run's (which
    opens with the Desk) and a follow-up's are not moved."""
    r = Renderer(Plan(), stop_action=stop_action())
    await r.stop_under("edited-turn")
    await r.handle(Token("Bear Researcher", "No."))
    await r.handle(done("bear", "Bear Researcher", "No."))
    assert [a["forId"] for a in emitter.named("action")] == ["edited-turn"]

    resumed = Renderer(Plan(), stop_action=stop_action())
    resumed.continued = True
    await resumed.handle(Token("Bear Researcher", "No."))
    await resumed.handle(Token("Research Manager", "Sell."))
    bear = emitter.by_author("Bear Researcher")[-1]
    assert [a["forId"] for a in emitter.named("action")][1:] == [bear["id"]]

    fresh = Renderer(Plan(), stop_action=stop_action())
    await fresh.handle(Token("Desk", "From the record: …"))
    await fresh.handle(done("desk", "Desk", "From the record: …"))
    assert len(emitter.named("action")) == 2  # a follow-up's answer does not get a Stop to flash at its end
