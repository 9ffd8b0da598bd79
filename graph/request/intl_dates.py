"""Finders of dates said in Chinese, Japanese, Spanish, French and German.

They run before the English finders (:mod:`graph.request.dates`) and yield the same
:class:`DateHit` s, with the same meanings (:mod:`graph.request.date_meanings`) that one
resolver makes days (:mod:`graph.request.resolve_dates`), so every convention of the English
parser holds: a future day is refused, a day before MIN_DATE too, two different dates are asked
back, and the trade date is the last session on or before the day asked. The words themselves
are data (``data/date_phrases.tsv``: phrase, language, meaning); the grammar around them is here.

Choices (documented because they are choices):

* 今天/今日, hoy, aujourd'hui, heute -> today; 现在/目前, ahora, maintenant, jetzt -> "now";
  昨天, ayer, hier, gestern -> yesterday; 明天, mañana, demain, morgen -> tomorrow, refused;
* 上周五 / 上星期五 / 上個星期五 / 先週の金曜日 -> Friday of the *previous Monday-Sunday week*:
  that is what the Chinese and Japanese words say (on a Sunday, 上周五 is nine days back,
  not two), unlike English "last Friday"; 本周五 / 这周五 / 今週の金曜日 -> that day of this week
  (refused while ahead, as "this Friday"); 下周五 -> refused; 周五 / 星期五 / 金曜日 alone ->
  the most recent Friday on or before today, as "Friday";
* el viernes pasado, vendredi dernier, letzten Freitag -> as English "last Friday"; el viernes,
  le vendredi, am Freitag, Freitag -> as "Friday"; este viernes, ce vendredi, diesen Freitag ->
  as "this Friday"; a bare Spanish or French weekday needs its article or a modifier ("Mardi
  Gras" is not a Tuesday);
* 3月1日 / 3月1号 (no year) -> the most recent March 1st on or before today, as "March 1st";
  2024年5月1日 -> that day; 24年5月1日 / 九八年5月1日 -> a two-digit year in the most recent
  century (2024, 1998), as "5/1/24"; another number before 年 ("202年5月1日") is asked back;
  2024年5月 and 去年12月 -> the last day of that month, as "Dec 2023"; 2024年 alone -> a whole
  year, asked back, as "in 2024";
* a date or month without a year after one with it takes its year: "2024年5月1日还是6月3日" offers
  2024-05-01 or 2024-06-03;
* a month alone (12月, 十二月, 三月份) -> the last day of the most recent such month (last year's
  December on a November day; today in the current month): as "Dec 2023" and "March 1st" together;
  "3月份以来", "3月前" (a span from or up to it) and "3月期" (a fiscal year) are not dates;
* the end of a month or year (3月底, 月底, 上个月底, 年底, 去年年底, 2023年末) -> its last day, as "end
  of the month" / "end of 2023" (refused while ahead); its beginning or a third of it (年初, 2024年初,
  3月初, 月初, 3月上旬) -> asked back, as the vague "years ago" (refused if ahead); no bare 年中 / 3月中
  ("今年中国…", "3月中国CPI"), and 年初一 is the lunar new year, not 年初;
* 元旦 -> January 1st of this year (its last session before: the day before is the trade date);
  圣诞节 / 聖誕節 -> the most recent Christmas; with a year (2024年元旦, 去年圣诞节) that year's. The
  lunar holidays (春节, 大年初一, 中秋, 端午) likewise, their day converted from the Chinese calendar;
  国庆 is the mainland's October 1st, while the traditional 國慶 is asked (October 1st in Hong Kong,
  the 10th in Taiwan); 春节前, 春节行情, 国庆长假 are spans and seasons, not days;
* 去年今天 / 去年的今天 / 去年の今日 -> the same day last year (Feb 28 for Feb 29), as "a year ago";
  大后天 / 大後天 (three days on, refused) and 大前天 (three days back) beat 后天 and 前天;
* 三天前 / 3日前 / hace 3 días / il y a 3 jours / vor 3 Tagen -> calendar arithmetic, as "3 days
  ago"; 3个交易日前 counts sessions, as "3 trading days ago": the listing's own exchange's (Hong
  Kong's for 腾讯 0700.HK) once the ticker is known, :func:`graph.request.dates.scan_dates`; 三天后 /
  dans 3 jours / in 3 Tagen -> refused; a month count needs its counter word (3个月前, 3ヶ月前),
  since "3月前" is "before March".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from .date_hits import RANK_RELATIVE, DateHit, found, relative_rank
from .date_meanings import Meaning, Year, inherited, phrase_meaning
from .scripts import CJK_COUNT, cjk_number
from .text import blank
from .wordlists import DATA

__all__ = ["find_intl_dates", "phrase_languages"]


@lru_cache(maxsize=1)
def _phrases() -> dict[str, tuple[str, str]]:
    """phrase -> (language, meaning), from data/date_phrases.tsv."""
    table: dict[str, tuple[str, str]] = {}
    for line in (DATA / "date_phrases.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            phrase, language, meaning = line.split("\t")
            table[phrase] = (language, meaning)
    return table


def _kind(prefix: str) -> dict[str, int | str]:
    """The phrases whose meaning starts with ``prefix:``, mapped to what follows."""
    out: dict[str, int | str] = {}
    for phrase, (_, meaning) in _phrases().items():
        head, _, value = meaning.partition(":")
        if head == prefix:
            out[phrase] = int(value) if value.lstrip("+-").isdigit() else value
    return out


@lru_cache(maxsize=1)
def _by_language() -> dict[str, re.Pattern[str]]:
    """language -> one pattern over its date words (numbers and units say too little alone)."""
    words: dict[str, list[str]] = {}
    for phrase, (language, meaning) in _phrases().items():
        if not meaning.startswith(("number", "unit")):
            words.setdefault(language, []).append(_bounded(phrase))
    return {language: re.compile("|".join(parts)) for language, parts in words.items()}


def phrase_languages(low: str) -> set[str]:
    """Languages whose date words occur in ``low`` (a hint for short messages, see language.py)."""
    return {language for language, pattern in _by_language().items() if pattern.search(low)}


def _bounded(phrase: str) -> str:
    """A phrase as a pattern: CJK phrases match anywhere, Latin ones as whole words."""
    body = r"\s+".join(re.escape(p) for p in phrase.split())
    if phrase.isascii() or re.match(r"[a-zà-ÿ']", phrase):
        return rf"(?<![\w'-]){body}(?![\w-])"
    return body


# Words that make "morgen"/"mañana" a morning, not tomorrow: "guten Morgen", "por la mañana".
_MORNING_BEFORE = re.compile(r"(?:guten|am|heute|gestern|la|esta|por|de)\s+$")


# Chinese and Japanese patterns allow at most one space between their parts (\s?, never \s*):
# the text they read is mostly blanks once hits are blanked, and two \s* in a row over a long
# run of blanks backtrack cubically.


def find_intl_dates(low: str) -> Iterable[DateHit]:
    """Every date said in zh/ja/es/fr/de, most specific first; each hit is blanked before the next finder."""
    for finder in (_absolute_cjk, _counted_cjk, _weekday_cjk, _counted_latin, _weekday_latin, _simple):
        for hit in finder(low):
            yield hit
            low = blank(low, hit.start, hit.end)


# --------------------------------------------------------------------------
# Chinese and Japanese
# --------------------------------------------------------------------------

_DAY_MARK = r"[日号號]"
_MONTH_NUM = r"(\d{1,2}|[一二三四五六七八九十]{1,3})"
_YEAR_WORDS = {"去年": -1, "昨年": -1, "前年": -2, "今年": 0, "本年": 0, "明年": 1, "来年": 1, "來年": 1}
_CJK_DIGIT = "〇零一二三四五六七八九"
# A year written out: four digits (2024, 二〇二四) or two (24年, 九八年: the most recent such year, as '5/1/24').
_YEAR_NUM = rf"(?<![\d{_CJK_DIGIT}])(\d{{4}}|[{_CJK_DIGIT}]{{4}}|\d{{2}}|[{_CJK_DIGIT}]{{2}})"
YEAR_REF = rf"(?:{_YEAR_NUM}\s?年|({'|'.join(_YEAR_WORDS)}))"  # 2024年, 24年, 去年: groups 1 and 2
# After a month or a holiday: a span from or up to it ("3月以来", "元旦前"), not the day to analyse.
SPAN_AFTER = r"(?:以前|之前|前|以后|以後|之后|之後|后|後|以来|以來|至今|迄今|到现在|到現在)"
_NOT_A_YEAR = r"(?!\s?(?:前|以前|之前|后|後|以后|以後|之后|之後))"  # "3年前" counts years back
# Parts of a month or a year: its end is a day (as "end of 2023"); its beginning is not, so it is asked.
# No bare 中 or 头: "今年中国…", "3月中国CPI", "这年头" are not dates.
_PART_END = ("底", "末")
_MONTH_PART = r"(上旬|中旬|下旬|底|末|初)"
_HOLIDAYS = {"元旦": (1, 1), "圣诞节": (12, 25), "聖誕節": (12, 25), "圣诞": (12, 25), "聖誕": (12, 25)}
_MONTH_WORDS = {"上上个": -2, "上上個": -2, "上上": -2, "上个": -1, "上個": -1, "上": -1, "本": 0, "这个": 0,
                "這個": 0, "下个": 1, "下個": 1, "下": 1}  # fmt: skip


def _cjk_year(text: str) -> Year:
    """'2024' / '二〇二四' as written; '24' / '二四' in the most recent century (as '5/1/24')."""
    return Year(cjk_number(text) or 0, "short" if len(text) == 2 else "said")


def _absolute_cjk(low: str) -> Iterable[DateHit]:
    """2024年5月1日, 24年5月1日, 2024年5月, 去年12月, 今年3月5号, 3月1日, 12月, 三月份, 元旦, 年初, 2024年."""
    years: list[tuple[int, Year]] = []  # (end, year) of each date said with its year, for the ones after it
    for finder in (_dated_cjk, _odd_year_cjk, _holiday_cjk, _lunar_cjk, _year_part_cjk, _day_cjk, _month_cjk,
                   _month_part_cjk):
        for hit in finder(low, years):
            yield hit
            low = blank(low, hit.start, hit.end)
    for m in re.finditer(rf"(?<![\d{_CJK_DIGIT}])(\d{{4}}|[{_CJK_DIGIT}]{{4}})\s?年{_NOT_A_YEAR}", low):
        # A year alone, as the English "in 2022": which day of it is asked back.
        yield found(m, Meaning("year", year=Year(cjk_number(m.group(1)) or 0)), "year")


def _dated_cjk(low: str, years: list[tuple[int, Year]]) -> Iterable[DateHit]:
    """Dates and months said with their year: 2024年5月1日, 24年5月, 去年12月, 今年3月5号, 2024年3月初."""
    full = re.compile(rf"{_YEAR_NUM}\s?年\s?{_MONTH_NUM}\s?月\s?{_MONTH_NUM}\s?{_DAY_MARK}")
    for m in full.finditer(low):
        year = _cjk_year(m.group(1))
        month, day = (cjk_number(g) or 0 for g in m.groups()[1:])
        years.append((m.end(), year))
        yield _on(year, month, day, m)
    low = full.sub(lambda m: " " * len(m.group(0)), low)
    day_or_part = rf"(?:\s?{_MONTH_NUM}\s?{_DAY_MARK}|\s?份?\s?{_MONTH_PART})?"
    relative_year = "|".join(_YEAR_WORDS)
    for pattern in (rf"({relative_year})\s?的?\s?{_MONTH_NUM}\s?月{day_or_part}",
                    rf"{_YEAR_NUM}\s?年\s?{_MONTH_NUM}\s?月{day_or_part}"):
        for m in re.finditer(pattern, low):
            word, month_text, day_text, part = m.groups()
            year = Year(_YEAR_WORDS[word], "shift") if word in _YEAR_WORDS else _cjk_year(word)
            years.append((m.end(), year))
            month = cjk_number(month_text) or 0
            if day_text:
                yield _on(year, month, cjk_number(day_text) or 0, m)
            else:
                yield _part_hit(year, month, part, m)
            low = blank(low, m.start(), m.end())


def _on(year: Year, month: int, day: int, m: re.Match[str], how: str = "Chinese date") -> DateHit:
    return found(m, Meaning("date", year=year, month=month, day=day), how)


def _odd_year_cjk(low: str, years: list[tuple[int, Year]]) -> Iterable[DateHit]:
    """Any other number before 年 ("202年5月1日", "12345年5月"): the year can't be read, so it is asked
    rather than dropped (which would leave "5月1日" of this year)."""
    odd = rf"(?<![\d{_CJK_DIGIT}])(\d+|[{_CJK_DIGIT}]+)\s?年\s?{_MONTH_NUM}\s?月(?:\s?{_MONTH_NUM}\s?{_DAY_MARK})?"
    for m in re.finditer(odd, low):
        reason = f"I can't read '{m.group(1)}' as a year"
        yield found(m, Meaning("ask", ask="unreadable", reason=reason), "Chinese date")


def _day_cjk(low: str, years: list[tuple[int, Year]]) -> Iterable[DateHit]:
    """3月1日, 三月二号: the year of a date said before it, else the most recent such day."""
    for m in re.finditer(rf"(?<![\d.])({_MONTH_NUM[1:-1]})\s?月\s?{_MONTH_NUM}\s?{_DAY_MARK}", low):
        month, day = cjk_number(m.group(1)) or 0, cjk_number(m.group(2)) or 0
        year = inherited(years, m.start())
        if year is not None and year != Year(0):  # "0000年…" before it: no year to take
            yield _on(year, month, day, m)
        elif 1 <= month <= 12 and day >= 1:
            yield found(m, Meaning("recent_day", month=month, day=day), "date without year")
        else:
            reason = f"there is no month {month}" if not 1 <= month <= 12 else "there is no day 0"
            yield found(m, Meaning("impossible", reason=reason), "Chinese date")


def _holiday_cjk(low: str, years: list[tuple[int, Year]]) -> Iterable[DateHit]:
    """元旦 -> Jan 1 of this year; 圣诞节 -> the most recent Dec 25; 2024年元旦, 去年圣诞节 -> that year's.
    Holidays on a fixed Gregorian day; the lunar ones and National Day are :func:`_lunar_cjk`'s."""
    holidays = "|".join(sorted(_HOLIDAYS, key=len, reverse=True))
    for m in re.finditer(rf"(?:{YEAR_REF}\s?的?\s?)?({holidays})(?!\s?(?:{SPAN_AFTER}|行情))", low):
        month, day = _HOLIDAYS[m.group(3)]
        if m.group(1) or m.group(2):
            years.append((m.end(), year_ref(m)))
            yield _on(year_ref(m), month, day, m, "holiday")
        else:
            yield found(m, Meaning("recent_day", month=month, day=day), "date without year")


