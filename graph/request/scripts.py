"""Chinese and Japanese text: which characters are CJK, their numerals, and blanking them.

Chinese and Japanese put no spaces between words, so "英伟达今天能买吗" or
"今日NVDAを買うべき" is one \\S+ run, and every ``\\b`` in the English passes sits in
the wrong place (a Han character is a word character). The CJK passes
(:mod:`graph.request.intl_dates`, :mod:`graph.request.local_names`) read such text
first; what they leave is blanked with :func:`blank_cjk`, one space per character,
so the English passes see "NVDA" on its own and every index stays where it was.
"""

from __future__ import annotations

import re

__all__ = ["CJK_COUNT", "CJK_LETTER", "blank_cjk", "cjk_number", "has_cjk", "has_han", "has_kana"]

_KANA = "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff"
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005\u3007"  # with 々 and 〇
# Letters of the CJK scripts (Hangul too: a Korean request is not English either).
CJK_LETTER = re.compile(f"[{_KANA}{_HAN}\uac00-\ud7af]")
# ... plus their punctuation ("。", "、", "「」"), which NFKC leaves as it is.
_CJK_ANY = re.compile(f"[{_KANA}{_HAN}\uac00-\ud7af\u3000-\u303f\uff5f-\uff65]")
_KANA_RE = re.compile(f"[{_KANA}]")
_HAN_RE = re.compile(f"[{_HAN}]")

_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
           "六": 6, "七": 7, "八": 8, "九": 9}  # fmt: skip
_UNITS = {"十": 10, "百": 100, "千": 1000}
# A count in Chinese numerals ("三", "十五", "两百") or ASCII digits (NFKC made full-width ones ASCII).
# Bounded, and only from the start of a run of digits: "1111…" must not cost quadratic backtracking.
CJK_COUNT = r"(?<![\d〇零一二两兩三四五六七八九十百千])(?:\d{1,6}|[〇零一二两兩三四五六七八九十百千]{1,8})"


def has_cjk(text: str) -> bool:
    return CJK_LETTER.search(text) is not None


def has_kana(text: str) -> bool:
    return _KANA_RE.search(text) is not None


def has_han(text: str) -> bool:
    return _HAN_RE.search(text) is not None


def blank_cjk(text: str) -> str:
    """Every CJK letter and punctuation mark as a space (same length, same indices)."""
    return _CJK_ANY.sub(" ", text)


def cjk_number(text: str) -> int | None:
    """'3' -> 3, '三' -> 3, '十五' -> 15, '二十' -> 20, '两百' -> 200, '一九九零' -> 1990."""
    if text.isdigit():
        return int(text)
    if not text or any(c not in _DIGITS and c not in _UNITS for c in text):
        return None
    if not any(c in _UNITS for c in text):  # digit by digit, as years are written: 二〇二四
        return int("".join(str(_DIGITS[c]) for c in text))
    total = current = 0
    for c in text:
        if c in _DIGITS:
            current = _DIGITS[c]
        else:
            total += max(current, 1) * _UNITS[c]  # "十五": the ten stands for one ten
            current = 0
    return total + current
