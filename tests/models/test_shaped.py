"""The ruling as the model itself gives it (issue 25): decoded under the decision's JSON schema where
the server can, else through function calling, else read from the judge's lines; which format a
server takes is found out once and remembered; words and structure that disagree are said, never
silently picked; a ruling with no signal anywhere is no decision."""
from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from graph.core.errors import DeskError
from graph.core.settings import Settings
from tests.support.desk import LiveDesk, live_settings
from tests.support.fake_openai import FakeOpenAI
from tests.support.models import ScriptedChatModel

ONE = {"analysts": ["market"]}


def live(settings: Settings, server: FakeOpenAI, **overrides) -> LiveDesk:
    return LiveDesk(live_settings(settings, server).model_copy(update=overrides))


def formats(server: FakeOpenAI, shape: str = "Ruling") -> list[str]:
    """How each structured request for `shape` asked: a response format's type, or a forced tool."""
    out = []
    for r in server.requests:
        fmt = r.get("response_format") or {}
        name = fmt.get("json_schema", {}).get("name") or (fmt.get("schema") or {}).get("title")
        forced = r.get("tools") and r.get("tool_choice") not in (None, "auto")
        if fmt and name == shape:
            out.append(fmt["type"])
        elif forced and r["tools"][0]["function"]["name"] == shape:
            out.append("tool:" + shape)
    return out


async def test_the_ruling_is_decoded_under_its_schema(settings):
    with FakeOpenAI() as server:
        desk = live(settings, server)
        await desk.ask("should I buy NVDA today?", **ONE)
    decision = (await desk.state())["final_decision"]
    assert (decision.signal, decision.read, decision.words_say) == ("BUY", "json_schema", None)
    [request] = [r for r in server.requests if (r.get("response_format") or {}).get("json_schema", {}).get("name")
                 == "Ruling"]
    schema = request["response_format"]["json_schema"]
    assert schema["name"] == "Ruling" and schema["strict"] is True and not request.get("stream")
    assert formats(server) == ["json_schema"]
    # The fake's manager and trader state no call in words: theirs are asked the same way, once each.
    assert formats(server, "StatedCall") == ["json_schema", "json_schema"]
    assert (await desk.state())["plan_calls"] == {"Research Manager": "HOLD", "Trader": "HOLD"}


def schema_asks(server: FakeOpenAI) -> dict[str, int]:
    """Requests that asked for a strict JSON schema, per model."""
    counts: dict[str, int] = {}
    for r in server.requests:
        if (r.get("response_format") or {}).get("type") == "json_schema":
            counts[r["model"]] = counts.get(r["model"], 0) + 1
    return counts


async def test_a_server_that_refuses_a_format_is_asked_the_next_way_and_remembered(settings):
    with FakeOpenAI(refuse_formats=frozenset({"json_schema"})) as server:
        desk = live(settings, server)
        await desk.ask("should I buy NVDA today?", **ONE)
        assert (await desk.state())["final_decision"].read == "json_object"  # llama-cpp-python's form
        # Found out once per model: the manager (the deep model) and the trader (the quick one) asked
        # first; the judge (deep) went straight to the form that works.
        assert schema_asks(server) == {"deep-x": 1, "quick-x": 1}
        assert formats(server, "Ruling") == ["json_object"]
        server.requests.clear()
        await desk.ask("and AAPL?", **ONE)  # the same process: the refused format is not asked again
        assert schema_asks(server) == {} and formats(server, "Ruling") == ["json_object"]
    with FakeOpenAI(refuse_formats=frozenset({"json_schema", "json_object"})) as server:
        desk = live(settings, server)
        await desk.ask("should I buy NVDA today?", **ONE)
        assert (await desk.state())["final_decision"].read == "function_calling"
        assert formats(server, "Ruling") == ["tool:Ruling"]
        assert formats(server, "StatedCall")[:3] == ["json_schema", "json_object", "tool:StatedCall"]


async def test_tools_only_as_before_when_the_schema_is_switched_off(settings):
    with FakeOpenAI() as server:
        desk = live(settings, server, structured_output="tools")
        await desk.ask("should I buy NVDA today?", **ONE)
    assert (await desk.state())["final_decision"].read == "function_calling"
    assert formats(server) == ["tool:Ruling"]
    with FakeOpenAI() as server:
        desk = live(settings, server, structured_output="lines")
        await desk.ask("should I buy NVDA today?", **ONE)
    assert (await desk.state())["final_decision"].read == "lines" and formats(server) == []


def judge(words: str, structured: dict | None):
    """A judge whose words are `words` and whose structured ruling is `structured` (None: it fills none)."""
    def script(persona, messages, tools):
        if persona != "Risk Judge":
            return None
        if tools:  # the extraction's tool call
            if structured is None:
                return AIMessage(content="I cannot.")
            return AIMessage(content="", tool_calls=[{"name": "Ruling", "args": structured, "id": "r1",
                                                      "type": "tool_call"}])
        return AIMessage(content=words)
    return ScriptedChatModel(script=script)


