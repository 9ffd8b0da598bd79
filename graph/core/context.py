"""Per-run context handed to every node through LangGraph's runtime (never a global).

Plain values only, so it can cross a process (LangGraph Server): the inbox lives in the
Store, the models in the registry, looked up by the names given here.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass
class DeskContext:
    today: date | None = None  # None: the real today; set for reproducible runs and tests
    # Model names for this run (live mode); None: the settings' defaults.
    quick_model: str | None = None
    deep_model: str | None = None

    def __post_init__(self) -> None:
        # A context sent as JSON (LangGraph Server, Studio, langgraph-sdk) carries the date as text.
        if isinstance(self.today, str):
            self.today = date.fromisoformat(self.today)
