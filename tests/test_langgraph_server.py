"""The desk on LangGraph Server: `langgraph dev` (langgraph.json, graph id `desk`) on a loopback
port in demo mode, driven with langgraph-sdk as Studio or Agent Chat UI would drive it.

One analysis is run for the module (the server is slow to start); the tests read what it
streamed and what the thread kept.
"""
from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph.store.memory import InMemoryStore
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

from graph import note_item
from graph.core.personas import ANALYSTS
from graph.notes.inbox import Inbox, Note
from tests.support.env import demo_env
from tests.support.ports import free_port
from tests.support.processes import end_group

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "should I buy NVDA today?"
NOTE = "what about the China export ban?"
ANALYST_PERSONAS = {a.persona for a in ANALYSTS}
# After the analysts, one speaker at a time (one round each by default).
SPEAKERS = ["Bull Researcher", "Bear Researcher", "Research Manager", "Trader",
            "Risky Analyst", "Safe Analyst", "Neutral Analyst", "Risk Judge"]
# Anything that would send something off the machine: tracing, the CLI's analytics, the
# version check, a LangSmith key or licence from the developer's shell.
OFFLINE_ENV = {"LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1",
               "LANGGRAPH_NO_VERSION_CHECK": "true", "PYTHONUNBUFFERED": "1"}
DROP_ENV = ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT",
            "LANGGRAPH_CLOUD_LICENSE_KEY", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING")


class LangGraphDev:
    """`langgraph dev` in its own folder (its `.langgraph_api` persistence and the desk's data go
    there, not into the checkout), in its own process group so teardown stops all of it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log_path = folder / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> None:
        env = demo_env(drop=DROP_ENV, DESK_DATA_DIR=str(self.folder / "data"), **OFFLINE_ENV)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "langgraph_cli", "dev", "--config", str(ROOT / "langgraph.json"),
                 "--host", "127.0.0.1", "--port", str(free_port()), "--no-browser", "--no-reload"],
                cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"langgraph dev exited:\n{self.log()}")
            # The port it really took: it moves to another one if ours was taken meanwhile.
            if not self.url and (m := re.search(r"API: \S*?(http://127\.0\.0\.1:\d+)", self.log())):
                self.url = m.group(1)
            if self.url:
                try:
                    if httpx.get(f"{self.url}/ok", timeout=2).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
            time.sleep(0.2)
        raise RuntimeError(f"langgraph dev did not come up:\n{self.log()}")

    def stop(self) -> None:
        end_group(self.proc, wait_s=15)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LangGraphDev]:
    dev = LangGraphDev(tmp_path_factory.mktemp("langgraph_dev"))
    try:
        dev.start()
        yield dev
    finally:
        dev.stop()


@pytest.fixture(scope="module")
def client(server: LangGraphDev) -> SyncLangGraphClient:
    return get_sync_client(url=server.url)


@dataclass
class Analysis:
    thread_id: str
    events: list[tuple[str, Any]] = field(default_factory=list)   # ("token", persona) etc., in order
    state: dict[str, Any] = field(default_factory=dict)
    errors: list[Any] = field(default_factory=list)

    def first_tokens(self) -> list[str]:
        """Personas in the order their first token arrived."""
        seen: list[str] = []
        for kind, what in self.events:
            if kind == "token" and what not in seen:
                seen.append(what)
        return seen

    def customs(self, event: str) -> list[dict[str, Any]]:
        return [what for kind, what in self.events if kind == "custom" and what.get("event") == event]


def post_note(client: SyncLangGraphClient, thread_id: str, text: str) -> None:
    """An interjection through the server's store API, into the inbox the next speaker reads."""
    client.store.put_item(*note_item(thread_id, text))  # a unique key: no need to read the inbox first


def stream(client: SyncLangGraphClient, thread_id: str, text: str, analysis: Analysis,
           note: str | None = None) -> None:
    """Run one message on the thread; post `note` once the first analyst speaks."""
    for part in client.runs.stream(thread_id, "desk", input={"messages": [{"role": "user", "content": text}]},
                                   stream_mode=["messages-tuple", "updates", "custom"]):
        if part.event == "messages":
            chunk, meta = part.data
            persona = meta.get("persona")
            if persona and chunk.get("content"):
                analysis.events.append(("token", persona))
                if note and persona in ANALYST_PERSONAS:
                    post_note(client, thread_id, note)
                    analysis.events.append(("posted", note))
                    note = None
        elif part.event == "custom":
            analysis.events.append(("custom", part.data))
        elif part.event == "updates":
            analysis.events.extend(("node", node) for node in part.data)
        elif part.event == "error":
            analysis.errors.append(part.data)
    analysis.state = client.threads.get_state(thread_id)["values"]


