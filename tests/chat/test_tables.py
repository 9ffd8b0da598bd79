"""Long tables in a turn fold under its message, and the words that say so are the thread's (issue 35,
point 4: the key-figure tables' folds said "rows" in a 中文 thread)."""
from __future__ import annotations

import pytest

from chat.views.tables import figures_in_language, fold_name, split_tables

ROWS = "\n".join(f"| f{i} | {i} |" for i in range(8))
TABLE = f"Key figures (source: x):\n\n| Key figure | Value |\n|---|---|\n{ROWS}"


@pytest.mark.parametrize(("language", "said", "fold"), [
    ("en", "Key figures (source: x): 8 rows, folded below.", "key figures (8 rows)"),
    ("zh", "Key figures (source: x): 共 8 行，已折叠在下方。", "key figures（8 行）"),
])
def test_a_long_table_folds_and_says_so_in_the_thread_s_language(language: str, said: str, fold: str) -> None:
    shown, [table] = split_tables(TABLE, language)
    assert shown == said and table.rows == 8
    assert fold_name(table, language) == fold


def test_a_table_with_no_words_before_it_says_where_it_went() -> None:
    shown, [table] = split_tables(TABLE.split("\n\n", 1)[1], "zh")
    assert shown == "_（8 行数据，已折叠在下方。）_"
    assert fold_name(table, "zh") == "key figures（8 行）"


FIGURES = """My read on NVDA is bearish.
Key figures (source: synthetic):

| Key figure | Value |
|---|---|
| Market Cap | 1496464576 |
| 52W High | 121.26 |
| SMA 50 | 58.49 |
| Something New | 1 |

| Date | Close |
|---|---|
| Close | 3 |"""


@pytest.mark.parametrize(("language", "header", "cap", "high"), [
    ("zh", "| 关键数据 | 数值 |", "| 市值 | 1496464576 |", "| 52 周最高 | 121.26 |"),
    ("zh-Hant", "| 關鍵數據 | 數值 |", "| 市值 | 1496464576 |", "| 52 周最高 | 121.26 |"),
])
def test_a_key_figure_table_in_the_thread_s_language(language: str, header: str, cap: str, high: str) -> None:
    """Issue 35, point 4: the header and the tools' figure names in the thread's language; the values, a name the
    catalogue lacks and a table of another kind as written."""
    shown = figures_in_language(FIGURES, language).split("\n")
    assert shown[0:2] == FIGURES.split("\n")[0:2]
    assert shown[3:6] == [header, "|---|---|", cap] and shown[6] == high
    assert "| SMA 50 | 58.49 |" in shown and "| Something New | 1 |" in shown
    assert shown[-3:] == ["| Date | Close |", "|---|---|", "| Close | 3 |"]
    _, [table] = split_tables(figures_in_language(TABLE, language), language)
    assert fold_name(table, language).startswith(header.split(" | ")[0].lstrip("| ") + "（8 ")


def test_english_tables_are_as_written() -> None:
    assert figures_in_language(FIGURES, "en") == FIGURES
