"""A backtest's plan: which tickers, which trading days, what shape of deliberation, and what it will cost,
stated before anything runs, and refused with a sentence when it cannot or should not run.

Trading days are the vendor's own price rows for each ticker in the window, so a listing abroad counts its
own sessions (as graph/track/settle.py counts a call's holding window); "every N" keeps every N-th of them,
from the window's first. The synthetic vendor lays its rows on the listing's own exchange calendar
(graph/core/trading_days.py).

Refusals are DeskError (graph/core/errors.py), the project's user-facing error: the CLI prints the sentence,
the chat shows it in the thread's language (`told`). Each says what was wrong and what to do. The statement and
the refusals are the `[backtest]` texts of prompts/words_<code>.md.
"""
from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from graph.core import clock

from ..core.errors import DeskError
from ..core.personas import ANALYST_KINDS, ANALYSTS, DEFAULT_ANALYST_KINDS
from ..core.plan import RunPlan
from ..core.settings import Settings, field_bounds
from ..core.words import DEFAULT_LANGUAGE, label, phrase, vendor_name
from ..data.vendor import UnknownSymbol, Vendor, VendorError
from ..request.companies import all_companies, is_known_ticker
from ..tools.cutoff import cut_prices
from ..track.settle import last_close_day
from .tokens import Estimate, Shape, estimate


class PlanRefused(DeskError):
    """A backtest that cannot or should not run, with the reason in words: a `[backtest]` text (`refused_…`),
    English in str(), any language through `told`."""

    def __init__(self, key: str, **fields: Any) -> None:
        super().__init__(key="backtest.refused_" + key, **fields)


@dataclass(frozen=True)
class Plan:
    """What a backtest runs: every (ticker, trading day), each a whole deliberation of the same shape."""

    tickers: tuple[str, ...]
    start: date
    end: date
    every: int
    days: Mapping[str, tuple[date, ...]]  # ticker → the days deliberated, in order
    analysts: tuple[str, ...] = DEFAULT_ANALYST_KINDS
    debate_rounds: int = 1
    risk_rounds: int = 1
    today: date = field(default_factory=clock.today)  # the desk's today when the plan was made
    data: str = ""  # the vendor's label: "synthetic demo data", "Yahoo Finance …"
    synthetic: bool = False  # demo data or the demo model: every result is labelled synthetic

    @property
    def runs(self) -> int:
        """Deliberations: tickers × their trading days."""
        return sum(len(days) for days in self.days.values())

    @property
    def shape(self) -> Shape:
        return Shape(len(self.analysts), self.debate_rounds, self.risk_rounds, tuple(self.analysts))

    def run_plan(self, settings: Settings) -> RunPlan:
        """Each day's analysis, as the desk's own plan."""
        return RunPlan.of(settings, analysts=self.analysts, debate_rounds=self.debate_rounds,
                          risk_rounds=self.risk_rounds)

    def to_json(self) -> dict[str, Any]:
        return {"tickers": list(self.tickers), "start": self.start.isoformat(), "end": self.end.isoformat(),
                "every": self.every, "days": {t: [d.isoformat() for d in ds] for t, ds in self.days.items()},
                "analysts": list(self.analysts), "debate_rounds": self.debate_rounds,
                "risk_rounds": self.risk_rounds, "today": self.today.isoformat(), "data": self.data,
                "synthetic": self.synthetic}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Plan:
        return cls(tickers=tuple(value["tickers"]), start=date.fromisoformat(value["start"]),
                   end=date.fromisoformat(value["end"]), every=int(value["every"]),
                   days={t: tuple(date.fromisoformat(d) for d in ds) for t, ds in value["days"].items()},
                   analysts=tuple(value["analysts"]), debate_rounds=int(value["debate_rounds"]),
                   risk_rounds=int(value["risk_rounds"]), today=date.fromisoformat(value["today"]),
                   data=str(value.get("data") or ""), synthetic=bool(value.get("synthetic")))


def clean_tickers(tickers: Iterable[str]) -> tuple[str, ...]:
    """Upper case, commas allowed ("AAPL,GOOGL"), each once, in the order given."""
    out: list[str] = []
    for text in tickers:
        for part in text.replace(",", " ").split():
            symbol = part.strip().lstrip("$").upper()
            if symbol and symbol not in out:
                out.append(symbol)
    return tuple(out)


