"""A notice's webhook (graph/watchlist/webhook.py) against receivers on loopback: a hang and a 5xx are tried
again with back-off and then given up with the reason; a 4xx is not tried again; a closed port is said."""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web

from graph.watchlist.webhook import post
from tests.support.loopback import Loopback, PostHandler


@pytest.fixture
def serve(loopback: Loopback) -> Callable[[PostHandler], Awaitable[str]]:
    """`await serve(handler)`: a receiver on loopback answering POSTs to /hook with `handler`; its URL."""
    return lambda handler: loopback.serve("/hook", handler)


async def test_a_hanging_receiver_is_tried_again_then_given_up(serve) -> None:
    calls = []

    async def hang(request: web.Request) -> web.Response:
        calls.append(1)
        await asyncio.sleep(5)
        return web.Response()

    url = await serve(hang)
    posted = await post(url, {"x": 1}, timeout_s=0.2, attempts=3, first_wait_s=0.01)
    assert not posted.ok and posted.attempts == 3 and len(calls) == 3
    assert "no answer within" in posted.why and "/hook" not in posted.why


async def test_a_refusal_is_not_tried_again(serve) -> None:
    calls = []

    async def refuse(request: web.Request) -> web.Response:
        calls.append(1)
        return web.Response(status=400)

    posted = await post(await serve(refuse), {"x": 1}, attempts=3, first_wait_s=0.01)
    assert (posted.ok, posted.attempts, len(calls)) == (False, 1, 1) and "HTTP 400" in posted.why


async def test_a_5xx_is_tried_again_until_taken(serve) -> None:
    answers = [503, 429, 200]

    async def flaky(request: web.Request) -> web.Response:
        return web.Response(status=answers.pop(0))

    posted = await post(await serve(flaky), {"x": 1}, attempts=4, first_wait_s=0.01)
    assert posted.ok and posted.attempts == 3


async def test_a_closed_port_is_said(unused_tcp_port: int) -> None:
    posted = await post(f"http://127.0.0.1:{unused_tcp_port}/hook?token=abc", {"x": 1}, attempts=2, first_wait_s=0.01)
    assert not posted.ok and "could not reach 127.0.0.1" in posted.why and "token" not in posted.why
