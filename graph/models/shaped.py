"""Structured output a model really produced: under a JSON schema where its server can constrain
decoding to one, else through function calling; the caller then reads the words as its last resort.

Servers differ. OpenAI takes a strict `json_schema` response format; vLLM, Ollama and LM Studio take
the same; llama-cpp-python's server takes `json_object` with the schema beside it and turns it into a
grammar. Which one a model's server takes is found out by trying, once per model and server, and
remembered for the process (`Shapes`): a server that refuses a format is not asked in it again, so
only a model's first structured call pays for the finding out.

Nothing here guesses: a reply that does not fill the schema is no answer, and the caller falls back.
"""
from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableSequence, RunnableWithFallbacks
from langchain_core.runnables.passthrough import RunnableAssign
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError

from ..core.usage import Meter

logger = logging.getLogger(__name__)

Method = Literal["json_schema", "json_object", "function_calling"]
# In the order they are tried: decoding under the schema first, then a tool call the model fills.
SCHEMA_METHODS: tuple[Method, ...] = ("json_schema", "json_object")
ALL_METHODS: tuple[Method, ...] = (*SCHEMA_METHODS, "function_calling")

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class Shaped(Generic[T]):
    value: T
    method: Method


def _server_key(model: BaseChatModel) -> str:
    base = getattr(model, "openai_api_base", None) or ""
    return f"{base}|{getattr(model, 'model_name', '') or type(model).__name__}"


def _takes_response_format(model: BaseChatModel) -> bool:
    """Only an OpenAI-compatible client sends a response format; other chat models (the demo, test
    models) fill a schema through tool calls, whatever method is asked."""
    # A ChatOpenAI exists only once langchain_openai was imported: a demo process never imports it
    # (importing it here cost its first decision ~0.4 CPU-s, the openai SDK's types).
    openai = sys.modules.get("langchain_openai")
    return openai is not None and isinstance(model, openai.ChatOpenAI)


class Shapes:
    """Which structured-output method each model's server takes, found out and remembered."""

    def __init__(self, schema_first: bool = True) -> None:
        self.schema_first = schema_first   # False: never ask for a schema (DESK_STRUCTURED_OUTPUT=tools)
        self._refused: dict[str, set[Method]] = {}
        self._works: dict[str, Method] = {}
        # Each model's structured form per schema and method, built once (`_form`), beside the model it was
        # built from (so a key's id is never another model's).
        self._forms: dict[tuple[int, type[BaseModel], Method], tuple[BaseChatModel, Runnable[Any, Any]]] = {}

    def methods(self, model: BaseChatModel) -> list[Method]:
        key = _server_key(model)
        if not _takes_response_format(model):
            return ["function_calling"]
        candidates = list(ALL_METHODS if self.schema_first else ("function_calling",))
        if (known := self._works.get(key)) in candidates:
            candidates.remove(known)
            candidates.insert(0, known)
        return [m for m in candidates if m not in self._refused.get(key, set())]

    async def ask(self, model: BaseChatModel, schema: type[T], prompt: Sequence[BaseMessage], *,
                  meter: Meter | None = None, config: RunnableConfig | None = None) -> Shaped[T] | None:
        """`schema` filled by the model, and how; None when no method gave a valid one (the caller
        reads the words instead). A method the server refuses is remembered as refused; one that
        worked is tried first next time."""
        key = _server_key(model)
        for method in self.methods(model):
            try:
                value, raw = await _call(self._form(model, schema, method), schema, list(prompt), method,
                                         config or RunnableConfig())
            except Exception as exc:  # the server refused the format (or failed): the next method
                if _refusal(exc):
                    self._refused.setdefault(key, set()).add(method)
                logger.info("structured output by %s failed for %s: %s", method, key, exc)
                continue
            if meter is not None and raw is not None:
                meter.add(raw, prompt)
            if value is not None:
                self._works[key] = method
                return Shaped(value, method)
        return None

    def _form(self, model: BaseChatModel, schema: type[T], method: Method) -> Runnable[Any, Any]:
        """`model` asked for `schema` by `method`, built once per model: building it turns the schema into a
        tool or a response format (pydantic's JSON schema: 1-2 ms), on the critical path of every ruling
        between the judge's words and the end of its step."""
        key = (id(model), schema, method)
        known = self._forms.get(key)
        if known is None or known[0] is not model:
            known = (model, _formed(model, schema, method))
            self._forms[key] = known
        return known[1]


def _formed(model: BaseChatModel, schema: type[T], method: Method) -> Runnable[Any, Any]:
    # One whole answer: a streamed structured call goes through the SDK's beta stream, which warns
    # on every event, and nobody reads these words as they come.
    whole = model.model_copy(update={"streaming": False}) if "streaming" in type(model).model_fields else model
    if method == "json_object":
        return whole.bind(response_format={"type": "json_object", "schema": bounded_schema(schema)})
    kwargs: dict[str, Any] = {"method": method, "include_raw": True}
    if method == "json_schema":
        kwargs["strict"] = True
    form = whole.with_structured_output(schema, **kwargs)
    if (steps := getattr(getattr(form, "first", None), "steps__", None)) is not None and _parts(form) is not None:
        steps["raw"] = _traced_once(steps["raw"])
    return form


# The key under which a structured form tells LangChain's tracing its schema (it is never sent to the server).
_TRACED = "ls_structured_output_format"


