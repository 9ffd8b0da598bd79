"""Finding the ticker(s) a chat message names.

Runs on the message with its dates already blanked out (see
:mod:`graph.request.dates`), in four passes, each blanking what it found:
exchange-prefixed symbols ("NASDAQ:NVDA", "NYSE: BRK.B", "LON:VOD"),
share-class forms (BRK.B, "Berkshire B"), company names and aliases from
``data/companies.csv``, then symbol-looking tokens ($TSLA, NVDA, nvda,
0700.HK).

Every hit gets a confidence tier so that ordinary words do not become
tickers: "CAN I BUY TSLA NOW" is TSLA (NOW is ServiceNow only as $NOW), "AI is
overhyped" has no ticker, "should I chase this rally?" is not JPMorgan, and
"DROP TABLE threads" has none either: an upper-case English word that is not a
ticker we know is not taken for an unlisted symbol (``data/english_words.txt``);
the caller asks back and suggests the cashtag.
Only the best tier found is used, but a weaker hit joins when it is listed
with it ("V or MA?", "pepsi vs coke"). The word lists behind the tiers live in
``data/*.txt``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import date
from functools import lru_cache

from graph.core import clock

from .cjk_names import cjk_name_hits
from .companies import (
    EXCHANGE_SUFFIXES,
    SHARE_CLASSES,
    alias_table,
    is_known_ticker,
    normalize_ticker,
)
from .instruments import instrument_symbol
from .listing_codes import code_hits, listing_cues, market_of
from .scripts import blank_cjk, has_cjk
from .text import blank, lower, next_words, prev_word, sentence_start
from .ticker_hits import ORDINARY_WORD, TIER_LISTED_ONLY, TIER_STRONG, TIER_UNKNOWN, TIER_WEAK, TickerHit
from .wordlists import load_words, read_entries

__all__ = ["TickerHit", "scan_tickers"]

# Never tickers unless written as $CASHTAG: pronouns, function words, time
# words, trading vocabulary, finance/tech acronyms, chat slang (upper case).
HARD_STOP = load_words("hard_stop.txt")

# Ordinary English words of up to five letters that are not tickers we know:
# upper case they are still words ("DROP TABLE"), unless written as $CASHTAG.
ENGLISH_WORDS = load_words("english_words.txt")

# Exchange prefix -> the Yahoo suffix its symbols take ("" for US exchanges).
EXCHANGE_PREFIXES = {
    entry.split()[0]: [*entry.split(), ""][1] for entry in read_entries("exchange_prefixes.txt")
}
_PREFIX = "|".join(sorted((re.escape(p.lower()) for p in EXCHANGE_PREFIXES), key=len, reverse=True))
_SYMBOL = r"[a-z0-9][a-z0-9.\-/]{0,11}"
# "NASDAQ:NVDA", "nyse: brk.b", "$LON:VOD" ...
_PREFIXED = re.compile(rf"(?<![\w$])\$?({_PREFIX})\s*:(\s*)(\$?)({_SYMBOL})(?![\w&])")
# ... and Google Finance's "NVDA:NASDAQ".
_SUFFIXED = re.compile(rf"(?<![\w$])(\$?)({_SYMBOL}):({_PREFIX})(?![\w&])")

# Ordinary English words that are also tickers in companies.csv. Written in
# upper case inside a normal sentence ("Is COIN a buy?") they count, weakly;
# lower case or in an all-caps message they need a trading cue ("buy coin").
SOFT_WORDS = load_words("soft_words.txt")

# A weak (ordinary-word) name counts when one of these sits next to it:
# "buy target", "target stock", "is target a buy".
_CUE_BEFORE = load_words("cue_before.txt")
_CUE_AFTER = load_words("cue_after.txt")
_VERDICT_WORDS = load_words("verdict_words.txt")
# "Class C shares", "plan B", "grade A": single letters after these are labels.
_LABEL_WORDS = load_words("label_words.txt")
# Separators that put two tickers in one question ("NVDA or CELH?").
_LISTED = re.compile(
    r"\s*(?:(?:,|/|&|\+|\bor\b|\band\b|\bvs\.?|\bversus\b|\bover\b|\bthan\b|\binstead\s+of\b"
    r"|\bcompared\s+(?:to|with)\b|\bor\s+maybe\b)\s*)+",
    re.IGNORECASE,
)


def scan_tickers(remaining: str, shouted: bool, ignored: list[str] | None = None,
                 today: date | None = None) -> list[TickerHit]:
    """All ticker mentions worth acting on, one per symbol, in order of appearance.

    Upper-case words not taken for tickers because they are ordinary English
    ("TABLE") are appended to ``ignored``, so the question back can name them.
    A company listed in several places comes back with its ``listings`` when the
    message did not say which one.
    """
    markets = listing_cues(lower(remaining))
    hits, text = _local_hits(remaining, markets, today or clock.today())
    for finder in (_exchange_hits, _share_class_hits, _alias_hits, _symbol_hits):
        for hit in finder(text, shouted):
            hits.append(hit)
            text = blank(text, hit.start, hit.end)
    if ignored is not None:
        ignored.extend(dict.fromkeys(h.symbol for h in hits if h.how == ORDINARY_WORD))
    hits = _settle_listings(hits, markets)
    if not hits:
        return []
    best = max(h.tier for h in hits)
    if best == TIER_LISTED_ONLY:
        return []  # only ordinary words: "chase this rally", "50 day MA"
    chosen = [h for h in hits if h.tier == best]
    # Lower-confidence hits still count when listed alongside a confident one.
    for hit in sorted(hits, key=lambda h: h.start):
        if hit.tier < best and any(_listed_together(hit, c, remaining) for c in chosen):
            chosen.append(hit)
    chosen.sort(key=lambda h: h.start)
    unique: dict[str, TickerHit] = {}
    for hit in chosen:
        unique.setdefault(hit.symbol, hit)
    return list(unique.values())


def _local_hits(remaining: str, markets: set[str], today: date) -> tuple[list[TickerHit], str]:
    """Chinese/Japanese names and mainland/HK codes, found first; the text left for the English
    passes has them and every other CJK character blanked (:mod:`.scripts`), so "今日NVDAを買う"
    is " NVDA " to them."""
    hits = list(cjk_name_hits(remaining))
    text = remaining
    for hit in hits:
        text = blank(text, hit.start, hit.end)
    named = {s for h in hits for s in (h.listings or (h.symbol,))}
    for hit in code_hits(lower(remaining), blank_cjk(lower(text)), markets, named, has_cjk(remaining), today):
        hits.append(hit)
        text = blank(text, hit.start, hit.end)
    return hits, blank_cjk(text)


def _settle_listings(hits: list[TickerHit], markets: set[str]) -> list[TickerHit]:
    """A company listed in several places: the listing the message names (阿里巴巴 BABA, 阿里巴巴 9988)
    or whose market it names (阿里巴巴港股) is the one; otherwise all stay, to be asked about."""
    typed = {h.symbol for h in hits if not h.listings}
    settled = []
    for hit in hits:
        if hit.listings:
            chosen = [s for s in hit.listings if s in typed] or [s for s in hit.listings if market_of(s) in markets]
            if len(chosen) == 1:
                hit = replace(hit, symbol=chosen[0], listings=())
        settled.append(hit)
    return settled


def _listed_together(a: TickerHit, b: TickerHit, text: str) -> bool:
    first, second = (a, b) if a.start < b.start else (b, a)
    between = text[first.end : second.start]
    return bool(between.strip()) and bool(_LISTED.fullmatch(between))


def _cue(low: str, start: int, end: int, remaining: str) -> bool:
    """Does the context say an ordinary word is meant as a company/ticker?"""
    before = prev_word(low, start)
    after = next_words(low, end)
    if before in _CUE_BEFORE or (after and after[0] in _CUE_AFTER):
        return True
    if low[end : end + 2] == "'s":
        return True
    if len(after) == 2 and after[0] in ("a", "an") and after[1] in _VERDICT_WORDS:
        return True  # "is target a buy"
    return len(re.findall(r"[A-Za-z0-9$]+", remaining)) <= 2  # "coin?", "buy target"


def _exchange_hits(text: str, shouted: bool) -> Iterable[TickerHit]:
    """'NASDAQ:NVDA', 'NYSE: BRK.B', 'LON:VOD' (VOD.L), 'HKEX:700' (0700.HK), 'NVDA:NASDAQ'.

    The prefix only says where the symbol trades; it is blanked with it, so
    'NASDAQ' is not read as the Nasdaq ETF as well.
    """
    low = lower(text)
    for m in _PREFIXED.finditer(low):
        symbol_start = m.start(4)
        raw = m.group(4).rstrip(".-/")
        typed = text[symbol_start : symbol_start + len(raw)]
        # "the nasdaq: is it overvalued?": after a space, a lower-case word must be a known symbol.
        if m.group(2) and not m.group(3) and not (typed.isupper() or typed.isdigit() or _plain_known(typed)):
            continue
        symbol = _exchange_symbol(raw, EXCHANGE_PREFIXES[m.group(1).upper()])
        if symbol:
            end = symbol_start + len(raw)
            yield TickerHit(symbol, m.start(), end, text[m.start() : end], TIER_STRONG, "exchange-prefixed symbol")
            low = blank(low, m.start(), end)
    for m in _SUFFIXED.finditer(low):
        symbol = _exchange_symbol(m.group(2), EXCHANGE_PREFIXES[m.group(3).upper()])
        if symbol:
            yield TickerHit(symbol, m.start(), m.end(), text[m.start() : m.end()], TIER_STRONG,
                            "exchange-suffixed symbol")


def _plain_known(typed: str) -> bool:
    upper = typed.upper()
    return is_known_ticker(upper) and upper not in HARD_STOP and upper not in SOFT_WORDS


def _exchange_symbol(raw: str, suffix: str) -> str | None:
    """The Yahoo form of a symbol written after an exchange prefix."""
    raw = raw.upper()
    if suffix and "." not in raw:
        raw = f"{raw}.{suffix}"
    return normalize_ticker(raw)


def _share_class_hits(text: str, shouted: bool) -> Iterable[TickerHit]:
    """BRK.B, BRK/B, brk b, BRKB, 'Berkshire B', 'Berkshire Hathaway class A', BF.B."""
    low = lower(text)
    brk = r"(?<![\w$])\$?(brk|berkshire(?:\s+hathaway)?)(\s*[.\-/]\s*|\s+class\s+|\s+|)([ab])(?![\w&])"
    for m in re.finditer(brk, low):
        base, separator, letter = m.group(1), m.group(2), m.group(3).upper()
        if not separator and base != "brk":
            continue  # "berkshireb" is not a thing
        if letter == "A" and separator.strip() == "":
            # "is berkshire a buy?": the article, unless "A shares" or the end.
            nxt = next_words(low, m.end(), 1)
            if nxt and nxt[0] not in ("shares", "share", "stock", "stocks", "class"):
                continue
        yield TickerHit(f"BRK-{letter}", m.start(), m.end(), text[m.start() : m.end()], TIER_STRONG, "share class")
    for m in re.finditer(r"(?<![\w$])\$?bf\s*[.\-/]\s*([ab])(?![\w&])", low):
        yield TickerHit(f"BF-{m.group(1).upper()}", m.start(), m.end(), text[m.start() : m.end()], TIER_STRONG,
                        "share class")


def _alias_key(name: str) -> str:
    """'Coca-Cola', 'coca cola', 'cocacola', 'AT & T' all share one key."""
    return re.sub(r"[\s\-]+", "", name.lower())


@lru_cache(maxsize=1)
def _alias_index() -> tuple[re.Pattern[str], dict[str, tuple[str, bool]]]:
    """One regex over every alias (longest first) plus key -> (ticker, weak)."""
    by_key: dict[str, tuple[str, bool]] = {}
    parts = []
    for alias, entry in sorted(alias_table().items(), key=lambda kv: len(kv[0]), reverse=True):
        by_key.setdefault(_alias_key(alias), entry)
        # Spaces and hyphens are optional/interchangeable; "&" may have spaces.
        tokens = [t for t in re.split(r"[\s\-]+", alias) if t]
        parts.append(r"[\s\-]*".join(r"\s*&\s*".join(map(re.escape, t.split("&"))) for t in tokens))
    pattern = re.compile(r"(?<![\w&$])(?:" + "|".join(parts) + r")(?![\w&])")
    return pattern, by_key


def _alias_hits(text: str, shouted: bool) -> Iterable[TickerHit]:
    """Company names and nicknames: 'Apple', "nvidia's", 'Coca-Cola', 'JP Morgan'."""
    pattern, by_key = _alias_index()
    low = lower(text)
    for m in pattern.finditer(low):
        entry = by_key.get(_alias_key(m.group(0)))
        if entry is None:
            continue
        symbol, weak = entry
        typed = text[m.start() : m.end()]
        if not weak:
            yield TickerHit(symbol, m.start(), m.end(), typed, TIER_STRONG, "company name")
        elif not shouted and any(c.isupper() for c in typed) and not sentence_start(text, m.start()):
            yield TickerHit(symbol, m.start(), m.end(), typed, TIER_STRONG, "capitalised name")
        elif _cue(low, m.start(), m.end(), text):
            yield TickerHit(symbol, m.start(), m.end(), typed, TIER_WEAK, "name in context")
        else:
            yield TickerHit(symbol, m.start(), m.end(), typed, TIER_LISTED_ONLY, "name-like word")


def _symbol_hits(text: str, shouted: bool) -> Iterable[TickerHit]:
    """Symbol-looking tokens: $TSLA, NVDA, nvda, 0700.HK, VOD.L, SHOP.TO, BTC-USD."""
    low = lower(text)
    for m in re.finditer(r"\S+", text):
        for start, token in _split_chunk(m.group(0), m.start()):
            hit = _classify_token(token, start, text, low, shouted)
            if hit:
                yield hit


def _split_chunk(chunk: str, offset: int) -> Iterable[tuple[int, str]]:
    """Strip punctuation and possessives; split 'NVDA/AMD' and 'NVDA,AMD' lists."""
    lead = len(chunk) - len(chunk.lstrip("([{\"'#*<¿¡"))  # "¿AAPL hoy?"
    chunk = chunk[lead:].rstrip(".,!?;:)]}\"'*>…")
    offset += lead
    if chunk.lower().endswith("'s"):
        chunk = chunk[:-2]
    pieces = re.split(r"(,|/)", chunk)
    # "BRK/B" and "P/E" stay whole (a one-letter right side is a class or a ratio).
    if len(pieces) == 3 and pieces[1] == "/" and len(pieces[2]) == 1:
        pieces = [chunk]
    position = offset
    for piece in pieces:
        if piece and piece not in (",", "/"):
            yield position, piece
        position += len(piece)


def _classify_token(token: str, start: int, text: str, low: str, shouted: bool) -> TickerHit | None:
    cashtag = token.startswith("$")
    body = token[1:] if cashtag else token
    end = start + len(token)
    if body and (symbol := instrument_symbol(body, text)) is not None:
        return TickerHit(symbol, start, end, token, TIER_STRONG, "instrument symbol")  # ^GSPC, EURUSD=X, GC=F
    if not body or re.search(r"[&+'@:=%#]", body):
        return None  # M&A, T+1, don't, 10%, ...
    if re.fullmatch(r"[A-Za-z]{2,6}-usd", body, re.IGNORECASE):
        return TickerHit(body.upper(), start, end, token, TIER_STRONG, "crypto pair")
    if re.search(r"[.\-/]", body):
        return _classify_suffixed(token, body, cashtag, start, end, text, low, shouted)
    if not re.fullmatch(r"[A-Za-z]{1,6}", body):
        return None  # numbers, prices, Q3, 10K ...
    upper = body.upper()
    if cashtag:
        return TickerHit(upper, start, end, token, TIER_STRONG, "cashtag")
    if body.isupper():
        return _classify_upper(upper, token, start, end, text, low, shouted)
    return _classify_lower(upper, token, start, end, text, low)


def _classify_suffixed(
    token: str, body: str, cashtag: bool, start: int, end: int, text: str, low: str, shouted: bool
) -> TickerHit | None:
    """Exchange suffixes (0700.HK), share classes (XYZ.B), 'NVDA-related'."""
    m = re.fullmatch(r"([A-Za-z0-9]{1,8})([.\-/])([A-Za-z]{1,3})", body)
    if m:
        base, sep, suffix = m.group(1), m.group(2), m.group(3).upper()
        explicit = cashtag or base.isupper() or base.isdigit()
        # "shop.to" is clearly a symbol; "e.g" or "a.m" (one letter, lower case) are not.
        plausible = base.isdigit() or (base[0].isalpha() and (len(base) >= 2 or cashtag))
        if sep == "." and suffix in EXCHANGE_SUFFIXES and plausible and (explicit or len(suffix) >= 2):
            symbol = normalize_ticker(body)
            if symbol:
                return TickerHit(symbol, start, end, token, TIER_STRONG, "exchange symbol")
        if suffix in SHARE_CLASSES and base.isalpha() and 2 <= len(base) <= 5:
            symbol = f"{base.upper()}-{suffix}"
            if explicit or is_known_ticker(symbol):
                return TickerHit(symbol, start, end, token, TIER_STRONG, "share class")
    # "NVDA-related", "TSLA-style": judge the symbol before the hyphen.
    first, _, rest = body.partition("-")
    if rest and rest.isalpha() and rest.islower() and len(first) >= 2 and first.isupper():
        return _classify_token(("$" if cashtag else "") + first, start, text, low, shouted)
    return None


def _classify_upper(
    upper: str, token: str, start: int, end: int, text: str, low: str, shouted: bool
) -> TickerHit | None:
    known = is_known_ticker(upper)
    if upper in HARD_STOP or upper in SOFT_WORDS:
        return _upper_word(upper, known, token, start, end, text, low, shouted)
    if len(upper) == 1:
        if not known or prev_word(low, start) in _LABEL_WORDS:
            return None
        return TickerHit(upper, start, end, token, TIER_WEAK if shouted else TIER_STRONG, "one-letter symbol")
    if known:
        return TickerHit(upper, start, end, token, TIER_STRONG, "known symbol")
    if len(upper) <= 5:
        if upper in ENGLISH_WORDS:  # "DROP TABLE threads": a word, unless listed with a ticker
            return TickerHit(upper, start, end, token, TIER_LISTED_ONLY, ORDINARY_WORD)
        return TickerHit(upper, start, end, token, TIER_UNKNOWN, "unlisted symbol")
    return None


def _upper_word(
    upper: str, known: bool, token: str, start: int, end: int, text: str, low: str, shouted: bool
) -> TickerHit | None:
    """An upper-case word that is usually not a ticker: a soft word that is a listed symbol
    ("NOW") counts by its context; a hard stop only when listed with other tickers."""
    if upper in SOFT_WORDS and known:
        if not shouted:
            return TickerHit(upper, start, end, token, TIER_WEAK, "upper-case word")
        if _cue(low, start, end, text):
            return TickerHit(upper, start, end, token, TIER_WEAK, "word in context")
        return TickerHit(upper, start, end, token, TIER_LISTED_ONLY, "upper-case word")
    if known and not shouted and len(upper) > 1:  # "V or MA?" still names two
        return TickerHit(upper, start, end, token, TIER_LISTED_ONLY, "upper-case word")
    return None


def _classify_lower(upper: str, token: str, start: int, end: int, text: str, low: str) -> TickerHit | None:
    """Lower/mixed case only counts for tickers we know ('nvda', 'Tsla')."""
    if not is_known_ticker(upper) or len(upper) == 1 or upper in HARD_STOP:
        return None
    if len(upper) <= 2 or upper in SOFT_WORDS:
        if _cue(low, start, end, text):
            return TickerHit(upper, start, end, token, TIER_WEAK, "lower-case symbol in context")
        return TickerHit(upper, start, end, token, TIER_LISTED_ONLY, "lower-case word")
    return TickerHit(upper, start, end, token, TIER_STRONG, "lower-case symbol")
