"""Issue 20, point 9: small errors an attacker could provoke, each over HTTP or the socket against
the real server. Before: a NUL in a `/desk-files` key was a 500 with a traceback; feedback on
another user's message a 500 (Chainlit's route wraps the data layer's refusal), not the 404 every
other look at another user's things gets; an `edit_message` naming an unknown id logged an
AttributeError."""
from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.chat.test_security import poll
from tests.support.attacks import login_cookie, request
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("desk-small"), DESK_DEMO_DELAY_MS="1")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.e2e
async def test_a_desk_files_key_that_names_no_file_is_a_404(server):
    alice = await login_cookie(server.base, "alice", "desk")
    for key in ("a%00b", "%00", "alice/%00/chart", "x" * 5000, ("y" * 200 + "/") * 30, "%ED%A0%80",
                "..%2f..%2fauth_secret"):
        r = await request(server.base, "GET", f"/desk-files/{key}", alice)
        assert r.status_code == 404, (key[:20], r.status_code)
    assert "Traceback" not in server.log_text()


@pytest.mark.e2e
async def test_feedback_on_another_user_message_is_a_404(server):
    alice = DeskClient(server.base, "alice", "desk")
    await alice.connect()
    mine = str(uuid.uuid4())
    try:
        await alice.send("What can you do?", message_id=mine)
        await alice.wait_for(lambda: alice.thread_id and alice.by_author("Desk"), 30, "the desk's answer")
    finally:
        await alice.close()

    async def stored() -> int:
        r = await request(server.base, "GET", f"/project/thread/{alice.thread_id}", alice.cookie)
        return r.status_code == 200 and any(s["id"] == mine for s in r.json()["steps"])

    await poll(stored, bool, what="alice's message stored")
    bob = await login_cookie(server.base, "bob", "desk")
    for for_id in (mine, str(uuid.uuid4()), "x\x00y"):
        r = await request(server.base, "PUT", "/feedback", bob,
                          json={"feedback": {"forId": for_id, "value": 0, "comment": "bob"}, "sessionId": "s"})
        assert r.status_code == 404, (for_id, r.status_code, r.text)
    r = await request(server.base, "DELETE", "/feedback", bob, json={"feedbackId": str(uuid.uuid4())})
    assert r.status_code == 404
    r = await request(server.base, "PUT", "/feedback", alice.cookie,
                      json={"feedback": {"forId": mine, "value": 1}, "sessionId": "s"})
    assert r.status_code == 200  # her own: as before
    # Other HTTP errors are FastAPI's as before.
    assert (await request(server.base, "PUT", "/feedback", bob, json={"nope": 1})).status_code == 422
    assert (await request(server.base, "PUT", "/feedback", None,
                          json={"feedback": {"forId": mine, "value": 0}, "sessionId": "s"})).status_code == 401


@pytest.mark.e2e
async def test_an_edit_of_an_unknown_message_is_refused_without_an_error(server):
    bob = DeskClient(server.base, "bob", "desk")
    await bob.connect()
    assert bob.sio is not None
    bob.sio.on("toast", bob._recorder("toast"))
    try:
        await bob.send("What can you do?")
        await bob.wait_for(lambda: bob.thread_id and bob.by_author("Desk"), 30, "the desk's answer")
        unknown = {"message": {"id": str(uuid.uuid4()), "threadId": bob.thread_id, "output": "hello",
                               "type": "user_message"}, "fileReferences": []}
        await bob.sio.emit("edit_message", unknown)
        await bob.sio.emit("edit_message", "not even a message")
        await bob.wait_for(lambda: sum(1 for name, _ in bob.events if name == "toast") >= 2, 20, "the refusals")
    finally:
        await bob.close()
    assert "AttributeError" not in server.log_text() and "Traceback" not in server.log_text()
