"""Per-run context handed to every node through LangGraph's runtime (never a global).

Plain values only, so it can cross a process (LangGraph Server): the inbox lives in the
Store, the models in the registry, looked up by the names given here.
"""
from __future__ import annotations

import re
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


LOCAL_USER = "local"  # the user of a desk run alone (the CLI, a chat with no accounts)
# A backtest's id as a run's context may name it (graph/backtest/record.py new_id makes 8 hex digits):
# one plain word, so the memory user it names cannot climb out of the user's own.
BACKTEST_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def backtest_user(user: str, backtest: str) -> str:
    """Whose track record a backtest's days write and recall: the backtest's own, under its user
    (graph/backtest/record.py memory_user says why)."""
    return f"{user}/backtest/{backtest}"


def user_of(config: RunnableConfig, context: DeskContext | None) -> tuple[str, str]:
    """The user a run belongs to, and its source: the authenticated user on LangGraph Server
    (never the context a client sent), else the context's, else the local user. On the server a
    context naming a backtest makes it that backtest's own memory under the authenticated user: a
    client names which of its own backtests, never whose."""
    configurable = config.get("configurable") or {}
    if server_user := configurable.get("langgraph_auth_user_id"):
        backtest = context.backtest if context is not None else None
        if backtest and BACKTEST_ID.fullmatch(backtest):
            return backtest_user(str(server_user), backtest), "backtest"
        return str(server_user), "server"
    if context is not None and context.user:
        return context.user, context.source
    return LOCAL_USER, context.source if context is not None else "cli"


@dataclass
class DeskContext:
    today: date | None = None  # None: the real today; set for reproducible runs and tests
    # Model names for this run (live mode); None: the settings' defaults.
    quick_model: str | None = None
    deep_model: str | None = None
    # Whose track record the run reads and writes (graph/track/), and from where it runs. The chat
    # sets the signed-in user; LangGraph Server's authenticated user overrides whatever a client sends.
    user: str | None = None
    source: str = "cli"
    # On LangGraph Server: the id of the backtest this run is a day of, whose own track record the run
    # reads and writes under the authenticated user (user_of; graph/backtest/server_days.py sends it).
    backtest: str | None = None

    def __post_init__(self) -> None:
        # A context sent as JSON (LangGraph Server, Studio, langgraph-sdk) carries the date as text.
        if isinstance(self.today, str):
            self.today = date.fromisoformat(self.today)
