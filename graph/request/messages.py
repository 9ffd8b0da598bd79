"""What the request parser says back, in the asker's language.

The texts are data, one catalogue per language (``data/messages_<code>.toml``, keys and
placeholders as in ``messages_en.toml``). A language without a catalogue, or a key its
catalogue lacks, falls back to English, so adding a language is adding one file. Traditional
Chinese ("zh-Hant") reads the Simplified catalogue converted (graph/core/chinese_script.py).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from functools import lru_cache

from ..core.chinese_script import TRADITIONAL, to_traditional
from .wordlists import DATA

__all__ = ["has_catalogue", "listed", "say"]


@lru_cache(maxsize=16)  # one per language with a catalogue, and a few without
def _catalogue(language: str) -> dict[str, str]:
    if language == TRADITIONAL:
        return {k: to_traditional(v) for k, v in _catalogue("zh").items()}
    path = DATA / f"messages_{language}.toml"
    if not language.isalpha() or not path.is_file():
        return {}
    return {k: str(v) for k, v in tomllib.loads(path.read_text(encoding="utf-8")).items()}


def has_catalogue(language: str) -> bool:
    return bool(_catalogue(language))


def say(language: str, key: str, **fields: object) -> str:
    """The message ``key`` in ``language`` (else English), its placeholders filled."""
    template = _catalogue(language).get(key) or _catalogue("en")[key]
    return template.format(**fields)


def listed(language: str, items: Sequence[str], last: str = "and") -> str:
    """'A, B and C' / 'A、B和C'; ``last`` is the key of the final joiner ("and" or "or")."""
    if len(items) < 2:
        return "".join(items)
    comma, final = say(language, "comma"), say(language, last)
    return comma.join(items[:-1]) + final + items[-1]
