"""Over the real chat server's socket: a backtest's plan and its refusal, and the holdings read from words, come
back in the language they were asked in, Simplified or Traditional (tests/core/test_zh_texts_desk.py has the table of
every text)."""
from __future__ import annotations

import pytest

from tests.support.chat_server import Server
from tests.support.socket_client import answer, user

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(shared_chat_server) -> Server:
    # Shared with the other modules on these settings (tests/conftest.py): each test has its own users.
    return shared_chat_server(DESK_DEMO_DELAY_MS="0")


async def test_a_backtest_in_simplified_and_in_traditional(server):
    mei = await user(server, "mei")
    try:
        refused = await answer(mei, "回测英伟达 2030年1月到3月", "回测只能重放", 60)
        assert "区间 2030-01-01 … 2030-03-31 在未来" in refused and "in the future" not in refused
        refused = await answer(mei, "回測輝達 2030年1月到3月", "回測只能重放", 60)
        assert "區間 2030-01-01 … 2030-03-31 在未來" in refused and "区间" not in refused
        plan = await answer(mei, "回测英伟达 2024-01-02 至 2024-01-05", "回测计划：NVDA", 60)
        assert "4 个交易日" in plan and "共 4 次讨论" in plan and "Backtest plan" not in plan
        plan = await answer(mei, "回測輝達 2024-01-02 至 2024-01-05", "回測計劃：NVDA", 60)
        assert "4 個交易日" in plan and "回测" not in plan
    finally:
        await mei.close()


async def test_holdings_in_simplified_and_in_traditional(server):
    lin = await user(server, "lin")
    try:
        refused = await answer(lin, "我持有-5股苹果", "所以什么都没存", 60)
        assert "数量为负（-5）" in refused and "negative" not in refused
        refused = await answer(lin, "我持有-5股蘋果", "數量為負", 60)
        assert "做空 5 股 AAPL" in refused and "数量" not in refused
        read = await answer(lin, "我持有200股英伟达，成本95，现金2万", "才会存", 60)
        assert "- NVDA 设为 200 股，成本 95.00" in read and "set NVDA" not in read
    finally:
        await lin.close()