# Holidays of the Chinese calendar: (lunar month, day). Their Gregorian day moves, so it is converted
# (graph/request/resolve_dates.py).
_LUNAR_HOLIDAYS = {"春节": (1, 1), "春節": (1, 1), "农历新年": (1, 1), "農曆新年": (1, 1), "大年初一": (1, 1),
                   "中秋节": (8, 15), "中秋節": (8, 15), "中秋": (8, 15),
                   "端午节": (5, 5), "端午節": (5, 5), "端午": (5, 5)}  # fmt: skip
# National Day: October 1st on the mainland and in Hong Kong, October 10th in Taiwan. The simplified
# 国庆 is the mainland's; the traditional 國慶 is written in both, so which one is asked.
_NATIONAL_DAYS = {"国庆节": (1,), "国庆": (1,), "國慶節": (1, 10), "國慶日": (1, 10), "國慶": (1, 10)}


def _lunar_cjk(low: str, years: list[tuple[int, Year]]) -> Iterable[DateHit]:
    """春节 / 中秋 / 端午 -> the most recent one on or before today; 2024年春节, 去年中秋 -> that year's."""
    names = "|".join(sorted(_LUNAR_HOLIDAYS, key=len, reverse=True))
    # The span words may follow 节 ("中秋节前"): without it, "中秋" would match with "节前" after it.
    not_a_day = rf"(?!\s?[节節]?\s?(?:{SPAN_AFTER}|行情|假期|长假|長假|期间|期間|档|檔))"
    for m in re.finditer(rf"(?:{YEAR_REF}\s?的?\s?)?({names}){not_a_day}", low):
        month, day = _LUNAR_HOLIDAYS[m.group(3)]
        year = year_ref(m) if m.group(1) or m.group(2) else None
        if year is not None:
            years.append((m.end(), year))
        yield found(m, Meaning("lunar", year=year, month=month, day=day), "Chinese holiday")
    days = "|".join(sorted(_NATIONAL_DAYS, key=len, reverse=True))
    # 中国庆祝 holds 国庆; 中国国庆 is National Day.
    for m in re.finditer(rf"(?:{YEAR_REF}\s?的?\s?)?(?<!中)({days}){not_a_day}", low):
        said = year_ref(m) if (m.group(1) or m.group(2)) else None
        said = None if said == Year(0) else said  # "0000年国庆": no year, the most recent one
        yield found(m, Meaning("national_day", year=said, numbers=_NATIONAL_DAYS[m.group(3)]), "National Day")


