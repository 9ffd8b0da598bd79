"""What is scheduled inside the holding window: the next earnings date, dividend (ex-date and payment) and
split dates, as they were on the calendar on the trade date (issue 38, point 1).

The tool looks ``EVENT_WINDOW_SESSIONS`` sessions past the trade date (a quarter: the longest horizon the
desk usually rules), each event with how many sessions after the trade date it falls; which of them fall
inside the ruling's own horizon is decided once the horizon is known (:func:`events_in_horizon`, the track
record's reading of it: graph/core/holding.py). An event the vendor could not know was scheduled then
(a live calendar is today's) is marked approximate, with the reason. No earnings for what is not a
company; a fund's distributions are its dividends; a coin, a pair, a future or an index has none.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.tools import BaseTool

from ..core.assets import AssetClass, market_of
from ..core.holding import due_date, sessions
from ..core.trading_days import sessions_between
from ..data.vendor import Event, Vendor, asset_class_of
from .args import NoArgs
from .cutoff import cut_events
from .guarded import Figures, NoData, call_vendor, guarded_tool

TOOL = "get_scheduled_events"
EVENT_WINDOW_SESSIONS = 63  # a quarter of sessions past the trade date
KIND_WORDS = {"earnings": "earnings", "ex_dividend": "ex-dividend", "dividend": "dividend paid", "split": "split"}
_NONE_FOR = {AssetClass.CRYPTO: "a cryptocurrency", AssetClass.CURRENCY: "a currency pair",
             AssetClass.FUTURE: "a commodity future", AssetClass.INDEX: "an index"}
# The figures' labels, per kind: the event's date, and how many sessions after the trade date it falls.
FIGURE_LABELS = {"earnings": ("Next Earnings", "Earnings In Sessions"),
                 "ex_dividend": ("Next Ex-Dividend", "Ex-Dividend In Sessions"),
                 "dividend": ("Next Dividend Paid", None),
                 "split": ("Next Split", "Split In Sessions")}


def sessions_after(trade_date: date, day: date, ticker: str) -> int:
    """How many of the listing's sessions after the trade date ``day`` falls on or before (1 = the next)."""
    return len(sessions_between(trade_date + timedelta(days=1), day, market_of(ticker)))


def event_record(event: Event, trade_date: date, ticker: str) -> dict[str, Any]:
    """An event as the artifact and the state keep it (plain JSON)."""
    return {"kind": event.kind, "day": event.day.isoformat(),
            "announced": event.announced.isoformat() if event.announced else None,
            "approximate": event.approximate, "basis": event.basis, "amount": event.amount, "ratio": event.ratio,
            "sessions": sessions_after(trade_date, event.day, ticker)}


def event_line(record: Mapping[str, Any]) -> str:
    """One event as the tool lists it: '2026-12-03 earnings (in 4 sessions; announced 2026-11-10)'."""
    what = KIND_WORDS.get(str(record.get("kind")), str(record.get("kind")))
    if record.get("amount") is not None:
        what += f" {float(record['amount']):.4g} per share"
    if record.get("ratio"):
        what += f" {record['ratio']}"
    when = [f"in {record.get('sessions')} sessions"]
    if record.get("announced"):
        when.append(f"announced {record['announced']}")
    if record.get("approximate"):
        when.append(f"approximate: {record.get('basis') or 'not known to be scheduled on the trade date'}")
    return f"{record.get('day')} {what} ({'; '.join(when)})"


def event_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    async def scheduled() -> tuple[str, Figures, list[str], dict[str, Any]]:
        until = due_date(as_of, EVENT_WINDOW_SESSIONS, ticker)
        kind = await call_vendor(asset_class_of, vendor, ticker)
        if kind in _NONE_FOR:
            text = (f"{ticker} is {_NONE_FOR[kind]}: it has no earnings, dividends or splits to schedule "
                    f"from {as_of} to {until}.")
            # Nothing applies (as graph/tools/fundamentals.py says of a pair's fundamentals): the demo says so.
            return text, {}, [], {"events": [], "window_end": until.isoformat(), "not_applicable": kind.value}
        fetch = getattr(vendor, "events", None)
        if fetch is None:  # a vendor written before the calendar
            raise NoData(f"no calendar from {vendor.label}")
        found = cut_events(await call_vendor(fetch, ticker, as_of, until), as_of, until)
        records = [event_record(e, as_of, ticker) for e in found]
        figures: Figures = {}
        for record in records:
            day_label, sessions_label = FIGURE_LABELS[record["kind"]]
            if day_label in figures:
                continue  # the next of its kind only
            figures[day_label] = record["day"] + (" (approx.)" if record["approximate"] else "")
            if sessions_label:
                figures[sessions_label] = record["sessions"]
            if record["kind"] == "ex_dividend" and record["amount"] is not None:
                figures["Dividend Per Share"] = record["amount"]
            if record["kind"] == "split" and record["ratio"]:
                figures["Split Ratio"] = record["ratio"]
        items = [event_line(r) for r in records]
        fund = " (a fund: no earnings; its distributions are its dividends)" if kind is AssetClass.FUND else ""
        head = f"Scheduled from {as_of} to {until} ({EVENT_WINDOW_SESSIONS} sessions){fund}, as known on {as_of}:"
        text = "\n".join([head, *(f"- {line}" for line in items)] if items else
                         [head, "- nothing announced in the window"])
        return text, figures, items, {"events": records, "window_end": until.isoformat()}

    return [guarded_tool(
        TOOL,
        f"Earnings, dividend (ex-date, payment) and split dates of {ticker} in the next "
        f"{EVENT_WINDOW_SESSIONS} sessions after {as_of}, as scheduled on {as_of}.",
        NoArgs, vendor, as_of, scheduled,
    )]


def events_of(messages: Iterable[BaseMessage]) -> dict[str, Any]:
    """An analyst's state update: the events its events tool returned, keyed 'kind day' (two analysts
    calling the tool at once write the same keys)."""
    found: dict[str, Any] = {}
    for m in messages:
        art = m.artifact if isinstance(m, ToolMessage) and isinstance(m.artifact, dict) else {}
        if art.get("tool") == TOOL and not art.get("error"):
            found |= {f"{r['kind']} {r['day']}": r for r in art.get("events") or []}
    return {"events": found} if found else {}


def events_in_horizon(events: Mapping[str, Any] | None, trade_date: str, horizon: str, ticker: str
                   ) -> list[tuple[dict[str, Any], bool]]:
    """The events kept for a run, soonest first, each with whether it falls inside ``horizon`` (the
    ruling's, read as the track record reads it): on or before the window's last session."""
    if not events:
        return []
    try:
        end = due_date(date.fromisoformat(trade_date), sessions(horizon), ticker)
    except ValueError:
        return []
    records = sorted((dict(r) for r in events.values()), key=lambda r: (str(r.get("day")), str(r.get("kind"))))
    return [(r, str(r.get("day")) <= end.isoformat()) for r in records]
