"""Trading Desk in Chainlit: `chainlit run chat/app.py` from the repository root.

Handlers stay thin: a message either starts a run (a background task, see runs.py), goes to
the running desk as an interjection, or stops it. Threads and the history sidebar come from
storage.py and history.py (the data layer, its owner checks), logins and tokens from accounts.py;
rendering from render.py; the decision card and chart from card.py
(the report is graph/record/case.py's).
"""
from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `chainlit run chat/app.py` loads this file by path
    sys.path.insert(0, str(ROOT))

import chainlit as cl  # noqa: E402
from chainlit.config import config as chainlit_config  # noqa: E402
from chainlit.data import get_data_layer  # noqa: E402
from chainlit.input_widget import InputWidget, Slider, Switch, TextInput  # noqa: E402
from chainlit.logger import logger  # noqa: E402
from chainlit.server import app as server  # noqa: E402
from chainlit.server import get_avatar, sio  # noqa: E402
from chainlit.session import WebsocketSession  # noqa: E402
from chainlit.types import ThreadDict  # noqa: E402
from fastapi import HTTPException, Request  # noqa: E402
from fastapi.responses import FileResponse, JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from chat import accounts, edits, history, storage  # noqa: E402  (edits: the Edit and Switch actions)
from chat.runs import RESUME_ACTION, RESUME_WORDS, STOP_ACTION, ChatRun, DeskService, next_analysis  # noqa: E402
from chat.speakers import speaker_persona  # noqa: E402
from graph.core.personas import ANALYSTS, DESK  # noqa: E402
from graph.core.settings import Settings  # noqa: E402
from graph.request import clean_message  # noqa: E402

SETTINGS = Settings()
storage.create_schema(storage.chat_database(SETTINGS))  # chat.sqlite, or DESK_DATABASE_URL's Postgres
storage.ensure_auth_secret(SETTINGS.data_dir)
SERVICE = DeskService(SETTINGS)
FILES = storage.LocalFileStorage(SETTINGS.data_dir / "files")
# Who may log in (accounts or local mode), throttling, and the check of each token's epoch.
AUTH = accounts.DeskAuth(SETTINGS.data_dir, public=not accounts.is_loopback(chainlit_config.run.host))
if AUTH.public and AUTH.local:  # `chainlit run chat/app.py --host 0.0.0.0` with no account
    print(f"Refusing to listen on {chainlit_config.run.host}: local mode (any name, one shared password) is for "
          "loopback only. Create accounts first: python -m chat.users add NAME", file=sys.stderr)
    raise SystemExit(2)

# `/stop` is typed text, not a Chainlit command: a command turns "/stop" into a chip on the first
# Enter and sends it on the second. A command sent by a client that has one still stops.
STOP_COMMAND = "stop"


# -- the door: tokens, thread ids and owners, checked before Chainlit sees a request ----------

# A token whose epoch is stale (password reset, account removed) is taken off every request.
server.add_middleware(accounts.TokenGuard, auth=AUTH)


async def _refused(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, history.InvalidThreadId):
        return JSONResponse({"detail": "Invalid thread id"}, status_code=400)
    return JSONResponse({"detail": str(exc) or "Not found"}, status_code=404)  # another user's: as if absent


server.add_exception_handler(history.InvalidThreadId, _refused)
server.add_exception_handler(history.NotOwner, _refused)


def _history() -> history.DeskDataLayer | None:
    layer = get_data_layer()
    return layer if isinstance(layer, history.DeskDataLayer) else None


async def _may_open(identifier: str, thread_id: str) -> bool:
    """Whether a user may open (resume, write to) a thread: theirs, or one nobody has. A thread
    whose history row is gone but whose checkpoints remain has an unknown owner: refused."""
    layer = _history()
    try:
        owner = await layer.thread_owner(thread_id) if layer is not None else None
        if owner is not None:
            return owner == identifier
        desk = await SERVICE.runtime()
        return not await desk.has_thread(thread_id)
    except Exception:  # a store that does not answer: refuse, never guess
        logger.exception("Could not check the owner of thread %s", thread_id)
        return False