def _year_part_cjk(low: str, years: list[tuple[int, Year]]) -> Iterable[DateHit]:
    """年底 / 去年年底 / 2023年末 -> Dec 31 (as "end of 2023"); 年初 / 今年年初 -> asked (refused while ahead)."""
    head = rf"(?:{YEAR_REF}\s?的?\s?年?|(?<![\d{_CJK_DIGIT}十新])年)"
    for m in re.finditer(rf"{head}\s?(底|末|初)(?!\s?(?:{SPAN_AFTER}|一|二|三))", low):  # not 大年初一
        year = year_ref(m)
        if m.group(1) or m.group(2):
            years.append((m.end(), year))
        if m.group(3) in _PART_END:
            yield _on(year, 12, 31, m, "year end")
        else:
            yield found(m, Meaning("part", year=year, month=1), "Chinese period")


def _month_cjk(low: str, years: list[tuple[int, Year]]) -> Iterable[DateHit]:
    """12月, 十二月, 三月份, 3月底 -> the last day of the most recent such month (as "Dec 2023"; today in
    the current month), or of the year of a date said before it; 3月初, 3月上旬 -> asked."""
    # Atomic (?>…): "3月份以来" must not fall back to "3月" followed by "份". A month in Chinese numerals is
    # one of 一 … 十二: "一二月" (January and February) is not December.
    bare = (rf"(?<![\d.{_CJK_DIGIT}十百千两兩个個年第每])(\d{{1,2}}|十[一二]?|[一二三四五六七八九])\s?月"
            rf"(?>\s?份?\s?{_MONTH_PART}?)(?!\s?(?:{SPAN_AFTER}|期|\d))")
    for m in re.finditer(bare, low):
        # the most recent such month, as "July 4th" is the most recent July 4th
        year = inherited(years, m.start()) or Year(how="recent")
        yield _part_hit(year, cjk_number(m.group(1)) or 0, m.group(2), m)


