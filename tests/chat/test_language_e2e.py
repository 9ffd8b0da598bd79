"""The chat in the asker's language over the socket (issue 24, point 2, chat side): a Chinese browser's
page and a Chinese request in Chinese, an English one as before. The real Chainlit server in demo mode."""
from __future__ import annotations

from unittest import mock

import httpx
import pytest
import socketio

from graph.core.personas import DEFAULT_ANALYSTS, DESK, PERSONAS, persona_label
from graph.core.words import phrase, word_list
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished

pytestmark = pytest.mark.e2e

CHINESE = "zh-CN,zh;q=0.9,en;q=0.8"
LABEL = "deskSpeaker"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("desk-language"), DESK_DEMO_DELAY_MS="0")  # no pace: runs waited for whole
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


class Browser(DeskClient):
    """A page whose browser asks for `language` (its socket's Accept-Language, as a browser sends it)."""

    def __init__(self, base: str, language: str) -> None:
        super().__init__(base)
        self.language = language

    async def connect(self, *args, **kwargs) -> None:
        real = socketio.AsyncClient.connect
        language = self.language

        async def with_language(sio, url, headers=None, **options):
            return await real(sio, url, headers={**(headers or {}), "Accept-Language": language}, **options)

        with mock.patch.object(socketio.AsyncClient, "connect", with_language):
            await super().connect(*args, **kwargs)


def messages(client: DeskClient, since: int = 0) -> list[dict]:
    return [client.messages[i] for i in client.order[since:] if client.messages[i].get("type") == "assistant_message"]


def edit_buttons(client: DeskClient) -> list[dict]:
    return [d for n, d in client.events if n == "action" and d["name"] == "edit_turn"]


async def analysis(client: DeskClient, text: str) -> tuple[list[dict], list[str]]:
    """Send `text`, wait for the run's end: the run's messages and its last stage list's titles."""
    start = len(client.order)
    await client.send(text)
    await client.wait_for(lambda: runs_finished(client) >= 1, 150, "the decision")
    stages = [d for n, d in client.events if n == "desk_stages"][-1]
    return messages(client, start), [stages["title"], *(s["title"] for s in stages["stages"])]


async def test_a_chinese_request_is_answered_with_chinese_labels_card_and_acknowledgement(server):
    client = Browser(server.base, CHINESE)
    await client.connect()
    try:
        notice = await client.wait_for(lambda: client.by_author(DESK), 15, "the mode notice")
        assert notice[0]["output"].startswith("**演示模式**"), notice[0]["output"]  # the browser's language
        said, stages = await analysis(client, "英伟达今天能买吗？")
        ack = said[0]
        assert ack["name"] == DESK and ack["output"].startswith("正在分析 **NVDA**")
        assert phrase("zh", "desk.demo_speaks_english") in ack["output"]
        # The author stays the persona; the label the page shows is the thread's language's.
        assert {m["name"] for m in said} == {*PERSONAS, DESK}
        for m in said:
            assert m["metadata"][LABEL].split(" · ")[0] == persona_label(m["name"], "zh"), m["name"]
        rounds = [m["metadata"][LABEL] for m in said if m["name"] == "Bull Researcher"]
        assert rounds[0] == "多头研究员 · 第 1 轮"
        card = next(m["output"] for m in said if "| **信号** |" in m.get("output", ""))
        for label in ("仓位", "入场", "止损", "期限", "置信度"):
            assert f"| **{label}** |" in card
        assert "**决策链：** 研究经理 " in card and "_裁决读取：" in card and "Position size" not in card
        assert "本次运行的 token：共 " in card and "Tokens this run" not in card
        assert stages[0] == "决定已出"
        assert {persona_label(a.persona, "zh") for a in DEFAULT_ANALYSTS} <= set(stages)
        assert "多空辩论（1 轮）" in stages
        # The finished turns' Edit buttons (offered after the card).
        edits = await client.wait_for(lambda: edit_buttons(client), 30, "the Edit buttons")
        assert {d["label"] for d in edits} == {"编辑"}
        # Stop, in the thread's language: "nothing is running", or, when the run's last steps after its
        # card (the Edit buttons) are still going, "stopped".
        before = len(client.order)
        await client.send("/stop")
        await client.wait_for(lambda: messages(client, before), 10, "the answer to /stop")
        answer = messages(client, before)[0]
        assert answer["output"].startswith((phrase("zh", "chat.nothing_running"), phrase("zh", "chat.stopped")))
        assert answer["metadata"][LABEL] == "交易台"
    finally:
        await client.close()