@pytest.fixture(scope="module")
def analysis(client: SyncLangGraphClient) -> Analysis:
    """No context, no config: the defaults (the real today, the settings' models)."""
    done = Analysis(client.threads.create()["thread_id"])
    stream(client, done.thread_id, QUESTION, done, note=NOTE)
    return done


@pytest.fixture(scope="module")
def followup(client: SyncLangGraphClient, analysis: Analysis) -> Analysis:
    after = Analysis(analysis.thread_id)
    stream(client, analysis.thread_id, "why was the bear worried?", after)
    return after


def test_a_note_item_is_what_the_inbox_reads() -> None:
    """The store item the SDK puts is the one graph/notes/inbox.py reads, after the notes posted before it."""
    store = InMemoryStore()

    async def post_and_read() -> tuple[Note, list[Note]]:
        first = await Inbox(store).post("t1", "first")
        namespace, key, value = note_item("t1", "second", to="Bear Researcher")
        await store.aput(tuple(namespace), key, value)
        return first, await Inbox(store).unread("t1", [first.key])

    first, [second] = asyncio.run(post_and_read())
    assert (second.text, second.to) == ("second", "Bear Researcher")
    assert second.key != first.key and second.seq != first.seq


@pytest.mark.e2e
def test_the_desk_is_served_under_its_id(client: SyncLangGraphClient) -> None:
    (assistant,) = client.assistants.search(graph_id="desk")
    # Studio draws the graph and shows the run context (DeskContext) as a form.
    nodes = {n["id"] for n in client.assistants.get_graph(assistant["assistant_id"])["nodes"]}
    assert {"coordinator", "followup", "bull", "bear", "risk_judge"} <= nodes
    schemas = client.assistants.get_schemas(assistant["assistant_id"])
    assert {"today", "quick_model", "deep_model"} <= set(schemas["context_schema"]["properties"])


@pytest.mark.e2e
def test_every_persona_streams_in_turn(analysis: Analysis) -> None:
    assert analysis.errors == []
    order = analysis.first_tokens()
    assert set(order[:4]) == ANALYST_PERSONAS  # in parallel, in any order
    assert order[4:] == SPEAKERS
    tools = {e["persona"] for e in analysis.customs("tool_finished")}
    assert tools == ANALYST_PERSONAS


@pytest.mark.e2e
def test_the_run_reaches_a_decision(analysis: Analysis) -> None:
    decision = analysis.state["final_decision"]
    assert decision["signal"] in {"BUY", "SELL", "HOLD"}
    assert decision["ticker"] == "NVDA"
    # The thread keeps the conversation: Desk's reading of the request, then every turn.
    said = [m["name"] for m in analysis.state["messages"] if m["type"] == "ai"]
    assert said[0] == "Desk" and set(said[1:5]) == ANALYST_PERSONAS and said[5:] == SPEAKERS


@pytest.mark.e2e
def test_a_note_put_in_the_store_reaches_the_next_speaker(analysis: Analysis) -> None:
    (picked,) = analysis.customs("note_picked_up")
    assert picked["text"] == NOTE
    # Posted while the analysts spoke (they had read the inbox already): the first speaker after them.
    assert picked["persona"] == SPEAKERS[0]
    assert analysis.events.index(("posted", NOTE)) < analysis.events.index(("token", SPEAKERS[0]))
    (recorded,) = analysis.state["interventions"]
    assert recorded == {"seq": picked["seq"], "text": NOTE, "answered_by": [SPEAKERS[0]]}
    answer = next(m for m in analysis.state["messages"] if m.get("name") == SPEAKERS[0])
    assert NOTE in answer["content"]


@pytest.mark.e2e
def test_a_followup_is_answered_from_the_thread(analysis: Analysis, followup: Analysis) -> None:
    assert followup.errors == []
    assert [what for kind, what in followup.events if kind == "node"] == ["coordinator", "followup"]
    assert followup.first_tokens() == ["Desk"]
    answer = followup.state["messages"][-1]
    assert answer["name"] == "Desk" and "Bear" in answer["content"]
    assert followup.state["final_decision"] == analysis.state["final_decision"]


@pytest.mark.e2e
def test_a_context_sent_as_json_sets_the_date(client: SyncLangGraphClient) -> None:
    thread_id = client.threads.create()["thread_id"]
    # Stopped after the coordinator: the request is all this test needs.
    client.runs.wait(thread_id, "desk", input={"messages": [{"role": "user", "content": QUESTION}]},
                     context={"today": "2024-05-04"}, interrupt_after=["coordinator"])
    values = client.threads.get_state(thread_id)["values"]
    assert (values["asked_date"], values["trade_date"]) == ("2024-05-04", "2024-05-03")  # a Saturday: Friday
