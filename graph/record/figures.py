"""Every figure a persona cites, checked against the data of its run.

After each persona turn the graph reads the words it said, finds every number it cites, and
keeps the ones that appear in no tool result, no report and no earlier turn of the run (nor in
the user's own words), allowing for rounding. The chat shows how many on the message
(`NodeDone.unverified`, `unverified_note`), the report lists them under the turn.

What counts as a cited figure (pragmatic rules, so the check flags inventions, not prose):

- Checked: prices, percentages, ratios and multiples, amounts with a currency sign or a
  magnitude (``$1.2B``, ``45 million``, ``12.35M``), and counts above ten.
- Not checked: dates (``2024-05-01``, ``5/1``, ``May 1, 2024``), years (whole numbers 1900-2100
  with no unit), times (``10:30``, ``4pm``), durations and periods (``2-6 weeks``, ``50-day``,
  ``3 months``), whole numbers 0-10 without a currency sign (counts, list markers, "2 × ATR";
  with or without % or a K/M/B suffix), list markers at a line's start, numbers that are part
  of a word or a name (``Q3``, ``FY24``, ``10-K``, ``0700.HK``, the ticker itself, ``RSI 14``,
  ``SMA 50``, ``S&P 500``), the label column of a Markdown table, multiples of a volatility
  unit (``1.5 ATR``), and the desk's own proposals, which are decisions rather than citations:
  stop, target, entry and limit levels (``stop at 843.00``, ``Stop: 843.00``), position sizes
  (``3% of the portfolio``, ``Position size: 1.5%``) and the judge's confidence.
- Rounding: a figure matches a value of the data if the value, rounded to the figure's
  decimals at the figure's magnitude, gives the figure: 182.456 may be cited as 182.46, 182.5
  or 182; 1,234,567 as 1.23M or 1.2 million; 0.0123 as 1.23% (and 48.9 as 0.489). Signs are
  ignored ("fell 2.13%" for -2.13). A figure cited more precisely than the data has is flagged.
- Dates of scheduled events are traced: an ISO date (``2026-12-03``) in a sentence that names an
  earnings report, a dividend, an ex-dividend date or a split must be a date the run's data holds
  (the events tool's, a headline's, a filing's, the user's), else it is flagged as written. Other
  dates stay unchecked. Evidence keeps each ISO date it reads as a tiny number (``date_value``) no
  figure is ever cited as, so the numbers of the check and of state stay one list of floats.
- An earlier turn's flagged figures are not evidence for later turns: a number one speaker
  invented does not become data because the next one repeats it.
- Prompts are not evidence: their example figures ("e.g. 865.00") are exactly what a weak
  model copies.

The run's tool results stay inside the analyst nodes, so each analyst returns the numbers its
tools gave (`tool_evidence`, kept in state as ``tool_figures`` per analyst): a set of numbers is
all the check needs, and it is a fraction of the tool texts' size in every checkpoint.
"""
from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime

from ..core.context import DeskContext
from ..core.personas import DESK
from ..core.state import DeskState
from .case import checked_entries, desk_notes, turn_key

# ------------------------------------------------------------------ reading numbers

_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "mm": 1e6, "million": 1e6,
           "b": 1e9, "bn": 1e9, "billion": 1e9, "t": 1e12, "trillion": 1e12}
_NUMBER = re.compile(r"(?P<cur>[$€£¥]\s?)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")
_UNIT = re.compile(r"\s?(?:(?P<pct>%|percent\b|per cent\b|pct\b)"
                   r"|(?P<word>thousand|million|billion|trillion)\b"
                   r"|(?P<suffix>bn|mn|mm|[KMBTkm])(?![A-Za-z])"
                   r"|(?P<times>[x×])(?![A-Za-z]))")