def _traced_once(model: Runnable[Any, Any]) -> Runnable[Any, Any]:
    """The form's model with the schema it tells tracing (`ls_structured_output_format`) already converted.
    Function calling binds the schema's class there, and LangChain converts it to a JSON schema at every call
    (pydantic's JSON schema: ~0.3 ms for the ruling, between the judge's words and its step's end) whether or
    not anything traces; converted here once, as langchain-openai's json_schema form binds it, the call
    converts a dict (microseconds) into the same JSON schema, and the request is the same
    (tests/models/test_shaped.py)."""
    if not isinstance(model, RunnableBinding):
        return model
    bound = model.kwargs.get(_TRACED)
    if not isinstance(bound, dict) or not isinstance(bound.get("schema"), type):
        return model
    traced = {**bound, "schema": convert_to_openai_tool(bound["schema"])}
    return model.model_copy(update={"kwargs": {**model.kwargs, _TRACED: traced}})


# What a server's refusal of the request's form says (OpenAI and vLLM: 400; llama-cpp-python's server:
# a 500 carrying its validation error "Input should be 'text' or 'json_object'").
_ABOUT_FORM = ("response_format", "json_schema", "json_object", "schema", "tool", "function")


def _refusal(exc: Exception) -> bool:
    """A server saying it does not take the request's form (its response format, its tools), so that
    form is not asked of it again; not any failure: a prompt too long for its context is a 400 too,
    and says nothing of the format."""
    if isinstance(exc, NotImplementedError):
        return True
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    return status in (400, 404, 415, 422, 500, 501) and any(w in str(exc).lower() for w in _ABOUT_FORM)


async def _call(form: Runnable[Any, Any], schema: type[T], prompt: list[BaseMessage], method: Method,
                config: RunnableConfig) -> tuple[T | None, BaseMessage | None]:
    if method == "json_object":
        reply: BaseMessage = await form.with_config(config).ainvoke(prompt)
        return _parsed(schema, reply.content), reply
    if (parts := _parts(form)) is not None:
        model, parser = parts
        raw_reply: BaseMessage = await model.ainvoke(prompt, config)
        try:
            value = parser.invoke({"raw": raw_reply}, config)
        except Exception:  # as the form's fallback: a reply that does not fill the schema is no answer
            value = None
        return (value if isinstance(value, schema) else None), raw_reply
    out = await form.with_config(config).ainvoke(prompt)
    raw = out.get("raw") if isinstance(out, dict) else None
    parsed = out.get("parsed") if isinstance(out, dict) else None
    return (parsed if isinstance(parsed, schema) else None), (raw if isinstance(raw, BaseMessage) else None)


def _parts(form: Runnable[Any, Any]) -> tuple[Runnable[Any, Any], Runnable[Any, Any]] | None:
    """The model and the parser of a `with_structured_output(..., include_raw=True)` form (LangChain's and
    langchain-openai's: `RunnableMap(raw=model) | RunnablePassthrough.assign(parsed=itemgetter("raw") | parser,
    parsing_error=...).with_fallbacks(...)`), to be called one after the other; None for any other shape.
    Awaited whole, the form ran its plain functions (the raw reply's getter, the parser, the error's default)
    in LangChain's thread pool: three hops to a worker thread and back between the judge's structured reply
    and the end of its step. Called here, the parser runs on the loop (microseconds of work), with the same
    result: the reply parsed into the schema, or no answer when it does not parse."""
    first, last = getattr(form, "first", None), getattr(form, "last", None)
    steps = getattr(first, "steps__", None)
    assign = getattr(last, "runnable", None) if isinstance(last, RunnableWithFallbacks) else None
    parsed = getattr(getattr(assign, "mapper", None), "steps__", {}).get("parsed")
    if not isinstance(form, RunnableSequence) or not isinstance(steps, dict) or list(steps) != ["raw"] \
            or not isinstance(assign, RunnableAssign) or not isinstance(parsed, Runnable):
        return None
    return steps["raw"], parsed


# A grammar (json_object) decodes until the schema is complete: a small model fills a free string until
# the output cap cuts it (SmolLM2 wrote 249 of 250 tokens into the ruling and left it unclosed). Each
# string gets a bound the grammar enforces; together they fit the ruling's cap.
STRING_CHARS = 40
LONG_STRING_CHARS = 200  # the one paragraph field ("rationale")
_LONG = ("rationale",)


def bounded_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The schema with a maxLength on every free string, for a grammar. (OpenAI's strict mode takes
    no maxLength, so `json_schema` sends the schema as it is.)"""
    out = schema.model_json_schema()
    for name, prop in out.get("properties", {}).items():
        if prop.get("type") == "string" and "enum" not in prop:
            prop["maxLength"] = LONG_STRING_CHARS if name in _LONG else STRING_CHARS
    return out


def _parsed(schema: type[T], content: object) -> T | None:
    text = content if isinstance(content, str) else str(content)
    try:
        # strict=False: a grammar's strings may hold raw line breaks (llama-cpp-python's JSON grammar
        # allows them; SmolLM2 wrote one), which strict JSON refuses.
        return schema.model_validate(json.loads(text, strict=False))
    except (ValueError, ValidationError) as exc:
        logger.warning("a reply under the %s schema did not fill it (%s): %.300r", schema.__name__, exc, text)
        return None
