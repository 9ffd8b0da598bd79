"""Simplified and Traditional Chinese: which one a text is written in, and the desk's own texts in
Traditional.

The desk keeps one catalogue of its Chinese texts, in Simplified (prompts/words_zh.md and the
request parser's messages_zh.toml); a thread written in Traditional ("輝達今天能買嗎？") has the
language "zh-Hant" and reads the same texts converted character by character. The conversion is
OpenCC's (the project every Chinese input method and e-book tool uses; its official wheel ships the
dictionaries, so nothing is downloaded at run time), with the Taiwan standard's characters
("s2tw"), which Hong Kong readers read as well. Each converter loads once, on first use.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = ["TRADITIONAL", "chinese_script", "chinese_tag", "is_chinese", "to_simplified", "to_traditional"]

TRADITIONAL = "zh-Hant"  # the BCP 47 tag the desk keeps for a thread in Traditional Chinese
_SIMPLIFIED = "zh"
# Language tags of Chinese (a browser's "zh-TW", a setting's "zh-hant"): where Traditional is written.
_ZH_TAG = re.compile(r"zh(?:[-_]([A-Za-z0-9]{1,8}))*", re.I)
_TRADITIONAL_SUBTAGS = {"hant", "tw", "hk", "mo"}
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


@lru_cache(maxsize=2)
def _converter(config: str) -> Any:
    import opencc

    return opencc.OpenCC(config)


def is_chinese(language: str) -> bool:
    """"zh" or "zh-Hant"."""
    return language.split("-", 1)[0] == _SIMPLIFIED


def chinese_tag(tag: str) -> str | None:
    """"zh-Hant" for a tag of Chinese written in Traditional ("zh-TW", "zh-HK", "zh-Hant-TW"), "zh"
    for any other tag of Chinese ("zh-CN", "zh"), None for a tag of another language."""
    if not _ZH_TAG.fullmatch(tag):
        return None
    subtags = {s.lower() for s in re.split(r"[-_]", tag)[1:]}
    return TRADITIONAL if subtags & _TRADITIONAL_SUBTAGS and "hans" not in subtags else _SIMPLIFIED


def to_traditional(text: str) -> str:
    return _converter("s2tw").convert(text)


def to_simplified(text: str) -> str:
    """`text` in Simplified characters, for the readers whose Chinese words are written in Simplified
    ("賣出一半蘋果" is read as "卖出一半苹果"); text without Han characters is returned as it is (and
    loads no converter)."""
    return _converter("t2s").convert(text) if _HAN.search(text) else text


def chinese_script(text: str) -> str | None:
    """"zh-Hant" when more of the text's characters are only Traditional than only Simplified,
    "zh" when the reverse, None when it cannot tell (none or as many of each: "今天可以吗" has one
    Simplified character, "今天可以" none)."""
    def changed(config: str) -> int:
        converted = _converter(config).convert(text)
        # OpenCC maps character for character here, so the lengths match; zip stops safely if not.
        return sum(a != b for a, b in zip(text, converted, strict=False))

    traditional, simplified = changed("t2s"), changed("s2t")
    if traditional == simplified:
        return None
    return TRADITIONAL if traditional > simplified else _SIMPLIFIED
