"""Markdown read as one line of plain words (graph/core/plain.py): what a folded message and a quoted ruling show
(issue 35, point 5: "- Risk Judge: "**SELL …" and "## 🔴 SELL NVDA · 2026-11-27 > ✏️ …" showed their marks)."""
from __future__ import annotations

import pytest

from graph.core.plain import plain_line


@pytest.mark.parametrize("markdown,plain", [
    ("## 🔴 SELL NVDA · 2026-11-27\n\n> ✏️ After your edit of the **Bull Researcher**: was",
     "🔴 SELL NVDA · 2026-11-27 ✏️ After your edit of the Bull Researcher: was"),
    ('From the stored deliberation on NVDA:\n- Risk Judge: "**SELL NVDA**: 1.0% at 45.71"',
     'From the stored deliberation on NVDA: Risk Judge: "SELL NVDA: 1.0% at 45.71"'),
    ("1. first\n2) second\n***\n* bullet\n+ plus\n> > nested quote", "first second bullet plus nested quote"),
    ("| **Signal** | 🔴 **SELL** |\n|---|---|\n| Entry | 45.71 |", "Signal · 🔴 SELL Entry · 45.71"),
    ("_italic_, ***both***, **_mixed_**, ~~struck~~, `code`, [the link](http://x.example) and ![a chart](y.png)",
     "italic, both, mixed, struck, code, the link and a chart"),
    ("~~~text\nfenced **words**\n~~~", "fenced words"),
    ("**SELL …", "SELL …"),  # an emphasis cut off by a fold
])
def test_marks_go_words_stay(markdown: str, plain: str) -> None:
    assert plain_line(markdown) == plain


def test_what_is_not_a_mark_stays() -> None:
    text = "snake_case_name, RSI > 70, rank #1, 2 * 3, 45.71 - 40.00 = 5.71, C++ and a_b"
    assert plain_line(text) == text


def test_one_line() -> None:
    assert plain_line("a\n\n  b\tc\n") == "a b c" and plain_line("") == ""
