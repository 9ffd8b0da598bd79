"""An OpenAI-compatible chat server on loopback, for testing the live model path end to end.

Its policy is deliberately simple and visible: analysts call their first tool once and then
quote the tool's first data line; structured-output requests get the schema filled from the
Risk Judge's `Field: value` lines; everyone else says who they are. `no_tools=True` answers
like a local model without tool support (HTTP 400). `fault(body, persona)` may name one way a
weak model or server fails for a request (see FAULTS); the answer honours `max_tokens`, and the
usage reports prompt tokens (4 characters a token) with the prefix shared with an earlier
request as cached.
"""
from __future__ import annotations

import asyncio
import json
import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from graph.models.ruling import parse_ruling

from .ports import free_port

_YOU_ARE = re.compile(r"You are (?:the )?\*\*([^*]+)\*\*")


def _persona(messages: list[dict]) -> str:
    for m in messages:
        if m["role"] == "system" and (found := _YOU_ARE.search(str(m["content"]))):
            return found[1]
    return "unknown"


# What `fault` may return: an empty answer, a blank one, a stream of no chunks at all (only
# [DONE]), a stream cut after `cut_after` words, a stall
# (nothing for `stall_s` seconds, then the answer), a stall after `cut_after` words ("stall_mid"),
# a tool call written as text, a tool call whose arguments are not JSON, an answer that would go on
# for 5,000 words but for max_tokens; and the server's own failures: HTTP 500, HTTP 429 with
# `Retry-After: retry_after`, a request never answered at all (no headers for `stall_s`: "hang").
FAULTS = ("empty", "blank", "no_chunks", "cut", "stall", "stall_mid", "text_call", "bad_args", "runaway",
          "500", "429", "hang")
Fault = Callable[[dict, str], "str | None"]


def _tool_results(messages: list[dict]) -> list[str]:
    """Tool results as tool messages, or as `### tool_name` sections of a user message (what the
    desk sends a model that wrote its calls as text or cannot call tools)."""
    found = [str(m["content"]) for m in messages if m["role"] == "tool"]
    if found:
        return found
    for m in messages:
        if m["role"] == "user":
            found += [part.split("\n", 1)[1] for part in re.split(r"^### (?=get_)", str(m["content"]), flags=re.M)[1:]
                      if "\n" in part]
    return found


