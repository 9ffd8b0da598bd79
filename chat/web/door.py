"""The door: tokens, thread ids and owners, checked before Chainlit sees a request.

Installed on Chainlit's server by chat/app.py (`Door.install`): the SameOrigin middleware in front
(a page of another site is refused, chat/web/origins.py), the TokenGuard middleware (a token
whose epoch is stale is taken off every request, chat/web/tokens.py), answers for the data layer's
refusals (a malformed thread id is a 400; another user's thread is a 404, as if absent), and the
socket's handshake and messages checked before Chainlit's own handlers run (Chainlit's are
replaced and called from ours): a thread id is a UUID and the user's own thread, a message names
no other thread and takes no other thread's message id, and its text is cleaned first.

Every socket event Chainlit 2.12 registers (chainlit/socket.py) goes through the door: `connect`,
`client_message` and `chat_settings_change` are checked here (the settings by chat/panel.py's
`check_settings`: only the values it keeps reach Chainlit, which stores them in the thread's
metadata); the payload-free ones (`connection_successful`, `clear_session`, `stop`) run for a
session whose token is still current; `disconnect` is Chainlit's (it cleans up); every other event
is refused: they serve features this app has off (editing a sent message, favorites, audio, the
host window's messages, settings edited on the fly), and Chainlit's handlers run them whatever its
config says (`edit_message` rewrote a message with no guard and deleted every later step of the
thread from the history). An event a later Chainlit adds is refused until it is looked at here.
"""
from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from chainlit.data import get_data_layer
from chainlit.logger import logger
from chainlit.session import WebsocketSession
from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse, Response
from socketio import AsyncServer
from starlette.exceptions import HTTPException as StarletteHTTPException

from graph import DeskRuntime, Settings, clean_message

from ..history import (
    DeskDataLayer,
    HistoryUnavailable,
    InvalidThreadId,
    NotOwner,
    is_server_thread,
    is_uuid,
    valid_thread_id,
)
from ..panel import CheckedSettings, check_settings
from .logins import DeskAuth
from .origins import SameOrigin, allowed_origins
from .rates import Rates, Refusals, refusal_text, refused_since_text
from .tokens import TokenGuard, environ_token

# A paste over engine.io's 1 MB default drops the socket with no word to the user: let up to
# MAX_SOCKET_BYTES arrive, so the guard can cut it and say so.
MAX_SOCKET_BYTES = 16 * 1024 * 1024

# How long a message waits for the shared rate buckets (the database) before it is counted in this
# process's own.
RATES_TIMEOUT_S = 2.0
STEP_CHECK_S = 3.0  # the longest a message waits for the check of its id (the history may be waiting out an outage)

# Checked here, each by a method of its own; `disconnect` stays Chainlit's.
OWN_EVENTS = ("connect", "client_message", "chat_settings_change")
# No payload: run for a session whose token is still current.
SESSION_EVENTS = ("connection_successful", "clear_session", "stop")
# Known and refused: features off in this app (.chainlit/config.toml), run by Chainlit regardless.
REFUSED_EVENTS = ("edit_message", "message_favorite", "fetch_favorites", "window_message", "audio_start",
                  "audio_chunk", "audio_end", "chat_settings_edit")
EDIT_REFUSED = ("A sent message cannot be edited here: send a new one. (A contribution's Edit button "
                "re-runs the desk from it.)")
CLIENT_TYPES = ("webapp", "copilot", "teams", "slack", "discord")  # chainlit.session.ClientType


def history() -> DeskDataLayer | None:
    """The desk's data layer, once Chainlit has made it (None without one)."""
    layer = get_data_layer()
    return layer if isinstance(layer, DeskDataLayer) else None


async def _refused(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, InvalidThreadId):
        return JSONResponse({"detail": "Invalid thread id"}, status_code=400)
    return JSONResponse({"detail": str(exc) or "Not found"}, status_code=404)  # another user's: as if absent


async def _http_error(request: Request, exc: Exception) -> Response:
    """Chainlit's `PUT /feedback` wraps any error of the data layer in a 500 (`raise
    HTTPException(500) from e`): feedback on another user's message was a 500, not a 404. A refusal
    of the data layer's under it is answered as that refusal; any other HTTP error as FastAPI does."""
    if isinstance(exc.__cause__, InvalidThreadId | NotOwner):
        return await _refused(request, exc.__cause__)
    assert isinstance(exc, StarletteHTTPException)
    return await http_exception_handler(request, exc)


