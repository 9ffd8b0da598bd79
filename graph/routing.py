"""One routing function for any debate: who speaks next, or None when it is the judge's turn."""
from __future__ import annotations

from collections.abc import Sequence

from .state import Debate


def next_speaker(debate: Debate, sides: Sequence[str], rounds: int) -> str | None:
    """Sides speak in order, `rounds` times each; then the debate goes to its judge."""
    if debate.count >= len(sides) * rounds:
        return None
    return sides[debate.count % len(sides)]
