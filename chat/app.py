"""Trading Desk in Chainlit: `chainlit run chat/app.py` from the repository root.

Handlers stay thin: a message either starts a run (a background task, see runs.py), goes to
the running desk as an interjection, or stops it. Threads, the history sidebar and login
come from storage.py; rendering from render.py; the decision card and chart from card.py
(the report is graph/record.py's).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `chainlit run chat/app.py` loads this file by path
    sys.path.insert(0, str(ROOT))

import chainlit as cl  # noqa: E402
from chainlit.input_widget import InputWidget, Slider, Switch, TextInput  # noqa: E402
from chainlit.server import app as server  # noqa: E402
from chainlit.types import CommandDict, ThreadDict  # noqa: E402
from fastapi import HTTPException  # noqa: E402
from fastapi.responses import FileResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from chat import storage  # noqa: E402
from chat.runs import RESUME_ACTION, RESUME_WORDS, STOP_ACTION, ChatRun, DeskService, next_analysis  # noqa: E402
from graph.personas import ANALYSTS, DESK  # noqa: E402
from graph.settings import Settings  # noqa: E402

SETTINGS = Settings()
storage.create_schema(storage.chat_db_path(SETTINGS.data_dir))
storage.ensure_auth_secret(SETTINGS.data_dir)
SERVICE = DeskService(SETTINGS)
FILES = storage.LocalFileStorage(SETTINGS.data_dir / "files")

STOP_COMMAND = "stop"
COMMANDS: list[CommandDict] = [{"id": STOP_COMMAND, "icon": "square", "description": "Stop the desk's current run",
             "button": False, "persistent": False, "selected": False}]


# -- stored element files (charts, reports): served before Chainlit's catch-all UI route ------

async def _serve_file(request):
    path = FILES.path_of(request.path_params["key"])
    if path is None or not path.is_file():
        raise HTTPException(status_code=404, detail="File not found")
    return FileResponse(path)


server.router.routes.insert(0, Route(f"{storage.FILES_ROUTE}/{{key:path}}", _serve_file, methods=["GET"]))


@cl.data_layer
def data_layer():
    return storage.make_data_layer(SETTINGS.data_dir)


@cl.password_auth_callback
async def login(username: str, password: str) -> cl.User | None:
    if username.strip() and storage.password_ok(password):
        return cl.User(identifier=username.strip(), metadata={"role": "user", "provider": "credentials"})
    return None


@cl.on_app_startup
async def startup():
    # Open the runtime (checkpointer, graph, the coordinator's tables) before the first user waits.
    await SERVICE.runtime()


@cl.on_app_shutdown
async def shutdown():
    await SERVICE.close()


@cl.set_starters
async def starters(user=None, language=None):
    return [
        cl.Starter(label="Should I buy NVDA today?", message="Should I buy NVDA today?"),
        cl.Starter(label="Thoughts on Apple last Friday?", message="Thoughts on Apple last Friday?"),
        cl.Starter(label="$TSLA 2024-05-01", message="$TSLA 2024-05-01"),
        cl.Starter(label="Is Berkshire B a sell?", message="Is Berkshire B a sell?"),
    ]


def _settings_widgets(values: dict[str, Any]) -> list[InputWidget]:
    nxt = next_analysis(values, SETTINGS)
    plan = nxt.plan
    widgets: list[InputWidget] = [Switch(id=f"analyst_{a.kind}", label=a.persona, initial=a.kind in plan.analysts,
                      description="Takes part in the next analysis") for a in ANALYSTS]
    widgets += [
        Slider(id="debate_rounds", label="Bull ⇄ Bear debate rounds", initial=plan.debate_rounds,
               min=1, max=5, step=1),
        Slider(id="risk_rounds", label="Risk debate rounds", initial=plan.risk_rounds, min=1, max=5, step=1),
    ]
    if nxt.models:  # live mode: the model names, as the server knows them
        widgets += [
            TextInput(id="quick_model", label="Quick model (analysts, debaters, trader)", initial=nxt.models[0]),
            TextInput(id="deep_model", label="Deep model (research manager, risk judge)", initial=nxt.models[1]),
        ]
    return widgets


async def _open_chat(values: dict | None) -> ChatRun:
    chat = cl.user_session.get("chat")
    if chat is None:
        chat = await SERVICE.chat(cl.context.session.thread_id)
        # A first message can race on_chat_start (both await above): keep whichever opened first.
        chat = cl.user_session.get("chat") or chat
        cl.user_session.set("chat", chat)
    await cl.ChatSettings(_settings_widgets(values or {})).send()
    await cl.context.emitter.set_commands(COMMANDS)
    return chat


@cl.on_chat_start
async def start():
    await _open_chat(cl.user_session.get("chat_settings"))
    await cl.Message(content=SERVICE.models.notice, author=DESK).send()


@cl.on_chat_resume
async def resume(thread: ThreadDict) -> None:
    metadata = thread.get("metadata") or {}
    if isinstance(metadata, str):  # SQLite hands metadata back as a JSON string
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            metadata = {}
    chat = await _open_chat(metadata.get("chat_settings") or cl.user_session.get("chat_settings"))
    if (stopped := await chat.interrupted()) is not None:
        await chat.offer_resume(stopped)


@cl.on_settings_update
async def settings_updated(values: dict):
    nxt = next_analysis(values, SETTINGS)
    plan = nxt.plan
    who = ", ".join(a.persona for a in ANALYSTS if a.kind in plan.analysts)
    models = f"; models {nxt.models[0]} / {nxt.models[1]}" if nxt.models else ""
    await cl.Message(content=f"Next analysis: {who}; {plan.debate_rounds} debate round(s), "
                             f"{plan.risk_rounds} risk round(s){models}.", author=DESK).send()


async def _chat() -> ChatRun:
    chat = cl.user_session.get("chat")
    if chat is None:
        chat = await _open_chat(cl.user_session.get("chat_settings"))
    return chat


async def _stop(chat: ChatRun) -> None:
    if not await chat.stop():
        await cl.Message(content="Nothing is running.", author=DESK).send()


@cl.on_message
async def on_message(message: cl.Message):
    chat = await _chat()
    text = (message.content or "").strip()
    if message.command == STOP_COMMAND or text.lower() == "/stop":
        await _stop(chat)
        return
    if not text:
        return
    if chat.active:
        await chat.interject(text)
        return
    nxt = next_analysis(cl.user_session.get("chat_settings"), SETTINGS)
    if text.lower().strip(" .!") in RESUME_WORDS and await chat.interrupted() is not None:
        chat.start(None, nxt)  # continue the interrupted run from its last checkpoint
        return
    chat.start(text, nxt)


@cl.on_stop
async def chainlit_stop():
    # Chainlit's own stop button (shown only while a handler runs) stops the desk too.
    chat = cl.user_session.get("chat")
    if chat is not None:
        await chat.stop()


@cl.action_callback(STOP_ACTION)
async def stop_action(action: cl.Action):
    await _stop(await _chat())


@cl.action_callback(RESUME_ACTION)
async def resume_action(action: cl.Action):
    chat = await _chat()
    if chat.active:
        await cl.Message(content="The desk is already running on this thread.", author=DESK).send()
    elif await chat.interrupted() is None:
        await cl.Message(content="Nothing to resume: the last run on this thread finished.", author=DESK).send()
    else:
        chat.start(None, next_analysis(cl.user_session.get("chat_settings"), SETTINGS))
