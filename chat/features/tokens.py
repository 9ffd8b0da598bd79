"""Personal tokens in the chat (issue 39): a signed-in user makes, sees and revokes the tokens a program (an MCP
client over the chat server's `/mcp`, a script) asks the desk with as them. The tokens are graph's
(`PersonalTokens`, DESK_DATA_DIR/personal_tokens.sqlite, the same file `python -m chat.users token` writes).

`/token` (or "my tokens", "我的令牌") lists them with a Revoke button each and a New token button; "make me an MCP
token" ("创建令牌", `/token new LABEL`) offers New token; "revoke token ab12cd34" (`/token revoke ID`) revokes at
once. Every press is the kit's offer (chat/kit/offers.py): answered once, only for the user it was shown to, and a
Revoke only for a token that offer listed; `revoke` itself is the user's own tokens only.

A new token is shown once, with a ready-to-paste MCP client configuration. The message carries the history's
`STORED_AS` (chat/history/layer.py): the page shows the secret, the thread's stored history keeps it masked, so a
reload or another device never shows it again.
"""
from __future__ import annotations

import contextlib
import json
import re
from typing import Any

import chainlit as cl
import chainlit.config

from graph import PersonalToken, PersonalTokens, TokenAsk, TokenError, phrase

from ..history import STORED_AS
from ..kit.feature import Message
from ..kit.offers import Answer, Button, Offers
from ..kit.say import desk_message, page_user, said, speaking, thread_language
from ..runs import DeskService
from ..views.thread_names import name_if_untitled

NEW_ACTION = "token_new"
REVOKE_ACTION = "token_revoke"
SERVER_NAME = "trading-desk"  # the MCP server's name in the client's configuration
MAX_LABEL = 80
_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.\-]+(?::\d{1,5})?$|^https?://\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$")
_HOST = re.compile(r"^[A-Za-z0-9.\-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$")


def masked(secret: str) -> str:
    """What the history keeps of a secret: its kind and its last four characters (`desk_pat_…x9Qz`)."""
    return f"desk_pat_…{secret[-4:]}"


def mcp_url(environ: dict[str, Any], root_path: str = "") -> str:
    """The chat server's `/mcp` as the page reaches it: the page's own origin (the socket's Origin, which the door's
    same-origin check let in), else the scheme and Host the socket connected with, behind CHAINLIT_ROOT_PATH; a
    placeholder when neither is known."""
    root = "/" + root_path.strip("/") if root_path.strip("/") else ""
    origin = str(environ.get("HTTP_ORIGIN") or "").strip().rstrip("/")
    if _ORIGIN.match(origin):
        return f"{origin}{root}/mcp"
    host = str(environ.get("HTTP_X_FORWARDED_HOST") or environ.get("HTTP_HOST") or "").split(",")[0].strip()
    if not _HOST.match(host):
        return f"http://<this server>{root}/mcp"
    scope = environ.get("asgi.scope") or {}
    scheme = str(environ.get("HTTP_X_FORWARDED_PROTO") or scope.get("scheme") or "http").split(",")[0].strip()
    scheme = "https" if scheme in ("https", "wss") else "http"
    return f"{scheme}://{host}{root}/mcp"


def client_config(url: str, secret: str) -> str:
    """An MCP client's configuration for the desk over streamable HTTP (Claude Desktop, Cursor, Claude Code)."""
    return json.dumps({"mcpServers": {SERVER_NAME: {"type": "http", "url": url,
                                                    "headers": {"Authorization": f"Bearer {secret}"}}}}, indent=2)


def _when(iso: str | None, language: str) -> str:
    """'2026-11-25 14:03 UTC' from the store's ISO time; never used: the catalogue's word."""
    if not iso:
        return said_text(language, "never")
    return iso[:16].replace("T", " ") + " UTC"


def said_text(language: str, key: str, **fields: object) -> str:
    """The catalogue's [tokens] `key` in `language`."""
    return phrase(language, "tokens." + key, **fields)


def _name(token: PersonalToken) -> str:
    """A token as its buttons and sentences name it: its label, else its id."""
    return _plain(token.label) or token.id


def _plain(text: str) -> str:
    """A label as the chat writes it: no Markdown or markup from the label itself."""
    return " ".join(re.sub(r"[`*_|<>\[\]\\#~]", " ", text).split())[:MAX_LABEL]


def tokens_table(tokens: list[PersonalToken], language: str) -> str:
    say = lambda key: said_text(language, key)  # noqa: E731 - one line per column below
    lines = [f"| {say('label')} | {say('id')} | {say('created')} | {say('last_used')} |", "|---|---|---|---|"]
    for t in tokens:
        label = _plain(t.label) or say("no_label")
        lines.append(f"| {label} | `{t.id}` | {_when(t.created, language)} | {_when(t.last_used, language)} |")
    return "\n".join(lines)