@dataclass(frozen=True)
class Cited:
    """A number as a persona wrote it: ``$1.23B`` is 1.23 at 1e9, written with 2 decimals."""
    text: str
    mantissa: float
    decimals: int
    scale: float
    currency: bool
    percent: bool

    def matches(self, value: float) -> bool:
        tolerance = self._tolerance()
        return any(abs(abs(v) / self.scale - self.mantissa) <= tolerance for v in (value, value * 100, value / 100))

    def _tolerance(self) -> float:
        return 0.5 * 10 ** -self.decimals * (1 + 1e-9) + 1e-12

    def found_in(self, values: Sequence[float]) -> bool:
        """`matches` for some value of `values` (sorted, absolute). Only the values near the figure at
        each of its readings (as written, as a fraction of 100, as a multiple) are tried: a run holds
        thousands of values and a turn cites dozens of figures, and trying each against each was the
        figure check's whole cost."""
        tolerance = self._tolerance()
        lo, hi = (self.mantissa - tolerance) * self.scale, (self.mantissa + tolerance) * self.scale
        for factor in (1.0, 0.01, 100.0):  # |v|, |v| x 100 and |v| / 100 within [lo, hi]
            pad = 1e-6 * abs(hi * factor) + 1e-9  # a little wide (float rounding); `matches` decides
            start, stop = bisect_left(values, lo * factor - pad), bisect_right(values, hi * factor + pad)
            if any(self.matches(v) for v in values[start:stop]):
                return True
        return False


def _scan(text: str) -> Iterable[tuple[re.Match[str], re.Match[str] | None]]:
    """Numbers that stand alone: not inside a word, a symbol, a date, a time or a fraction."""
    for m in _NUMBER.finditer(text):
        start, end = m.span()
        before = text[start - 1] if start else " "
        if not m["cur"] and (before.isalnum() or before in "_.,/:" or
                             (before in "-–" and start > 1 and text[start - 2].isalnum())):
            continue  # Q3, FY24, 1,5, 5/1, 10:30, the 6 of "2-6", the 24 of "Q3-24"
        unit = _UNIT.match(text, end)
        stop = unit.end() if unit else end
        after = text[stop:stop + 2]
        if after[:1].isalnum() or after[:1] == "_":
            continue  # 52W, 1st, 3rd
        if len(after) == 2 and after[0] in "/:" and after[1].isdigit():
            continue  # 5/1, 10:30
        if len(after) == 2 and after[0] in "-." and after[1].isalpha():
            continue  # 10-K, 50-day, 0700.HK
        yield m, unit


_ISO_DATE = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d])")
_DATE_SCALE = 1e-20  # a date as evidence: yyyymmdd at a scale no cited figure has
_EVENT_WORDS = re.compile(r"\b(?:earnings|ex-dividend|ex-date|dividends?|distributions?|splits?)\b"
                          r"|财报|財報|除息|派息|分红|分紅|拆股", re.I)
_SENTENCE = re.compile(r"[^.!?。！？\n]+")


def date_value(year: int, month: int, day: int) -> float:
    """An ISO date as the figure check keeps it in its evidence."""
    return (year * 10000 + month * 100 + day) * _DATE_SCALE


def event_dates(text: str) -> list[tuple[str, float]]:
    """The ISO dates a text gives for scheduled events (in a sentence naming one), each with its value."""
    out = []
    for sentence in _SENTENCE.finditer(text):
        if _EVENT_WORDS.search(sentence[0]):
            out += [(m[0], date_value(int(m[1]), int(m[2]), int(m[3]))) for m in _ISO_DATE.finditer(sentence[0])]
    return out


@lru_cache(maxsize=1024)
def numbers_in(text: str) -> tuple[float, ...]:
    """Every number a text holds, at face value and at its magnitude (evidence: nothing is skipped), and
    each ISO date as its date_value. Remembered: every turn's check reads the whole run's earlier turns
    and reports again."""
    out: list[float] = [date_value(int(m[1]), int(m[2]), int(m[3])) for m in _ISO_DATE.finditer(text)]
    for m in _NUMBER.finditer(text):
        value = float(m["num"].replace(",", ""))
        out.append(value)
        unit = _UNIT.match(text, m.end())
        if unit and (word := (unit["word"] or unit["suffix"] or "").lower()) in _SCALES:
            out.append(value * _SCALES[word])
    return tuple(out)