def _shared(a: str, b: str) -> int:
    """The length of the longest common prefix (bisected on slices)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if a[:mid] == b[:mid] else (lo, mid - 1)
    return lo


class FakeOpenAI:
    def __init__(self, no_tools: bool = False, fault: Fault | None = None, stall_s: float = 30.0,
                 refuse_formats: frozenset[str] = frozenset(), cut_after: int = 3, retry_after: str = "1",
                 word_s: float = 0.0) -> None:
        self.no_tools = no_tools
        # response_format types answered 400, as a server that does not take them answers
        self.refuse_formats = refuse_formats
        self.fault = fault
        self.stall_s = stall_s
        self.cut_after = cut_after      # words a "cut" or "stall_mid" stream sends first
        self.retry_after = retry_after  # the Retry-After header of a 429
        self.word_s = word_s            # the pause before each streamed word (a page sees words arrive)
        self.arrivals: list[tuple[str, float]] = []  # (persona, monotonic time) of each request
        self.prompts: list[str] = []
        self.usages: list[dict] = []  # the usage reported for each answered request
        self.requests: list[dict] = []
        self.port = free_port()
        app = Starlette(routes=[Route("/v1/chat/completions", self.chat, methods=["POST"])])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)

    def reply(self, body: dict) -> tuple[str, list[dict]]:
        messages, tools = body["messages"], body.get("tools") or []
        fmt = body.get("response_format") or {}
        forced = tools and body.get("tool_choice") not in (None, "auto")
        if fmt.get("type") in ("json_schema", "json_object") or forced:
            name = (fmt.get("json_schema", {}).get("name") or (fmt.get("schema") or {}).get("title")
                    or tools[0]["function"]["name"])
            args = self.structured(name, messages)
            if fmt:
                return json.dumps(args), []
            return "", [{"name": name, "arguments": json.dumps(args)}]
        persona = _persona(messages)
        results = _tool_results(messages)
        if tools and not results:
            return "", [{"name": tools[0]["function"]["name"], "arguments": "{}"}]
        if results:
            data = [line for line in results[0].splitlines()[1:] if line.strip()]
            return f"{persona} report. The tool said: {data[0] if data else 'nothing'}", []
        if persona == "Risk Judge":
            return ("Signal: BUY\nPosition size: 2% of portfolio\nEntry: 100.00\nStop: 95.00\n"
                    "Horizon: 1 month\nConfidence: 0.7\nRationale: the fake server likes it."), []
        return f"{persona} here, answering the desk.", []

    def structured(self, name: str, messages: list[dict]) -> dict:
        text = "\n".join(str(m["content"]) for m in messages)
        if name in ("FinalDecision", "Ruling"):
            return {k: v for k, v in parse_ruling(text).items()} | {"ticker": "", "trade_date": ""}
        if name == "StatedCall":  # the manager's or trader's call, as a model reading "… answering the desk." gives it
            return {"signal": "HOLD"}
        return {"ticker": None, "date": None}

    def _usage(self, prompt: str, content: str) -> dict:
        """Token counts as OpenAI reports them: a token per 4 characters of prompt, cached as far
        as an earlier prompt shares its start."""
        cached = max((_shared(prompt, p) for p in self.prompts), default=0) // 4
        self.prompts.append(prompt)
        prompt_tokens = len(prompt) // 4
        completion = max(1, len(content.split()))
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                 "total_tokens": prompt_tokens + completion, "prompt_tokens_details": {"cached_tokens": cached}}
        self.usages.append(usage)
        return usage

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        if (kind := (body.get("response_format") or {}).get("type")) in self.refuse_formats:
            error = f"response_format type {kind!r} is not supported"
            return JSONResponse({"error": {"message": error, "type": "invalid_request_error"}}, status_code=400)
        if self.no_tools and body.get("tools"):
            error = f"registry.ollama.ai/library/{body['model']} does not support tools"
            return JSONResponse({"error": {"message": error, "type": "invalid_request_error"}}, status_code=400)
        persona = _persona(body["messages"])
        self.arrivals.append((persona, time.monotonic()))
        fault = self.fault(body, persona) if self.fault else None
        if fault == "500":
            return JSONResponse({"error": {"message": "the fake server failed", "type": "server_error"}},
                                status_code=500)
        if fault == "429":
            return JSONResponse({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}},
                                status_code=429, headers={"Retry-After": self.retry_after})
        if fault == "hang":
            await asyncio.sleep(self.stall_s)
        content, calls = _faulty(fault, body, *self.reply(body))
        cap = body.get("max_tokens") or body.get("max_completion_tokens")
        words = re.findall(r"\s*\S+", content)
        if cap:  # one word a token: the cap cuts the answer
            content = "".join(words[:cap])
        rid, created, model = f"chatcmpl-{uuid.uuid4().hex[:8]}", int(time.time()), body["model"]
        tool_calls = [{"index": i, "id": f"call_{uuid.uuid4().hex[:8]}", "type": "function", "function": c}
                      for i, c in enumerate(calls)]
        finish = "tool_calls" if calls else "length" if cap and len(words) > cap else "stop"
        usage = self._usage(json.dumps(body["messages"]), content)
        if not body.get("stream"):
            message: dict[str, object] = {"role": "assistant", "content": content or None}
            if tool_calls:
                message["tool_calls"] = [{k: v for k, v in t.items() if k != "index"} for t in tool_calls]
            return JSONResponse({"id": rid, "object": "chat.completion", "created": created, "model": model,
                                 "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                 "usage": usage})

        head = {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model}
        include_usage = (body.get("stream_options") or {}).get("include_usage")
        events = self._events(fault, head, content, tool_calls, finish, usage if include_usage else None)
        return StreamingResponse(events, media_type="text/event-stream")

    async def _events(self, fault: str | None, head: dict, content: str, tool_calls: list, finish: str,
                      usage: dict | None) -> AsyncIterator[str]:
        """The reply as server-sent chunks, with the stream faults (a stall, no chunks, a cut)."""
        def chunk(delta: dict, finish_reason: str | None = None) -> str:
            return "data: " + json.dumps({**head, "choices": [{"index": 0, "delta": delta,
                                                                "finish_reason": finish_reason}]}) + "\n\n"

        if fault == "stall":
            await asyncio.sleep(self.stall_s)
        if fault == "no_chunks":
            yield "data: [DONE]\n\n"
            return
        yield chunk({"role": "assistant", "content": ""})
        for i, word in enumerate(re.findall(r"\s*\S+", content)):
            await self._before_word(fault, i)
            yield chunk({"content": word})
        if fault == "cut":
            raise ConnectionResetError("the fake server cut the stream")
        if tool_calls:
            yield chunk({"tool_calls": tool_calls})
        yield chunk({}, finish)
        if usage is not None:
            yield "data: " + json.dumps({**head, "choices": [], "usage": usage}) + "\n\n"
        yield "data: [DONE]\n\n"

    async def _before_word(self, fault: str | None, i: int) -> None:
        """The pause before word `i`, or the fault that strikes there (a cut, a stall mid-answer)."""
        if fault == "cut" and i == self.cut_after:
            raise ConnectionResetError("the fake server cut the stream")  # uvicorn drops the connection
        if fault == "stall_mid" and i == self.cut_after:
            await asyncio.sleep(self.stall_s)
        if self.word_s:
            await asyncio.sleep(self.word_s)


def _faulty(fault: str | None, body: dict, content: str, calls: list) -> tuple[str, list]:
    """The reply as a faulty server would give it (None: as it is)."""
    tool = body["tools"][0]["function"]["name"] if body.get("tools") else None
    if fault in ("empty", "blank"):
        return ("" if fault == "empty" else " \n\t "), []
    if fault == "text_call" and tool:
        return json.dumps({"name": tool, "arguments": {}}), []
    if fault == "bad_args" and tool:
        return "", [{"name": tool, "arguments": '{"lookback_days": thirty}'}]
    if fault == "runaway":
        return " ".join(["more"] * 5000), calls
    return content, calls
