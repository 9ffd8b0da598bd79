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


def test_a_chinese_ruling_is_read():
    ruling = ("信号：卖出\n仓位：组合的 1.5%\n入场：43.10 附近\n止损：47.00\n期限：2-4 周\n置信度：75\n"
              "理由：估值过高，动能转弱。")
    d = decision_from_text(ruling, "NVDA", "2024-05-06")
    assert d is not None
    assert (d.signal, d.position_size, d.entry, d.stop, d.horizon, d.confidence) == (
        "SELL", "组合的 1.5%", "43.10 附近", "47.00", "2-4 周", 0.75)
    assert d.rationale == "估值过高，动能转弱。"
    traditional = parse_ruling("信號: 買入 · 倉位: 2% · 止損: 850")
    assert (traditional["signal"], traditional["position_size"], traditional["stop"]) == ("BUY", "2%", "850")


def test_a_chinese_template_echo_is_no_decision_either():
    assert parse_ruling("信号：买入、卖出或持有")["signal"] is None


def test_a_plans_stated_call():
    from graph.models.ruling import stated_call

    assert stated_call("Long story.\n\nFINAL TRANSACTION PROPOSAL: **BUY**") == "BUY"
    assert stated_call("Recommendation: Sell. The bear case holds.") == "SELL"
    assert stated_call("**Hold** for now: the evidence is mixed.\nMore words.") == "HOLD"
    assert stated_call("建议：持有。\n理由……") == "HOLD"
    assert stated_call("Buy or sell? Either could work.") is None


def test_the_chinese_words_for_a_call_in_either_script():
    """Taiwan's 買進, a trader's 加仓 / 减仓 / 清仓, 持倉不動: each one call, read into the card's signal."""
    from graph.models.ruling import stated_call
    cases = {"信号：买进": "BUY", "信號：買進": "BUY", "信号：加仓": "BUY", "信號：建倉": "BUY",
             "信号：减仓": "SELL", "信號：清倉": "SELL", "信号：卖掉": "SELL", "信號：持倉不動": "HOLD",
             "最终交易建议：卖出": "SELL", "最終決定：買進": "BUY"}
    for text, signal in cases.items():
        assert parse_ruling(text)["signal"] == signal, text
    assert stated_call("多空双方都有道理……\n\n最终交易建议：**卖出**") == "SELL"
    assert stated_call("最終交易建議：**買進**") == "BUY"
    assert parse_ruling("信號：買進或賣出")["signal"] is None  # a template echoed is no decision
    assert parse_ruling("信号：再看看")["signal"] is None  # no call word: no decision read into it


def test_a_confidence_the_judge_did_not_state_is_shown_as_none_not_made_up():
    # It read as 0.5 before, and the card showed "50%" for a number nobody gave.
    from chat.views.card import card_markdown
    from graph.record.edits import short_decision

    decision = decision_from_text("Signal: BUY\nPosition size: 2%\nRationale: trend up.", "NVDA", "2024-05-03")
    assert decision is not None and decision.confidence is None
    assert dict(decision.rows())["Confidence"] == "—"
    assert "| **Confidence** | — |" in card_markdown(decision) and "50%" not in card_markdown(decision)
    assert short_decision(decision) == "BUY 2%"
    stated = decision_from_text("Signal: BUY\nConfidence: 70%", "NVDA", "2024-05-03")
    assert stated is not None and stated.confidence == 0.7


def test_a_confidence_out_of_ten_is_read_as_a_fraction():
    # "7/10" read 0.07 before
    assert parse_ruling("Signal: BUY\nConfidence: 7/10")["confidence"] == 0.7
    assert parse_ruling("Signal: SELL\nConfidence: 8 out of 10")["confidence"] == 0.8
    assert parse_ruling("Signal: HOLD\nConfidence: high")["confidence"] is None


def test_an_edit_line_without_a_confidence_is_worded_in_the_threads_language():
    from chat.edits import change_words

    line = change_words("was BUY 2% → now HOLD at 0.55", "zh")
    assert "未说明置信度" in line and "置信度 0.55" in line and "BUY 2%" not in line.replace("BUY 仓位 2%", "")
    assert "no confidence stated" in change_words("was BUY 2% → now HOLD at 0.55", "en")
