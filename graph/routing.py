"""What a message is for, decided in one place, for the chat (chat/app.py) and the CLI (graph/cli.py).

A message is the personal tokens' (`/token …`, "make me an MCP token", "我的令牌"), the book's (`/book …`, "I hold
200 NVDA at 95"), a backtest's ("backtest NVDA from January to March 2024", "resume backtest 1a2b3c4d"), a watch's
(`/watch …`, "watch NVDA every trading day after the close"), a comparison's ("NVDA or AMD?") or, when it is none of
these, the desk's: its coordinator reads it as a new analysis, a follow-up to the thread's, or asks back. `ROUTES`
is the order those readings are tried in, and so the routing policy: a message that reads as two things is the
first one's ("backtest NVDA and AMD" is a backtest, not a comparison). Each reader runs once; what it read travels
with the route, so nothing parses the message again.

What the chat knows besides the words (a run going on takes notes, a comparison running takes its notes, a follow-up
to a stored comparison) is the chat's and the CLI's to weigh; this module reads words only.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum

from .backtest.ask import Ask, read_ask
from .book.words import tells_holdings
from .compare.ask import CompareAsk, read_comparison
from .paper.ask import PaperAsk, read_paper
from .request.language import detect_language
from .watchlist.words import WatchAsk, WatchCommand, read_command, read_watch


class Purpose(StrEnum):
    TOKENS = "tokens"
    PAPER = "paper"
    BOOK = "book"
    BACKTEST = "backtest"
    WATCH = "watch"
    COMPARE = "compare"
    DESK = "desk"


@dataclass(frozen=True)
class BookAsk:
    """`/book …` (`command` True, `words` what follows it) or holdings told in words (`words` the message)."""

    words: str
    command: bool = False


@dataclass(frozen=True)
class TokenAsk:
    """The user's personal tokens (for an MCP client, a script): `action` "list" them, make a "new" one (`label` what
    the words named it for: "an MCP token for Cursor"), or "revoke" the one with the public id `token_id`."""

    action: str
    token_id: str = ""
    label: str = ""
    language: str = field(default="", compare=False)  # the words' own ("" for `/token`: the thread's)


@dataclass(frozen=True)
class ResumeBacktest:
    """"resume backtest 1a2b3c4d", "继续回测 1a2b3c4d": the stored backtest to go on with."""

    backtest_id: str


@dataclass(frozen=True)
class Situation:
    """What the words are read against: the real today, whether the thread holds an analysis already (two names are
    then a comparison only when asked as one), and DESK_LANGUAGE."""

    today: date
    in_analysis: bool = False
    language_setting: str = "auto"


Read = TokenAsk | PaperAsk | BookAsk | ResumeBacktest | Ask | WatchCommand | WatchAsk | CompareAsk | None


@dataclass(frozen=True)
class Route:
    purpose: Purpose
    read: Read = None  # what the purpose's reader made of the message (None for the desk's)


_BOOK_COMMAND = re.compile(r"^/book\b(.*)$", re.IGNORECASE | re.DOTALL)
_RESUME_BACKTEST = re.compile(r"^\W*(?:resume|continue)\s+(?:the\s+)?back[\s-]?test\s+([0-9a-f]{8})\W*$"
                              r"|^\W*继续回[测測]\s*([0-9a-f]{8})\W*$", re.I)


# Personal tokens: whole messages only, and a token always named as one (a personal, access, MCP or API token, 令牌),
# so that "how many tokens did that run use?" stays a follow-up to the desk.
_KIND = r"(?:(?:personal|access|mcp|api|desk)\s+)*"
_TOKEN_COMMAND = re.compile(r"^/tokens?\b\s*(.*)$", re.I | re.S)
_TOKEN_NEW = re.compile(r"^\W*(?:please\s+)?(?:(?:can|could)\s+you\s+)?(?:make|create|generate|issue|give|get)\s+"
                        r"(?:me\s+)?(?:(?:a|an|one|another|new)\s+)*" + _KIND + r"token"
                        r"(?:\s+(?:for|named|called|labelled|labeled)\s+(?P<label>[^\n]{1,80}?))?[\s.!?]*$"
                        r"|^\W*(?:new|another)\s+" + _KIND + r"token[\s.!?]*$", re.I)
_TOKEN_LIST = re.compile(r"^\W*(?:(?:show|list|see)\s+(?:me\s+)?)?my\s+" + _KIND + r"tokens[\s.!?]*$"
                         r"|^\W*(?:show|list)\s+(?:all\s+)?(?:the\s+)?" + _KIND + r"tokens[\s.!?]*$", re.I)
_TOKEN_REVOKE = re.compile(r"^\W*(?:please\s+)?(?:revoke|delete|remove|cancel)\s+(?:my\s+|the\s+)?" + _KIND
                           + r"token\s+(?P<id>[0-9a-f]{8})[\s.!?]*$", re.I)
_ZH_KIND = r"(?:MCP|mcp|个人|訪問|访问|API|api)?\s*"
_ZH_TOKEN = r"(?:令牌|token)"
_TOKEN_NEW_ZH = re.compile(r"^\W*(?:请)?(?:帮我|给我|為我|为我)?(?:创建|新建|生成|建立|建|做|創建|新增|来|來)"
                           r"(?:一|1)?(?:个|個)?(?:新的?)?" + _ZH_KIND + _ZH_TOKEN
                           + r"(?:[，,、\s]*(?:给|給|用于|用於|用来|用來)\s*(?P<label>[^\n]{1,80}?)(?:使用|用)?)?"
                           r"[\W]*$",
                           re.I)
_TOKEN_LIST_ZH = re.compile(r"^\W*(?:查看|列出|显示|顯示|看看)?(?:我的)" + _ZH_KIND + _ZH_TOKEN + r"[\W]*$"
                            r"|^\W*(?:查看|列出|显示|顯示)" + _ZH_KIND + _ZH_TOKEN + r"[\W]*$", re.I)
_TOKEN_REVOKE_ZH = re.compile(r"^\W*(?:请)?(?:撤销|撤銷|吊销|吊銷|删除|刪除|作废|作廢)(?:我的)?" + _ZH_KIND + _ZH_TOKEN
                              + r"\s*(?P<id>[0-9a-f]{8})[\W]*$", re.I)


def _token_command(rest: str) -> TokenAsk:
    """`/token` lists; `/token new [label]` makes one; `/token revoke ID` revokes one (Chinese verbs too)."""
    first, _, more = rest.strip().partition(" ")
    verb = first.lower()
    if verb in ("new", "create", "make", "新建", "创建", "創建"):
        return TokenAsk("new", label=" ".join(more.split())[:80])
    if verb in ("revoke", "delete", "remove", "撤销", "撤銷", "删除", "刪除"):
        return TokenAsk("revoke", token_id=more.strip().lower())
    return TokenAsk("list")


def _tokens(text: str, situation: Situation) -> Read:
    if (m := _TOKEN_COMMAND.match(text)) is not None:
        return _token_command(m[1])
    for pattern in (_TOKEN_REVOKE, _TOKEN_REVOKE_ZH):
        if (m := pattern.match(text)) is not None:
            return TokenAsk("revoke", token_id=m["id"].lower(), language=detect_language(text))
    for pattern in (_TOKEN_NEW, _TOKEN_NEW_ZH):
        if (m := pattern.match(text)) is not None:
            return TokenAsk("new", label=" ".join((m["label"] or "").split()), language=detect_language(text))
    if _TOKEN_LIST.match(text) or _TOKEN_LIST_ZH.match(text):
        return TokenAsk("list", language=detect_language(text))
    return None


def _paper(text: str, situation: Situation) -> Read:
    return read_paper(text)


def _book(text: str, situation: Situation) -> Read:
    if (m := _BOOK_COMMAND.match(text)) is not None:
        return BookAsk(m[1].strip(), command=True)
    return BookAsk(text) if tells_holdings(text) else None


def _backtest(text: str, situation: Situation) -> Read:
    if (m := _RESUME_BACKTEST.match(text)) is not None:
        return ResumeBacktest(m[1] or m[2])
    return read_ask(text, situation.today)


def _watch(text: str, situation: Situation) -> Read:
    return read_command(text) or read_watch(text, situation.today)


def _compare(text: str, situation: Situation) -> Read:
    return read_comparison(text, situation.today, in_analysis=situation.in_analysis,
                           language_setting=situation.language_setting)


# The order a message's readings are tried in: the first that reads it takes it.
ROUTES: tuple[tuple[Purpose, Callable[[str, Situation], Read]], ...] = (
    (Purpose.TOKENS, _tokens),
    (Purpose.PAPER, _paper),
    (Purpose.BOOK, _book),
    (Purpose.BACKTEST, _backtest),
    (Purpose.WATCH, _watch),
    (Purpose.COMPARE, _compare),
)


def route(text: str, situation: Situation) -> Route:
    """What `text` (cleaned: graph's `clean_message`) is for; the desk's when no reading takes it."""
    text = text.strip()
    if text:
        for purpose, reader in ROUTES:
            if (read := reader(text, situation)) is not None:
                return Route(purpose, read)
    return Route(Purpose.DESK)
