"""Words of other languages that ask the desk for a call (comprar, acheter, kaufen, 买, 買う ...),
kept as data in ``data/call_words.tsv``: the counterpart of the English "should I buy"."""

from __future__ import annotations

import re
from functools import lru_cache

from .wordlists import DATA

__all__ = ["call_languages"]


@lru_cache(maxsize=1)
def _words() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in (DATA / "call_words.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            word, language = line.split("\t")
            table[word] = language
    return table


def call_languages(low: str) -> set[str]:
    """The languages whose call words occur in the lower-cased message (Latin words whole; Chinese
    and Japanese ones anywhere, as they are written without spaces)."""
    found = set()
    for word, language in _words().items():
        pattern = rf"(?<![\w-]){re.escape(word)}(?![\w-])" if language in ("es", "fr", "de") else word
        if re.search(pattern, low):
            found.add(language)
    return found
