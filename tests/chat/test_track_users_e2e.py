"""Two people on one chat server, over its socket: each one's track record is their own — what an
analysis recalls, what /record lists and what a follow-up about past calls answers (issue 22)."""
from __future__ import annotations

import re

import pytest

from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, desk_texts, runs_finished

pytestmark = pytest.mark.e2e


@pytest.fixture
def server(tmp_path):
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="0")  # no pace: five whole runs, none watched as it streams
    server.start()
    yield server
    server.stop()


def recalled(client: DeskClient) -> list[str]:
    return [m.get("output", "") for m in client.messages.values() if m.get("name") == "Track record"]


async def ask(client: DeskClient, text: str, runs: int) -> None:
    await client.send(text)
    await client.wait_for(lambda: runs_finished(client) >= runs, 120, f"the answer to {text!r}")


async def test_each_person_sees_only_their_own_calls(server):
    alice, bob = DeskClient(server.base, username="alice"), DeskClient(server.base, username="bob")
    await alice.connect()
    await bob.connect()
    try:
        await ask(alice, "should I buy NVDA on 2024-03-01?", 1)
        await ask(alice, "should I buy NVDA on 2024-06-03?", 2)
        [_, second] = recalled(alice)
        assert re.search(r"2024-03-01 \*\*NVDA (BUY|SELL|HOLD)\*\* → (right|wrong)", second)

        await ask(bob, "should I buy NVDA on 2024-06-03?", 1)
        [first] = recalled(bob)
        assert "starts from nothing" in first and "2024-03-01" not in first
        await ask(bob, "what did you decide on NVDA last time, and were you right?", 2)
        answer = desk_texts(bob)[-1]
        assert "| 2024-06-03 | NVDA |" in answer and "2024-03-01" not in answer

        await ask(alice, "how have your calls done?", 3)
        mine = desk_texts(alice)[-1]
        assert "| 2024-03-01 | NVDA |" in mine and "| 2024-06-03 | NVDA |" in mine
        assert mine.count("| NVDA |") == 2  # not bob's 2024-06-03 call as well
    finally:
        await alice.close()
        await bob.close()