RULING = {"signal": "BUY", "position_size": "2%", "entry": "100", "stop": "95", "horizon": "1 month",
          "confidence": 0.7, "rationale": "Demand."}


async def test_words_and_structure_that_disagree_are_said_not_picked(desk_factory):
    desk = desk_factory(judge("Signal: SELL · Position size: 1% · Confidence: 0.6", RULING))
    await desk.ask("should I buy NVDA today?", **ONE)
    decision = (await desk.state())["final_decision"]
    assert (decision.signal, decision.words_say, decision.read) == ("BUY", "SELL", "function_calling")
    from chat.views.card import card_markdown
    card = card_markdown(decision, judge_words="Signal: SELL · Position size: 1% · Confidence: 0.6")
    assert "The judge's words say **SELL**, but its structured ruling says **BUY**" in card
    assert "**The judge's words.**" in card and "Signal: SELL" in card


async def test_a_structured_ruling_is_a_decision_even_when_the_words_name_none(desk_factory):
    desk = desk_factory(judge("The market is hard to read today; I weigh both sides.", RULING))
    await desk.ask("should I buy NVDA today?", **ONE)
    decision = (await desk.state())["final_decision"]
    assert (decision.signal, decision.words_say) == ("BUY", None)


async def test_no_structure_and_no_signal_in_the_words_is_no_decision(desk_factory):
    desk = desk_factory(judge("The market is hard to read today; I weigh both sides.", None))
    with pytest.raises(DeskError, match="names no BUY, SELL or HOLD"):
        await desk.ask("should I buy NVDA today?", **ONE)
    assert (await desk.state()).get("final_decision") is None


def test_the_card_shows_the_chain_of_calls_and_how_the_ruling_was_read():
    from chat.views.card import card_markdown
    from graph.core.state import FinalDecision

    decision = FinalDecision(signal="BUY", position_size="2%", entry="100", stop="95", horizon="1 month",
                             confidence=0.7, rationale="Demand.", ticker="NVDA", trade_date="2024-05-06",
                             read="json_schema")
    card = card_markdown(decision, "synthetic demo data", plan_calls={"Research Manager": "SELL", "Trader": "BUY"})
    assert "**Along the way:** Research Manager SELL → Trader BUY → Risk Judge BUY." in card
    assert "_Ruling read under its JSON schema. Figures from synthetic demo data._" in card
    assert "disagree" not in card


def test_only_a_refusal_of_the_form_is_remembered():
    import httpx
    from openai import BadRequestError, InternalServerError

    from graph.models.shaped import _refusal

    def error(cls, status: int, message: str) -> Exception:
        response = httpx.Response(status, request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))
        return cls(message, response=response, body=None)

    assert _refusal(error(BadRequestError, 400, "response_format json_schema is not supported"))
    # llama-cpp-python's server answers its own validation error with a 500
    assert _refusal(error(InternalServerError, 500, "Input should be 'text' or 'json_object' (response_format)"))
    assert not _refusal(error(BadRequestError, 400, "the prompt is longer than the context (8192 tokens)"))
    assert not _refusal(error(InternalServerError, 500, "out of memory"))


async def test_prose_that_names_another_signal_is_a_disagreement_too(desk_factory):
    desk = desk_factory(judge("On balance I would sell here and wait.", RULING))
    await desk.ask("should I buy NVDA today?", **ONE)
    decision = (await desk.state())["final_decision"]
    assert (decision.signal, decision.words_say) == ("BUY", "SELL")


def test_a_grammar_gets_every_free_string_bounded():
    """SmolLM2 under llama-cpp-python's grammar filled the ruling's strings until the output cap cut
    its JSON unclosed: the grammar's schema bounds them (OpenAI's strict schema takes no maxLength)."""
    from graph.core.state import Ruling
    from graph.models.shaped import LONG_STRING_CHARS, STRING_CHARS, bounded_schema

    props = bounded_schema(Ruling)["properties"]
    assert "maxLength" not in props["signal"] and props["signal"]["enum"] == ["BUY", "SELL", "HOLD"]
    assert props["stop"]["maxLength"] == STRING_CHARS and props["rationale"]["maxLength"] == LONG_STRING_CHARS
    assert "maxLength" not in Ruling.model_json_schema()["properties"]["stop"]


def test_a_grammars_raw_line_break_in_a_string_is_read():
    from graph.core.state import Ruling
    from graph.models.shaped import _parsed

    reply = ('{"signal": "BUY", "position_size": ".5", "entry": "Sell at price", "stop": "N/A", '
             '"horizon": "1.0}\n{}", "confidence": 0.5, "rationale": "Business"}')  # as SmolLM2 wrote it
    ruling = _parsed(Ruling, reply)
    assert ruling is not None and ruling.signal == "BUY" and ruling.horizon == "1.0}\n{}"


