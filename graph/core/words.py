"""The desk's own short texts in each language: persona labels, the decision card's labels, the
Desk's acknowledgement of a request, the names the language instruction gives languages.

The texts are data, one catalogue per language: the TOML block of prompts/words_<code>.md. They sit
among the prompts, as Markdown, because that is what ships with the package (prompts/*.md); graph/core
reads no other files. A language without a catalogue, or a key its catalogue lacks, falls back to
English, so adding a language is adding one file. Traditional Chinese ("zh-Hant") has no file: it reads
the Simplified catalogue converted (graph/core/chinese_script.py). (The request parser's own questions
have their catalogue in graph/request/data/: graph/core may not import graph/request.)
"""
from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from typing import Any, TypeGuard

from .chinese_script import TRADITIONAL, to_traditional
from .prompts import PROMPTS_DIR

__all__ = ["DEFAULT_LANGUAGE", "base_language", "figure_label", "is_language", "label", "language_name", "phrase",
           "ruling_value", "vendor_name", "word_list"]

DEFAULT_LANGUAGE = "en"
# An ISO 639 code as the desk keeps it ("zh", "en"), with a script when it matters ("zh-Hant"):
# anything else (a client's input on LangGraph Server) is not a language and is never written into a
# prompt.
_CODE = re.compile(r"[a-z]{2,3}(?:-[A-Z][a-z]{3})?")
_TOML_BLOCK = re.compile(r"^```toml\n(.*?)^```", re.S | re.M)


def is_language(code: object) -> TypeGuard[str]:
    return isinstance(code, str) and _CODE.fullmatch(code) is not None


def base_language(code: str) -> str:
    """The language without its script: "zh" for "zh-Hant"."""
    return code.split("-", 1)[0]


def _converted(value: Any, convert: Any) -> Any:
    if isinstance(value, str):
        return convert(value)
    if isinstance(value, list):
        return [_converted(v, convert) for v in value]
    if isinstance(value, dict):
        return {k: _converted(v, convert) for k, v in value.items()}
    return value


@lru_cache(maxsize=16)  # one per language with a catalogue, and a few without
def _catalogue(language: str) -> dict[str, Any]:
    if not is_language(language):
        return {}
    path = PROMPTS_DIR / f"words_{language}.md"
    if not path.is_file():
        # Keys stay as they are: only the texts are converted ({placeholders} are ASCII).
        return _converted(_catalogue("zh"), to_traditional) if language == TRADITIONAL else {}
    blocks = _TOML_BLOCK.findall(path.read_text(encoding="utf-8"))
    return tomllib.loads("\n".join(blocks))


def _lookup(language: str, section: str, key: str) -> Any:
    """The catalogue's entry for `section.key` in `language`, else in English, else None."""
    for lang in (language, DEFAULT_LANGUAGE):
        value = _catalogue(lang).get(section, {}).get(key)
        if value is not None:
            return value
    return None


def phrase(language: str, key: str, **fields: object) -> str:
    """The text `section.key` (e.g. "card.title") in `language`, its placeholders filled. A key
    missing from the English catalogue is a bug, so it raises."""
    section, _, name = key.partition(".")
    template = _lookup(language, section, name)
    if template is None:
        raise KeyError(f"no desk text {key!r} (prompts/words_{DEFAULT_LANGUAGE}.md)")
    return str(template).format(**fields)


def word_list(language: str, key: str, beside: str = "") -> list[str]:
    """A list the catalogue holds (e.g. "desk.weekdays"). With `beside`, the text it fills: the list in the
    language that text is in (English when the language's catalogue lacks it and the text falls back), so a
    German weekday never lands in an English sentence."""
    if beside:
        section, _, name = beside.partition(".")
        if _catalogue(language).get(section, {}).get(name) is None:
            language = DEFAULT_LANGUAGE
    section, _, name = key.partition(".")
    return [str(v) for v in _lookup(language, section, name) or []]


def label(language: str, section: str, english: str, key: str | None = None) -> str:
    """A display label: the catalogue's for `key` (default: the English text itself) in
    `language`, else the English the code already holds (a persona's name, a field's label)."""
    found = _catalogue(language).get(section, {}).get(key or english)
    return str(found) if found else english


def vendor_name(vendor_label: str, language: str) -> str:
    """A market-data source's name as shown in `language` ("合成演示数据"); its label stays the data's identity."""
    return label(language, "vendors", vendor_label)


def figure_label(language: str, english: str) -> str:
    """A key figure's name as the data tools give it ("Market Cap", "52W High") in `language` ("市值",
    "52 周最高"), else as it is: the name a person reads in an analyst's key-figure table."""
    return label(language, "figures", english)


# The ruling's values as the demo judge and most models write them in English: a size as a share of the
# portfolio, a horizon as a span of days, weeks or months. Anything else is the judge's own words, kept.
_SIZE = re.compile(r"(?P<pct>\d+(?:\.\d+)?)\s?%\s+of\s+(?:the\s+)?portfolio", re.I)
_FLAT = re.compile(r"no new position \(0\s?%\)|0\s?% \(stay flat\)|0\s?%", re.I)
_SPAN = re.compile(r"(?P<low>\d+)\s*(?:-|–|to)\s*(?P<high>\d+)\s+(?P<unit>trading days|sessions|days|weeks|months)",
                   re.I)
_ONE = re.compile(r"(?P<n>\d+)\s+(?P<unit>trading days?|sessions?|days?|weeks?|months?)", re.I)
_UNITS = {"trading": "trading_day", "session": "trading_day", "day": "day", "week": "week", "month": "month"}


def _unit(language: str, english: str, count: int) -> str:
    key = _UNITS[english.lower().split()[0].rstrip("s")]
    return phrase(language, f"values.{key}" + ("" if count == 1 else "s"))


def _number(language: str, figure: str) -> str:
    return figure.replace(".", phrase(language, "values.decimal_mark"))


def ruling_value(language: str, key: str, text: str) -> str:
    """A ruling's value (`key` one of FinalDecision's fields) as a person reads it in `language`: the
    position size ("1.0% of the portfolio") and the horizon ("2-6 weeks") when written in English as the
    demo judge writes them, in the catalogue's words ("投资组合的 1.0%", "2–6 周"); any other value, and
    every value in English or in a language whose catalogue has no such words, as the judge wrote it."""
    if language == DEFAULT_LANGUAGE or "values" not in _catalogue(language):
        return text
    said = text.strip()
    if key == "position_size":
        if size := _SIZE.fullmatch(said):
            return phrase(language, "values.size_of_portfolio", pct=_number(language, size["pct"]))
        if _FLAT.fullmatch(said):
            return phrase(language, "values.size_flat")
    elif key == "horizon":
        if span := _SPAN.fullmatch(said):
            return phrase(language, "values.span", low=span["low"], high=span["high"],
                          unit=_unit(language, span["unit"], int(span["high"])))
        if one := _ONE.fullmatch(said):
            return phrase(language, "values.one", n=one["n"], unit=_unit(language, one["unit"], int(one["n"])))
    return text


def language_name(code: str) -> str:
    """How the language instruction names a language: "Chinese (简体中文)" for "zh"."""
    if not is_language(code):  # never a client's text in a prompt
        code = DEFAULT_LANGUAGE
    name = _catalogue(DEFAULT_LANGUAGE).get("languages", {}).get(code)
    return str(name) if name else phrase(DEFAULT_LANGUAGE, "languages.unknown", code=code)