def _month_part_cjk(low: str, years: list[tuple[int, Year]]) -> Iterable[DateHit]:
    """月底 / 上个月底 / 本月末 -> that month's last day (as "end of the month"); 月初 / 上个月初 -> asked."""
    words = "|".join(sorted(_MONTH_WORDS, key=len, reverse=True))
    for m in re.finditer(rf"(?<![\d{_CJK_DIGIT}十])({words})?\s?月\s?{_MONTH_PART}(?!\s?{SPAN_AFTER})", low):
        months = _MONTH_WORDS.get(m.group(1) or "", 0)  # from this one
        if m.group(2) in _PART_END:
            yield found(m, Meaning("month_end", n=months), "month end")
        else:
            yield found(m, Meaning("part", n=months), "Chinese period")


def _part_hit(year: Year, month: int, part: str | None, m: re.Match[str]) -> DateHit:
    """A month (its last day, as "Dec 2023"; today in the current month), its end (its last day, even while
    it is ahead, as "end of the month") or its beginning or a third of it (asked)."""
    if not 1 <= month <= 12:
        return found(m, Meaning("impossible", reason=f"there is no month {month}"), "Chinese month")
    if part is None:
        return found(m, Meaning("month", year=year, month=month), "Chinese month")
    if part in _PART_END:
        return found(m, Meaning("month_end", year=year, month=month), "month end")
    return found(m, Meaning("part", year=year, month=month), "Chinese period")


