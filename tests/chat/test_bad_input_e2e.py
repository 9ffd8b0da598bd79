"""Bad input over the real socket: a huge paste and an unencodable character get a clear answer,
the connection stays up, and what is stored can be shown back (the thread keeps its owner)."""
from __future__ import annotations

import asyncio

import pytest

from tests.support.attacks import list_threads
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, desk_texts

pytestmark = pytest.mark.e2e


async def test_a_huge_paste_and_a_lone_surrogate_get_answers_and_are_stored(tmp_path):
    server = Server(tmp_path)
    server.start()
    client = DeskClient(server.base)
    try:
        await client.connect()
        await client.wait_for(lambda: desk_texts(client), 15, "the mode notice")
        await client.send("what is this? " + "x" * 1_048_576)
        cut = await client.wait_for(lambda: [t for t in desk_texts(client) if "reads the first 4,000" in t], 30,
                                    "the answer to a 1 MB paste")
        assert "1,048,5" in cut[0]
        assert client.sio is not None and client.sio.connected, "the socket was not dropped"
        await client.send("hello \ud800 there")
        await client.wait_for(lambda: len(desk_texts(client)) >= 3, 30, "an answer to the odd character")
        thread_id = await client.wait_for(lambda: client.thread_id, 15, "the thread id")
        for _ in range(100):  # Chainlit stores the thread in the background
            threads = (await list_threads(server.base, client.cookie)).json()["data"]
            if threads:
                break
            await asyncio.sleep(0.1)
        assert [t["id"] for t in threads] == [thread_id], "the thread is stored with its owner"
        shown = " ".join(s.get("output") or "" for s in threads[0].get("steps") or [])
        assert "\ud800" not in shown
    finally:
        await client.close()
        server.stop()
    assert "Traceback" not in server.log_text()
