"""What a message asks of the paper book: `/paper` (show), `/paper start [AMOUNT]`, `/paper stop`, and the same in words
("follow my calls on paper with 100,000", "my paper book", "stop paper trading", "用10万模拟跟单", "我的模拟账户",
"停止模拟"). graph/routing.py tries it in its order for the chat and the CLI; the desk's own coordinator reads it too,
for a run on LangGraph Server (graph/nodes/paper.py), where no chat routes the message first.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from ..request.language import detect_language


@dataclass(frozen=True)
class PaperAsk:
    """The paper book (graph/paper/): `action` "start" following the user's calls with `amount` (the words' figure,
    "" when none was given), "show" the book, or "stop" following; `language` the words' own ("" for `/paper`)."""

    action: str
    amount: str = ""
    language: str = field(default="", compare=False)


# The paper book: whole messages only, and always named as paper (a paper book, paper trading, 模拟), so that "should I
# follow NVDA?" stays the desk's.
_PAPER_COMMAND = re.compile(r"^/paper\b\s*(.*)$", re.I | re.S)
_AMOUNT = r"(?P<amount>\d[\d,_]*(?:\.\d+)?)\s*(?P<unit>k|thousand|m|million)?"
_PAPER_STOP = re.compile(r"^\W*(?:please\s+)?(?:stop|end|quit)\s+(?:my\s+|the\s+)?"
                         r"(?:following\s+(?:my\s+calls\s+)?on\s+paper|paper[\s-]*(?:trading|book|record|following))"
                         r"[\s.!?]*$", re.I)
_PAPER_START = re.compile(r"^\W*(?:please\s+)?(?:(?:can|could)\s+you\s+)?"
                          r"(?:(?:start|begin|open)\s+(?:a\s+|my\s+|the\s+)?paper[\s-]*(?:trading|book|record|account)|(?:follow|trade|track)\s+my\s+calls\s+on\s+paper"
                          r"|paper[\s-]*trade\s+my\s+calls)"
                          r"(?:\s+(?:with|from|starting\s+(?:with|at)|at)\s+\$?" + _AMOUNT + r")?[\s.!?]*$", re.I)
_PAPER_SHOW = re.compile(r"^\W*(?:(?:show|see|open)\s+(?:me\s+)?)?(?:my|the)\s+paper[\s-]*"
                         r"(?:book|trading|record|account|portfolio)[\s.!?]*$|^\W*how\s+(?:is|has)\s+my\s+paper[\s-]*(?:book|trading)\s+(?:doing|done)"
                         r"[\s.!?]*$", re.I)
_ZH_PAPER = r"(?:模拟|模擬)(?:跟单|跟單|交易|账户|帳戶|账本|帳本|盘|盤|组合|組合)?"
_PAPER_STOP_ZH = re.compile(r"^\W*(?:请)?(?:停止|结束|結束|关闭|關閉|取消)(?:我的)?" + _ZH_PAPER + r"[\W]*$")
_PAPER_START_ZH = re.compile(r"^\W*(?:请)?(?:帮我)?(?:用|拿|以)\s*(?P<amount>\d[\d,]*(?:\.\d+)?)\s*"
                             r"(?:(?P<unit>万|萬|千)\s*)?(?:元|美元|块)?\s*" + _ZH_PAPER + r"[\W]*$"
                             r"|^\W*(?:请)?(?:帮我)?(?:开始|開始|开启|開啟|开|開)(?:一个|一個)?" + _ZH_PAPER
                             + r"[\W]*$")
_PAPER_SHOW_ZH = re.compile(r"^\W*(?:查看|看看|显示|顯示)?(?:我的)" + _ZH_PAPER + r"[\W]*$")
_UNITS = {"k": 1_000, "thousand": 1_000, "m": 1_000_000, "million": 1_000_000, "千": 1_000, "万": 10_000,
          "萬": 10_000}


def _amount(m: re.Match[str]) -> str:
    """The figure the words gave, as a plain number ("100000", "25000.5"); "" when none."""
    figure = (m.groupdict().get("amount") or "").replace(",", "").replace("_", "")
    if not figure:
        return ""
    unit = (m.groupdict().get("unit") or "").lower()
    if unit:
        value = Decimal(figure) * _UNITS[unit]
        return f"{value.normalize():f}"
    return figure


def _paper_command(rest: str) -> PaperAsk:
    """`/paper` shows the book; `/paper start [AMOUNT]` (or `/paper 100000`) offers to start; `/paper stop` stops."""
    first, _, more = rest.strip().partition(" ")
    verb = first.lower()
    if verb in ("stop", "停止", "end"):
        return PaperAsk("stop")
    if verb in ("start", "begin", "开始", "開始"):
        return PaperAsk("start", amount=more.strip().replace(",", ""))
    if re.fullmatch(r"\d[\d,_]*(?:\.\d+)?", verb):
        return PaperAsk("start", amount=verb.replace(",", "").replace("_", ""))
    return PaperAsk("show")


def read_paper(text: str) -> PaperAsk | None:
    """What a whole message asks of the paper book; None when it is not about it."""
    if (m := _PAPER_COMMAND.match(text)) is not None:
        return _paper_command(m[1])
    language = detect_language(text)
    if _PAPER_STOP.match(text) or _PAPER_STOP_ZH.match(text):
        return PaperAsk("stop", language=language)
    for pattern in (_PAPER_START, _PAPER_START_ZH):
        if (m := pattern.match(text)) is not None:
            return PaperAsk("start", amount=_amount(m), language=language)
    if _PAPER_SHOW.match(text) or _PAPER_SHOW_ZH.match(text):
        return PaperAsk("show", language=language)
    return None
