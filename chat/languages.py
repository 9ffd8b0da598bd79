"""Which language the chat words itself in: a thread's own (graph's `language_of`, set by the
coordinator from the request), and before a thread has one, the page's: DESK_LANGUAGE when it fixes
the language, else the browser's.

Chainlit reads the browser's language from the Accept-Language header of the socket's handshake
(chainlit/session.py: `session.language`, "zh-CN"; "en-US" when there is none); the page's own
requests (/desk/ui.json) carry the same header. The desk's catalogues are per ISO 639 language
("zh"), so only the part before the region is kept, except that Chinese read in Taiwan, Hong Kong or
Macau ("zh-TW") is Traditional Chinese, "zh-Hant".
"""
from __future__ import annotations

import re
from typing import Any

from graph import Settings, chinese_tag

DEFAULT = "en"
_PRIMARY = re.compile(r"\s*([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*\s*(?:;|,|$)")


def primary(tag: str | None) -> str:
    """The ISO 639 code of a language tag or of an Accept-Language header's first choice
    ("zh-CN,zh;q=0.9" → "zh", "zh-TW" → "zh-Hant"); English for anything else."""
    m = _PRIMARY.match(tag or "")
    if not m:
        return DEFAULT
    return chinese_tag(m[0].strip(" ;,")) or m[1].lower()


def page_language(settings: Settings, tag: str | None) -> str:
    """The language for a page whose thread has none yet: the setting's, else the browser's."""
    return settings.language if settings.language != "auto" else primary(tag)


def session_language(settings: Settings, session: Any) -> str:
    """The page language of a Chainlit session (its `language`, from the socket's handshake)."""
    return page_language(settings, getattr(session, "language", None))
