"""Going on with a stopped run by typing, in English or Chinese (either script), as the Chinese texts say."""
from __future__ import annotations

import pytest

from chat.runs import asks_to_resume
from graph.core.words import phrase


@pytest.mark.parametrize("text", ["resume", "Resume.", "continue", "go on!", "继续", "繼續", "继续。", "恢复",
                                  "接着来！"])
def test_these_resume(text):
    assert asks_to_resume(text)


@pytest.mark.parametrize("text", ["resume backtest 1a2b", "继续分析英伟达", "continue with AMD", "NVDA"])
def test_these_do_not(text):
    assert not asks_to_resume(text)


def test_the_chinese_texts_name_a_word_that_resumes():
    for key in ("chat.stopped", "chat.resume_offer", "errors.empty_answer"):
        said = phrase("zh", key, persona="风险裁判", tries=2)
        assert "输入“继续”" in said and asks_to_resume("继续"), said
