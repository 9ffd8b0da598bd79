"""A recorded emitter on Chainlit's context, so handlers run without a server or a browser."""
from __future__ import annotations

import asyncio
import uuid

import chainlit.data
import pytest
from chainlit.context import ChainlitContext, context_var, local_steps
from chainlit.config import FILES_DIRECTORY
from chainlit.emitter import BaseChainlitEmitter
from chainlit.session import HTTPSession

from chat.runs import DeskService
from graph.settings import Settings


class RecordedEmitter(BaseChainlitEmitter):
    """Keeps every UI event; `messages` folds them into the messages the user would see."""

    def __init__(self, session):
        super().__init__(session)
        self.events: list[tuple[str, object]] = []

    async def emit(self, event, data):
        self.events.append((event, data))

    async def send_step(self, step_dict):
        self.events.append(("new_message", dict(step_dict)))

    async def update_step(self, step_dict):
        self.events.append(("update_message", dict(step_dict)))

    async def stream_start(self, step_dict):
        self.events.append(("stream_start", dict(step_dict)))

    async def send_token(self, id, token, is_sequence=False, is_input=False):
        self.events.append(("stream_token", {"id": id, "token": token}))

    async def send_element(self, element_dict):
        self.events.append(("element", dict(element_dict)))

    async def set_commands(self, commands):
        self.events.append(("set_commands", commands))

    def set_chat_settings(self, settings):
        self.session.chat_settings = settings

    def named(self, name):
        return [d for n, d in self.events if n == name]

    @property
    def messages(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for name, data in self.events:
            if name in ("new_message", "update_message", "stream_start"):
                out.setdefault(data["id"], {}).update(data)
            elif name == "stream_token" and data["id"] in out:
                out[data["id"]]["output"] = out[data["id"]].get("output", "") + data["token"]
        return out

    def by_author(self, author: str) -> list[dict]:
        return [m for m in self.messages.values() if m.get("name") == author and m.get("type") == "assistant_message"]

    def authors(self) -> list[str]:
        seen: list[str] = []
        for m in self.messages.values():
            if m.get("type") == "assistant_message" and m["name"] not in seen:
                seen.append(m["name"])
        return seen


@pytest.fixture
async def emitter(monkeypatch):
    """A Chainlit context whose emitter records; an HTTP session, so nothing is queued, and no
    data layer (its writes are detached tasks that would outlive the test's loop)."""
    monkeypatch.setattr(chainlit.data, "_data_layer", None)
    monkeypatch.setattr(chainlit.data, "_data_layer_initialized", True)
    FILES_DIRECTORY.mkdir(exist_ok=True)  # elements are kept there for the session
    session = HTTPSession(id=str(uuid.uuid4()), thread_id=str(uuid.uuid4()), token=None, user=None,
                          client_type="webapp", user_env={})
    ctx = ChainlitContext(session, RecordedEmitter(session))
    token = context_var.set(ctx)
    steps = local_steps.set(None)
    yield ctx.emitter
    local_steps.reset(steps)
    context_var.reset(token)


@pytest.fixture
async def service(tmp_path, monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "DESK_MODE"):
        monkeypatch.delenv(var, raising=False)
    svc = DeskService(Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0))
    yield svc
    await svc.close()


async def wait_until(predicate, timeout: float = 20.0, what: str = "condition"):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if predicate():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"timed out waiting for {what}")