class Tokens:
    """The chat's personal tokens, over graph's `PersonalTokens` in the desk's data folder."""

    def __init__(self, service: DeskService) -> None:
        self.service = service
        self.tokens = PersonalTokens(service.settings.data_dir)
        self.offers = Offers("tokens", service.runtime, (
            Button(REVOKE_ACTION, "tokens.revoke", "trash-2", "tokens.revoke_tooltip"),
            Button(NEW_ACTION, "tokens.new", "key-round", "tokens.new_tooltip")),
            gone="tokens.gone", not_yours="tokens.not_yours")

    def install(self) -> None:
        self.offers.install({NEW_ACTION: self.new_pressed, REVOKE_ACTION: self.revoke_pressed})

    async def stop(self, thread_id: str) -> bool:
        return False  # nothing of the tokens runs

    async def reopened(self, thread_id: str, steps: list[Any]) -> None:
        await self.offers.reopened(thread_id, steps)

    async def close(self) -> None:
        pass

    async def answer(self, message: Message) -> bool:
        """`/token …` and the words for tokens (graph's router); False for any other message."""
        if not isinstance(asked := message.route.read, TokenAsk):
            return False
        with speaking(asked.language or thread_language()):  # answered in the words' own language
            with contextlib.suppress(Exception):  # the sidebar's name; the tokens are answered without it
                await name_if_untitled(cl.context.session.thread_id, said_text(thread_language(), "thread_name"))
            await self._asked(asked)
        return True

    async def _asked(self, asked: TokenAsk) -> None:
        if asked.action == "revoke":
            if not asked.token_id:
                await said("tokens.which").send()
            else:
                await self._revoke(page_user(), asked.token_id)
        elif asked.action == "new":
            key = "make_ask_label" if asked.label else "make_ask"
            await self._show(lead=said_text(thread_language(), key, label=_plain(asked.label)),
                             label=asked.label, only_new=True)
        else:
            await self._show()

    async def _show(self, lead: str = "", label: str = "", only_new: bool = False) -> None:
        """The user's tokens with a Revoke each and New token (`only_new`: New token alone, the list above it)."""
        language = thread_language()
        tokens = self.tokens.list(page_user())
        parts = [*([lead] if lead else []), said_text(language, "title"),
                 tokens_table(tokens, language) if tokens else said_text(language, "none")]
        if not only_new:
            parts += [said_text(language, "intro", url=mcp_url(_environ(), _root_path())), said_text(language, "help")]
        revokes = () if only_new else tuple(Button(REVOKE_ACTION, "tokens.revoke", "trash-2", "tokens.revoke_tooltip",
                                                   choice=t.id, named=_name(t)) for t in tokens)
        new = Button(NEW_ACTION, "tokens.new", "key-round", "tokens.new_tooltip")
        body = {"label": " ".join(label.split())[:MAX_LABEL], "tokens": [t.id for t in tokens]}
        await (await self.offers.message("\n\n".join(parts), body, shown=(*revokes, new))).send()

    async def _revoke(self, user: str, token_id: str) -> None:
        known = {t.id: t for t in self.tokens.list(user)}
        if token_id not in known or not self.tokens.revoke(user, token_id):
            await said("tokens.no_such", id=_plain(token_id)[:8]).send()
            return
        await said("tokens.revoked", name=_name(known[token_id]), id=token_id).send()

    # -- the buttons ------------------------------------------------------------------------------------

    async def new_pressed(self, answer: Answer) -> None:
        """New token: made for the offer's user, shown once; the history keeps it masked."""
        label = str(answer.body.get("label") or "")
        try:
            token, secret = self.tokens.create(answer.user, label)
        except TokenError:
            await said("tokens.too_many", count=len(self.tokens.list(answer.user))).send()
            return
        language = answer.language
        name = f" “{_plain(token.label)}”" if token.label else ""
        text = "\n\n".join([
            said_text(language, "made", name=name, id=token.id),
            f"```text\n{secret}\n```",
            said_text(language, "config"),
            f"```json\n{client_config(mcp_url(_environ(), _root_path()), secret)}\n```",
            said_text(language, "made_after", id=token.id)])
        message = desk_message(text, language=language)
        message.metadata = {**(message.metadata or {}), STORED_AS: text.replace(secret, masked(secret))}
        await message.send()

    async def revoke_pressed(self, answer: Answer) -> None:
        """Revoke: only a token the offer listed (its choice), and only the offer's user's (`revoke` checks)."""
        if not answer.choice or answer.choice not in (answer.body.get("tokens") or []):
            await said("tokens.gone").send()
            return
        await self._revoke(answer.user, answer.choice)
        await self._show()


def _environ() -> dict[str, Any]:
    """The socket's connection request (its headers), as Chainlit keeps it on the page's session."""
    try:
        return dict(getattr(cl.context.session, "environ", None) or {})
    except Exception:  # no page: no origin to tell
        return {}


def _root_path() -> str:
    return str(getattr(chainlit.config.config.run, "root_path", "") or "")
