"""A cap on what Chainlit's upload route takes in. That route (chainlit/server.py `upload_file`) reads the
whole file into memory and only then checks the size the config allows (`max_size_mb`), so a signed-in
page could post gigabytes to it. Refused here first, by the Content-Length every browser sends with a
file: over the limit is a 413, none at all (a body sent in chunks, which a browser's upload never is) a 411.
The server holds a body to its Content-Length, so a client cannot send more than it declared. The refusal's
words are in the browser's language (its Accept-Language): no thread is known before Chainlit reads the file.
"""
from __future__ import annotations

from typing import Any

from chainlit.config import config as chainlit_config
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from graph import phrase

from ..languages import primary

UPLOAD_PATH = "/project/file"
MULTIPART_SLACK = 64 * 1024  # the form's boundaries and headers around the file


def upload_limit() -> int:
    """The most bytes an upload request may carry: the config's file size plus the form around it."""
    spec = chainlit_config.features.spontaneous_file_upload
    size_mb = spec.max_size_mb if spec is not None and spec.max_size_mb else 1
    return int(size_mb * 1024 * 1024) + MULTIPART_SLACK


class UploadLimit:
    """ASGI middleware: a POST to the upload route within `limit` bytes goes on, any other is refused."""

    def __init__(self, app: ASGIApp, limit: int | None = None) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or not scope.get("path", "").endswith(UPLOAD_PATH):
            await self.app(scope, receive, send)
            return
        limit = self.limit if self.limit is not None else upload_limit()
        refusal = _refusal(_header(scope, b"content-length"), limit, primary(_header(scope, b"accept-language")))
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, detail = refusal
        await JSONResponse({"detail": detail}, status_code=status)(scope, receive, send)


def _header(scope: Scope, wanted: bytes) -> str | None:
    headers: Any = scope.get("headers") or []
    return next((value.decode("latin-1") for name, value in headers if name.lower() == wanted), None)


def _refusal(length: str | None, limit: int, language: str = "en") -> tuple[int, str] | None:
    if length is None or not length.strip().isdigit():
        return 411, phrase(language, "chat.upload_no_length")
    if int(length) > limit:
        return 413, phrase(language, "chat.upload_too_large")
    return None
