"""Number and table formatting for the tools' figures and text.

Figures are rounded here, never invented: anything that is not a finite number
becomes ``None`` in a figure and ``n/a`` in text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..data.vendor import finite


def r2(value: object) -> float | None:
    """A finite number rounded to 2 decimals, else None."""
    number = finite(value)
    return None if number is None else round(number, 2)


def pct(fraction: object) -> float | None:
    """0.1234 -> 12.34 (vendors give fractions, figures show percent)."""
    number = finite(fraction)
    return None if number is None else round(number * 100, 2)


def whole(value: object) -> int | None:
    """A finite number rounded to an int, else None."""
    number = finite(value)
    return None if number is None else round(number)


def human(value: object) -> str:
    """12345678 -> '12.35M'; keeps tables short for the model."""
    number = finite(value)
    if number is None:
        return "n/a"
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(number) >= size:
            return f"{number / size:.2f}{suffix}"
    return f"{number:.2f}"


def show(value: object) -> str:
    """A cell or figure as text: ``n/a`` for None."""
    return "n/a" if value is None else str(value)


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A ``|``-separated text table, header first."""
    lines = [" | ".join(header)]
    lines += [" | ".join(show(cell) for cell in row) for row in rows]
    return "\n".join(lines)


# Text fetched from the web (headlines, posts) reaches the model between these markers, which the
# analyst's rules (prompts/analyst.md) call quoted data, never instructions: a post of 280
# characters is otherwise a way to steer the desk.
QUOTE_OPEN, QUOTE_CLOSE = "<quoted>", "</quoted>"
_MARKER = re.compile(r"<\s*/?\s*quoted\s*>", re.I)


def quoted(lines: Sequence[str]) -> list[str]:
    """Fetched lines between the markers, each on one line and with no marker of its own."""
    return [QUOTE_OPEN, *(" ".join(_MARKER.sub("", line).split()) for line in lines), QUOTE_CLOSE]
