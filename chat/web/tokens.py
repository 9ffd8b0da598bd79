"""Login tokens on requests: the token Chainlit would read (the auth cookie, else a bearer token), and
TokenGuard, the ASGI middleware that takes a stale one (an old epoch, logged out) off every request
and socket handshake before Chainlit sees it, revokes the token of a logout, and records who is asking
(the client's address, the user of a current token).

Which proxies are believed: uvicorn takes the client's address and scheme from X-Forwarded-For and
X-Forwarded-Proto when the connection comes from an address in FORWARDED_ALLOW_IPS, by default
loopback. Any local process (a proxy or tunnel that passes the header on instead of overwriting it)
could then name any client address, and dodge the throttle of failed logins per address. The desk
believes the headers only from the proxies the operator lists in FORWARDED_ALLOW_IPS; with nothing
set, from nobody (set here, when the app module is loaded, before `chainlit run` builds uvicorn's
config; `python -m chat` passes the operator's environment on)."""
from __future__ import annotations

import contextvars
import math
import os
import re
from typing import Any

from chainlit.auth import decode_jwt, get_token_from_cookies
from chainlit.user import User
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..history.requester import REQUESTER
from .logins import LOGIN_NOTE, DeskAuth

AUTH_COOKIE = os.environ.get("CHAINLIT_AUTH_COOKIE_NAME", "access_token")  # as chainlit.auth.cookie names it
TRUSTED_PROXIES = "FORWARDED_ALLOW_IPS"  # uvicorn's setting, read once its config is built
os.environ.setdefault(TRUSTED_PROXIES, "")  # nobody's X-Forwarded-* believed unless the operator says whose

# Set by TokenGuard for the request being served: the client's address (login throttling) and (REQUESTER, kept
# beside the data layer that reads it) the identifier of the user whose current token came with it.
CLIENT_ADDRESS: contextvars.ContextVar[str | None] = contextvars.ContextVar("desk_client_address", default=None)

_CHUNK = re.compile(rf"^{re.escape(AUTH_COOKIE)}(_\d+)?$")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def cookie_token(cookie_header: str | None) -> str | None:
    return get_token_from_cookies(cookie_parser(cookie_header)) if cookie_header else None


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def request_token(cookie_header: str | None, authorization: str | None) -> str | None:
    """The token Chainlit would read: the auth cookie first, then a bearer token."""
    return cookie_token(cookie_header) or bearer_token(authorization)


def _without(scope: Scope, *, cookie: bool, authorization: bool) -> Scope:
    headers: list[tuple[bytes, bytes]] = []
    for key, value in scope.get("headers") or []:
        low = key.lower()
        if authorization and low == b"authorization":
            continue
        if cookie and low == b"cookie":
            kept = [part for part in value.decode("latin-1").split(";")
                    if not _CHUNK.match(part.split("=", 1)[0].strip())]
            if not any(p.strip() for p in kept):
                continue
            value = ";".join(kept).strip().encode("latin-1")
        headers.append((key, value))
    return {**scope, "headers": headers}


def _path(scope: Scope) -> str:
    """The request's path within the app (behind CHAINLIT_ROOT_PATH too)."""
    path: str = scope.get("path", "")
    return path.removeprefix(scope.get("root_path", "")).rstrip("/") or "/"


def _answer(message: Message, note: dict[str, float], *, https: bool) -> Message:
    """An HTTP answer's start as the client gets it: a login refused while locked out is a 429 with
    Retry-After (the login callback's note); over https every cookie is Secure."""
    headers = list(message.get("headers", []))
    status = message["status"]
    if status == 401 and "retry_after" in note:
        status = 429
        headers.append((b"retry-after", str(math.ceil(note["retry_after"])).encode()))
    if https:
        headers = [(k, _secure(v) if k.lower() == b"set-cookie" else v) for k, v in headers]
    return {**message, "status": status, "headers": headers}


def _secure(set_cookie: bytes) -> bytes:
    """The cookie marked Secure (sent over https only). Chainlit marks its login cookie so only with
    SameSite=None (chainlit/auth/cookie.py): behind https the 15-day token also went out with any
    plain-http request to the host, to whoever can see the network."""
    attributes = [a.strip().lower() for a in set_cookie.split(b";")[1:]]
    return set_cookie if b"secure" in attributes else set_cookie + b"; Secure"


class TokenGuard:
    """ASGI middleware in front of Chainlit's whole app (HTTP and the socket's handshake): a signed
    token whose epoch is stale (password reset, account removed, local password changed, accounts
    mode switched on) or that was logged out is taken off the request, so Chainlit sees an anonymous
    caller and refuses it. A logout revokes the token it came with. Also records the client address
    and the current requester for the code behind."""

    def __init__(self, app: ASGIApp, auth: DeskAuth) -> None:
        self.app = app
        self.auth = auth

    def _check(self, token: str | None) -> tuple[bool, User | None]:
        """(strip it, its user if current)."""
        if not token:
            return False, None
        try:
            user = decode_jwt(token)
        except Exception:
            return False, None  # not ours to judge: Chainlit refuses a bad or expired token itself
        return (False, user) if self.auth.standing(token, user) else (True, None)

    async def _log_out(self, scope: Scope) -> None:
        """Chainlit's /logout only clears the browser's cookie: the token it held is revoked here, and
        the sockets opened with it are closed now (Door would at their next message)."""
        user = self.auth.log_out(request_token(_header(scope, b"cookie"), _header(scope, b"authorization")))
        if user is None:
            return
        from chainlit.server import sio  # the server's (importing it loads Chainlit's app: not on import here)
        from chainlit.session import ws_sessions_id
        for session in list(ws_sessions_id.values()):
            if session.user is not None and session.user.identifier == user.identifier \
                    and self.auth.user_of(session.token) is None:
                await sio.disconnect(session.socket_id)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and scope.get("method") == "POST" and _path(scope) == "/logout":
            await self._log_out(scope)
        strip_cookie, cookie_user = self._check(cookie_token(_header(scope, b"cookie")))
        strip_bearer, bearer_user = self._check(bearer_token(_header(scope, b"authorization")))
        if strip_cookie or strip_bearer:
            scope = _without(scope, cookie=strip_cookie, authorization=strip_bearer)
        user = cookie_user or (None if cookie_token(_header(scope, b"cookie")) else bearer_user)
        client = scope.get("client")
        note: dict[str, float] = {}
        address = CLIENT_ADDRESS.set(client[0] if client else None)
        requester = REQUESTER.set(user.identifier if user else None)
        noted = LOGIN_NOTE.set(note)

        async def send_checked(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = _answer(message, note, https=scope.get("scheme") == "https")
            await send(message)

        try:
            await self.app(scope, receive, send_checked if scope["type"] == "http" else send)
        finally:
            LOGIN_NOTE.reset(noted)
            REQUESTER.reset(requester)
            CLIENT_ADDRESS.reset(address)


def environ_token(environ: dict[str, Any]) -> str | None:
    """The token of a socket's handshake (its WSGI-style environ)."""
    return cookie_token(environ.get("HTTP_COOKIE"))
