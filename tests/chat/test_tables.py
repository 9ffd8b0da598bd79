"""Long tables in a turn fold under its message, and the words that say so are the thread's (issue 35,
point 4: the key-figure tables' folds said "rows" in a 中文 thread)."""
from __future__ import annotations

import pytest

from chat.views.tables import fold_name, split_tables

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