def _rounds(name: str, value: int | None, default: int) -> int:
    low, high = field_bounds(name)
    if value is None:
        return default
    if not low <= value <= high:
        raise PlanRefused(name, low=low, high=high, value=value)
    return value


def _window(start: date, end: date, today: date) -> None:
    if start > end:
        raise PlanRefused("reversed", start=start.isoformat(), end=end.isoformat())
    if start > today:
        raise PlanRefused("future", start=start.isoformat(), end=end.isoformat(), today=today.isoformat())
    closed = last_close_day(today)
    if end > closed:
        raise PlanRefused("after_close", end=end.isoformat(), closed=closed.isoformat())


def trading_days(vendor: Vendor, ticker: str, start: date, end: date) -> tuple[date, ...]:
    """The ticker's sessions in the window, as the vendor's price rows give them (a row without a close is
    no session). Raises PlanRefused for a symbol the vendor does not know or a vendor failure."""
    try:
        frame = vendor.ohlcv(ticker, start, end)
    except UnknownSymbol:
        raise _no_prices([ticker], vendor, start, end) from None
    except VendorError as exc:
        raise PlanRefused("vendor", ticker=ticker, vendor=vendor.label, error=str(exc)) from None
    rows = cut_prices(frame, end)
    return tuple(day.date() for day in rows.index if day.date() >= start)


def _no_prices(tickers: Sequence[str], vendor: Vendor, start: date, end: date) -> PlanRefused:
    return PlanRefused("no_prices_one" if len(tickers) == 1 else "no_prices_many", tickers=", ".join(tickers),
                       vendor=vendor.label, start=start.isoformat(), end=end.isoformat())


async def make_plan(vendor: Vendor, settings: Settings, tickers: Sequence[str], start: date, end: date, *,
                    every: int = 1, analysts: Sequence[str] | None = None, debate_rounds: int | None = None,
                    risk_rounds: int | None = None, today: date | None = None, live: bool = False,
                    max_runs: int | None = None) -> Plan:
    """The plan, or PlanRefused with the reason: no ticker, a reversed window or one in the future, a bad
    step or round count, an unknown ticker, no trading day, more deliberations than the stated maximum."""
    symbols = clean_tickers(tickers)
    if not symbols:
        raise PlanRefused("no_tickers")
    today = today or clock.today()
    _window(start, end, today)
    if every < 1:
        raise PlanRefused("every", every=every)
    if analysts is not None and (bad := [a for a in analysts if a not in ANALYST_KINDS]):
        raise PlanRefused("analysts", bad=", ".join(bad), kinds=", ".join(ANALYST_KINDS))
    shape = RunPlan.of(settings, analysts=analysts)
    debate = _rounds("debate_rounds", debate_rounds, settings.debate_rounds)
    risk = _rounds("risk_rounds", risk_rounds, settings.risk_rounds)
    synthetic_data = vendor.name == "synthetic"
    if synthetic_data and (unknown := [t for t in symbols if not is_known_ticker(t)]):
        # The demo desk asks back before inventing data for a symbol it does not know: every day would stop there.
        raise PlanRefused("demo_unknown", tickers=", ".join(unknown), n=len(all_companies()))
    days: dict[str, tuple[date, ...]] = {}
    for ticker in symbols:
        days[ticker] = (await asyncio.to_thread(trading_days, vendor, ticker, start, end))[::every]
    if not any(days.values()):
        raise PlanRefused("no_days", start=start.isoformat(), end=end.isoformat(), vendor=vendor.label)
    if empty := [t for t, ds in days.items() if not ds]:
        raise _no_prices(empty, vendor, start, end)
    plan = Plan(symbols, start, end, every, days, shape.analysts, debate, risk, today, vendor.label,
                synthetic=synthetic_data or not live)
    limit = max_runs if max_runs is not None else settings.backtest_max_runs
    if plan.runs > limit:
        raise PlanRefused("too_many_one" if len(symbols) == 1 else "too_many_many", runs=plan.runs,
                          n=len(symbols), limit=limit)
    return plan


# --- its statement, and the budget ---------------------------------------------------------------------


def cost(plan: Plan, *, live: bool, measured: Sequence[tuple[int, int]] = ()) -> Estimate:
    return estimate(plan.shape, live=live, measured=measured)


