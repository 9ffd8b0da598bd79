"""A finished backtest scored: the desk's signals and every rule baseline simulated on the same closes, the
paper's metrics, Table 1, and its two exports (the Markdown and the daily CSV).

The closes are the vendor's as of the window's end, from the vendor the desk itself read, with a look-back
before the window for the baselines' indicators (MACD needs 34 closes). The window's days are the sessions of
the listing's own exchange (graph/core/trading_days.py: the NYSE's for a US listing, Hong Kong's for 0700.HK,
Tokyo's for 7203.T, ...), so a session the vendor has no close for is a gap the simulation states (never
filled); a listing on an exchange without a calendar there (VOD.L) has the vendor's own rows. Between the
desk's deliberations (`--every N`) and on a failed day the desk has no signal, so its position is kept, and
the result says so.
"""
from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import pandas as pd

from ..core.personas import ANALYSTS
from ..core.state import Signal
from ..core.trading_days import CALENDARS, EXCHANGES, sessions_between
from ..core.words import DEFAULT_LANGUAGE, label, phrase, vendor_name
from ..data.vendor import Vendor
from ..request.listing_codes import market_of
from ..tools.cutoff import cut_prices
from .baselines import BASELINES, Baseline
from .export import daily_csv
from .metrics import Metrics, metrics
from .record import Backtest, Day
from .simulate import Rules, Simulation, simulate
from .table import PUBLISHED, PUBLISHED_SOURCE, Row, Table, bullets, is_paper_window, published_rows, table

DESK = "Trading Desk"  # the desk's row, after the baselines as in the paper
LOOKBACK_DAYS = 120  # calendar days of closes before the window: ~80 sessions, over MACD's 34


@dataclass(frozen=True)
class Result:
    backtest: Backtest
    table: Table
    simulations: Mapping[tuple[str, str], Simulation]  # (ticker, strategy) → its days
    scores: Mapping[str, Mapping[str, Metrics]]  # strategy → ticker → metrics
    days: Mapping[str, Day]
    rules: Rules
    risk_free_rate: float = 0.0

    @property
    def baselines(self) -> tuple[Baseline, ...]:
        """The rule baselines in the table, each with its rule in words (`rule_in(language)`)."""
        return BASELINES

    def note_lines(self, language: str = DEFAULT_LANGUAGE) -> list[str]:
        """The table's notes as a Markdown list, in `language`: in English, the very lines of `table.note_lines()`
        (the CLI's file); in another, the same facts and figures in its words (the chat)."""
        sources = [phrase(language, "backtest.note_source", strategy=self.strategy_in(row, language),
                          source=phrase(language, "backtest.published_source")
                          if row.source == PUBLISHED_SOURCE else row.source)
                   for row in self.table.rows if row.source]
        return bullets([*notes(self.backtest, self.days, self.simulations, self.rules, self.risk_free_rate,
                               language), *sources])

    @staticmethod
    def strategy_in(row: Row, language: str) -> str:
        """A row's strategy as shown in `language`: the published row's "(published)" in its words."""
        name, published, _ = row.strategy.rpartition(f" ({PUBLISHED})")
        return phrase(language, "backtest.published_row", name=name) if published and row.source else row.strategy

    @property
    def failed(self) -> list[Day]:
        return [d for d in self.days.values() if d.status == "failed"]

    @property
    def missing(self) -> list[str]:
        """Planned days with no record: left to run (a budget stop)."""
        plan = self.backtest.plan
        return [f"{t}:{d.isoformat()}" for t in plan.tickers for d in plan.days[t]
                if f"{t}:{d.isoformat()}" not in self.days]

    def csv(self) -> str:
        return daily_csv(self.simulations)

    def markdown(self) -> str:
        """The file: the table with its notes, the baselines' rules, then every day of the desk."""
        lines = [self.table.markdown(), "## The baselines' rules", ""]
        lines += [f"- **{b.label}**: {b.rule}" for b in BASELINES]
        lines += ["", "## The desk's days", "",
                  "| Ticker | Day | Signal | Size | Confidence | Tokens | Seconds | Thread | Note |",
                  "|---|---|---|---|---:|---:|---:|---|---|"]
        for day in self.days.values():
            note = day.reason if day.status == "failed" else (
                f"may not have recalled {', '.join(day.unseen)} (still running)" if day.unseen else "")
            confidence = "" if day.confidence is None else f"{day.confidence:.2f}"
            seconds = "" if day.wall_s is None else f"{day.wall_s:.1f}"
            lines.append(f"| {day.ticker} | {day.day} | {day.signal or 'failed'} | {_cell(day.size)} | {confidence} | "
                         f"{day.tokens:,} | {seconds} | {day.thread} | {_cell(note)} |")
        return "\n".join(lines) + "\n"

    def write(self, folder: Path) -> tuple[Path, Path]:
        folder.mkdir(parents=True, exist_ok=True)
        markdown = folder / f"backtest-{self.backtest.id}.md"
        daily = folder / f"backtest-{self.backtest.id}-daily.csv"
        markdown.write_text(self.markdown(), encoding="utf-8")
        daily.write_text(self.csv(), encoding="utf-8")
        return markdown, daily


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def closes(vendor: Vendor, ticker: str, start: date, end: date) -> tuple[pd.Series, pd.Series]:
    """(the closes from the look-back to the end, for the baselines; the window's closes, NaN on a gap)."""
    frame = cut_prices(vendor.ohlcv(ticker, start - timedelta(days=LOOKBACK_DAYS), end), end)
    series = pd.Series(frame["close"].astype(float).to_numpy(),
                       index=[stamp.date().isoformat() for stamp in frame.index], dtype=float)
    window = series[(series.index >= start.isoformat()) & (series.index <= end.isoformat())]
    if (market := _calendar_market(ticker)) is not None:
        days = [d.isoformat() for d in sessions_between(start, end, market)]
        window = window.reindex(sorted(set(days) | set(window.index)))
    return series, window


