"""The CLI reads a message with the chat's router (graph/routing.py): what is not a deliberation is said where it is
done, in the message's language, and nothing runs."""
from __future__ import annotations

import pytest

from graph.cli import main


@pytest.fixture
def desk_env(tmp_path, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DESK_MODE", "DESK_LANGUAGE", "DESK_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DESK_DEMO_DELAY_MS", "0")


@pytest.mark.parametrize(("text", "said"), [
    ("backtest NVDA from January to March 2024", "runs with: python -m graph backtest NVDA --start 2024-01-"),
    ("resume backtest 1a2b3c4d", "A backtest runs with: python -m graph backtest --resume 1a2b3c4d"),
    ("继续回测 1a2b3c4d", "回测这样运行：python -m graph backtest --resume 1a2b3c4d"),
    ("I hold 200 NVDA at 95", "Your book is kept from the chat"),
    ("我持有200股英伟达，成本95", "持仓在聊天里管理"),
    ("watch NVDA every trading day after the close", "Watches are kept from the chat"),
])
def test_what_is_not_a_deliberation_is_said_where_it_is_done(desk_env, capsys, text, said):
    assert main(["--today", "2026-11-25", text]) == 2
    out = capsys.readouterr()
    assert said in out.err, out.err
    assert "▶" not in out.out  # no persona spoke: nothing ran
