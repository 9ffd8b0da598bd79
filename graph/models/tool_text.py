"""Tool calls a model wrote as text instead of making them.

Small and local models often answer a tool-calling prompt with the call in their words:
`{"name": "get_price_history", "arguments": {"lookback_days": 30}}`, the same inside
`<tool_call>…</tool_call>` (Hermes, Qwen) or a code fence, `<function=get_indicators>{}</function>`
(Llama 3.1), a list of such objects, or `get_indicators()`. When such a call names one of the
analyst's tools it is read as the call it meant; anything else stays text.
"""
from __future__ import annotations

import ast
import json
import re
import uuid
from collections.abc import Collection
from typing import Any

from langchain_core.messages import ToolCall

_TAGGED = re.compile(r"<(tool_call|function_call|tools?)>\s*(.*?)\s*</\1>", re.S | re.I)
_LLAMA = re.compile(r"<function=([A-Za-z_][\w.-]*)>\s*(.*?)\s*</function>", re.S)
_FENCE = re.compile(r"```[a-z]*\s*```", re.I)
# What may stand around python-style calls for the reply to still be only calls ("Calling:").
_LEFTOVER_CHARS = 40


def _call(name: Any, args: Any, known: Collection[str]) -> ToolCall | None:
    if not isinstance(name, str) or name not in known:
        return None
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            return None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None
    return ToolCall(name=name, args=args, id=f"call_text_{uuid.uuid4().hex[:12]}", type="tool_call")


def _calls_in_value(value: Any, known: Collection[str]) -> list[ToolCall]:
    """A decoded JSON value as calls: an object naming a known tool, or a list of them."""
    if isinstance(value, list):
        return [c for item in value for c in _calls_in_value(item, known)]
    if not isinstance(value, dict):
        return []
    fn = value.get("function")
    if isinstance(fn, dict):  # the OpenAI shape: {"type": "function", "function": {"name", "arguments"}}
        call = _call(fn.get("name"), fn.get("arguments", fn.get("parameters")), known)
    else:
        name = value.get("name", value.get("tool", value.get("tool_name", fn)))
        args = value.get("arguments", value.get("parameters", value.get("args", value.get("input"))))
        call = _call(name, args, known)
    return [call] if call else []


def _json_calls(text: str, known: Collection[str]) -> tuple[list[ToolCall], list[tuple[int, int]]]:
    decoder = json.JSONDecoder()
    calls: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        if text[i] not in "{[":
            i += 1
            continue
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i += 1
            continue
        found = _calls_in_value(value, known)
        if found:
            calls += found
            spans.append((i, end))
            i = end
        else:
            i += 1
    return calls, spans


def _python_calls(text: str, known: Collection[str]) -> tuple[list[ToolCall], list[tuple[int, int]]]:
    if not known:
        return [], []
    names = "|".join(re.escape(n) for n in sorted(known, key=len, reverse=True))
    calls: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    for m in re.finditer(rf"\b({names})\s*\(([^()]*)\)", text):
        try:
            node = ast.parse(f"f({m[2]})", mode="eval").body
            if not isinstance(node, ast.Call) or node.args:
                continue
            args = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except (SyntaxError, ValueError):
            continue
        if (call := _call(m[1], args, known)) is not None:
            calls.append(call)
            spans.append(m.span())
    return calls, spans


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + text[end:]
    return _FENCE.sub("", text).strip()


def calls_in_text(text: str, known: Collection[str]) -> tuple[list[ToolCall], str]:
    """The calls of known tools written in `text`, and the text left without them.

    JSON-shaped calls count wherever they are; python-style calls (`get_indicators()`) only when
    the reply is nothing else, since a report may well mention a tool by name."""
    calls: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    for m in _LLAMA.finditer(text):
        if (call := _call(m[1], m[2] or "{}", known)) is not None:
            calls.append(call)
            spans.append(m.span())
    for m in _TAGGED.finditer(text):
        inner, _ = _json_calls(m[2], known)
        if inner:
            calls += inner
            spans.append(m.span())
    rest = _without(text, spans)
    more, more_spans = _json_calls(rest, known)
    if more:
        calls += more
        rest = _without(rest, more_spans)
    if not calls:
        plain, plain_spans = _python_calls(text, known)
        left = _without(text, plain_spans)
        if plain and len(left) <= _LEFTOVER_CHARS:
            calls, rest = plain, left
    unique: dict[str, ToolCall] = {}
    for call in calls:
        unique.setdefault(json.dumps([call["name"], call["args"]], sort_keys=True), call)
    return list(unique.values()), rest
