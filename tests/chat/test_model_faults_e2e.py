"""The real chat server on a model server that cuts a stream mid-answer (issue 36, point 2): the page
shows the persona's turn once, its cut-off start taken back, and the stored history after a reload holds
the turn once, whole."""
from __future__ import annotations

import contextlib
from typing import Any

import pytest

from tests.nodes.test_robust import asked, fault_for
from tests.support.attacks import list_threads
from tests.support.chat_server import Server
from tests.support.fake_openai import FakeOpenAI
from tests.support.socket_client import DeskClient, runs_finished

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

SAID = "Trader here, answering the desk."


def snapshots(client: DeskClient, message_id: str) -> list[str]:
    """Every text the page had for one message, event by event."""
    out, text = [], ""
    for name, data in client.events:
        if not isinstance(data, dict) or data.get("id") != message_id:
            continue
        if name in ("new_message", "stream_start", "update_message"):
            text = data.get("output") or ""
        elif name == "stream_token":
            text += data["token"]
        else:
            continue
        out.append(text)
    return out


def said(steps: list[dict[str, Any]], persona: str) -> list[str]:
    return [s.get("output") or "" for s in steps if s.get("type") == "assistant_message" and s.get("name") == persona]


async def test_a_cut_stream_is_shown_and_stored_once(tmp_path):
    with FakeOpenAI(fault=fault_for("Trader", "cut", times=1), cut_after=3, word_s=0.1) as model:
        server = Server(tmp_path, DESK_MODE="live", OPENAI_BASE_URL=model.base_url, OPENAI_API_KEY="x",
                        DESK_QUICK_MODEL="quick-x", DESK_DEEP_MODEL="deep-x", DESK_DATA_VENDOR="synthetic",
                        DESK_MAX_RETRIES="0", DESK_ANALYSTS='["market"]')
        server.start()
        client = DeskClient(server.base)
        try:
            await client.connect()
            await client.send("Should I buy NVDA today?")
            await client.wait_for(lambda: runs_finished(client) >= 1, 120, "the run to end")
            thread = client.thread_id
            assert thread and len(asked(model, "Trader")) == 2, "the cut stream was asked again"
            trader, = client.by_author("Trader")
            assert trader["output"] == SAID
            seen = snapshots(client, trader["id"])
            assert "" in seen[1:] and any(s.startswith("Trader") for s in seen[: seen.index("", 1)]), \
                "the cut-off start showed, then was taken off the page"
            assert not [s for s in seen if s.count("Trader here") > 1], "never shown twice"
            await client.close()

            # The stored thread, as the sidebar and a reloaded page read it.
            threads = (await list_threads(server.base, client.cookie)).json()["data"]
            steps = next(t for t in threads if t["id"] == thread)["steps"]
            assert said(steps, "Trader") == [SAID]
            again = DeskClient(server.base)
            try:
                await again.connect(thread_id=thread, cookie=client.cookie)
                resumed = await again.wait_for(lambda: [d for n, d in again.events if n == "resume_thread"], 20,
                                               "the thread")
                assert said(resumed[0]["steps"], "Trader") == [SAID]
            finally:
                await again.close()
        finally:
            with contextlib.suppress(Exception):
                await client.close()
            server.stop()
