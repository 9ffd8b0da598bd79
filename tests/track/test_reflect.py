"""The reflection on a scored call: the deep model's few sentences live (checked for figures the
call's record lacks), the demo's from the figures, and nothing written when the model fails."""
from __future__ import annotations

from langchain_core.messages import AIMessage

from graph.core.settings import Settings
from graph.models.registry import ModelRegistry
from graph.track.calls import Call, Outcome
from graph.track.reflect import facts, reflect
from tests.support.models import ScriptedChatModel, human_text, system_text

CALL = Call(id="t:0", user="ann", thread_id="t", ticker="NVDA", trade_date="2024-05-22", signal="BUY",
            position_size="2%", stop="95", horizon="1 week", confidence=0.7,
            argued={"Bull Researcher": "Data centres keep buying.", "Bear Researcher": "Too expensive."},
            outcome=Outcome(settle_date="2024-05-30", sessions=5, entry_close=100.0, exit_close=110.0, raw_return=0.1,
                            benchmark="SPY", benchmark_return=0.01, alpha=0.09, stop_price=95.0, stop_hit=None,
                            verdict="right"))


def live(script) -> tuple[ModelRegistry, ScriptedChatModel]:
    model = ScriptedChatModel(script=script)
    return ModelRegistry.fixed(model, Settings(), live=True), model


async def test_the_deep_model_writes_it_from_the_calls_figures_and_what_was_argued():
    models, model = live(lambda persona, messages, tools: AIMessage(
        "Right: alpha +9.00 % vs SPY. The Bull's case held, and the Risky Analyst's. Lesson: trust demand data."))
    written = await reflect(CALL, models)
    assert written.outcome is not None
    assert written.outcome.reflection.startswith("Right: alpha +9.00 %") and written.outcome.reflected_by
    [call] = model.calls
    prompt = system_text(call["messages"]) + human_text(call["messages"])
    assert facts(CALL, CALL.outcome) in prompt and "Data centres keep buying." in prompt


async def test_a_figure_the_record_lacks_is_flagged_under_it():
    models, _ = live(lambda persona, messages, tools: AIMessage(
        "Right: alpha +9.00 %, and NVDA earned 42.7 % margins."))
    text = (await reflect(CALL, models)).outcome.reflection
    assert "not found in the data: 42.7 %" in text


async def test_a_failed_model_call_leaves_it_unwritten_for_the_next_pass():
    def fail(persona, messages, tools):
        raise RuntimeError("server down")

    models, _ = live(fail)
    assert await reflect(CALL, models) == CALL


async def test_the_demo_writes_it_from_the_figures_and_says_so():
    text = (await reflect(CALL, ModelRegistry.fixed(ScriptedChatModel(), Settings(), live=False))).outcome.reflection
    assert text.startswith("Demo reflection (synthetic data): the BUY on NVDA was right, alpha +9.00 %")
    assert "Bull Researcher's case held" in text and "Lesson:" in text
