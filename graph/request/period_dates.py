"""Quarters, halves of a year and seasons, in English and Chinese (and quarters in Spanish, French, German and
Japanese: 'tercer trimestre de 2024', 'le trimestre dernier', 'im dritten Quartal 2024', '2024年第3四半期').

They run before every other finder (:func:`graph.request.dates.scan_dates`): "2024年第三季度" would
otherwise be the whole year 2024, and "去年夏天" last year's end. Choices:

* a calendar quarter ("Q3 2024", "2024 Q3", "3Q24", "Q3'24", "the third quarter of 2024", "in Q3",
  "last quarter", "the end of Q2", "2024年第三季度", "去年三季度", "上季度") -> its last day, as a month
  is: an analysis reads about three months of prices back, so a quarter's end covers the quarter; the
  current quarter is today, one ahead is refused. Without a year, the most recent such quarter (the
  coming one when the message speaks of what is to come, as "in December");
* a quarter that names a report ("Q3 earnings", "三季度财报", "beat estimates last quarter") is the
  report, not the day to analyse; nor is "Q3" alone in a longer message ("is Q3 going to be strong
  for NVDA and AMD" is about results);
* a fiscal quarter ("fiscal Q3", "FY25 Q3", "2025财年第三季度") is the company's own calendar (NVIDIA's
  third quarter ends in October): which day is asked back;
* a half ("H1 2024", "the first half of 2024", "2024年上半年", "去年下半年") and a season ("last summer",
  "in the spring of 2024", "去年夏天") are longer or fuzzier stretches: which day is asked back, as
  "early March" (refused when all ahead or before the earliest date), as is a part of a quarter ("early Q3");
* a span ("since Q3", "三季度以来", "一季度至今") is no day; a stretch said beside an explicit "today" or
  "now" is background (graph/request/dates.py), and a question about the analysis on screen that talks of
  one is a follow-up on it (graph/request/intent.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .absolute_dates import speaks_of_future, written_year
from .date_hits import DateHit, found
from .date_meanings import THIS_YEAR, Meaning, Year
from .date_words import SPAN_WORDS
from .intl_dates import SPAN_AFTER, YEAR_REF, year_ref
from .scripts import cjk_number
from .text import blank, next_words, prev_word

__all__ = ["find_periods"]

# A quarter or a half that names a report or a result, not a stretch of days.
_REPORT_WORDS = frozenset({
    "earnings", "results", "result", "report", "reports", "reported", "numbers", "guidance", "call", "calls",
    "revenue", "revenues", "sales", "eps", "print", "update", "filing", "deliveries", "estimates", "estimate",
    "consensus", "beat", "beats", "miss", "missed", "misses", "margin", "margins", "growth", "grew", "outlook",
    "forecast", "profit", "profits", "loss", "income", "dividend", "10-q", "figures", "data", "gdp", "cpi",
    "résultats", "resultats", "bénéfices", "chiffre", "ergebnisse", "ergebnis", "zahlen", "quartalszahlen",
    "umsatz", "gewinn", "resultados", "ganancias", "beneficios", "ventas", "informe",
})  # fmt: skip
# What may follow a quarter, a half or a season in Chinese (or Japanese) that makes it a report, an event or a
# market mood rather than a stretch of days to analyse.
_CN_REPORT_WORDS = (r"\s?(?:财报|財報|报|報|业绩|業績|营收|營收|利润|利潤|数据|數據|gdp|超预期|超預期|预期|預期|指引"
                    r"|发布会|發佈會|发布|發佈|上线|上線|行情|躁动|躁動|攻势|攻勢|決算)")
_CN_REPORT = rf"(?!{_CN_REPORT_WORDS})"
# A span from or up to it ("三季度以来", "一季度至今", "三季度前"), not the day to analyse.
_CN_SPAN_WORDS = rf"\s?{SPAN_AFTER}"
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_ORDINAL = r"(first|second|third|fourth|1st|2nd|3rd|4th)"
# Edges of a token written in Latin letters and digits: not \b, which a Chinese character next to it hides
# ("微软Q3 2024对比").
_L, _R = r"(?<![a-z0-9])", r"(?![a-z0-9])"
# A four-digit year is 19xx or 20xx and no amount ("Q1, 2000 shares", "Q4 1200 target"); "of last year" is one too.
_AMOUNT = r"(?!%|[.,]\d|\s*(?:shares?|target|points?|pts|calls?|puts?|contracts?|strike|dollars?|usd|bucks)\b)"


def _year_after(attached: bool) -> str:
    """The year after a quarter or a half: ' 2024', ' of 2024', '-2025', "'24", '-24', '/24', ' of last year';
    two digits written right onto it only when `attached` ("3Q24", "1H24": not "Q100", "H100", NVIDIA's chips).
    Groups: four digits, two digits, two digits attached (never matched unless `attached`), last/this."""
    onto = rf"(\d{{2}}){_R}{_AMOUNT}" if attached else "()(?!)"
    return (rf"(?:\s*[,/-]?\s*(?:of\s+|in\s+)?((?:19|20)\d{{2}}){_R}{_AMOUNT}|\s*['/-]\s?(\d{{2}}){_R}{_AMOUNT}"
            rf"|{onto}|\s+(?:of\s+)?(last|this)\s+year\b)")


_YEAR_AFTER, _YEAR_ONTO = _year_after(False), _year_after(True)
# Not "for": "buy NVDA for Q1" buys today for a quarter to come.
_PREPS = frozenset({"in", "during", "throughout", "over", "of", "at"})
_SPAN_BEFORE = frozenset({"over", "within", "for", "throughout", "since", "through", "across"})
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_SEASON = r"(spring|summer|fall|autumn|winter)"


def find_periods(low: str) -> Iterable[DateHit]:
    """Every quarter, half and season said in ``low``; each hit is blanked before the next finder."""
    for finder in (_fiscal, _cn_fiscal, _cn_quarters, _cn_halves, _cn_seasons, _other_quarters, _quarters, _halves,
                   _seasons):
        for hit in finder(low):
            hit.period = True
            yield hit
            low = blank(low, hit.start, hit.end)


# --------------------------------------------------------------------------
# what a hit is


def _quarter_hit(year: Year | None, quarter: int, m: re.Match[str], how: str, back: int = 0) -> DateHit:
    """A quarter of a year (its last day; today while it is the current quarter), or the one ``back`` from the
    current one ("last quarter": -1)."""
    return found(m, Meaning("quarter", year=year, which=quarter, n=back), how)


def _stretch_hit(year: Year, month: int, m: re.Match[str], how: str) -> DateHit:
    """A stretch starting in ``month`` of ``year`` whose day is not said: asked back, unless it is all ahead or
    too early. Asked only when nothing more specific is said: "I lost a lot in the fall, should I buy NVDA
    today?" asks about today."""
    return found(m, Meaning("stretch", year=year, month=month), how)


def _recent_year(low: str, start: int) -> Year:
    """The year of a quarter or season said without one: the most recent that has begun, or the
    coming one (refused when ahead) when the message speaks of what is to come."""
    if speaks_of_future(low[:start]) or _CN_FUTURE.search(low[max(0, start - 12):start + 16]):
        return Year(how="coming")
    return Year(how="recent")


# A quarter said with 会不会 / 将 / 预计 is one to come: "英伟达一季度会不会回调" is refused as ahead.
_CN_FUTURE = re.compile(r"会不会|會不會|会涨|会跌|會漲|會跌|将会|將會|预计|預計|展望|即将|即將")


def _names_a_report(low: str, m: re.Match[str]) -> bool:
    """'Q3 earnings', 'beat estimates last quarter', '英伟达Q3财报', 'résultats au troisième trimestre'."""
    after = re.findall(r"[\w'-]+", low[m.end() : m.end() + 60])[:2]
    before = re.findall(r"[\w'-]+", low[max(0, m.start() - 40) : m.start()])[-3:]
    return any(w in _REPORT_WORDS for w in (*after, *before)) or re.match(_CN_REPORT_WORDS, low[m.end():]) is not None


def _spans(low: str, m: re.Match[str]) -> bool:
    """'since Q3', 'before Q3 2025', 'by Q4', 'from Q1 to Q3': one end of a span (as "since March"), not a day."""
    before = low[max(0, m.start() - 2) : m.start()]
    return (prev_word(low, m.start()) in SPAN_WORDS or re.match(_CN_SPAN_WORDS, low[m.end():]) is not None
            or before.endswith(("自", "从", "從")))


# --------------------------------------------------------------------------
# English


def _fiscal(low: str) -> Iterable[DateHit]:
    """'fiscal Q3', 'FY25 Q3', 'Q3 FY2025', 'fiscal 2025 third quarter', 'FQ3': the company's calendar, asked."""
    fy = r"(?:fy|fiscal(?:\s+year)?)\s?'?(?:\d{4}|\d{2})?"
    quarter = r"(?:q[1-4]|[1-4]q|(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:quarter|half)|h[12])"
    pattern = rf"{_L}(?:{fy}\s*{quarter}|{quarter}\s*(?:of\s+)?{fy}|fq[1-4]){_R}"
    for m in re.finditer(pattern, low):
        if not _names_a_report(low, m):
            yield found(m, Meaning("ask", ask="vague"), "fiscal period")


def _quarters(low: str) -> Iterable[DateHit]:
    """'Q3 2024', '2024 Q3', '2024Q3', '3Q24', "Q3'24", 'the third quarter of 2024', 'in Q3', "last year's Q3",
    'the last quarter of 2024' (its Q4), 'last quarter', 'the quarter before last'."""
    # The year first, so "2024 Q3" is not "Q3" alone; then "last year's Q3".
    year_first = (rf"{_L}((?:19|20)\d{{2}})\s?-?\s?q([1-4]){_R}",
                  rf"\b(last|this)\s+year'?s\s+(?:q([1-4]){_R}|{_ORDINAL}\s+quarter\b)")
    for pattern in year_first:
        for m in re.finditer(pattern, low):
            if not (_names_a_report(low, m) or _spans(low, m)):
                word = m.group(1)
                year = Year(-(word == "last"), "shift") if word in ("last", "this") else Year(int(word))
                yield _quarter_hit(year, int(m.group(2)) if m.group(2) else _ORDINALS[m.group(3)], m, "quarter")
                low = blank(low, m.start(), m.end())
    forms = (rf"{_L}q([1-4]){_YEAR_AFTER}?{_R}", rf"{_L}([1-4])q{_YEAR_ONTO}",
             rf"\b(?:the\s+)?{_ORDINAL}\s+quarter{_YEAR_AFTER}?",
             rf"\b(?:the\s+)?(last|final)\s+quarter{_YEAR_AFTER}")
    for pattern in forms:
        for m in re.finditer(pattern, low):
            hit = None if _names_a_report(low, m) or _spans(low, m) else _said_quarter(m, low)
            if hit is not None:
                yield hit
                low = blank(low, m.start(), m.end())
    back = r"(?:(?:the\s+)?end\s+of\s+)?(?:the\s+)?(?:(?:last|previous|prior)\s+quarter|quarter\s+before\s+(last))"
    for m in re.finditer(rf"\b{back}(?:'s)?\b", low):
        # "over the last quarter" is a span, as "over the past 3 months"
        if not _names_a_report(low, m) and prev_word(low, m.start()) not in _SPAN_BEFORE:
            yield _quarter_hit(None, 0, m, "quarter", back=-2 if m.group(1) else -1)


_PART_BEFORE = re.compile(r"\b(?:early|mid|late|(?:the\s+)?(?:start|beginning|middle)\s+of(?:\s+the)?)[\s-]*$")


def _said_quarter(m: re.Match[str], low: str) -> DateHit | None:
    """A quarter with the year after it (groups 2-4: '2024', "'24", '24'; 5: 'last'/'this' year), or one
    without a year where a quarter alone is meant (:func:`_bare_period`)."""
    quarter = 4 if m.group(1) in ("last", "final") else _ORDINALS.get(m.group(1)) or int(m.group(1))
    said = m.group(2) or m.group(3) or m.group(4)
    if m.group(5):
        year = Year(-(m.group(5) == "last"), "shift")
    elif said:
        year = written_year(said)
    elif _bare_period(low, m):
        year = _recent_year(low, m.start())
    else:
        return None
    if _PART_BEFORE.search(low[: m.start()]):
        return _stretch_hit(year, quarter * 3 - 2, m, "part of a quarter")  # "early Q3": which day is asked
    return _quarter_hit(year, quarter, m, "quarter")


def _bare_period(low: str, m: re.Match[str]) -> bool:
    """A quarter or season without a year is one after 'in', 'during', 'the end of'..., or in a message of
    up to three words ('NVDA Q3'); elsewhere it is talk of results ('Q3 looks strong')."""
    before = prev_word(low, m.start())
    return before in _PREPS or len(re.findall(r"\S+", low)) <= 3


def _halves(low: str) -> Iterable[DateHit]:
    """'H1 2024', '2024 H2', '1H24', 'the first half of 2024', 'the second half of last year': asked back."""
    # "1h 20 ema" is a chart's time frame, "H100" a chip: a two-digit year only as "1H24" or "H1'24".
    forms = (
        rf"{_L}h([12])(?:{_YEAR_AFTER}|\s(?:of\s+)?the\s+year\b)",
        rf"{_L}([12])h(?:{_YEAR_ONTO}|\s(?:of\s+)?the\s+year\b)",
        rf"\b(?:the\s+)?(first|second|1st|2nd)\s+half(?:{_YEAR_AFTER}|\s(?:of\s+)?the\s+year\b)",
    )
    for pattern in forms:
        for m in re.finditer(pattern, low):
            if _names_a_report(low, m) or _spans(low, m):
                continue
            half = 1 if m.group(1) in ("1", "first", "1st") else 2
            year = _said_year(m.group(2), m.group(3) or m.group(4), m.group(5))
            yield _stretch_hit(year, 1 if half == 1 else 7, m, "half year")
            low = blank(low, m.start(), m.end())
    for m in re.finditer(rf"{_L}((?:19|20)\d{{2}})\s?h([12]){_R}", low):
        if not _names_a_report(low, m):
            yield _stretch_hit(Year(int(m.group(1))), 1 if m.group(2) == "1" else 7, m, "half year")


def _said_year(four: str | None, two: str | None, word: str | None) -> Year:
    if four:
        return Year(int(four))
    if two:
        return written_year(two)
    return Year(-(word == "last"), "shift")


def _seasons(low: str) -> Iterable[DateHit]:
    """'last summer', 'this spring', 'in the fall', 'over the summer', 'summer 2024', 'the spring of 2024',
    '2024 summer': asked back. 'fall' and 'spring' alone are verbs and nouns: a word around must mark them."""
    marked = rf"\b(?:(last|this|past|previous)\s+|(?:in|during|over|throughout)\s+(?:the\s+)?){_SEASON}" \
             rf"(?:\s+(?:of\s+)?((?:19|20)\d{{2}})\b{_AMOUNT})?\b"
    for m in re.finditer(marked, low):
        if (m.group(2) in ("fall", "spring") and not m.group(3) and _a_move(low, m)) or _spans(low, m) \
                or next_words(low, m.end(), 1) == ["break"]:  # "spring break"
            continue  # "after this fall", "the last fall in price", "in the fall of NVDA's price"
        yield _season_hit(m.group(2), m.group(3), m.group(1), m, low)
        low = blank(low, m.start(), m.end())
    dated = rf"\b(?:the\s+)?{_SEASON}\s+(?:of\s+)?((?:19|20)\d{{2}})\b{_AMOUNT}|\b((?:19|20)\d{{2}})\s+{_SEASON}\b"
    for m in re.finditer(dated, low):
        season, year = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        yield _season_hit(season, year, None, m, low)


def _a_move(low: str, m: re.Match[str]) -> bool:
    """'fall' / 'spring' as a price move or a coil, not a season: 'this fall', after 'the', or 'of' something."""
    before = prev_word(low, m.start())
    return (m.group(1) == "this" or before in ("the", "a", "after", "since", "before", "its", "his", "her", "their")
            or before.endswith("'s") or next_words(low, m.end(), 1) in (["of"], ["in"]))


def _season_hit(season: str, year_text: str | None, mode: str | None, m: re.Match[str], low: str) -> DateHit:
    if year_text:
        year = Year(int(year_text))
    elif mode in ("last", "past", "previous"):
        year = Year(how="ended")  # "last summer" is the most recent one that has ended: this year's once it is over
    elif mode == "this":
        year = THIS_YEAR
    else:
        year = _recent_year(low, m.start())
    return _stretch_hit(year, _SEASONS[season], m, "season")


# --------------------------------------------------------------------------
# Chinese (simplified and traditional)

# Years said in Chinese (2024年, 24年, 二〇二四年, 去年) are intl_dates' own (YEAR_REF: groups 1 and 2).
_CN_YEAR = YEAR_REF
_CN_QUARTER_NUM = r"([1-4一二三四])"


def _cn_year(m: re.Match[str]) -> Year | None:
    """The year a _CN_YEAR at groups 1 and 2 names; None when none was said."""
    return year_ref(m) if m.group(1) or m.group(2) else None


def _cn_fiscal(low: str) -> Iterable[DateHit]:
    """2025财年第三季度, 财年Q3, 2025財年上半年: the company's calendar, asked."""
    part = rf"(?:第?\s?{_CN_QUARTER_NUM}\s?(?:季度|季(?!度))|q[1-4]|上半年|下半年)"
    pattern = rf"(?:\d{{4}}|\d{{2}})?\s?(?:财年|財年|财政年度|財政年度)\s?的?\s?{part}{_CN_REPORT}"
    for m in re.finditer(pattern, low):
        yield found(m, Meaning("ask", ask="vague"), "fiscal period")


def _cn_quarters(low: str) -> Iterable[DateHit]:
    """2024年第三季度, 2024年Q3, 去年三季度, 今年一季度, 第三季度, 2024年前三季度 (through the third: its end);
    上季度, 上个季度, 上一季度. 第二季 without 度 only with a year (a show's second season otherwise), and not
    after 连续 / 过去 / 每 (连续三季度超预期 counts results)."""
    quarter = rf"(?:第\s?{_CN_QUARTER_NUM}\s?(?:季度|(季)(?!度))|前?{_CN_QUARTER_NUM}\s?季度|q([1-4]))"
    # Not inside another word (连续三季度, 过去一季度, 下一季度, 这一季度, 同一季度, 哪一季度); 上一季度 is below.
    counted = r"(?<!连续)(?<!連續)(?<!过去)(?<!過去)(?<!每个)(?<!每個)(?<![近每上下这這同单單任哪统統])"
    for m in re.finditer(rf"(?:{_CN_YEAR}\s?的?\s?)?{counted}{quarter}{_CN_REPORT}", low):
        number = m.group(3) or m.group(5) or m.group(6)
        dated = m.group(1) or m.group(2)
        if _spans(low, m):
            continue  # 三季度以来, 自三季度, 一季度至今
        if (m.group(6) or m.group(4)) and not dated:
            continue  # "Q3" or 第二季 without a year in Chinese text: the English reading decides; a show's season
        quarter_no = cjk_number(number) or 0
        year = _cn_year(m) or _recent_year(low, m.start())
        yield _quarter_hit(year, quarter_no, m, "Chinese quarter")
        low = blank(low, m.start(), m.end())
    last = r"(?<![上])(上上个|上上個|上上|上个|上個|上一个|上一個|上一|上)"
    for m in re.finditer(rf"{last}\s?(?:季度|季(?!度)){_CN_REPORT}", low):
        if _spans(low, m):
            continue
        yield _quarter_hit(None, 0, m, "Chinese quarter", back=-2 if m.group(1).startswith("上上") else -1)


def _cn_halves(low: str) -> Iterable[DateHit]:
    """2024年上半年, 去年下半年, 上半年 (this year's): asked back."""
    for m in re.finditer(rf"(?:{_CN_YEAR}\s?的?\s?)?(上半年|下半年){_CN_REPORT}", low):
        yield _stretch_hit(_cn_year(m) or THIS_YEAR, 1 if m.group(3) == "上半年" else 7, m, "Chinese half year")


_CN_SEASONS = {"春": 3, "夏": 6, "秋": 9, "冬": 12}


def _cn_seasons(low: str) -> Iterable[DateHit]:
    """去年夏天, 2024年春季, 今年秋天: asked back. Only with its year: "宁德时代的春天来了吗", "茅台的冬天过去了吗"
    are figures of speech, and 春季躁动, 秋季发布会 an event."""
    for m in re.finditer(rf"{_CN_YEAR}\s?的?\s?([春夏秋冬])(?:天|季)(?!度){_CN_REPORT}", low):
        yield _stretch_hit(_cn_year(m) or THIS_YEAR, _CN_SEASONS[m.group(3)], m, "Chinese season")


# --------------------------------------------------------------------------
# Spanish, French, German and Japanese quarters: with a year, after a preposition, or the last one

_OTHER_ORDINALS = {
    "primer": 1, "segundo": 2, "tercer": 3, "cuarto": 4,                                   # es
    "premier": 1, "deuxième": 2, "deuxieme": 2, "second": 2, "troisième": 3, "troisieme": 3,  # fr
    "quatrième": 4, "quatrieme": 4,
    "ersten": 1, "zweiten": 2, "dritten": 3, "vierten": 4, "erste": 1, "zweite": 2, "dritte": 3, "vierte": 4,  # de
}  # fmt: skip
_OTHER_PREPS = r"(?:\b(?:en\s+el|durante\s+el|au|en|pendant\s+le|im|in\s+dem)\s+)"
_OTHER_YEAR = r"(?:\s+(?:de\s+|del\s+)?(\d{4}))"
_OTHER_LAST = r"\b(?:el\s+)?(?:trimestre\s+pasado|último\s+trimestre|ultimo\s+trimestre)\b" \
              r"|\b(?:le\s+)?(?:trimestre\s+dernier|dernier\s+trimestre|trimestre\s+précédent)\b" \
              r"|\b(?:letzte[nms]?\s+quartal|vorquartal|vorigen\s+quartal|vorige[ns]?\s+quartal)\b|前四半期"


def _other_quarters(low: str) -> Iterable[DateHit]:
    """'tercer trimestre de 2024', 'troisième trimestre 2024', 'T3 2024', 'im dritten Quartal 2024', '3. Quartal
    2024', '2024年第3四半期'; without a year after a preposition ('en el tercer trimestre'); 'el trimestre
    pasado', 'le trimestre dernier', 'letztes Quartal', '前四半期' -> the last quarter's end."""
    ordinals = "|".join(sorted(_OTHER_ORDINALS, key=len, reverse=True))
    forms = (rf"({_OTHER_PREPS})?\b({ordinals})\s+(?:trimestre|quartal){_OTHER_YEAR}?\b",
             rf"({_OTHER_PREPS})?\b([1-4])\.\s*quartal{_OTHER_YEAR}?\b",
             r"()\bt([1-4])\s+(\d{4})\b")
    for pattern in forms:
        for m in re.finditer(pattern, low):
            if _names_a_report(low, m) or _spans(low, m):
                continue
            number = m.group(2)
            quarter = _OTHER_ORDINALS.get(number) or int(number)
            if m.group(3):
                year = Year(int(m.group(3)))
            elif m.group(1):
                year = _recent_year(low, m.start())
            else:
                continue
            yield _quarter_hit(year, quarter, m, "quarter")
            low = blank(low, m.start(), m.end())
    for m in re.finditer(rf"(?:(\d{{4}})\s?年\s?(?:の\s?)?)?第\s?([1-4一二三四])\s?四半期{_CN_REPORT}", low):
        quarter = cjk_number(m.group(2)) or 0
        year = Year(int(m.group(1))) if m.group(1) else _recent_year(low, m.start())
        yield _quarter_hit(year, quarter, m, "quarter")
        low = blank(low, m.start(), m.end())
    for m in re.finditer(rf"(?:{_OTHER_LAST}){_CN_REPORT}", low):
        if _names_a_report(low, m):
            continue
        yield _quarter_hit(None, 0, m, "quarter", back=-1)