def year_ref(m: re.Match[str]) -> Year:
    """The year a ``YEAR_REF`` names (groups 1 and 2), this one when none is said."""
    if m.group(1):
        return _cjk_year(m.group(1))
    return Year(_YEAR_WORDS.get(m.group(2) or "", 0), "shift")


_CJK_UNITS = {"交易日": "session", "天": "day", "日": "day", "周": "week", "週": "week", "星期": "week",
              "礼拜": "week", "禮拜": "week", "个月": "month", "個月": "month", "ヶ月": "month", "か月": "month",
              "カ月": "month", "ケ月": "month", "个星期": "week", "個星期": "week", "年": "year"}  # fmt: skip
_PAST_CJK = "以前|之前|前"
_FUTURE_CJK = "以后|以後|之后|之後|后|後"


def _counted_cjk(low: str) -> Iterable[DateHit]:
    """三天前, 3日前, 两周前, 3个月前, 5个交易日前, 一年前; 三天后 (refused)."""
    units = "|".join(sorted(_CJK_UNITS, key=len, reverse=True))
    pattern = rf"({CJK_COUNT})\s?(?:个|個)?\s?({units})\s?(?:間|间)?\s?({_PAST_CJK}|{_FUTURE_CJK})"
    for m in re.finditer(pattern, low):
        n = cjk_number(m.group(1))
        if n is None:
            continue
        sign = -1 if re.fullmatch(_PAST_CJK, m.group(3)) else 1
        yield found(m, Meaning("offset", n=sign * n, unit=_CJK_UNITS[m.group(2)]), "relative date", RANK_RELATIVE)


