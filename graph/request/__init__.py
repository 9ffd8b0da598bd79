"""Deterministic parsing of a chat message into an analysis request.

The chat coordinator calls :func:`parse_request` on every user message. It must
be fast, predictable and never raise, so it is plain rules and regular
expressions, no model:

1. Dates are found first ("2024-05-01", "last Friday", "3 days ago", ...) and
   blanked out of the text, so "Mar 15" can never be read as the ticker MAR
   (:mod:`.dates`, which also documents the date conventions).
2. Tickers are found in three passes over what is left: share-class forms
   (BRK.B, "Berkshire B"), company names/aliases from ``data/companies.csv``,
   then symbol-looking tokens ($TSLA, NVDA, nvda, 0700.HK) (:mod:`.tickers`,
   with the company table in :mod:`.companies`).
3. The intent (analyze / followup / chat / clarify) is decided from what was
   found plus the conversation state passed in by the caller (:mod:`.intent`).

Requests in other languages go through the same steps. Chinese and Japanese are
written without spaces, so their passes run first on each step and blank what
they read, and the rest of the CJK text is blanked before the English passes
(:mod:`.scripts`): dates said in Chinese, Japanese, Spanish, French or German
(:mod:`.intl_dates`), company names in Chinese and Japanese (:mod:`.cjk_names`,
``data/companies_cjk.csv``; a company listed in several places is asked about),
mainland and Hong Kong codes (:mod:`.listing_codes`, which documents when a bare
number is one). The language of the request is detected (:mod:`.language`) and
returned as ``ParsedRequest.language``; the questions back are worded in it where
a catalogue exists (:mod:`.messages`, ``data/messages_<code>.toml``: English and
Chinese so far), else in English.

The vocabularies the rules rely on (stop words, cue words, chat phrases, ...)
are plain text files in ``data/``, loaded once at import (:mod:`.wordlists`).

Before any of that, and before a message is stored anywhere, :func:`clean_message`
(:mod:`.guard`) makes it safe: cut to :data:`MAX_MESSAGE_CHARS` first, lone
surrogates replaced, NULs, controls and invisible characters removed, with a
sentence for the user when the message was cut or held nothing readable.
``parse_request`` applies it itself too.
"""

from .dates import MIN_DATE
from .guard import MAX_MESSAGE_CHARS, Cleaned, clean_message
from .intent import Intent, ParsedRequest, parse_request

__all__ = ["MAX_MESSAGE_CHARS", "MIN_DATE", "Cleaned", "Intent", "ParsedRequest", "clean_message", "parse_request"]
