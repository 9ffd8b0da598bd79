"""Reading a ruling the judge wrote as text: one signal or none, never a guess."""
from __future__ import annotations

from graph.models.ruling import decision_from_text, parse_ruling


def test_a_ruling_on_one_line_is_read():
    fields = parse_ruling("Signal: SELL · Position size: 1.8% · Entry: 42.93 · Stop: 47.00 · Confidence: 80")
    assert fields["signal"] == "SELL" and fields["position_size"] == "1.8%" and fields["confidence"] == 0.8


def test_the_prompts_template_echoed_back_is_no_decision():
    # SmolLM2-135M on llama.cpp repeated the judge's template; its first word is not a ruling.
    echo = "Signal: BUY, SELL or HOLD · Entry: price of the investment · Stop: price · Confidence: 0-1"
    assert parse_ruling(echo)["signal"] is None
    assert decision_from_text(echo, "NVDA", "2026-11-20") is None


def test_no_signal_is_no_decision():
    assert decision_from_text("I would wait and see.", "NVDA", "2026-11-20") is None
