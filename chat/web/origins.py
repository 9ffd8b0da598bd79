"""Which web pages may talk to the app: its own, and those a deployment names.

A browser sends the page's origin with every cross-origin request and with every socket it opens,
and sends the person's login cookie with them too (a page on another port of the same host is the
same site to a cookie). Chainlit's CORS settings echo any origin with credentials allowed, and its
socket takes any origin, so a page elsewhere could read every thread of whoever had the desk open.
`SameOrigin`, in front of everything the server serves (the socket included), refuses a request
or a socket whose Origin is neither the app's own (the address the browser used: `Host`, or
`X-Forwarded-Host` behind a proxy, which a page cannot set on a request it may send without asking)
nor one listed in DESK_ALLOWED_ORIGINS (comma-separated, e.g. `https://desk.example.com`). A request
without an Origin (a link, a form of the app's own page in some browsers, curl, the tests' clients)
is not a page's script reading across origins and goes on.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

ALLOWED_ORIGINS_ENV = "DESK_ALLOWED_ORIGINS"


def _normal(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


def allowed_origins(environ: Mapping[str, str] = os.environ) -> frozenset[str]:
    """The origins a deployment names besides the app's own."""
    return frozenset(_normal(o) for o in environ.get(ALLOWED_ORIGINS_ENV, "").split(",") if o.strip())


def same_origin(origin: str, hosts: list[str], allowed: frozenset[str]) -> bool:
    """Whether a page at `origin` is the app's own (its host and port are one the browser used to
    reach the app) or one the deployment allows. An opaque origin ("null": a sandboxed frame, a
    file) is nobody's."""
    origin = _normal(origin)
    if origin in allowed:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    return parts.netloc in {h.strip().lower() for h in hosts if h.strip()}


class SameOrigin:
    """ASGI middleware: a request or socket from another origin gets a 403 (a socket is closed
    before it opens) and never reaches Chainlit."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            origin = headers.get("origin")
            hosts = [headers.get("host", ""), *headers.get("x-forwarded-host", "").split(",")]
            if origin is not None and not same_origin(origin, hosts, self.allowed):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await JSONResponse({"detail": "Requests from another site are refused"}, status_code=403)(
                    scope, receive, send)
                return
        await self.app(scope, receive, send)
