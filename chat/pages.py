"""The pages a run streams to: the one that started it and every page that opened its thread
since (a reload, a second tab, a connection that dropped and came back).

Chainlit sends a message through `cl.context.emitter`, the emitter of the session the sending
task belongs to, and a reloaded page is a new session: a run left talking to the old one looks
frozen. A run's task therefore gets a context of its own whose emitter is a `Pages`: every call
goes to each page still connected, and a page that opens the thread mid-run is added once
Chainlit has shown it the stored thread (see `ThreadTask.join`, chat/kit/tasks.py), after what it
missed meanwhile is replayed to it.
"""
from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from chainlit.context import ChainlitContext
from chainlit.emitter import BaseChainlitEmitter
from chainlit.session import HTTPSession, WebsocketSession

Session = HTTPSession | WebsocketSession

Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def _connected(session: Session) -> bool:
    """A websocket session Chainlit still knows (not timed out after its page went) and whose
    socket is up; other sessions (tests' HTTP sessions) always count as connected."""
    if not isinstance(session, WebsocketSession):
        return True
    from chainlit.server import sio  # the server module, imported once Chainlit runs

    return WebsocketSession.get_by_id(session.id) is session and sio.manager.is_connected(session.socket_id, "/")


class Pages:
    """An emitter for a run: Chainlit's emitter interface, fanned out to every attached page."""

    def __init__(self, session: Session, emitter: BaseChainlitEmitter,
                 on_new_socket: Callable[[BaseChainlitEmitter], Awaitable[None]] | None = None):
        self.pages: list[tuple[Session, BaseChainlitEmitter]] = [(session, emitter)]
        self.context: ChainlitContext | None = None  # the run's context: its session follows the newest page
        self.expecting: dict[int, tuple[Session, BaseChainlitEmitter, list[Call]]] = {}
        # A page whose connection dropped and came back (same session, new socket) missed what
        # was sent meanwhile: `on_new_socket` brings it up to date.
        self.on_new_socket = on_new_socket
        self._sockets: dict[int, str | None] = {id(emitter): getattr(session, "socket_id", None)}

    @property
    def session(self) -> Session:
        """The newest page's session (Chainlit stores a run's files in the context's session)."""
        return self.pages[-1][0]

    @property
    def emitter(self) -> BaseChainlitEmitter:
        return self.pages[-1][1]

    def expect(self, session: Session, emitter: BaseChainlitEmitter) -> None:
        """A page is opening the thread: keep everything sent from now on for it, until attach()."""
        self.expecting[id(emitter)] = (session, emitter, [])

    async def attach(self, emitter: BaseChainlitEmitter) -> None:
        """Send the page what was kept for it, then everything as it happens."""
        session, emitter, calls = self.expecting.pop(id(emitter), (None, emitter, []))
        if session is None:
            return
        for name, args, kwargs in calls:
            self._share_files(name, args, session)
            result = getattr(emitter, name)(*args, **kwargs)
            if inspect.isawaitable(result):
                await result
        self.pages = [p for p in self.pages if p[1] is not emitter] + [(session, emitter)]
        self._sockets[id(emitter)] = getattr(session, "socket_id", None)
        self._follow()

    def _follow(self) -> None:
        if self.context is not None:
            self.context.session = self.session

    def _share_files(self, name: str, args: tuple[Any, ...], session: Session) -> None:
        """An element's file is kept in the session that sent it, and a page asks for it with its
        own session id: every page's session gets the entry."""
        if name != "send_element" or not args or not isinstance(args[0], dict):
            return
        key = args[0].get("chainlitKey")
        if not key or key in session.files:
            return
        for other, _ in self.pages:
            if key in other.files:
                session.files[key] = other.files[key]
                return

    def __getattr__(self, name: str) -> Any:
        first = getattr(self.pages[-1][1], name)
        if not callable(first):
            return first

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._call(name, args, kwargs)

        return call

    async def _call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        for _, _, calls in self.expecting.values():
            calls.append((name, args, kwargs))
        live = [p for p in self.pages if _connected(p[0])] or self.pages[-1:]
        if len(live) != len(self.pages):
            self.pages = live
            self._follow()
        result: Any = None
        for session, emitter in live:
            if self.on_new_socket is not None and self._sockets.get(id(emitter)) != getattr(session, "socket_id", None):
                self._sockets[id(emitter)] = getattr(session, "socket_id", None)
                await self.on_new_socket(emitter)
            self._share_files(name, args, session)
            out = getattr(emitter, name)(*args, **kwargs)
            if inspect.isawaitable(out):
                out = await out
            if emitter is live[-1][1]:
                result = out
        return result