_CJK_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "1": 0, "2": 1, "3": 2,
                 "4": 3, "5": 4, "6": 5, "7": 6}  # fmt: skip
_JA_WEEKDAYS = {"月": 0, "火": 1, "水": 2, "木": 3, "金": 4, "土": 5, "日": 6}
# What the word before a weekday says: (mode, weeks from this one), as Meaning("weekday") reads them.
_CJK_MODES = {"上上": ("week", -2), "上": ("week", -1), "先週": ("week", -1), "先々週": ("week", -2),
              "本": ("week", 0), "这": ("week", 0), "這": ("week", 0), "今週": ("week", 0), "下": ("next", 0),
              "来週": ("next", 0)}  # fmt: skip


def _weekday_cjk(low: str) -> Iterable[DateHit]:
    """上周五, 上星期五, 上個星期五, 本周一, 周五, 星期天, 上上周; 先週の金曜日, 金曜日."""
    zh = r"(上上|上|本|这|這|下)?\s?(?:个|個)?\s?(?:周|週|星期|礼拜|禮拜)\s?([一二三四五六日天1-7])"
    for m in re.finditer(zh, low):
        yield _weekday_hit(m, _CJK_WEEKDAYS[m.group(2)], *_CJK_MODES.get(m.group(1) or "", ("", 0)))
        low = blank(low, m.start(), m.end())
    # 上上周 (no day): the week before last, its Friday, as 上周 is last week's (not 上周 after a stray 上).
    for m in re.finditer(r"上上\s?(?:个|個)?\s?(?:周|週|星期|礼拜|禮拜)", low):
        yield found(m, Meaning("week_end", n=-2), "relative date", RANK_RELATIVE)
        low = blank(low, m.start(), m.end())
    for m in re.finditer(r"(先々週|先週|今週|来週)?\s?の?\s?([月火水木金土日])曜(?:日)?", low):
        yield _weekday_hit(m, _JA_WEEKDAYS[m.group(2)], *_CJK_MODES.get(m.group(1) or "", ("", 0)))


def _weekday_hit(m: re.Match[str], weekday: int, mode: str, weeks: int = 0) -> DateHit:
    return found(m, Meaning("weekday", which=weekday, mode=mode, n=weeks), "weekday", RANK_RELATIVE)


# --------------------------------------------------------------------------
# Spanish, French, German
# --------------------------------------------------------------------------


