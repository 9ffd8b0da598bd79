"""Point 5 of issue 40, on LangGraph Server: a run's call is followed by the paper book of the run's authenticated user
and by no one else's. The graph is the one the server serves (graph/server.py's make_graph), given a store and a
checkpointer as the server gives them, and run as the server runs it: its authenticated user in the config
(`langgraph_auth_user_id`, which graph/core/context.py's user_of trusts over anything a client sends in the context).
The books are started and shown with the run's own words (`/paper start 100000`, `/paper`: graph/nodes/paper.py)."""
from __future__ import annotations

import itertools
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import time_machine
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from graph.core.context import DeskContext, thread_config
from graph.core.settings import Settings
from graph.data import make_vendor
from graph.paper.keeper import PaperKeeper
from graph.server import make_graph
from graph.track.log import DecisionLog

OPT_IN = datetime(2024, 5, 6, 13, 0, tzinfo=UTC)     # Mon 2024-05-06, before the US open
ASKED = datetime(2024, 5, 6, 21, 0, tzinfo=UTC)      # after that day's close
LATER = datetime(2024, 5, 9, 21, 0, tzinfo=UTC)      # the 7th and the 8th have closed
_threads = itertools.count()


class Server:
    """The served graph over one store, run as the server runs it for an authenticated user."""

    def __init__(self, settings: Settings):
        self.store = InMemoryStore()
        self.graph = make_graph(settings).copy(update={"store": self.store, "checkpointer": InMemorySaver()})

    async def say(self, account: str, text: str, **context: Any) -> str:
        config = thread_config(f"thread-{next(_threads)}")
        config["configurable"]["langgraph_auth_user_id"] = account
        values = await self.graph.ainvoke({"messages": [HumanMessage(text)]}, config,
                                          context=DeskContext(**context) if context else None)
        return str(values["messages"][-1].content)


async def test_a_server_run_lands_in_its_users_paper_book_and_not_anothers(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, demo_delay_ms=0, demo_first_token_ms=0)
    server = Server(settings)
    with time_machine.travel(OPT_IN, tick=False):
        assert "From now on, each new call of yours" in await server.say("alice", "/paper start 100000")
        assert "From now on" in await server.say("bob", "follow my calls on paper with 50,000")
    with time_machine.travel(ASKED, tick=False):
        # alice's run, whose client claims to be bob's: the authenticated user is the one the call belongs to.
        await server.say("alice", "should I buy NVDA today?", user="bob", source="chat")
    (call,) = await DecisionLog(server.store).calls("alice")
    assert (call.ticker, call.source, call.trade_date) == ("NVDA", "server", "2024-05-06")
    assert await DecisionLog(server.store).calls("bob") == []
    with time_machine.travel(LATER, tick=False):
        alices = await server.say("alice", "/paper")
        bobs = await server.say("bob", "/paper")
        keeper = PaperKeeper(server.store, make_vendor(settings))
        alice, bob = await keeper.settle("alice", LATER.date()), await keeper.settle("bob", LATER.date())
    assert alice is not None and bob is not None
    assert [(o.call_id, o.source) for o in alice.book.orders] == [(call.id, "server")]
    assert bob.book.orders == [] and not bob.ledger.trades
    assert "**Your paper book**" in alices and call.thread_id in alices
    assert "**Trades**\n- none" in bobs and "NVDA" not in bobs
    if call.signal != "HOLD":  # the demo's ruling that day; a trade at the next session's open
        assert [t.day for t in alice.ledger.trades][:1] == [date(2024, 5, 7)]
        # Table 1's figures, with SPY beside them: the served graph scores the curve.
        assert "- SPY, the benchmark of NVDA: CR" in alices


async def test_the_paper_book_is_stopped_from_a_run_too(tmp_path: Path) -> None:
    server = Server(Settings(data_dir=tmp_path, demo_delay_ms=0, demo_first_token_ms=0))
    with time_machine.travel(OPT_IN, tick=False):
        assert "There is no paper book to stop." in await server.say("alice", "/paper stop")
        await server.say("alice", "/paper start")
        assert "You already follow your calls on paper" in await server.say("alice", "/paper start 5000")
        assert "no longer followed" in await server.say("alice", "/paper stop")
        assert "Followed your calls from 2024-05-06 to 2024-05-06" in await server.say("alice", "/paper")