async def test_a_models_structured_form_is_built_once_and_asks_the_same_each_time(settings, monkeypatch):
    # Building it turns the schema into a response format (pydantic's JSON schema), on the judge's critical path:
    # it is built once per model, schema and method (graph/models/shaped.py), and sends what a new one would.
    from graph.models import shaped

    built = []
    formed = shaped._formed
    monkeypatch.setattr(shaped, "_formed", lambda *a: built.append((id(a[0]), *a[1:])) or formed(*a))

    def ruling_requests(server):
        return [{k: v for k, v in r.items() if k not in ("messages",)} for r in server.requests
                if (r.get("response_format") or {}).get("json_schema", {}).get("name") == "Ruling"]

    with FakeOpenAI() as server:
        desk = live(settings, server)
        await desk.ask("should I buy NVDA today?", **ONE)
        first = ruling_requests(server)
        server.requests.clear()
        await desk.ask("and AAPL?", **ONE)
        again = ruling_requests(server)
    assert len(first) == 1 and again == first and first[0]["max_tokens"] == settings.ruling_tokens
    assert (await desk.state())["final_decision"].read == "json_schema"
    assert built and len(built) == len(set(built))  # each model's (schema, method) built once


@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
async def test_every_structured_form_is_called_as_its_model_then_its_parser(method):
    # Awaited whole, LangChain's form ran its plain functions in a thread pool (three hops between the judge's
    # structured reply and the end of its step); the desk calls its model, then its parser on the loop
    # (graph/models/shaped.py `_parts`). Each form the desk builds has that shape, and a reply the parser
    # refuses is no answer, as the form's own fallback made it.
    from langchain_openai import ChatOpenAI

    from graph.core.state import Ruling
    from graph.models import shaped

    models = [ScriptedChatModel()]
    if method == "json_schema":
        models = [ChatOpenAI(model="m", api_key="k", base_url="http://127.0.0.1:9/v1")]
    for model in models:
        parts = shaped._parts(shaped._formed(model, Ruling, method))
        assert parts is not None
        _, parser = parts
        try:
            refused = parser.invoke({"raw": AIMessage(content="not the schema")})
        except Exception:
            refused = None
        assert refused is None
    reply = AIMessage(content="", tool_calls=[{"name": "Ruling", "id": "1", "args": {
        "signal": "SELL", "position_size": "1%", "entry": "n/a", "stop": "n/a", "horizon": "1 week",
        "confidence": 0.4, "rationale": "r"}}])
    form = shaped._formed(ScriptedChatModel(script=lambda *_: reply), Ruling, "function_calling")
    value, raw = await shaped._call(form, Ruling, [], "function_calling", {})
    assert value == Ruling(signal="SELL", position_size="1%", entry="n/a", stop="n/a", horizon="1 week",
                           confidence=0.4, rationale="r") and raw is not None
    form = shaped._formed(ScriptedChatModel(script=lambda *_: AIMessage(content="no tool")), Ruling,
                          "function_calling")
    value, raw = await shaped._call(form, Ruling, [], "function_calling", {})
    assert value is None and raw is not None and raw.content == "no tool"


@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
async def test_a_form_tells_tracing_its_schema_as_langchain_would_and_sends_the_same(method):
    # Function calling binds the schema's class for tracing, and LangChain turned it into a JSON schema at every
    # call (graph/models/shaped.py `_traced_once`): the desk's forms bind it converted once. Tracing is told the
    # same schema and the request is the same, for every form and schema the desk asks.
    from langchain_core.language_models.chat_models import _format_ls_structured_output
    from langchain_openai import ChatOpenAI

    from graph.core.state import Ruling, StatedCall
    from graph.models import shaped

    models: list = [ChatOpenAI(model="m", api_key="k", base_url="http://127.0.0.1:9/v1")]
    if method == "function_calling":
        models.append(ScriptedChatModel())
    for model in models:
        for schema in (Ruling, StatedCall):
            ours = shaped._parts(shaped._formed(model, schema, method))
            extra = {"strict": True} if method == "json_schema" else {}
            theirs = shaped._parts(model.with_structured_output(schema, method=method, include_raw=True, **extra))
            assert ours is not None and theirs is not None
            (mine, _), (library, _) = ours, theirs
            told, asked = mine.kwargs.pop(shaped._TRACED), library.kwargs.pop(shaped._TRACED)
            assert _format_ls_structured_output(told) == _format_ls_structured_output(asked)
            assert isinstance(told["schema"], dict) and told["kwargs"] == asked["kwargs"]
            assert mine.kwargs == library.kwargs and mine.bound == library.bound and mine.config == library.config
