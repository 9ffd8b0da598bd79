"""Personal tokens in the chat over the real server's socket (issue 39): `/token` lists the user's tokens with a
Revoke button each and New token; New token makes one and shows it once with an MCP client configuration for the
page's own origin; the stored history keeps it masked (a reload shows no secret, no file of the data folder holds
it); Revoke stops it at once; another user can neither press the owner's buttons, nor forge a Revoke of the owner's
token, nor revoke it by its id in words."""
from __future__ import annotations

import asyncio
import json
import re
import sqlite3

import pytest

from graph import PersonalTokens
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, actions, desk_message, user

pytestmark = pytest.mark.e2e

SECRET = re.compile(r"desk_pat_[A-Za-z0-9_-]{43}")


@pytest.fixture(scope="module")
def server(shared_chat_server) -> Server:
    # Shared with the other modules on these settings (tests/conftest.py): each test has its own users.
    return shared_chat_server(DESK_DEMO_DELAY_MS="0")


async def answer(client: DeskClient, text: str | None, pattern: str, press: dict | None = None) -> dict:
    """Send `text` (or press `press`) and wait for the first new Desk message matching `pattern`."""
    seen = len(client.by_author("Desk"))
    if press is not None:
        await client.click(press)
    elif text is not None:
        await client.send(text)
    return await desk_message(client, pattern, since=seen)


async def listed(client: DeskClient, revokes: int, text: str = "/token") -> tuple[dict, list[dict], dict]:
    """`/token`: the list message, its Revoke buttons (`revokes` of them) and its New token button. Chainlit sends
    each button as its own event after the message: all of them are waited for."""
    message = await answer(client, text, r"\*\*Your personal tokens\*\*")

    def buttons(name: str) -> list[dict]:
        return [a for a in actions(client, name) if a.get("forId") == message["id"]]

    await client.wait_for(lambda: len(buttons("token_revoke")) == revokes and buttons("token_new"), 10,
                          f"{revokes} Revoke and New token")
    return message, buttons("token_revoke"), buttons("token_new")[0]


def data_files_holding(server: Server, secret: str) -> list[str]:
    return [str(p) for p in server.data_dir.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


async def test_make_see_once_reload_revoke_and_another_user_cannot(server):
    tokens = PersonalTokens(server.data_dir)
    alice = await user(server, "alice")
    bob = await user(server, "bob")
    try:
        listing, revokes, new = await listed(alice, 0)
        assert "You have no personal tokens yet." in listing["output"] and not revokes
        assert f"{server.base}/mcp" in listing["output"]  # no Origin from this client: the Host it connected with

        made = await answer(alice, None, "Your new token", press=new)
        [secret] = set(SECRET.findall(made["output"]))
        owner = alice.username.lower()
        assert tokens.verify(secret) == owner
        assert "shown only this once" in made["output"]
        config = json.loads(re.search(r"```json\n(.*?)\n```", made["output"], re.S)[1])  # type: ignore[index]
        server_config = config["mcpServers"]["trading-desk"]
        assert server_config["url"] == f"{server.base}/mcp"
        assert server_config["headers"] == {"Authorization": f"Bearer {secret}"}
        await answer(alice, None, "no longer open", press=new)  # an offer works once: no second token
        [token] = tokens.list(owner)

        # The history keeps the message masked: its rows, and every file of the data folder, hold no secret.
        await asyncio.sleep(1.5)  # the history's writer stores in rounds
        with sqlite3.connect(server.data_dir / "chat.sqlite") as db:
            stored = [row[0] for row in db.execute("SELECT output FROM steps WHERE id = ?", (made["id"],))]
        assert stored and secret not in stored[0] and f"desk_pat_…{secret[-4:]}" in stored[0]
        assert not data_files_holding(server, secret)

        # A reload of the thread (a new session, another device) shows the masked message, never the secret.
        thread = alice.thread_id
        assert thread
        reloaded = DeskClient(server.base, username=alice.username)
        await reloaded.connect(thread_id=thread, cookie=alice.cookie)
        try:
            [steps] = await reloaded.wait_for(lambda: [d.get("steps") for n, d in reloaded.events
                                                       if n == "resume_thread"], 20, "the thread resumed")
            shown = json.dumps(steps, ensure_ascii=False) + json.dumps(reloaded.events, ensure_ascii=False, default=str)
            assert secret not in shown and f"desk_pat_…{secret[-4:]}" in shown
        finally:
            await reloaded.close()

        listing, revokes, _ = await listed(alice, 1)
        assert f"`{token.id}`" in listing["output"] and "| never |" not in listing["output"]  # it was used: verify
        assert secret not in listing["output"]
        [revoke] = revokes
        assert revoke["payload"]["choice"] == token.id

        # Bob presses Alice's Revoke from his page: refused, the token works, the offer stays Alice's.
        await answer(bob, None, "made to someone else", press=revoke)
        assert tokens.verify(secret) == owner
        # Bob forges a Revoke of Alice's token onto his own offer: it chooses nothing, revokes nothing.
        _, _, bob_new = await listed(bob, 0)
        forged = {**bob_new, "name": "token_revoke", "payload": {**bob_new["payload"], "choice": token.id}}
        await answer(bob, None, "no longer open", press=forged)
        # Bob names Alice's token in words: it is not his.
        said = await answer(bob, f"revoke token {token.id}", "nothing was revoked")
        assert token.id in said["output"]
        assert tokens.verify(secret) == owner and [t.id for t in tokens.list(owner)] == [token.id]

        # Alice's Revoke: said, and the token stops working at once.
        said = await answer(alice, None, "Revoked", press=revoke)
        assert token.id in said["output"] and "stops working now" in said["output"]
        assert tokens.verify(secret) is None and tokens.list(owner) == []
        await answer(alice, None, "no longer open", press=revoke)
    finally:
        await alice.close()
        await bob.close()


async def test_words_in_chinese_make_and_revoke(server):
    tokens = PersonalTokens(server.data_dir)
    carol = await user(server, "carol")
    try:
        asked = await answer(carol, "创建令牌，给Cursor用", "新建令牌")
        assert "Cursor" in asked["output"]
        new = await carol.wait_for(lambda: [a for a in actions(carol, "token_new") if a.get("forId") == asked["id"]],
                                   10, "New token")
        assert new[0]["label"] == "新建令牌" and not [a for a in actions(carol, "token_revoke")
                                                    if a.get("forId") == asked["id"]]
        made = await answer(carol, None, "你的新令牌", press=new[0])
        [secret] = set(SECRET.findall(made["output"]))
        [token] = tokens.list(carol.username.lower())
        assert token.label == "Cursor" and "只显示这一次" in made["output"]
        listing = await answer(carol, "我的令牌", "你的个人令牌")
        assert "| Cursor |" in listing["output"] and "名称" in listing["output"]
        said = await answer(carol, f"撤销令牌 {token.id}", "已撤销")
        assert "立即失效" in said["output"] and tokens.verify(secret) is None
    finally:
        await carol.close()
