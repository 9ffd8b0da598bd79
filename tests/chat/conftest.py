"""Fixtures for the chat handlers: a recorded emitter on Chainlit's context, the desk service, and our data layer
with a thread of alice's."""
from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import chainlit as cl
import chainlit.data
import pytest
from chainlit.config import FILES_DIRECTORY
from chainlit.context import ChainlitContext, context_var, local_steps
from chainlit.session import HTTPSession

from chat import history, storage
from chat.history.layer import DeskDataLayer
from chat.runs import DeskService
from graph.core.settings import Settings
from tests.support.emitter import RecordedEmitter


@pytest.fixture
async def emitter(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[RecordedEmitter]:
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
async def service(tmp_path, no_model_env) -> AsyncIterator[DeskService]:
    svc = DeskService(Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0))
    yield svc
    await svc.close()


@pytest.fixture
async def alices_thread(tmp_path: Path,
                        emitter: RecordedEmitter) -> AsyncIterator[tuple[DeskDataLayer, cl.PersistedUser, str]]:
    """Our data layer over a new chat database in `tmp_path`, the user alice, and the emitter's thread, named NVDA,
    hers: (layer, alice, thread id)."""
    storage.create_schema(storage.chat_db_path(tmp_path))
    layer = history.make_data_layer(tmp_path)
    try:
        user = await layer.create_user(cl.User(identifier="alice"))
        assert user is not None
        thread_id = emitter.session.thread_id
        await layer.update_thread(thread_id, name="NVDA", user_id=user.id)
        yield layer, user, thread_id
    finally:
        await layer.engine.dispose()