def _calendar_market(ticker: str) -> str | None:
    """The calendar the ticker's window is laid on: its class's (BTC-USD every day, EURUSD=X weekdays, GC=F
    CME's sessions), "US" for a US listing (BRK-B too), its exchange's for a listing abroad with a calendar
    (0700.HK: "HK"); None for any other (VOD.L)."""
    market = market_of(ticker.strip().upper())
    return market if market == "US" or market in EXCHANGES or market in CALENDARS else None


def score(backtest: Backtest, days: Mapping[str, Day], vendor: Vendor, *, rules: Rules | None = None,
          risk_free_rate: float = 0.0, closes_of: Mapping[str, tuple[pd.Series, pd.Series]] | None = None) -> Result:
    plan = backtest.plan
    rules = rules or Rules()
    simulations: dict[tuple[str, str], Simulation] = {}
    scores: dict[str, dict[str, Metrics]] = {}
    for ticker in plan.tickers:
        history, window = (closes_of or {}).get(ticker) or closes(vendor, ticker, plan.start, plan.end)
        for baseline in BASELINES:
            ruled: dict[str | date, Signal | None] = {day: sig for day, sig in baseline.signals(history).items()}
            simulations[(ticker, baseline.label)] = simulate(window, ruled, rules)
        signals: dict[str | date, Signal | None] = {
            d.day: d.signal for d in days.values() if d.ticker == ticker and d.status == "done"}
        simulations[(ticker, DESK)] = simulate(window, signals, rules)
    for (ticker, strategy), simulation in simulations.items():
        scores.setdefault(strategy, {})[ticker] = metrics(simulation, risk_free_rate)
    strategies = [*(b.label for b in BASELINES), DESK]
    extra = () if plan.synthetic else published_rows(plan.tickers, plan.start, plan.end)
    title = f"Backtest {backtest.id}: {', '.join(plan.tickers)}, {plan.start.isoformat()} … {plan.end.isoformat()}"
    if plan.synthetic:
        title += " (synthetic)"
    shown = table(scores, plan.tickers, strategies, title=title,
                  notes=notes(backtest, days, simulations, rules, risk_free_rate), extra_rows=extra)
    return Result(backtest, shown, simulations, scores, days, rules, risk_free_rate)


def notes(backtest: Backtest, days: Mapping[str, Day], simulations: Mapping[tuple[str, str], Simulation],
          rules: Rules, risk_free_rate: float, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """What is said under the table, in `language` (prompts/words_<language>.md, `[backtest] note_…`)."""
    say = lambda key, **f: phrase(language, "backtest.note_" + key, **f)  # noqa: E731 - one line per note
    listed = say("list_separator").join
    plan = backtest.plan
    said: list[str] = []
    if plan.synthetic:
        said.append(say("synthetic", data=vendor_name(plan.data, language)))
    every = phrase(language, "backtest.every_day") if plan.every == 1 else phrase(language, "backtest.every_n",
                                                                                   n=plan.every)
    personas = {a.kind: a.persona for a in ANALYSTS}
    # English names the kinds, as --analysts takes them; a language with persona labels, its analysts.
    analysts = phrase(language, "backtest.analyst_separator").join(
        label(language, "personas", kind, key=personas.get(kind)) for kind in plan.analysts)
    rounds = say("rounds_many" if plan.risk_rounds > 1 else "rounds_one", debate=plan.debate_rounds,
                 risk=plan.risk_rounds)
    said.append(say("desk", every=every, analysts=analysts, rounds=rounds))
    said += [say("rule", rule=line) for line in rules.describe(language)]
    said.append(say("metrics", rate=f"{risk_free_rate:g}"))
    if failed := [d for d in days.values() if d.status == "failed"]:
        said.append(say("failed", days=say("failed_separator").join(
            say("failed_day", ticker=d.ticker, day=d.day, reason=d.reason_in(language)) for d in failed)))
    planned = {f"{t}:{d.isoformat()}" for t in plan.tickers for d in plan.days[t]}
    if left := sorted(planned - set(days)):
        said.append(say("not_run", n=len(left), days=listed(left[:10]), more=" …" if len(left) > 10 else ""))
    if unseen := [d for d in days.values() if d.unseen]:
        said.append(say("unseen", n=len(unseen)))
    gaps = sorted({f"{ticker} {day}" for (ticker, strategy), sim in simulations.items() if strategy == DESK
                   for day in sim.gaps})
    if gaps:
        said.append(say("gaps", gaps=listed(gaps)))
    if plan.synthetic and is_paper_window(plan.start, plan.end):
        said.append(say("no_published"))
    return said


async def score_async(backtest: Backtest, days: Mapping[str, Day], vendor: Vendor, *, rules: Rules | None = None,
                      risk_free_rate: float = 0.0) -> Result:
    """`score` off the event loop (vendor reads, and quantstats' imports the first time)."""
    return await asyncio.to_thread(score, backtest, days, vendor, rules=rules, risk_free_rate=risk_free_rate)
