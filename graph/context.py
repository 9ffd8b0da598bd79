"""Per-run context handed to every node through LangGraph's runtime (never a global)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from .inbox import Inbox


@dataclass
class DeskContext:
    inbox: Inbox = field(default_factory=Inbox)
    today: date | None = None  # None: the real today; set for reproducible runs and tests
    # Model names for this run (live mode); None: the settings' defaults. Names, not objects,
    # so one compiled graph serves every choice and the context stays serialisable.
    quick_model: str | None = None
    deep_model: str | None = None
