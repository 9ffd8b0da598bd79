"""A live run (ChatOpenAI against the loopback fake server) must not print warnings to stderr.

Regression for issue #8: the Risk Judge's structured extraction used to print a pydantic
`PydanticSerializationUnexpectedValue(Expected `none` ... field_name='parsed' ...)` UserWarning
on every run. With a streaming ChatOpenAI, `with_structured_output`'s default method
(`json_schema`) goes through the SDK's `beta.chat.completions.stream`, and langchain-openai
`model_dump()`s every stream event, whose `parsed` field the SDK types as `None`.

The warnings are recorded rather than turned into errors: an error raised inside the
extraction call would be swallowed by the judge's fallback (it reads the ruling text
instead), and the test would pass without proving anything.
"""
from __future__ import annotations

import warnings

from tests.support.desk import LiveDesk, live_settings
from tests.support.fake_openai import FakeOpenAI


async def test_a_live_run_prints_no_user_warning(settings):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with FakeOpenAI() as server:
            desk = LiveDesk(live_settings(settings, server))
            await desk.ask("should I buy NVDA today?")
        state = await desk.state()
    # The run did reach the structured extraction (otherwise there is nothing to check).
    assert any((r.get("tools") and r["tools"][0]["function"]["name"] == "Ruling") or
               (r.get("response_format") or {}).get("json_schema", {}).get("name") == "Ruling"
               for r in server.requests)
    assert state["final_decision"].signal == "BUY"
    user_warnings = [f"{w.category.__name__}: {w.message}" for w in caught if issubclass(w.category, UserWarning)]
    assert user_warnings == []
