"""Markdown tables in a persona's turn. Chainlit's page re-renders a message's whole Markdown on every
streamed update, and a table that grows row by row reflows the page each time: while a turn streams
its table rows are held back (`shown_so_far`), and a turn's final text keeps short tables in place and
folds long ones into a step under its message (`split_tables`). An analyst's key-figure table (the
`| Key figure | Value |` its prompt asks for, named as the data tools name the figures) is shown in the
thread's language (`figures_in_language`)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from graph import figure_label, phrase

from ..languages import DEFAULT

# Tables with more body rows than this are folded into a step under their message.
FOLD_ROWS = 5


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


FIGURES_HEADER = ["key figure", "value"]


def figures_in_language(text: str, language: str = DEFAULT) -> str:
    """`text` with each key-figure table's header and figure names in `language` (the catalogue's
    [figures]); a name it does not know, and every value, as written."""
    if language == DEFAULT:
        return text
    lines = text.split("\n")
    inside = False
    for i, line in enumerate(lines):
        if not _is_row(line):
            inside = False
            continue
        cells = _cells(line)
        if not inside and [c.lower() for c in cells] == FIGURES_HEADER:
            inside = True
            lines[i] = "| " + " | ".join(figure_label(language, c) for c in ("Key figure", "Value")) + " |"
        elif inside and cells and not set(line.strip()) <= set("|-: "):
            lines[i] = "| " + " | ".join([figure_label(language, cells[0]), *cells[1:]]) + " |"
    return "\n".join(lines)


def shown_so_far(raw: str) -> str:
    """What of a turn's words streamed so far may be shown now: every line but table rows, and
    the line being written once it is known not to start a row. Grows only by appending, so it
    can be streamed."""
    lines = raw.split("\n")
    done, last = lines[:-1], lines[-1]
    out = [line for line in done if not _is_row(line)]
    text = "\n".join(out) + ("\n" if done else "")
    if last.strip() and not _is_row(last):
        text += last
    return text


@dataclass(frozen=True)
class Table:
    rows: int          # body rows (header and separator left out)
    text: str


def split_tables(text: str, language: str = DEFAULT) -> tuple[str, list[Table]]:
    """A turn's final text without its long tables (each put back as a table to fold), short
    tables left where they are; where each went said in the thread's `language`."""
    kept: list[str] = []
    folded: list[Table] = []
    block: list[str] = []

    def close() -> None:
        if not block:
            return
        body = [r for r in block[1:] if not set(r.strip()) <= set("|-: ")]
        if len(body) > FOLD_ROWS:
            folded.append(Table(len(body), "\n".join(line.rstrip() for line in block)))
            # The words that introduce the table say where it went.
            last = next((i for i in range(len(kept) - 1, -1, -1) if kept[i].strip()), None)
            if last is not None and kept[last].rstrip().endswith(":"):
                kept[last] = f"{kept[last].rstrip()} " + phrase(language, "chat.table_rows_below", rows=len(body))
            else:
                kept.append("_" + phrase(language, "chat.table_folded", rows=len(body)) + "_")
        else:
            kept.extend(block)
        block.clear()

    for line in text.split("\n"):
        if _is_row(line):
            block.append(line)
        else:
            close()
            kept.append(line)
    close()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip(), folded


def fold_name(table: Table, language: str = DEFAULT) -> str:
    """The fold's title, after its first column ("Used key figures (17 rows)" on the page), in the thread's
    `language` (the column's own words are the model's)."""
    header = _cells(table.text.split("\n", 1)[0])
    if not (header and header[0]):
        return phrase(language, "chat.table_fold", what=phrase(language, "chat.table_figures"), rows=table.rows)
    what = header[0].lower() if header[0].isascii() else header[0]
    what = what if what.endswith("s") or not what.isascii() else what + "s"
    return phrase(language, "chat.table_fold", what=what, rows=table.rows)
