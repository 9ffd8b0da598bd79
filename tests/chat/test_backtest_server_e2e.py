"""A backtest asked in the chat whose days run on a LangGraph Server (issue 23, point 4, the chat's setting):
DESK_BACKTEST_SERVER points the chat server at a real `langgraph dev` on loopback, and the days are submitted
there as the settings' account; the plan, the records and the table stay in the chat."""
from __future__ import annotations

import re

import pytest

from tests.chat.test_backtest_e2e import backtest_id, plan_offered, said
from tests.support.chat_server import Server
from tests.support.langgraph_dev import LangGraphDev
from tests.support.socket_client import DeskClient

pytestmark = pytest.mark.e2e

NO_PACE = {"DESK_DEMO_DELAY_MS": "0", "DESK_DEMO_FIRST_TOKEN_MS": "0"}


@pytest.fixture
def servers(tmp_path):
    dev = LangGraphDev(tmp_path / "langgraph_dev", {"desk-bot": "the bot's passphrase"}, env=NO_PACE)
    dev.start()
    (tmp_path / "chat").mkdir()
    chat = Server(tmp_path / "chat", DESK_DEMO_DELAY_MS="0", DESK_BACKTEST_SERVER=dev.url,
                  DESK_SERVER_USER="desk-bot", DESK_SERVER_PASSWORD="the bot's passphrase")
    try:
        chat.start()
        yield chat, dev
    finally:
        chat.stop()
        dev.stop()


async def test_the_chat_runs_a_backtests_days_on_the_server(servers):
    chat, dev = servers
    alice = DeskClient(chat.base, username="alice")
    await alice.connect()
    try:
        run = await plan_offered(alice, "backtest NVDA 2024-01-02 to 2024-01-04")
        await alice.click(run)
        done = await said(alice, r"Backtest \*\*[0-9a-f]{8}\*\* done", 240)
        assert "(0 kept from before, 3 run now, 0 failed)" in done
        assert re.search(r"\| Trading Desk( — \*[^|]+\*)? \|", done), done  # its reason beside it, if any
        where = await said(alice, "The days ran on the LangGraph Server")
        assert dev.url in where and "desk-bot" in where and "desk-bot's passphrase" not in where
        assert re.fullmatch(r"[0-9a-f]{8}", backtest_id(alice))
    finally:
        await alice.close()
    assert "the bot's passphrase" not in chat.log_text()  # the password never reaches the chat server's log
