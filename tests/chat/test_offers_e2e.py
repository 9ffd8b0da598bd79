"""Offers outlive the server (chat/kit/offers.py, issue 34): a watch offered before a restart is saved by its Save
after it; the reopened thread shows its Save and Cancel again; another user's press is refused and leaves it on
offer; a second press finds it gone. The real chat server in demo mode, stopped and started again."""
from __future__ import annotations

import pytest

from tests.chat.test_watch_e2e import actions, offered, said
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient

pytestmark = pytest.mark.e2e


async def test_a_watch_offered_before_a_restart_is_saved_after_it(tmp_path):
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="0")
    server.start()
    try:
        alice = DeskClient(server.base, username="alice")
        await alice.connect()
        try:
            stated, save, cancel = await offered(alice, "watch NVDA every trading day after the close")
            thread = next(m["threadId"] for m in alice.messages.values() if m.get("output") == stated)
        finally:
            await alice.close()
        server.stop()
        server.start()  # the offers were in memory before: this Save was dead after a restart

        bob = DeskClient(server.base, username="bob")
        await bob.connect()
        try:
            await bob.click(save)  # alice's button pressed on bob's page: refused, and still hers
            await said(bob, "offered to someone else")
        finally:
            await bob.close()

        back = DeskClient(server.base, username="alice")
        await back.connect(thread_id=thread)
        try:
            # The reopened thread shows the offer's buttons again (Chainlit stores no actions), on its message.
            await back.wait_for(lambda: actions(back, "watch_save") and actions(back, "watch_cancel"), 30,
                                "Save and Cancel again")
            shown = actions(back, "watch_save")[-1]
            assert shown["id"] == save["id"] and shown["forId"] == save["forId"] and shown["label"] == "Save"
            await back.click(shown)
            assert "**NVDA** every trading day at 16:30 New York time" in await said(back, "Saved as watch 1")
            removed = [d for n, d in back.events if n == "remove_action"]
            assert {d["id"] for d in removed} == {save["id"], cancel["id"]}  # both buttons taken off the page
            await back.click(cancel)
            await said(back, "no longer on offer")  # answered once
        finally:
            await back.close()
    finally:
        server.stop()
