"""A chat model driven by a Python policy instead of a network call.

It streams its reply word by word and then emits tool calls as a tool-call chunk, which
is exactly what the built-in fake chat models do not do. The demo model and the tests'
scripted model are both policies on top of this.
"""
from __future__ import annotations

import asyncio
import json
import math
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

_WORDS = re.compile(r"\s*\S+|\s+")


def streamed_words(text: str) -> list[str]:
    """The pieces a policy model streams `text` as, one per paced step (a word with the space before it)."""
    return _WORDS.findall(text)


def _by_line(words: list[str]) -> list[str]:
    """Words that are all due at once, as one piece per line: with no pace (a backtest, a benchmark of
    the desk's own cost) a piece per word only multiplied the per-piece work of every layer (the
    chunk objects, the callbacks, the graph's stream), for the same text at the same moment."""
    pieces: list[str] = []
    for word in words:
        if pieces and "\n" not in word:  # a word carries the space before it: a line break starts a line
            pieces[-1] += word
        else:
            pieces.append(word)
    return pieces


def _on_step(t: float, step: float) -> float:
    """`t` moved on to the next tick of a clock of `step` seconds common to every stream of the process.

    A server that answers several calls at once (vLLM's batches, llama.cpp's parallel slots) makes one
    token of every running answer per decoding step, so concurrent answers' words come out together. Paced
    on its own deadlines, each stream woke the event loop for itself: five analyses' four analysts made
    ~2,500 wake-ups a second, each 50-125 µs of CPU on a small VM (benchmarks/RESULTS.md, issue 41). On a
    common clock they wake it together. A call's first word is at most one step later than its own time."""
    return math.ceil(t / step - 1e-9) * step


_YOU_ARE = re.compile(r"You are (?:the )?\*\*([^*]+)\*\*")
_CHARS_PER_TOKEN = 4
_RECENT_PROMPTS = 16  # prompts remembered for the cached-token estimate