# A paste over engine.io's 1 MB default drops the socket with no word to the user: let up to
# MAX_SOCKET_BYTES arrive, so the guard can cut it and say so.
MAX_SOCKET_BYTES = 16 * 1024 * 1024
sio.eio.max_http_buffer_size = MAX_SOCKET_BYTES
INPUT_PROBLEMS: dict[str, str] = {}  # session id -> what the guard did to the last message

_chainlit_connect = sio.handlers["/"]["connect"]
_chainlit_client_message = sio.handlers["/"]["client_message"]


async def _connect(sid: str, environ: dict[str, Any], auth: Any = None) -> Any:
    """The socket's handshake: a thread id is a UUID (or empty) and the user's own thread."""
    thread_id = auth.get("threadId") if isinstance(auth, dict) else None
    if not history.valid_thread_id(thread_id):
        raise ConnectionRefusedError("invalid thread id")
    token = accounts.environ_token(environ)
    user = AUTH.user_of(token)
    if thread_id and user is not None and not await _may_open(user.identifier, thread_id):
        logger.warning("Refused %s access to thread %s", user.identifier, thread_id)
        raise ConnectionRefusedError("authorization failed")
    connected = await _chainlit_connect(sid, environ, auth)
    if connected and user is not None and (session := WebsocketSession.get(sid)) is not None:
        session.token = token  # a restored session keeps its first token: the current one is checked
    return connected


async def _client_message(sid: str, payload: Any) -> Any:
    """A message from the browser: from a user whose token is still current, naming no other
    thread, and with an id that is not already a message of another thread."""
    session = WebsocketSession.get(sid)
    message = payload.get("message") if isinstance(payload, dict) else None
    if session is None or not isinstance(message, dict) or not isinstance(message.get("id"), str):
        return None
    if session.user is not None and AUTH.user_of(session.token) is None:
        await sio.disconnect(sid)  # signed out since the socket opened
        return None
    thread_id = message.get("threadId") or ""
    if not history.valid_thread_id(thread_id) or thread_id not in ("", session.thread_id):
        logger.warning("Dropped a message naming another thread")
        return None
    if (layer := _history()) is not None:
        try:
            stored_in = await layer.step_thread(message["id"])
        except history.NotOwner:
            return None
        if stored_in is not None and stored_in != session.thread_id:
            message["id"] = str(uuid.uuid4())  # that id is another thread's message: this one gets its own
    # Cleaned before Chainlit stores it: nothing is kept that cannot be shown back (a lone
    # surrogate, control characters) and a huge paste is cut; on_message says what happened.
    cleaned = clean_message(message.get("output"))
    message["output"] = cleaned.text
    if cleaned.problem:
        INPUT_PROBLEMS[session.id] = cleaned.problem
    return await _chainlit_client_message(sid, payload)


sio.on("connect", _connect)
sio.on("client_message", _client_message)


# -- stored element files (charts, reports): served before Chainlit's catch-all UI route ------

async def _serve_file(request: Request) -> FileResponse:
    """Only to the owner of the thread the file belongs to, logged in."""
    user = AUTH.user_of(accounts.request_token(request.headers.get("cookie"), request.headers.get("authorization")))
    if user is None:
        raise HTTPException(status_code=401, detail="Not authenticated")
    key = request.path_params["key"]
    path = FILES.path_of(key)
    layer = _history()
    if path is None or not path.is_file() or layer is None or await layer.file_owner(key) != user.identifier:
        raise HTTPException(status_code=404, detail="File not found")
    # Same origin as the app: never sniffed into HTML, never run as a page (an SVG's scripts).
    return FileResponse(path, headers={"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox"})


server.router.routes.insert(0, Route(f"{storage.FILES_ROUTE}/{{key:path}}", _serve_file, methods=["GET"]))


# -- what public/desk.js adds to the page -----------------------------------------------------

def login_hint() -> str:
    """What the login page says to type: local mode's shared password only while it is the
    documented default (a password someone chose is not shown to whoever opens the page)."""
    if not AUTH.local:
        return "Log in with your account name and password."
    if accounts.local_password() == accounts.DEFAULT_PASSWORD:
        return f"Local mode: any user name, password “{accounts.DEFAULT_PASSWORD}”."
    return "Local mode: any user name, and the password set in DESK_PASSWORD."