class Door:
    """The checks, for one server: its logins (`auth`) and the desk's runtime (`runtime`, to ask
    whether a thread nobody owns in the history has checkpoints)."""

    def __init__(self, auth: DeskAuth, runtime: Callable[[], Awaitable[DeskRuntime]],
                 settings: Settings | None = None) -> None:
        self.auth = auth
        self.runtime = runtime
        self.settings = settings or Settings()  # the panel's bounds and whether model names are a setting
        self.input_problems: dict[str, str] = {}  # session id -> what the guard did to the last message
        self.rates = Rates()           # this process's own buckets, while the shared ones do not answer
        self.rates_shared = True       # whether the runtime's (the database's) buckets answered last
        self.refusals = Refusals()     # messages refused for it, per session, until one goes through
        self.settings_refusals: dict[str, CheckedSettings] = {}  # session id -> its last settings update's
        self.sio: AsyncServer | None = None
        self._chainlit: dict[str, Callable[..., Awaitable[Any]]] = {}

    def install(self, server: FastAPI, sio: AsyncServer) -> None:
        server.add_middleware(TokenGuard, auth=self.auth)
        server.add_middleware(SameOrigin, allowed=allowed_origins())  # in front of the token guard
        server.add_exception_handler(InvalidThreadId, _refused)
        server.add_exception_handler(NotOwner, _refused)
        server.add_exception_handler(StarletteHTTPException, _http_error)
        sio.eio.max_http_buffer_size = MAX_SOCKET_BYTES
        self.sio = sio
        self._chainlit = dict(sio.handlers["/"])
        for name in self._chainlit:
            if name in OWN_EVENTS:
                sio.on(name, getattr(self, name))
            elif name in SESSION_EVENTS:
                sio.on(name, self._session_event(name))
            elif name != "disconnect":
                if name not in REFUSED_EVENTS:
                    logger.warning("Socket event %r is new to the door: refused", name)
                sio.on(name, self._refused_event(name))

    def _session_event(self, name: str) -> Callable[..., Awaitable[Any]]:
        async def checked(sid: str, *_: Any) -> Any:  # these take no payload: none is passed on
            return await self._chainlit[name](sid) if await self._sender(sid) is not None else None
        return checked

    def _refused_event(self, name: str) -> Callable[..., Awaitable[Any]]:
        async def refused(sid: str, *_: Any) -> None:
            logger.warning("Refused the socket event %s (off in this app)", name)  # never its payload
            if name == "edit_message" and self.sio is not None and WebsocketSession.get(sid) is not None:
                await self.sio.emit("toast", {"message": EDIT_REFUSED, "type": "warning"}, to=sid)
        return refused

    async def _sender(self, sid: str) -> WebsocketSession | None:
        """The socket's session, if it has one and its user's token is still current (a user signed
        out since the socket opened is disconnected)."""
        assert self.sio is not None, "installed first"
        session = WebsocketSession.get(sid)
        if session is not None and session.user is not None and self.auth.user_of(session.token) is None:
            await self.sio.disconnect(sid)
            return None
        return session

    def input_problem(self, session_id: str) -> str | None:
        """What the guard did to the session's last message (cut it, dropped characters), once."""
        return self.input_problems.pop(session_id, None)

    def settings_refusal(self, session_id: str, language: str = "en") -> str | None:
        """What the session's last settings update had refused, in words of `language`, once."""
        checked = self.settings_refusals.pop(session_id, None)
        return checked.refusal(language) if checked is not None else None

    async def may_open(self, identifier: str, thread_id: str) -> bool:
        """Whether a user may open (resume, write to) a thread: theirs, or one nobody has. A thread
        whose history row is gone but whose checkpoints remain has an unknown owner: refused."""
        layer = history()
        try:
            owner = await layer.thread_owner(thread_id) if layer is not None else None
            if owner is not None:
                return owner == identifier
            if is_server_thread(thread_id):
                # A backtest's day or a scheduled run gets its row (its owner) from the server; a page that
                # named one first would own the thread the server then runs for someone else.
                return False
            desk = await self.runtime()
            return not await desk.has_thread(thread_id)
        except Exception:  # a store that does not answer: refuse, never guess
            logger.exception("Could not check the owner of thread %s", thread_id)
            return False

    async def connect(self, sid: str, environ: dict[str, Any], auth: Any = None) -> Any:
        """The socket's handshake: a thread id is a UUID (or empty) and the user's own thread, the
        session id a UUID, and nothing a client makes up goes on into the thread's metadata."""
        if not isinstance(auth, dict):
            raise ConnectionRefusedError("invalid handshake")
        thread_id = auth.get("threadId")
        if not valid_thread_id(thread_id):
            raise ConnectionRefusedError("invalid thread id")
        _check_handshake(auth)
        token = environ_token(environ)
        user = self.auth.user_of(token)
        if thread_id and user is not None and not await self.may_open(user.identifier, thread_id):
            logger.warning("Refused %s access to thread %s", user.identifier, thread_id)
            raise ConnectionRefusedError("authorization failed")
        connected = await self._chainlit["connect"](sid, environ, auth)
        if connected and user is not None and (session := WebsocketSession.get(sid)) is not None:
            session.token = token  # a restored session keeps its first token: the current one is checked
        return connected

    async def client_message(self, sid: str, payload: Any) -> Any:
        """A message from the browser: from a user whose token is still current, naming no other
        thread, and with an id that is not already a message of another thread."""
        message = payload.get("message") if isinstance(payload, dict) else None
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            return None
        # The rate first: a refused message costs no token check (a database read) either.
        if (known := WebsocketSession.get(sid)) is None or not await self._within_rate(sid, known):
            return None
        if (session := await self._sender(sid)) is None:
            return None
        thread_id = message.get("threadId") or ""
        if not valid_thread_id(thread_id) or thread_id not in ("", session.thread_id):
            logger.warning("Dropped a message naming another thread")
            return None
        if (layer := history()) is not None:
            try:
                # Bounded: the read waits for the history's queued writes, which wait out a database outage.
                stored_in = await asyncio.wait_for(layer.step_thread(message["id"]), STEP_CHECK_S)
            except (HistoryUnavailable, TimeoutError) as exc:
                # The database does not answer: the message goes on with its id (the page knows it by that id, and
                # the on_message step Chainlit nests the replies under names it). Safe: the history's upsert never
                # writes over a step of another thread (chat/history/sql.py), checked atomically when it is stored.
                logger.warning("Could not check a message's id (%r): kept, the store checks it when it writes", exc)
                stored_in = None
            except NotOwner:
                return None
            if stored_in is not None and stored_in != session.thread_id:
                message["id"] = str(uuid.uuid4())  # that id is another thread's message: this one gets its own
        # Cleaned before Chainlit stores it: nothing is kept that cannot be shown back (a lone
        # surrogate, control characters) and a huge paste is cut; on_message says what happened.
        cleaned = clean_message(message.get("output"))
        message["output"] = cleaned.text
        # A command picked from the composer's "/" menu may come with no words ("/stop"): not an empty message.
        picked = isinstance(message.get("command"), str) and bool(message["command"].strip())
        if cleaned.problem and (cleaned.truncated or cleaned.removed or not picked):
            earlier = self.input_problems.get(session.id)  # messages refused before this one
            self.input_problems[session.id] = f"{earlier} {cleaned.problem}" if earlier else cleaned.problem
        return await self._chainlit["client_message"](sid, payload)

    async def _within_rate(self, sid: str, session: WebsocketSession) -> bool:
        """Whether a message may go on (chat/web/rates.py): beyond the rate it is refused before it
        costs anything, the sender told at once (a toast, once per burst) and, with their next
        message that goes through, how many were not delivered."""
        assert self.sio is not None, "installed first"
        sender = session.user.identifier if session.user is not None else session.id
        wait = await self._wait(f"user:{sender}", f"thread:{session.thread_id or session.id}")
        if wait:
            if self.refusals.refused(session.id) == 1:
                logger.warning("Refused messages sent too fast by %s", sender)
                await self.sio.emit("toast", {"message": refusal_text(wait), "type": "warning"}, to=sid)
            return False
        if dropped := self.refusals.passed(session.id):
            self.input_problems[session.id] = refused_since_text(dropped)
        return True

    async def _wait(self, *keys: str) -> float:
        """The wait before a message with these keys may go on, counted in the runtime's buckets, which
        every chat process on the database shares. If the database does not answer (an error, or no
        answer within RATES_TIMEOUT_S), nobody is refused for it: the message is counted in this
        process's own buckets instead (each process then allows the rate alone, as before), which is
        logged once until the database answers again."""
        try:
            desk = await self.runtime()
            wait = await asyncio.wait_for(desk.rates.take(*keys), RATES_TIMEOUT_S)
        except Exception as exc:
            if self.rates_shared:  # an expected fallback (a database blip): its reason, not a traceback
                logger.warning("The shared message rates did not answer (%s): counting in this process alone",
                               repr(exc))
                self.rates_shared = False
            return self.rates.take(*keys)
        if not self.rates_shared:
            logger.info("The shared message rates answer again")
            self.rates_shared = True
        return wait

    async def chat_settings_change(self, sid: str, values: Any) -> Any:
        """The settings panel's values: Chainlit stores only those `check_settings` keeps (in the
        session, then the thread's metadata); the refused ones are named by on_settings_update."""
        if (session := await self._sender(sid)) is None:
            return None
        checked = check_settings(values, self.settings)
        if checked.refused:
            logger.warning("Refused %d chat setting(s)", len(checked.refused))
            self.settings_refusals[session.id] = checked
        return await self._chainlit["chat_settings_change"](sid, checked.values)


def _check_handshake(auth: dict[str, Any]) -> None:
    """The handshake's other fields, which Chainlit keeps as they come. The session id names the
    session's folder of files, deleted whole with the session: `../..` had the server delete the
    data folder (every user's history, checkpoints and accounts) once that socket closed. The client
    type and chat profile went into the thread's metadata as sent; this app has no chat profiles
    and asks for no user environment."""
    session_id = auth.get("sessionId")
    if not is_uuid(session_id):  # a UUID, as Chainlit's page makes it
        raise ConnectionRefusedError("invalid session id")
    if auth.get("clientType") not in CLIENT_TYPES:
        raise ConnectionRefusedError("invalid client type")
    auth["chatProfile"] = None
    auth["userEnv"] = None
