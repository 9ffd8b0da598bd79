"""The chat's commands, declared once (chat/kit/commands.py): a command picked from the composer's menu reads as
the same command typed out, and only the declared ones do."""
from __future__ import annotations

from types import SimpleNamespace

from chat.kit.commands import COMMANDS, declared, typed


def test_a_picked_command_reads_as_typed():
    assert typed(SimpleNamespace(content="", command="stop")) == "/stop"
    assert typed(SimpleNamespace(content="clear NVDA", command="book")) == "/book clear NVDA"
    assert typed(SimpleNamespace(content="  pause 2 ", command="Watch")) == "/watch pause 2"


def test_typed_words_stay_as_they_are():
    assert typed(SimpleNamespace(content="/book 200 NVDA", command=None)) == "/book 200 NVDA"
    assert typed(SimpleNamespace(content="/book 200 NVDA", command="book")) == "/book 200 NVDA"  # not twice
    assert typed(SimpleNamespace(content="should I buy NVDA?", command="")) == "should I buy NVDA?"


def test_a_command_the_chat_never_declared_is_only_its_words():
    assert typed(SimpleNamespace(content="hello", command="drop table")) == "hello"
    assert typed(SimpleNamespace(content="", command="../etc")) == ""


def test_each_command_is_described_in_english_and_chinese():
    for language in ("en", "zh", "zh-Hant"):
        described = declared(language)
        assert [c["id"] for c in described] == [name for name, _ in COMMANDS]
        assert all(c["description"] and "command_" not in c["description"] for c in described)
    assert declared("zh")[0]["description"] == "停止本对话中交易台的运行"