# ------------------------------------------------------------------ what is not a citation

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
_I, _M = re.IGNORECASE, re.MULTILINE
_NOT_FIGURES = [re.compile(p, flags) for p, flags in (
    (r"\b\d{4}-\d{1,2}-\d{1,2}\b", 0),                                         # 2024-05-01
    (r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b", 0),                                  # 5/1, 05/01/2024
    (rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b", _I),     # May 1, 2024
    (rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+\d{{4}})?", _I),  # 1st of May
    (r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\b\.?)?", _I),                    # 10:30, 4:00 pm
    (r"\b\d{1,2}\s?[ap]\.?m\b\.?", _I),                                         # 4pm
    (r"\b\d+(?:\.\d+)?(?:\s*(?:-|–|to)\s*\d+(?:\.\d+)?)?[\s-]*(?:trading[\s-]+)?"
     r"(?:days?|weeks?|months?|years?|yrs?|quarters?|sessions?|hours?|hrs?|minutes?|mins?)\b", _I),  # 2-6 weeks
    (r"^[ \t>]*(?:[-*+][ \t]+)?(?:#+[ \t]*)?\(?\d{1,3}[.)][ \t]", _M),               # list markers
    (r"\b\d+(?:\.\d+)?\s*[x×]?\s*(?:ATRs?|sigmas?|standard deviations?)\b", _I),   # 1.5 ATR
    # A period or an index size after an indicator or index name (case matters: RSI 14, SMA 50,
    # S&P 500, not "the 50").
    (r"(?<![\w&])(?:[A-Z][A-Z&]{1,6}|Nasdaq|Russell|Nikkei|Stoxx|Dow|Bollinger)[ (-](?:5|7|9|10|12|14|20|21|"
     r"26|30|50|60|90|100|150|200|225|400|500|600|1000|2000|3000|5000)\b(?![.,]\d)", 0),
)]
# The desk's own proposals (levels, sizes, confidence) are decisions, not citations.
_LEVEL_WORDS = re.compile(r"\b(?:stop(?:[- ]loss)?s?|targets?|take[- ]profit|entry|entries|limit|trailing)\b", re.I)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[;\n]")
_LEVEL_NUMBER = re.compile(r"(?:^[\s:*]*|(?:\bat|\bto|\bnear|\baround|\bof|@|~|:|\bbelow|\babove)\s*(?:about\s+)?)"
                           r"[$€£¥]?\s?\d[\d,]*(?:\.\d+)?", re.I)
_SIZING = [re.compile(p, re.I) for p in (
    r"[$€£¥]?\d[\d,]*(?:\.\d+)?\s*%?\s*of\s+(?:the\s+|our\s+|your\s+|my\s+|a\s+)?"
    r"(?:portfolio|capital|book|account|equity|NAV|assets)\b",
    r"\b(?:position\s+size|size|allocation|allocate|weight(?:ing)?)\W{0,3}(?:of|to|at|is|:)?\s*\d[\d,]*(?:\.\d+)?\s*%",
    r"\bconfidence\W{0,3}(?:of|at|is|:)?\s*\d*\.?\d+\s*%?",
)]


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _without_non_figures(text: str, ticker: str) -> str:
    lines = []
    for line in text.split("\n"):
        if line.strip().startswith("|") and line.count("|") >= 3:  # a table row: its label cell is a name
            first = line.index("|") + 1
            second = line.index("|", first)
            line = _blank(line, first, second)
        lines.append(line)
    text = "\n".join(lines)
    if ticker:
        for symbol in {ticker, re.split(r"[.\-]", ticker)[0]}:
            if any(c.isdigit() for c in symbol):
                text = re.sub(re.escape(symbol), lambda m: " " * len(m[0]), text, flags=re.I)
    for pattern in (*_NOT_FIGURES, *_SIZING):
        text = pattern.sub(lambda m: " " * len(m[0]), text)
    for word in list(_LEVEL_WORDS.finditer(text)):
        stop = _SENTENCE_END.search(text, word.end())
        end = stop.start() if stop else len(text)
        scope = text[word.end():end]
        for level in _LEVEL_NUMBER.finditer(scope):
            text = _blank(text, word.end() + level.start(), word.end() + level.end())
    return text


def cited(text: str, *, ticker: str = "") -> list[Cited]:
    """The figures a persona's words cite, under the module's rules, in the order written."""
    out: list[Cited] = []
    for m, unit in _scan(_without_non_figures(text, ticker)):
        digits = m["num"].replace(",", "")
        mantissa = float(digits)
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        currency = bool(m["cur"])
        word = ((unit["word"] or unit["suffix"] or "") if unit else "").lower()
        percent = bool(unit and unit["pct"])
        if not currency and decimals == 0:
            if mantissa <= 10:
                continue  # counts, list markers, "2 × ATR", round sizes
            if not unit and "," not in m["num"] and 1900 <= mantissa <= 2100:
                continue  # a year
        written = m[0] + (unit[0] if unit else "")
        out.append(Cited(" ".join(written.split()), mantissa, decimals, _SCALES.get(word, 1.0), currency, percent))
    return out


def unverified(text: str, evidence: Sequence[float], *, ticker: str = "") -> list[str]:
    """The figures `text` cites that no value of `evidence` gives (each once, as written)."""
    found: list[str] = []
    values = sorted({abs(v) for v in evidence})
    for figure in cited(text, ticker=ticker):
        if figure.text not in found and not figure.found_in(values):
            found.append(figure.text)
    known = set(values)
    for day, value in event_dates(text):
        if day not in found and value not in known:
            found.append(day)
    return found


def unverified_note(figures: Sequence[str]) -> str:
    """What a message shows under a persona's turn: '' when every figure was found."""
    if not figures:
        return ""
    n = len(figures)
    return f"{n} figure{'s' if n != 1 else ''} not found in the data: {', '.join(figures)}"


# ------------------------------------------------------------------ evidence of a run

def _values(obj: Any) -> Iterable[float]:
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, (int, float)):
        if math.isfinite(obj):
            yield float(obj)
    elif isinstance(obj, str):
        yield from numbers_in(obj)
    elif isinstance(obj, Mapping):
        for value in obj.values():
            yield from _values(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from _values(value)


def tool_evidence(persona: str, messages: Iterable[BaseMessage]) -> dict[str, dict[str, list[float]]]:
    """An analyst's state update: every number its tools returned (texts and artifacts)."""
    found: set[float] = set()
    for m in messages:
        if isinstance(m, ToolMessage):
            found.update(_values(m.content))
            found.update(_values(m.artifact))
    return {"tool_figures": {persona: sorted(found)}}


def run_evidence(state: Mapping[str, Any], update: Mapping[str, Any] | None = None) -> list[float]:
    """What a turn may cite: the run's tool results, every earlier contribution (less the figures
    it was flagged for), the user's words, and for the Desk the decisions on record."""
    update = update or {}
    figures = {**(state.get("tool_figures") or {}), **(update.get("tool_figures") or {})}
    values = [v for numbers in figures.values() for v in numbers]
    flagged = state.get("unverified") or {}
    for entry, key in checked_entries(state):
        text = entry.text
        for figure in flagged.get(key, []):
            text = text.replace(figure, " ")
        values += numbers_in(text)
    said_by_user = [str(m.content) for m in state.get("messages") or [] if isinstance(m, HumanMessage)]
    said_by_user += [i.text for i in (*(state.get("interventions") or []), *(update.get("interventions") or []))]
    for text in said_by_user:
        values += numbers_in(text)
    values += numbers_in(desk_notes(state))  # with the track record's shared block
    recalled = state.get("track_record") or {}
    values += numbers_in(f"{recalled.get('bull') or ''}\n{recalled.get('bear') or ''}")  # each side's own record
    return values


def check_turn(state: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """The state update recording a node's turn's unverified figures (nothing if it said nothing)."""
    messages = update.get("messages") or []
    said = messages[-1] if messages else None
    if said is None or not getattr(said, "name", None):
        return {}
    persona = str(said.name)
    text = said.content if isinstance(said.content, str) else str(said.content)
    flagged = unverified(text, run_evidence(state, update), ticker=str(state.get("ticker") or ""))
    earlier = sum(1 for entry, _ in checked_entries(state) if entry.persona == persona) if persona != DESK else 0
    return {"unverified": {turn_key(persona, earlier): flagged}}


Node = Callable[..., Any]  # a node factory's async (state, runtime) -> update, as builder.py adds it


def checked(node: Node) -> Node:
    """A persona node followed by the figure check of the turn it added (see the module docstring)."""
    async def run(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        update: dict[str, Any] = await node(state, runtime)
        return {**update, **check_turn(state, update)}

    run.__name__ = getattr(node, "__name__", "node")
    return run
