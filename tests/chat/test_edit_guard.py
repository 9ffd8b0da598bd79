"""Issue 20, point 7: every socket event passes the door's guard or is refused. Before, the
`edit_message` event (editing is off in this app's config, but Chainlit's handler ran it anyway)
took alice's 1 MB + NUL + lone surrogate edit with no guard: it was broadcast back, analysed with a
1 MB checkpoint, logged twice and every later step of the thread (the Desk's reply) deleted from
the history; an unknown message id logged an AttributeError. Now it is refused with a toast and
nothing changes. The other events Chainlit registers are checked or refused too (chat/web/door.py),
and a handshake whose session id is a path (`../..`: the server deleted its whole data folder when
that socket closed) is refused. The real server, over its socket."""
from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import socketio

from tests.chat.test_security import count, db, poll
from tests.support.attacks import list_threads, request
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished

QUESTION = "What can you do?"
HUGE = "Should I buy NVDA today? " + "A" * 1_000_000 + "\x00" + "\ud800"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("desk-edit"), DESK_DEMO_DELAY_MS="1")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def toasts(client: DeskClient) -> list[dict]:
    return [data for name, data in client.events if name == "toast"]


async def connected(server: Server, user: str, **kwargs: Any) -> DeskClient:
    client = DeskClient(server.base, user, "desk")
    await client.connect(**kwargs)
    assert client.sio is not None
    client.sio.on("toast", client._recorder("toast"))
    return client


async def thread_steps(server: Server, client: DeskClient) -> list[dict]:
    r = await request(server.base, "GET", f"/project/thread/{client.thread_id}", client.cookie)
    return r.json()["steps"] if r.status_code == 200 else []


def edit(client: DeskClient, message_id: str, text: str) -> dict:
    return {"message": {"id": message_id, "threadId": client.thread_id or "", "name": client.username,
                        "type": "user_message", "output": text, "createdAt": datetime.now(UTC).isoformat()},
            "fileReferences": []}


@pytest.mark.e2e
async def test_editing_a_sent_message_is_refused_and_deletes_nothing(server):
    alice = await connected(server, "alice")
    mine = str(uuid.uuid4())
    try:
        await alice.send(QUESTION, message_id=mine)
        await alice.wait_for(lambda: alice.thread_id and alice.by_author("Desk"), 30, "the desk's answer")
        # The run's end (its Stop button taken away) can come after its answer on a loaded machine.
        await alice.wait_for(lambda: runs_finished(alice) >= 1, 30, "the run's end")
        before = await poll(lambda: thread_steps(server, alice), lambda steps: any(
            s["name"] == "Desk" and s["output"] for s in steps) and any(s["id"] == mine for s in steps),
            what="the answer stored")
        log_size = len(server.log_text())
        checkpoints = "SELECT count(*) FROM checkpoints WHERE thread_id = ?"
        with db(server, "checkpoints.sqlite") as conn:
            checkpointed = count(conn, checkpoints, alice.thread_id)
        seen = len(alice.events)
        assert alice.sio is not None
        await alice.sio.emit("edit_message", edit(alice, mine, HUGE))
        await alice.wait_for(lambda: toasts(alice), 20, "the refusal")
        assert "cannot be edited" in toasts(alice)[0]["message"]
        await asyncio.sleep(2)  # anything the edit would have started
        later = alice.events[seen:]
        assert [name for name, _ in later] == ["toast"], later[:5]

        # Her message and the Desk's answer are as they were, nothing huge was stored or logged.
        after = await thread_steps(server, alice)
        assert {s["id"]: s["output"] for s in after} == {s["id"]: s["output"] for s in before}
        with db(server) as conn:
            assert count(conn, "SELECT count(*) FROM steps WHERE length(output) > 100000") == 0
        with db(server, "checkpoints.sqlite") as conn:
            assert count(conn, checkpoints, alice.thread_id) == checkpointed  # no run began
        logged = server.log_text()[log_size:]
        assert max((len(line) for line in logged.splitlines()), default=0) < 1000
        assert "Refused the socket event edit_message" in logged

        # The socket still serves her.
        await alice.send("What can you do, again?")
        await alice.wait_for(lambda: len(alice.by_author("Desk")) >= 2, 30, "the next answer")
    finally:
        await alice.close()


REFUSED = {"message_favorite": {"message": {"id": "x", "metadata": {"favorite": True}}},
           "fetch_favorites": None, "window_message": "w" * 1_000_000, "audio_start": None,
           "audio_chunk": {"isStart": True, "mimeType": "audio/pcm", "elapsedTime": 0, "data": b"x"},
           "audio_end": None, "chat_settings_edit": {"debate_rounds": 1000}, "no_such_event": 1}


@pytest.mark.e2e
async def test_the_events_for_features_this_app_has_off_are_refused(server):
    # Before, `audio_end` on a fresh session made a thread ("audio") with audio off.
    carol = await connected(server, "carol")
    try:
        assert carol.sio is not None
        for name, payload in REFUSED.items():
            await (carol.sio.emit(name, payload) if payload is not None else carol.sio.emit(name))
        await asyncio.sleep(2)
        r = await list_threads(server.base, carol.cookie)
        assert r.status_code == 200 and r.json()["data"] == []
        assert not [name for name, _ in carol.events if name == "first_interaction"]
        await carol.send(QUESTION)  # the socket still serves her
        await carol.wait_for(lambda: carol.by_author("Desk"), 30, "the desk's answer")
    finally:
        await carol.close()
    logged = server.log_text()
    for name in REFUSED:
        if name != "no_such_event":
            assert f"Refused the socket event {name} " in logged, name
    assert "Traceback" not in logged


@pytest.mark.e2e
async def test_a_session_id_that_is_a_path_is_refused_and_the_data_stays(server):
    canary = server.data_dir / "canary"
    canary.write_text("still here")
    for session_id, extra in (("../..", {}), ("..", {}), ("/tmp", {}), ("x" * 10_000, {}),
                              (str(uuid.uuid4()).upper(), {})):
        attacker = DeskClient(server.base, "mallory", "desk")
        with pytest.raises(socketio.exceptions.ConnectionError):
            await attacker.connect(session_id=session_id, **extra)
    # What the attack did: open the socket as `../..`, ask Chainlit to clear the session, close it.
    mallory = DeskClient(server.base, "mallory", "desk")
    with pytest.raises(socketio.exceptions.ConnectionError):
        await mallory.connect(session_id="../..")
    await asyncio.sleep(1)
    assert canary.read_text() == "still here" and (server.data_dir / "chat.sqlite").exists()
    # A made-up client type (kept as the thread's metadata) is refused too; a chat profile is dropped.
    odd = socketio.AsyncClient(reconnection=False)
    cookie = await DeskClient(server.base, "mallory", "desk").login()
    with pytest.raises(socketio.exceptions.ConnectionError):
        await odd.connect(server.base, socketio_path="/ws/socket.io", transports=["websocket"],
                          headers={"Cookie": cookie}, wait_timeout=10,
                          auth={"sessionId": str(uuid.uuid4()), "clientType": "x" * 100_000, "threadId": ""})