# Chainlit's Plotly chunk (3.8 MB: the chart on every decision card). Chainlit loads it when the
# first chart arrives, and evaluating it then froze the page for a moment just as the decision
# card came in; desk.js loads it while the page is idle after opening instead.
PRELOAD = sorted("/assets/" + p.name for p in (Path(cl.__file__).parent / "frontend" / "dist" / "assets")
                 .glob("react-plotly-*.js"))


async def _page_facts(request: Request) -> JSONResponse:
    """Asked before login too: the mode (for the demo badge), the login hint and the page's
    scripts to load ahead, nothing more."""
    return JSONResponse({"mode": "live" if SERVICE.models.live else "demo", "login_hint": login_hint(),
                         "preload": PRELOAD})


AVATARS = ROOT / "public" / "avatars"


async def _avatar(request: Request) -> Any:
    """A debate turn's avatar name carries its round ("Bull Researcher · round 2", shown by desk.js
    above the message): the picture is the persona's. A tool step is drawn with the author's
    avatar too, named after the tool: a cog, where Chainlit would show its own logo."""
    name = speaker_persona(request.path_params["avatar_id"])
    if name == "default":
        name = DESK
    stem = name.strip().lower().replace(" ", "_").replace(".", "_")  # as Chainlit names the files
    if not re.fullmatch(r"[a-z0-9_-]+", stem) or not any(AVATARS.glob(stem + ".*")):
        name = "tool"
    return await get_avatar(name)


server.router.routes.insert(0, Route("/desk/ui.json", _page_facts, methods=["GET"]))
server.router.routes.insert(0, Route("/avatars/{avatar_id:str}", _avatar, methods=["GET"]))


async def _forget_thread(thread_id: str) -> None:
    await SERVICE.delete_thread(thread_id)  # stops a run in flight, deletes checkpoints and notes


@cl.data_layer
def data_layer():
    return storage.make_data_layer(SETTINGS.data_dir, on_delete_thread=_forget_thread,
                                   database_url=SETTINGS.database_url)


@cl.password_auth_callback
async def login(username: str, password: str) -> cl.User | None:
    """Accounts (or local mode's shared password), throttled per user name and client address
    (while locked out the answer is 429 with Retry-After, set by accounts.TokenGuard)."""
    return await AUTH.login(username, password, accounts.CLIENT_ADDRESS.get())


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
    return chat


@cl.on_chat_start
async def start():
    await _open_chat(cl.user_session.get("chat_settings"))
    # A system message: Chainlit keeps showing the starters under it (an assistant message
    # counts as a conversation and hides them); desk.js keeps a demo badge in the header.
    await cl.Message(content=SERVICE.models.notice, author=DESK, type="system_message").send()


@cl.on_chat_resume
async def resume(thread: ThreadDict) -> None:
    metadata = thread.get("metadata") or {}
    if isinstance(metadata, str):  # SQLite hands metadata back as a JSON string
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            metadata = {}
    chat = await _open_chat(metadata.get("chat_settings") or cl.user_session.get("chat_settings"))
    steps = thread.get("steps")
    if steps is None:
        steps = thread["steps"] = []
    for step in steps:  # SQLite hands step metadata back as JSON text; the page reads its avatarName
        if isinstance(raw := step.get("metadata"), str):
            try:
                step["metadata"] = json.loads(raw or "{}")
            except json.JSONDecodeError:
                step["metadata"] = {}
    await chat.reattach(steps)  # a run in flight on the thread: this page joins it (runs.py)
    await chat.close_cut_off_turns(steps)
    await edits.offer_on_resume(chat, steps)  # Chainlit stores no actions: the Edit buttons come back
    if (stopped := await chat.interrupted()) is not None:
        await chat.offer_resume(stopped, steps)  # the same list Chainlit then sends as resume_thread


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
    if problem := INPUT_PROBLEMS.pop(cl.context.session.id, None):
        await cl.Message(content=problem, author=DESK).send()
    text = (message.content or "").strip()
    if message.command == STOP_COMMAND or text.lower() == "/stop":
        await _stop(chat)
        return
    if not text:
        return
    if await chat.busy():
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