async def test_an_english_request_is_unchanged(server):
    client = Browser(server.base, "en-US,en;q=0.9")
    await client.connect()
    try:
        notice = await client.wait_for(lambda: client.by_author(DESK), 15, "the mode notice")
        assert "Demo mode" in notice[0]["output"]
        said, stages = await analysis(client, "Should I buy NVDA today?")
        assert said[0]["output"].startswith("Analyzing **NVDA**")
        assert not [m for m in said if LABEL in (m.get("metadata") or {})]
        card = next(m["output"] for m in said if "| **Signal** |" in m.get("output", ""))
        assert "| **Position size** |" in card and "**Along the way:** Research Manager " in card
        assert stages[0] == "Decision ready" and "Bull ⇄ Bear debate (1 round)" in stages
        edits = await client.wait_for(lambda: edit_buttons(client), 30, "the Edit buttons")
        assert {d["label"] for d in edits} == {"Edit"}
    finally:
        await client.close()


async def test_a_chinese_browser_gets_chainlits_interface_and_the_desks_starters_in_chinese(server):
    client = DeskClient(server.base)
    cookie = await client.login()
    async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": cookie}) as http:
        # Chainlit's own words: its bundled zh-CN.json, which it copies into the app's .chainlit/translations.
        translation = (await http.get("/project/translations", params={"language": "zh-CN"})).json()["translation"]
        english = (await http.get("/project/translations", params={"language": "en-US"})).json()["translation"]
        assert translation != english
        assert translation["chat"]["input"]["placeholder"] == "在此输入您的消息..."
        assert english["chat"]["input"]["placeholder"] != translation["chat"]["input"]["placeholder"]
        settings = (await http.get("/project/settings", params={"language": "zh-CN"})).json()
        assert [s["message"] for s in settings["starters"]] == word_list("zh", "chat.starters")
        assert "Trading Desk" in settings["markdown"]  # the one readme, whatever the language
        facts = (await http.get("/desk/ui.json", headers={"Accept-Language": CHINESE})).json()
        assert facts["words"]["badge"] == "演示模式 · 合成数据，没有真实数字"
    # No warning per page load about a readme per language (issue 21, point 9).
    assert "Translated markdown file" not in server.log_text()


async def test_a_request_in_traditional_characters_is_answered_in_traditional(server):
    """輝達 is written in Taiwan and Hong Kong: the thread is "zh-Hant" and the desk's own words are the
    Simplified catalogue's in Traditional characters; a Taiwanese browser's page too."""
    client = Browser(server.base, "zh-TW,zh;q=0.9")
    await client.connect()
    try:
        notice = await client.wait_for(lambda: client.by_author(DESK), 15, "the mode notice")
        assert notice[0]["output"].startswith("**演示模式**") and "這裡的數字" in notice[0]["output"]
        said, stages = await analysis(client, "輝達今天能買嗎？")
        ack = said[0]
        assert ack["output"].startswith("正在分析 **NVDA**"), ack["output"]
        assert phrase("zh-Hant", "desk.demo_speaks_english") in ack["output"]
        for m in said:
            assert m["metadata"][LABEL].split(" · ")[0] == persona_label(m["name"], "zh-Hant"), m["name"]
        assert persona_label("Risk Judge", "zh-Hant") == "風險裁判"
        card = next(m["output"] for m in said if "| **信號** |" in m.get("output", ""))
        for label in ("倉位", "入場", "止損", "期限", "置信度"):
            assert f"| **{label}** |" in card
        assert "**決策鏈：** 研究經理 " in card and "本次運行的 token：共 " in card
        assert stages[0] == "決定已出" and "多空辯論（1 輪）" in stages
        # Stop answers in Traditional too.
        before = len(client.order)
        await client.send("/stop")
        await client.wait_for(lambda: messages(client, before), 10, "the answer to /stop")
        assert messages(client, before)[0]["metadata"][LABEL] == "交易臺"
    finally:
        await client.close()
    cookie = await client.login()
    async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": cookie}) as http:
        settings = (await http.get("/project/settings", params={"language": "zh-TW"})).json()
        assert [s["message"] for s in settings["starters"]] == word_list("zh-Hant", "chat.starters")
        assert word_list("zh-Hant", "chat.starters") != word_list("zh", "chat.starters")
