"""Receivers on loopback, in the test's own process, for what the desk posts (a watch's webhook)."""
from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

PostHandler = Callable[[web.Request], Awaitable[web.Response]]


class Loopback:
    """`await loopback.serve(path, handler)`: a receiver on a port of its own of 127.0.0.1 that answers POSTs to
    `path` with `handler`, and its URL; `close()` stops every one."""

    def __init__(self) -> None:
        self.runners: list[web.AppRunner] = []

    async def serve(self, path: str, handler: PostHandler) -> str:
        app = web.Application()
        app.router.add_post(path, handler)
        runner = web.AppRunner(app)
        await runner.setup()
        self.runners.append(runner)
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        return f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}{path}"  # type: ignore[union-attr]

    async def close(self) -> None:
        for runner in self.runners:
            await runner.cleanup()
