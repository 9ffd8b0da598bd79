"""Holdings told in traditional characters are read as in simplified ones (the reader's Chinese words are
Simplified: the message is read converted) and answered in traditional characters, the clauses quoted back
as written (issue 24 with issue 26's book)."""
from __future__ import annotations

from decimal import Decimal

import pytest

from graph.book.holdings import Book, Position
from graph.book.words import read_holdings, tells_holdings
from graph.core.chinese_script import chinese_script


@pytest.mark.parametrize("traditional, simplified", [
    ("我持有200股輝達，成本120", "我持有200股英伟达，成本120"),
    ("現金2萬", "现金2万"),
    ("我有100股蘋果", "我有100股苹果"),
    ("我賣出了一半蘋果", "我卖出了一半苹果"),
])
def test_traditional_reads_as_simplified(traditional, simplified):
    book = Book(positions=(Position("AAPL", Decimal(100)),))
    assert tells_holdings(traditional) == tells_holdings(simplified) is True
    trad, simp = read_holdings(traditional, book), read_holdings(simplified, book)
    assert trad.language == "zh-Hant" and simp.language == "zh"
    assert [(c.symbol, c.after, c.cash) for c in trad.changes] == [(c.symbol, c.after, c.cash) for c in simp.changes]
    assert trad.changes and not trad.problems
    assert all(chinese_script(c.text) != "zh" for c in trad.changes), [c.text for c in trad.changes]


def test_what_cannot_be_read_is_quoted_back_as_written():
    reading = read_holdings("賣出一半蘋果")
    [problem] = reading.problems
    assert problem.text == "賣出一半蘋果"
    assert "持倉" in problem.told(reading.language) and "持仓" not in problem.told(reading.language)