def _counted_latin(low: str) -> Iterable[DateHit]:
    """hace 3 días, 3 días atrás, il y a trois jours, vor 3 Tagen; en 3 días, dans 3 jours, in 3 Tagen."""
    numbers = _kind("number")
    units = _kind("unit")
    count = "|".join([r"\d{1,15}", *sorted(map(re.escape, numbers), key=len, reverse=True)])
    unit = "|".join(sorted(map(re.escape, units), key=len, reverse=True))
    # German "in 3 Tagen" only with German units: "in 3 days" is the English finder's.
    german = "|".join(sorted((re.escape(u) for u in units if _phrases()[u][0] == "de"), key=len, reverse=True))
    forms = (
        (rf"(?<![\w-])(?:hace|il\s+y\s+a|vor)\s+({count})\s+({unit})(?![\w-])", -1),
        (rf"(?<![\w-])({count})\s+({unit})\s+atr[aá]s(?![\w-])", -1),
        (rf"(?<![\w-])(?:dentro\s+de|dans|en)\s+({count})\s+({unit})(?![\w-])", 1),
        (rf"(?<![\w-])in\s+({count})\s+({german})(?![\w-])", 1),
    )
    for pattern, sign in forms:
        for m in re.finditer(pattern, low):
            n = int(m.group(1)) if m.group(1).isdigit() else int(numbers[m.group(1)])
            yield found(m, Meaning("offset", n=sign * n, unit=str(units[m.group(2)])), "relative date", RANK_RELATIVE)
            low = blank(low, m.start(), m.end())


# The words around a weekday, by the mode of Meaning("weekday") they say ("week": this week's).
_LAST = {"pasado": "last", "dernier": "last", "passé": "last", "letzten": "last", "letzter": "last",
         "vergangenen": "last", "vergangener": "last", "vorigen": "last", "voriger": "last",
         "próximo": "next", "proximo": "next", "que viene": "next", "prochain": "next", "nächsten": "next",
         "nächster": "next", "kommenden": "next", "kommender": "next",
         "este": "week", "ce": "week", "diesen": "week", "dieser": "week",
         "el": "", "le": "", "am": "", "": ""}  # fmt: skip


def _weekday_latin(low: str) -> Iterable[DateHit]:
    """el viernes pasado, vendredi dernier, letzten Freitag, el viernes, am Freitag, Freitag."""
    days = _kind("weekday")
    names = "|".join(sorted(map(re.escape, days), key=len, reverse=True))
    before = "|".join(re.escape(w) for w in _LAST if w and w != "que viene")
    after = "pasado|dernier|passé|próximo|proximo|que\\s+viene|prochain"
    pattern = rf"(?<![\w-])(?:(el|le)\s+)?(?:({before})\s+)?({names})(?:\s+({after}))?(?![\w-])"
    for m in re.finditer(pattern, low):
        article, modifier, name, trailing = m.groups()
        mode_word = " ".join((trailing or modifier or article or "").split())
        if not mode_word and not name.endswith(("tag", "abend")):
            continue  # a bare Spanish/French weekday: "Mardi Gras", "Domingo"
        yield _weekday_hit(m, int(days[name]), _LAST[mode_word])


# --------------------------------------------------------------------------
# Single words and phrases of every language
# --------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _said_alone() -> tuple[tuple[str, re.Pattern[str], Meaning], ...]:
    """The phrases that mean a date alone, longest first, with their patterns and meanings (a number, a unit, a
    weekday, a marker are only parts of the phrases above)."""
    rows = ((phrase, phrase_meaning(tag)) for phrase, (_, tag) in _phrases().items())
    return tuple((phrase, re.compile(_bounded(phrase)), meaning)
                 for phrase, meaning in sorted(rows, key=lambda row: len(row[0]), reverse=True) if meaning)


def _simple(low: str) -> Iterable[DateHit]:
    """今天, 昨天, 上周, 明天, hoy, ayer, hier, heute, gestern, morgen, la semaine dernière ..."""
    for phrase, pattern, meaning in _said_alone():
        rank, how = relative_rank(meaning)
        for m in pattern.finditer(low):
            if phrase in ("morgen", "mañana") and _MORNING_BEFORE.search(low[max(0, m.start() - 8) : m.start()]):
                continue  # "guten Morgen", "por la mañana"
            yield found(m, meaning, how, rank)
            low = blank(low, m.start(), m.end())

