"""Markdown tables in a persona's turn. Chainlit's page re-renders a message's whole Markdown on every
streamed update, and a table that grows row by row reflows the page each time: while a turn streams
its table rows are held back (`shown_so_far`), and a turn's final text keeps short tables in place and
folds long ones into a step under its message (`split_tables`)."""
from __future__ import annotations

import re
from dataclasses import dataclass

# Tables with more body rows than this are folded into a step under their message.
FOLD_ROWS = 5


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


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


def split_tables(text: str) -> tuple[str, list[Table]]:
    """A turn's final text without its long tables (each put back as a table to fold), short
    tables left where they are."""
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
                kept[last] = f"{kept[last].rstrip()} {len(body)} rows, folded below."
            else:
                kept.append(f"_({len(body)} rows of figures, folded below.)_")
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


def fold_name(table: Table) -> str:
    """The fold's title, after its first column ("Used key figures (17 rows)" on the page)."""
    header = [c.strip() for c in table.text.split("\n", 1)[0].strip().strip("|").split("|")]
    what = header[0].lower() if header and header[0] else "figures"
    what = what if what.endswith("s") else what + "s"
    return f"{what} ({table.rows} rows)"
