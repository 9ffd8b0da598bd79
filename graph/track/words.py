"""The track record in words for the user: the answer to "how have your calls done?" and the
"Track record" step an analysis shows before its debate, in the thread's language (the [track]
section of prompts/words_<code>.md); figures, tickers, signals and dates as they are."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from ..core.words import DEFAULT_LANGUAGE, phrase, ruling_value
from .calls import Call
from .summary import Summary, benchmark_name, card_line, pct, pending_words, record_table, verdict_word

# The card's line as an analysis recalled it before the figures were kept beside it (a checkpoint of
# then holds the English line only): read back into figures, so it too is worded in the reader's language.
_OLD_LINE = re.compile(r"(?P<calls>\d+) past calls?(?:, none settled yet|: (?P<right>\d+) right, mean alpha "
                       r"(?P<alpha>[+-]\d+\.\d) %(?:; (?P<pending>\d+) pending)?)")


def last_call(calls: Sequence[Call], ticker: str, language: str = DEFAULT_LANGUAGE) -> str:
    """'Last time on NVDA (2024-05-06) the desk said BUY …, and it was right: alpha +1.84 % …'."""
    mine = [c for c in calls if c.ticker == ticker]
    if not mine:
        return ""
    c = mine[-1]
    said = phrase(language, "track.last_said", ticker=ticker, trade_date=c.trade_date, signal=c.signal,
                  size=ruling_value(language, "position_size", c.position_size) if c.position_size
                  else phrase(language, "track.size_na"))
    if c.outcome is None:
        return phrase(language, "track.last_pending", said=said, reason=_reason(c, language))
    o = c.outcome
    return phrase(language, "track.last_scored", said=said, verdict=verdict_word(o.verdict, language), ticker=ticker,
                  raw=pct(o.raw_return), benchmark=benchmark_name(o.benchmark, language), bench=pct(o.benchmark_return),
                  sessions=o.sessions,
                  alpha=pct(o.alpha))


def record_answer(calls: Sequence[Call], ticker: str | None, today: date, language: str = DEFAULT_LANGUAGE) -> str:
    title = (phrase(language, "track.answer_title_ticker", ticker=ticker) if ticker
             else phrase(language, "track.answer_title"))
    parts = [title, record_table(calls, today=today, language=language)]
    if ticker and (last := last_call(calls, ticker, language)):
        parts.insert(1, last)
    return "\n\n".join(parts)


def recalled_line(track_record: Mapping[str, Any], language: str = DEFAULT_LANGUAGE) -> str:
    """The card's line on the ticker as the analysis recalled it ("4 past calls: 3 right, mean alpha
    +1.8 %"), in `language`: worded from the figures the record keeps (graph/track/recall.py), or from
    the English line a record recalled before them holds; "" when it has none."""
    figures = track_record.get("figures")
    if isinstance(figures, Mapping):
        try:
            summary = Summary(calls=int(figures["calls"]), settled=int(figures["calls"]) - int(figures["pending"]),
                              right=int(figures["right"]), mean_alpha=figures.get("mean_alpha"), hit_rate=None,
                              pending=int(figures["pending"]))
        except (KeyError, TypeError, ValueError):
            pass
        else:
            return card_line(summary, language)
    line = str(track_record.get("line") or "")
    if language == DEFAULT_LANGUAGE or not (old := _OLD_LINE.fullmatch(line)):
        return line
    alpha = float(old["alpha"]) / 100 if old["alpha"] else None
    return card_line(Summary(calls=int(old["calls"]), settled=0, right=int(old["right"] or 0), mean_alpha=alpha,
                             hit_rate=None, pending=int(old["pending"] or 0)), language)


def recalled_markdown(track_record: dict[str, Any], language: str = DEFAULT_LANGUAGE) -> str:
    """What the analysis recalled, for the chat's collapsible "Track record" step and the CLI."""
    ticker, day = track_record.get("ticker", ""), track_record.get("trade_date", "")
    same = [Call.model_validate(c) for c in track_record.get("same", [])]
    lessons = [Call.model_validate(c) for c in track_record.get("lessons", [])]
    pending = [Call.model_validate(c) for c in track_record.get("pending", [])]
    if not (same or lessons or pending):
        return phrase(language, "track.recalled_nothing", trade_date=day)
    out = [phrase(language, "track.recalled_head", trade_date=day)]
    if line := recalled_line(track_record, language):
        out.append(phrase(language, "track.recalled_line", ticker=ticker, line=line))
    for key, group in (("track.recalled_same", same), ("track.recalled_lessons", lessons)):
        if group:
            title = phrase(language, key, ticker=ticker)
            out.append(f"**{title}**\n" + "\n".join(_entry(c, language) for c in group))
    if pending:
        title = phrase(language, "track.recalled_pending", ticker=ticker)
        out.append(f"**{title}**\n" + "\n".join(
            f"- {c.trade_date} {c.signal}: {_reason(c, language)}" for c in pending))
    return "\n\n".join(out)


def _reason(c: Call, language: str) -> str:
    return pending_words(c.pending, language) if c.pending else phrase(language, "track.pending_window_open")


def _entry(c: Call, language: str) -> str:
    o = c.outcome
    assert o is not None
    stop = phrase(language, "track.entry_stop", date=o.stop_hit) if o.stop_hit else ""
    return phrase(language, "track.entry", trade_date=c.trade_date, ticker=c.ticker, signal=c.signal,
                  verdict=verdict_word(o.verdict, language), raw=pct(o.raw_return), alpha=pct(o.alpha),
                  benchmark=benchmark_name(o.benchmark, language), sessions=o.sessions, stop=stop,
                  reflection=o.reflection)
