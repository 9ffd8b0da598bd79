"""A page of another origin cannot read a user's threads nor open their socket (issue 20, point 3).

The attack of the issue: Chainlit echoed any Origin with credentials allowed, so a page on
localhost:8099 read all of bob's threads from the app on localhost:8011, and the socket took
`Origin: http://evil.example`. Here over the real server's HTTP API and socket; in the browser,
tests/browser/test_origins.py."""
from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import socketio
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from chat.web.origins import SameOrigin, allowed_origins, same_origin
from tests.support.attacks import list_threads, login_cookie
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient

EVIL = "http://evil.example"


def test_the_apps_own_origin_and_the_listed_ones_pass_others_do_not():
    listed = allowed_origins({"DESK_ALLOWED_ORIGINS": " https://Desk.Example.com/ , http://10.0.0.5:8000"})
    assert listed == {"https://desk.example.com", "http://10.0.0.5:8000"}
    assert same_origin("http://127.0.0.1:8011", ["127.0.0.1:8011"], frozenset())
    assert same_origin("https://desk.example.com", ["desk.example.com"], frozenset())  # TLS at a proxy
    assert same_origin("https://desk.example.com", ["127.0.0.1:8000", "desk.example.com"], frozenset())
    assert same_origin("https://desk.example.com", ["127.0.0.1:8000"], listed)
    assert not same_origin("http://127.0.0.1:8099", ["127.0.0.1:8011"], frozenset())  # another port
    assert not same_origin(EVIL, ["127.0.0.1:8011"], frozenset())
    assert not same_origin("null", ["127.0.0.1:8011"], frozenset())  # a sandboxed frame, a file
    assert not same_origin("http://127.0.0.1:8011.evil.example", ["127.0.0.1:8011"], frozenset())


def _app(allowed: frozenset[str] = frozenset()) -> TestClient:
    async def page(request):
        return PlainTextResponse("threads")

    async def socket(ws: WebSocket):
        await ws.accept()
        await ws.send_text("open")
        await ws.close()

    app = Starlette(routes=[Route("/project/threads", page, methods=["GET", "POST"]), WebSocketRoute("/ws", socket)])
    app.add_middleware(SameOrigin, allowed=allowed)
    return TestClient(app, base_url="http://127.0.0.1:8011")


def test_the_middleware_refuses_requests_and_sockets_from_another_origin():
    client = _app()
    assert client.post("/project/threads").text == "threads"  # no Origin: curl, a link
    assert client.post("/project/threads", headers={"Origin": "http://127.0.0.1:8011"}).status_code == 200
    refused = client.post("/project/threads", headers={"Origin": "http://127.0.0.1:8099"})
    assert refused.status_code == 403 and "access-control-allow-origin" not in refused.headers
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/ws", headers={"Origin": EVIL}):
        pass
    assert closed.value.code == 1008
    own = {"Origin": "http://testserver"}  # the test client's sockets go to host "testserver"
    with client.websocket_connect("/ws", headers=own) as ws:
        assert ws.receive_text() == "open"
    listed = _app(frozenset({"http://127.0.0.1:8099"}))
    assert listed.post("/project/threads", headers={"Origin": "http://127.0.0.1:8099"}).status_code == 200


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("desk-origins"))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.e2e
async def test_another_origin_reads_no_thread_and_opens_no_socket(server: Server):
    bob = DeskClient(server.base, "bob", "desk")
    await bob.connect(origin=server.base)  # the app's own page: welcome
    await bob.send("hello")
    await bob.wait_for(lambda: bob.thread_id, 10, "bob's thread")
    await bob.close()
    cookie = await login_cookie(server.base, "bob", "desk")
    own = await list_threads(server.base, cookie)
    assert own.status_code == 200 and own.json()["data"]

    for origin in ("http://localhost:8099", "http://127.0.0.1:1", EVIL, "null"):
        async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": cookie, "Origin": origin}) as http:
            read = await http.post("/project/threads", json={"pagination": {"first": 20, "cursor": None},
                                                            "filter": {}})
            assert read.status_code == 403, origin
            assert "access-control-allow-origin" not in read.headers and "hello" not in read.text
            preflight = await http.options("/project/threads", headers={"Access-Control-Request-Method": "POST"})
            assert "access-control-allow-origin" not in preflight.headers
        stranger = DeskClient(server.base, "bob", "desk")
        with pytest.raises(socketio.exceptions.ConnectionError):
            await stranger.connect(cookie=cookie, origin=origin)