def _tokens(text: str) -> int:
    return (len(text) + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


def _shared(a: str, b: str) -> int:
    """The length of the longest common prefix (bisected on slices: C-speed compares)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _within(words: list[str], cap: int) -> list[str]:
    """The leading words whose estimated tokens fit in `cap`."""
    kept, used = [], 0
    for word in words:
        used += _tokens(word)
        if used > cap:
            break
        kept.append(word)
    return kept


def _persona(run_manager, messages: list[BaseMessage]) -> str | None:
    """The persona tag of the call; langchain-core's streaming path hands `_astream` no run
    manager, so the prompt's own "You are the **Persona**" line is the fallback."""
    if run_manager is not None:
        tagged = {**run_manager.inheritable_metadata, **run_manager.metadata}.get("persona")
        if tagged:
            return tagged
    for m in messages:
        if m.type in ("system", "human") and (found := _YOU_ARE.search(str(m.content))):
            return found[1]
    return None


# Tools' OpenAI schemas by name and argument schema. The analysts' tools are made for each ticker and
# day and differ from one day's to the next only in their descriptions, while deriving the parameters
# (a pydantic JSON schema) was most of binding an analyst's tools, again for every day of a backtest.
_TOOL_SCHEMAS: dict[tuple[str, type], dict[str, Any]] = {}
_TOOL_SCHEMAS_MAX = 256


def _tool_schema(tool: Any) -> dict[str, Any]:
    if not (isinstance(tool, BaseTool) and isinstance(tool.args_schema, type) and tool.description):
        return convert_to_openai_tool(tool)
    key = (tool.name, tool.args_schema)
    if (known := _TOOL_SCHEMAS.get(key)) is None:
        if len(_TOOL_SCHEMAS) >= _TOOL_SCHEMAS_MAX:  # tools made on the fly each have a schema class of their own
            _TOOL_SCHEMAS.clear()
        known = _TOOL_SCHEMAS[key] = convert_to_openai_tool(tool)
    # The description is the converter's own when a tool has one (ticker and date are in it).
    return {**known, "function": {**known["function"], "description": tool.description}}


class PolicyChatModel(BaseChatModel):
    """Subclasses implement `reply`; this class handles tools, streaming and usage."""

    delay_ms: float = 0.0          # time between streamed words
    first_token_ms: float = 0.0    # time to the first word (or to the tool calls)
    # Words on the process's common decoding clock (`_on_step`); off: each call exactly on its own
    # deadlines (benchmarks/latency.py, whose ideal run is the sum of each call's latency to the ms).
    on_clock: bool = True
    _recent: list[str] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "policy"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any):
        schemas = [_tool_schema(t) for t in tools]
        return self.bind(tools=schemas, tool_choice=tool_choice, **kwargs)

    async def reply(
        self, messages: list[BaseMessage], *, persona: str | None, tools: list[dict], tool_choice: Any
    ) -> AIMessage:
        raise NotImplementedError

    async def _reply(self, messages, run_manager, kwargs) -> AIMessage:
        persona = _persona(run_manager, messages)
        msg = await self.reply(
            messages, persona=persona, tools=kwargs.get("tools") or [], tool_choice=kwargs.get("tool_choice")
        )
        for call in msg.tool_calls:
            call.setdefault("id", None)
            if not call.get("id"):
                call["id"] = f"call_{uuid.uuid4().hex[:12]}"
        return msg

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        # Pace against deadlines from the call's start, so sleep overshoot does not add up
        # over hundreds of words (the benchmarks rely on a model's time being exactly known);
        # the policy's own thinking happens within the time to first token, as a model's does.
        loop = asyncio.get_running_loop()
        start = loop.time()
        msg = await self._reply(messages, run_manager, kwargs)
        text = msg.content if isinstance(msg.content, str) else str(msg.content)
        words = streamed_words(text)
        cap = kwargs.get("max_tokens")
        if cap is not None:  # an output cap cuts the words, as a server's max_tokens does
            words = _within(words, int(cap))
        first = start + self.first_token_ms / 1000
        if self.delay_ms and self.on_clock:
            first = _on_step(first, self.delay_ms / 1000)
        for i, word in enumerate(words if self.delay_ms else _by_line(words)):
            due = first + i * self.delay_ms / 1000
            if due > loop.time():
                await asyncio.sleep(due - loop.time())
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=word))
            if run_manager:
                await run_manager.on_llm_new_token(word, chunk=chunk)
            yield chunk
        if not text and self.first_token_ms:  # a tool-call-only reply still waits its first token
            await asyncio.sleep(max(0.0, first - loop.time()))
        tool_chunks = [
            {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
            for i, c in enumerate(msg.tool_calls)
        ]
        # Calls whose arguments are not JSON go out as they came, as a server streams them.
        tool_chunks += [{"name": c.get("name"), "args": c.get("args"), "id": c.get("id"), "index": len(tool_chunks) + i}
                        for i, c in enumerate(msg.invalid_tool_calls)]
        cut = len(words) < len(streamed_words(text))
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                tool_call_chunks=tool_chunks,
                usage_metadata=self._usage(messages, "".join(words), msg),
                response_metadata={"model_name": self._llm_type,
                                   "finish_reason": "tool_calls" if tool_chunks else "length" if cut else "stop"},
            )
        )

    def _usage(self, messages: list[BaseMessage], text: str, msg: AIMessage) -> UsageMetadata:
        """Token counts as a server would report them, estimated from text length (4 characters a
        token), with the prompt's longest prefix already seen in a recent call as cached, as a
        server's prefix cache would serve it."""
        prompt = "".join(f"<{m.type}>{m.content}" for m in messages)
        seen = max((_shared(prompt, p) for p in self._recent), default=0)
        self._recent.append(prompt)
        del self._recent[:-_RECENT_PROMPTS]
        output = _tokens(text) + sum(_tokens(json.dumps(c["args"])) + 1 for c in msg.tool_calls)
        given = _tokens(prompt)
        return UsageMetadata(input_tokens=given, output_tokens=output, total_tokens=given + output,
                             input_token_details={"cache_read": min(given, seen // _CHARS_PER_TOKEN)})

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        msg = await self._reply(messages, run_manager, kwargs)
        if msg.usage_metadata is None:
            msg.usage_metadata = self._usage(messages, str(msg.content), msg)
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        persona = _persona(run_manager, messages)
        msg = asyncio.run(self.reply(messages, persona=persona, tools=kwargs.get("tools") or [],
                                     tool_choice=kwargs.get("tool_choice")))
        return ChatResult(generations=[ChatGeneration(message=msg)])