def check_budget(plan: Plan, per_run: Estimate, budget: int | None, *, to_run: int, spent: int = 0) -> None:
    """Refuse a plan whose expected tokens (what has been spent, plus what is left to run) pass the budget."""
    if budget is None:
        return
    expected = spent + per_run.tokens * to_run
    if expected > budget:
        afford = max(0, (budget - spent) // max(per_run.tokens, 1))
        raise PlanRefused("budget_spent" if spent else "budget", expected=expected, to_run=to_run,
                          per_run=per_run.tokens, spent=spent, budget=budget, afford=afford)


def _counted(language: str, key: str, n: int) -> str:
    """"1 trading day", "183 deliberations": the catalogue's `<key>_one` or `<key>_many`."""
    return phrase(language, f"backtest.{key}_{'one' if n == 1 else 'many'}", n=n)


def _width(text: str) -> int:
    """Columns the text takes in a terminal or a code block: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _padded(text: str, width: int, *, right: bool = False) -> str:
    fill = " " * max(0, width - _width(text))
    return fill + text if right else text + fill




def _analysts(plan: Plan, language: str) -> str:
    if set(plan.analysts) in (set(DEFAULT_ANALYST_KINDS), set(ANALYST_KINDS)):  # the usual desk, or everyone
        return phrase(language, "backtest.all_analysts", n=len(plan.analysts))
    personas = {a.kind: a.persona for a in ANALYSTS}
    # English names the kinds, as --analysts takes them; a language with persona labels, its analysts.
    return phrase(language, "backtest.analyst_separator").join(
        label(language, "personas", kind, key=personas.get(kind)) for kind in plan.analysts)


def statement(plan: Plan, per_run: Estimate, *, done: int = 0, spent: int = 0, budget: int | None = None,
              concurrency: int = 1, model: str = "", language: str = DEFAULT_LANGUAGE, markdown: bool = False) -> str:
    """The plan in words, before anything runs: what will run, and what it is expected to cost, in `language`.

    For a terminal, lines with the tickers' columns lined up; with `markdown` (the chat), a title and a list, which
    wraps to the page's width: a code block keeps its lines whole and cuts them off at the right of a narrow page."""
    say = lambda key, **f: phrase(language, "backtest." + key, **f)  # noqa: E731 - one line per part below
    every = say("every_day") if plan.every == 1 else say("every_n", n=plan.every)
    title = say("plan_title", tickers=", ".join(plan.tickers), start=plan.start.isoformat(), end=plan.end.isoformat(),
                every=every)
    tickers: list[tuple[str, str, str]] = []  # ticker, its trading days counted, "first … last"
    for ticker, days in plan.days.items():
        first, last = (days[0].isoformat(), days[-1].isoformat()) if days else ("—", "—")
        tickers.append((ticker, _counted(language, "trading_days", len(days)), f"{first} … {last}"))
    items: list[tuple[str, str]] = []  # a line, and the note under it ("" for none)
    items.append((say("runs_line", runs=_counted(language, "runs", plan.runs), analysts=_analysts(plan, language),
                      debate=_counted(language, "debate_rounds", plan.debate_rounds),
                      risk=_counted(language, "risk_rounds", plan.risk_rounds), concurrency=concurrency), ""))
    to_run = plan.runs - done
    if done:
        items.append((say("done_line", done=done, to_run=to_run), ""))
    calls, tokens = per_run.times(to_run)
    items.append((say("expected", calls=per_run.calls, tokens=per_run.tokens, all_calls=calls, all_tokens=tokens),
                  say("source", source=per_run.source_in(language))))
    if spent:
        items.append((say("spent", spent=spent), ""))
    items.append((say("budget", budget=say("budget_tokens", budget=budget) if budget is not None
                      else say("budget_none")), ""))
    if model:
        items.append((model, ""))
    items.append((say("data", data=vendor_name(plan.data, language),
                      synthetic=say("data_synthetic") if plan.synthetic else ""), ""))
    if markdown:
        lines = [f"**{_escaped(title)}**", ""]
        lines += [f"- **{_escaped(ticker)}** · {_escaped(counted)} · {span}" for ticker, counted, span in tickers]
        lines += [f"- {_escaped(line)}" + (f" {_escaped(note)}" if note else "") for line, note in items]
        return "\n".join(lines)
    lines = [title]
    lines += [f"  {_padded(ticker, 10)} {_padded(counted, 16, right=True)}  {span}"
              for ticker, counted, span in tickers]
    for line, note in items:
        lines.append(f"  {line}")
        if note:
            lines.append(f"    {note}")
    return "\n".join(lines)


def _escaped(text: str) -> str:
    """Text shown as it is in Markdown: no character of it starts emphasis, code, a link or HTML."""
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)
