"""A backtest's plan: which tickers, which trading days, what shape of deliberation, and what it will cost,
stated before anything runs, and refused with a sentence when it cannot or should not run.

Trading days are the vendor's own price rows for each ticker in the window, so a listing abroad counts its
own sessions (as graph/track/settle.py counts a call's holding window); "every N" keeps every N-th of them,
from the window's first. The synthetic vendor lays its rows on the NYSE calendar (graph/core/trading_days.py).

Refusals are DeskError (graph/core/errors.py), the project's user-facing error: the CLI prints the sentence,
the chat will show it. Each says what was wrong and what to do.
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ..core.errors import DeskError
from ..core.personas import ANALYST_KINDS
from ..core.plan import RunPlan
from ..core.settings import Settings, field_bounds
from ..data.vendor import UnknownSymbol, Vendor, VendorError
from ..request.companies import all_companies, is_known_ticker
from ..tools.cutoff import cut_prices
from ..track.settle import last_close_day
from .tokens import Estimate, Shape, estimate


class PlanRefused(DeskError):
    """A backtest that cannot or should not run, with the reason in words."""


@dataclass(frozen=True)
class Plan:
    """What a backtest runs: every (ticker, trading day), each a whole deliberation of the same shape."""

    tickers: tuple[str, ...]
    start: date
    end: date
    every: int
    days: Mapping[str, tuple[date, ...]]  # ticker → the days deliberated, in order
    analysts: tuple[str, ...] = ANALYST_KINDS
    debate_rounds: int = 1
    risk_rounds: int = 1
    today: date = field(default_factory=date.today)  # the desk's today when the plan was made
    data: str = ""  # the vendor's label: "synthetic demo data", "Yahoo Finance …"
    synthetic: bool = False  # demo data or the demo model: every result is labelled synthetic

    @property
    def runs(self) -> int:
        """Deliberations: tickers × their trading days."""
        return sum(len(days) for days in self.days.values())

    @property
    def shape(self) -> Shape:
        return Shape(len(self.analysts), self.debate_rounds, self.risk_rounds)

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
        words = name.replace("_", " ")
        raise PlanRefused(f"{words.capitalize()} must be between {low} and {high}, not {value}.")
    return value


def _window(start: date, end: date, today: date) -> None:
    if start > end:
        raise PlanRefused(f"The window is reversed: it starts on {start.isoformat()}, after its end "
                          f"{end.isoformat()}. Give the earlier date as the start.")
    if start > today:
        raise PlanRefused(f"The window {start.isoformat()} … {end.isoformat()} is in the future (today is "
                          f"{today.isoformat()}): a backtest replays days that have already closed.")
    closed = last_close_day(today)
    if end > closed:
        raise PlanRefused(f"The window ends on {end.isoformat()}, after the last close known today "
                          f"({closed.isoformat()}): each day is scored at its close, so end the window on "
                          f"{closed.isoformat()} or before.")


def trading_days(vendor: Vendor, ticker: str, start: date, end: date) -> tuple[date, ...]:
    """The ticker's sessions in the window, as the vendor's price rows give them (a row without a close is
    no session). Raises PlanRefused for a symbol the vendor does not know or a vendor failure."""
    try:
        frame = vendor.ohlcv(ticker, start, end)
    except UnknownSymbol:
        raise PlanRefused(_unknown(ticker, vendor, start, end)) from None
    except VendorError as exc:
        raise PlanRefused(f"Could not read {ticker}'s trading days from {vendor.label}: {exc}. Nothing has "
                          "run; try again.") from None
    rows = cut_prices(frame, end)
    return tuple(day.date() for day in rows.index if day.date() >= start)


def _unknown(ticker: str, vendor: Vendor, start: date, end: date) -> str:
    return (f"{ticker}: {vendor.label} has no prices for it between {start.isoformat()} and {end.isoformat()}: "
            "an unknown ticker (check the symbol), or one not listed then.")


async def make_plan(vendor: Vendor, settings: Settings, tickers: Sequence[str], start: date, end: date, *,
                    every: int = 1, analysts: Sequence[str] | None = None, debate_rounds: int | None = None,
                    risk_rounds: int | None = None, today: date | None = None, live: bool = False,
                    max_runs: int | None = None) -> Plan:
    """The plan, or PlanRefused with the reason: no ticker, a reversed window or one in the future, a bad
    step or round count, an unknown ticker, no trading day, more deliberations than the stated maximum."""
    symbols = clean_tickers(tickers)
    if not symbols:
        raise PlanRefused("Name at least one ticker to backtest, e.g. AAPL GOOGL AMZN.")
    today = today or date.today()
    _window(start, end, today)
    if every < 1:
        raise PlanRefused(f"--every counts trading days between deliberations: 1 or more, not {every}.")
    if analysts is not None and (bad := [a for a in analysts if a not in ANALYST_KINDS]):
        raise PlanRefused(f"Unknown analysts {', '.join(bad)}; choose from {', '.join(ANALYST_KINDS)}.")
    shape = RunPlan.of(settings, analysts=analysts)
    debate = _rounds("debate_rounds", debate_rounds, settings.debate_rounds)
    risk = _rounds("risk_rounds", risk_rounds, settings.risk_rounds)
    synthetic_data = vendor.name == "synthetic"
    if synthetic_data and (unknown := [t for t in symbols if not is_known_ticker(t)]):
        # The demo desk asks back before inventing data for a symbol it does not know: every day would stop there.
        raise PlanRefused(f"Unknown ticker {', '.join(unknown)}: not among the {len(all_companies())} companies "
                          "the demo desk knows, so its data would be invented from start to finish. Check the "
                          "symbol.")
    days: dict[str, tuple[date, ...]] = {}
    for ticker in symbols:
        days[ticker] = (await asyncio.to_thread(trading_days, vendor, ticker, start, end))[::every]
    if not any(days.values()):
        raise PlanRefused(f"There is no trading day between {start.isoformat()} and {end.isoformat()} "
                          f"in {vendor.label} (weekends and holidays only?). Widen the window.")
    if empty := [t for t, ds in days.items() if not ds]:
        raise PlanRefused(" ".join(_unknown(t, vendor, start, end) for t in empty))
    plan = Plan(symbols, start, end, every, days, shape.analysts, debate, risk, today, vendor.label,
                synthetic=synthetic_data or not live)
    limit = max_runs if max_runs is not None else settings.backtest_max_runs
    if plan.runs > limit:
        raise PlanRefused(f"{plan.runs:,} deliberations ({len(symbols)} ticker{'s' * (len(symbols) > 1)} × their "
                          f"trading days) is more than a backtest may run ({limit:,}, DESK_BACKTEST_MAX_RUNS). "
                          "Shorten the window, deliberate every few days (--every N), or name fewer tickers.")
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
        raise PlanRefused(f"This backtest is expected to need about {expected:,} tokens "
                          f"({to_run:,} deliberations × ~{per_run.tokens:,}"
                          f"{f', plus {spent:,} already spent' if spent else ''}), more than the budget of "
                          f"{budget:,}. Raise --budget, or plan at most ~{afford:,} deliberations "
                          "(fewer tickers, a shorter window, or --every N).")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' * (n != 1)}"


def statement(plan: Plan, per_run: Estimate, *, done: int = 0, spent: int = 0, budget: int | None = None,
              concurrency: int = 1, model: str = "") -> str:
    """The plan in words, before anything runs: what will run, and what it is expected to cost."""
    every = "every trading day" if plan.every == 1 else f"every {plan.every} trading days"
    lines = [f"Backtest plan: {', '.join(plan.tickers)} · {plan.start.isoformat()} … {plan.end.isoformat()} · {every}"]
    for ticker, days in plan.days.items():
        first, last = (days[0].isoformat(), days[-1].isoformat()) if days else ("—", "—")
        lines.append(f"  {ticker:<10} {_plural(len(days), 'trading day'):>16}  {first} … {last}")
    analysts = ", ".join(plan.analysts) if len(plan.analysts) < len(ANALYST_KINDS) else "all 4 analysts"
    lines.append(f"  {_plural(plan.runs, 'deliberation')} ({analysts}; {_plural(plan.debate_rounds, 'debate round')}, "
                 f"{_plural(plan.risk_rounds, 'risk round')}), {concurrency} at a time")
    to_run = plan.runs - done
    if done:
        lines.append(f"  {done:,} already done (kept, not run again); {to_run:,} to run")
    calls, tokens = per_run.times(to_run)
    lines.append(f"  Expected: ~{per_run.calls} model calls and ~{per_run.tokens:,} tokens a deliberation → "
                 f"~{calls:,} calls, ~{tokens:,} tokens in all")
    lines.append(f"    ({per_run.source})")
    if spent:
        lines.append(f"  Spent so far: {spent:,} tokens")
    unset = "none (--budget TOKENS, or 'budget 2M tokens' in the chat)"
    lines.append(f"  Budget: {f'{budget:,} tokens' if budget is not None else unset}")
    if model:
        lines.append(f"  {model}")
    lines.append(f"  Market data: {plan.data}" + (" — every result is labelled synthetic" if plan.synthetic else ""))
    return "\n".join(lines)
