"""What the page may load: the Content-Security-Policy sent with every answer of the server.

The chat shows text the desk did not write (a model's words, headlines and posts it quoted), made
inert before it is shown (graph/core/links.py); the page's policy is the second wall: it loads
images and media only from the app itself (or data it holds), embeds no plugin, and no other site
may frame it, so an image address that got through is still never fetched and a click on the page
cannot be stolen by a frame. Scripts, styles and connections are left to Chainlit's page (its own
files, served by the app). An answer with a policy of its own (a stored file, served sandboxed)
keeps it.
"""
from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

POLICY = ("img-src 'self' data: blob:; media-src 'self' data: blob:; object-src 'none'; "
          "base-uri 'self'; form-action 'self'; frame-ancestors 'self'")
_HEADER = b"content-security-policy"


class PagePolicy:
    """ASGI middleware adding POLICY to every HTTP answer that has none."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if not any(name.lower() == _HEADER for name, _ in headers):
                    headers.append((_HEADER, POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_policy)
