"""Whether a message asks for the desk's track record ("how have your calls done?", "/record",
"what did you decide on NVDA last time, and were you right?", "你的判断表现如何？", "业绩记录"), rather
than for a new analysis. Chinese is read in Simplified (a message in Traditional is converted first)."""
from __future__ import annotations

import re

from ..core.chinese_script import to_simplified

_ASKS = re.compile(
    r"^\s*/record\b"
    r"|\b(?:your|the\s+desk'?s?|my)\s+track\s+record\b|^\W*track\s+record\W*$"
    r"|\bhow\s+(?:have|did|are|were)\s+(?:your|the\s+desk'?s?|my)\s+(?:past\s+|previous\s+|last\s+)?"
    r"(?:calls?|decisions?|picks?|trades?|recommendations?)\b"
    r"|\b(?:were\s+you|was\s+the\s+desk|was\s+(?:that|your|the\s+desk'?s?)\s+(?:last\s+)?call)\s+right\b"
    r"|\bwhat\s+did\s+(?:you|the\s+desk)\s+(?:decide|say|call|recommend)\b.*\blast\s+time\b"
    r"|\byour\s+(?:past|previous|earlier|last)\s+(?:calls|decisions|picks)\b"
    r"|\byour\s+hit\s+rate\b",
    re.I | re.S)
# "你的判断表现如何？", "你们过去的建议准吗", "交易台的战绩", "业绩记录", "上次说对了吗": the desk's record, its
# past calls and whether they were right. A question about a stock's own performance ("英伟达表现如何") is not.
_ASKS_ZH = re.compile(
    r"业绩记录|历史战绩|(?:你|你们|交易台)的?(?:业绩|战绩|胜率|命中率|准确率)"
    r"|(?:你|你们|交易台)(?:在[^，。？?!！]{1,16}上)?(?:的|之前|以前|过去|上次)*(?:判断|建议|决定|推荐|预测|操作|信号)"
    r"(?:的)?(?:表现|效果|结果|怎么样|如何|准不准|准吗|对不对|对吗|靠谱吗|胜率|命中率)"
    r"|(?:你|你们|交易台)?上次(?:的)?(?:判断|建议|决定)?(?:说)?(?:对了吗|对不对|准吗|准不准)")


def asks_for_record(text: str) -> bool:
    return _ASKS.search(text) is not None or _ASKS_ZH.search(to_simplified(text)) is not None
