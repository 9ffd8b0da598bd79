"""Per-run context handed to every node through LangGraph's runtime (never a global).

Plain values only, so it can cross a process (LangGraph Server): the inbox lives in the
Store, the models in the registry, looked up by the names given here.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig

# A full analysis is ~20 steps per debate round; the default 25 would stop a 3-round desk.
RECURSION_LIMIT = 200


def thread_config(thread_id: str, callbacks: list[BaseCallbackHandler] | None = None) -> RunnableConfig:
    """How LangGraph is told which thread a call is about (and how long a run may be)."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}, "recursion_limit": RECURSION_LIMIT}
    if callbacks:
        config["callbacks"] = callbacks
    return config


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
