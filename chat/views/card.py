"""What the user takes away from a run: the decision card with a price chart, the report and the tokens
spent (the report is graph/record/case.py's, shared with the CLI and the follow-up Desk; the thread's
name in the sidebar is chat/views/thread_names.py's).

The chart is Chainlit's Plotly element: hover and zoom in the page, a transparent background and
grey text that read on the light and the dark theme (public/desk.css gives the text the theme's
own colour), and only the series it draws in its legend: the close with the indicators the market
analyst cites (SMA 50/200, Bollinger bands, RSI 14) over the window it read, entry and stop lines.
"""
from __future__ import annotations

import asyncio
import base64
import functools
import json
import math
from datetime import date
from typing import Any

import chainlit as cl
import numpy as np
import pandas as pd
import plotly.graph_objects as go  # type: ignore[import-untyped]
from chainlit.element import Element
from pydantic.dataclasses import dataclass as cl_dataclass  # Chainlit's elements are pydantic dataclasses

from graph import (
    DESK,
    FinalDecision,
    Vendor,
    benchmark_for,
    events_in_horizon,
    explain,
    indicator_rows,
    indicator_series,
    inert_links,
    language_of,
    persona_label,
    phrase,
    price_in,
    recalled_line,
    report_markdown,
    this_run,
    usage_summary,
    vendor_name,
)

from ..edits import card_actions, card_change
from ..languages import DEFAULT
from ..speakers import label_metadata
from .render import fold_under

SIGNAL_MARK = {"BUY": "🟢", "SELL": "🔴", "HOLD": "🟡"}


def price_decimals(price: float) -> int:
    """The decimals a price is written with: two from 1 up (2,950.39), four significant digits below
    (0.5123, 0.0001234): a coin at a ten-thousandth of a dollar is not "0.00"."""
    size = abs(price)
    if size >= 1 or size == 0 or not math.isfinite(size):
        return 2
    return min(10, 3 - math.floor(math.log10(size)))


def axis_decimals(low: float, high: float) -> int:
    """The decimals the price axis needs so that its ticks (about a tenth of the span apart) read apart:
    none for a span of hundreds (2,500 · 3,000), more for a span of ten-thousandths."""
    span = abs(high - low) or abs(high) or 1.0
    return max(0, min(10, 1 - math.floor(math.log10(span))))


def read_words(decision: FinalDecision, language: str = DEFAULT) -> str:
    """How the ruling was read (graph's FinalDecision.read), as the card's footnote says it."""
    try:
        return phrase(language, "chat.card_read", how=phrase(language, "read." + decision.read))
    except KeyError:  # a way of reading the catalogue does not name: the footnote leaves it out
        return ""


def record_line(state: dict[str, Any]) -> str:
    """The desk's record on the decision's ticker as the analysis knew it ("4 past calls: 3 right,
    mean alpha +1.8 %"; graph/track/), in the thread's language, or "" when it has none."""
    recalled = state.get("track_record")
    return recalled_line(recalled, language_of(state)) if isinstance(recalled, dict) else ""


def position_lines(sizing: dict[str, Any] | None, language: str = DEFAULT) -> list[str]:
    """The ruling against the user's book (graph/book/sizing.py, as the run kept it): what to trade, and
    the position and cash before and after; nothing without a book."""
    if not isinstance(sizing, dict) or not sizing.get("summary"):
        return []
    said = sizing.get("said") or {}
    try:  # in the thread's language (graph/book/sizing.py: the summary's catalogue key and fields)
        summary = phrase(language, str(said["key"]), **dict(said["fields"])) if said.get("key") else ""
    except (KeyError, TypeError, ValueError):  # a thread stored before, or a key the catalogue lost
        summary = ""
    summary = summary or str(sizing["summary"])
    lines = [phrase(language, "chat.card_book", summary=inert_links(summary).rstrip("."))]
    if sizing.get("cash_before"):
        held = phrase(language, "chat.card_book_position", before=sizing.get("before") or "—",
                      after=sizing.get("after") or "—", cash_before=sizing["cash_before"],
                      cash_after=sizing.get("cash_after") or sizing["cash_before"])
        lines.append(held)
    settles = sizing.get("settles")
    if isinstance(settles, dict) and settles.get("date"):  # graph/core/settlement.py, by the ticker's class
        key = "chat.card_book_settles_daily" if settles.get("daily") else "chat.card_book_settles"
        lines.append(phrase(language, key, rule=settles.get("rule", ""), trade_date=settles.get("trade_date", ""),
                            date=settles["date"]))
    return lines


def event_lines(events: dict[str, Any] | None, decision: FinalDecision, language: str = DEFAULT) -> str:
    """What was scheduled in the window as of the trade date (graph/tools/events.py), each event inside or
    after the ruling's horizon: "Earnings 2026-12-03 (inside the horizon)", in the thread's language; ""
    when nothing was."""
    def say(key: str, **fields: object) -> str:
        return phrase(language, "chat." + key, **fields)

    shown = []
    for record, inside in events_in_horizon(events, decision.trade_date, decision.horizon, decision.ticker):
        try:
            what = say(f"event_{record.get('kind')}")
        except KeyError:
            continue
        where = say("card_event_inside" if inside else "card_event_after")
        if record.get("approximate"):
            where += "; " + say("card_event_approximate")
        shown.append(say("card_event", what=what, day=record.get("day"), where=where))
    return say("card_events", events=" · ".join(shown)) if shown else ""


def card_markdown(decision: FinalDecision, data_label: str = "", change: str | None = None,
                  record: str = "", judge_words: str = "", plan_calls: dict[str, Any] | None = None,
                  language: str = DEFAULT, sizing: dict[str, Any] | None = None,
                  benchmark: str | None = None, events: str = "") -> str:
    """The final decision as a card a trader can read at a glance; `change`, what an edit of the
    past changed against the branch it forked from (chat/edits.py), right under the title; `record`,
    the desk's past calls on the ticker (record_line), under the figures; `events`, what was scheduled in the
    window (event_lines). When the judge's words name
    another signal than its structured ruling, the card says so first and ends with `judge_words`.
    The card's own words are in `language` (prompts/words_<code>.md); figures, tickers and signals
    are the ruling's as they are."""
    def say(key: str, **fields: object) -> str:
        return phrase(language, "chat." + key, **fields)

    shown = {"Signal": f"{SIGNAL_MARK.get(decision.signal, '')} **{decision.signal}**"}
    if decision.confidence is not None:  # else the row reads "—": the judge stated none
        filled = round(decision.confidence * 10)
        shown["Confidence"] = f"{decision.confidence:.0%} {'█' * filled}{'░' * (10 - filled)}"
    # The judge's words (its entry, stop and horizon as written, its rationale) are a model's: inert.
    # Rows are told apart by their English labels, shown under the language's.
    rows = [(label, shown.get(english, inert_links(str(value))))
            for (english, _), (label, value) in zip(decision.rows(), decision.rows(language), strict=True)
            if english != "Rationale"]
    cells = [f"| **{k}** | {str(v).replace('|', '/')} |" for k, v in rows]
    # The signal row is the table's header: an empty header row would show as a blank band.
    lines = [f"## {SIGNAL_MARK.get(decision.signal, '')} {decision.signal} {decision.ticker} · {decision.trade_date}",
             *(["", f"> {change}"] if change else []),
             *(["", "> " + say("card_disagree", words=decision.words_say, signal=decision.signal)]
               if decision.words_say else []),
             "", cells[0], "|---|---|", *cells[1:]]
    if calls := [f"{persona_label(persona, language)} {signal}"
                 for persona, signal in (plan_calls or {}).items() if signal]:
        # Where the desk's own chain stood: the manager's plan and the trader's proposal, then the ruling.
        chain = " → ".join([*calls, f"{persona_label('Risk Judge', language)} {decision.signal}"])
        lines += ["", say("card_along", chain=chain)]
    if record:
        lines += ["", say("card_track", record=record.rstrip("."))]
    if book := position_lines(sizing, language):
        lines += ["", "  \n".join(book)]
    if benchmark is not None:  # what the call will be scored against (graph/track/horizon.py): its class's
        lines += ["", say("card_benchmark", benchmark=benchmark) if benchmark else say("card_no_benchmark")]
    if events:
        lines += ["", events]
    reason = inert_links(decision.rationale.strip())
    lines += ["", say("card_rationale", text=reason) if reason else say("card_no_rationale")]
    if decision.words_say and judge_words:
        lines += ["", say("card_judge_words"), "", inert_links(judge_words)]
    how = read_words(decision, language)
    if data_label or how:
        figures = say("card_figures", label=vendor_name(data_label, language)) if data_label else ""
        lines += ["", "_" + say("sentence_gap").join(filter(None, (how, figures))) + "_"]
    lines += ["", say("card_closing")]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# chart

TEXT = "#8a8f98"                   # grey: readable on white and on Chainlit's dark background
GRID = "rgba(138, 143, 152, 0.22)"
COLOURS = {"close": "#3b82f6", "sma50": "#f59e0b", "sma200": "#a855f7", "band": "rgba(96, 165, 250, 0.16)",
           "rsi": "#14b8a6", "entry": "#22c55e", "stop": "#ef4444"}
# Plotly's own options, kept in the element's JSON (Chainlit passes them to the plot).
PLOT_CONFIG = {"displaylogo": False, "responsive": True,
               "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d", "zoomIn2d", "zoomOut2d",
                                          "toggleSpikelines", "hoverClosestCartesian", "hoverCompareCartesian"]}


def date_axis(language: str = DEFAULT) -> dict[str, str]:
    """A date axis's tick and hover formats in `language` (the catalogue's chat.chart_ticks and chat.chart_day,
    d3 formats): Plotly writes its dates with English month names ("Sep 6 2026") unless told; English keeps
    Plotly's own ticks."""
    ticks, day = phrase(language, "chat.chart_ticks"), phrase(language, "chat.chart_day")
    return {"hoverformat": day, **({"tickformat": ticks} if ticks else {})}


def _series(frame: pd.DataFrame) -> pd.DataFrame:
    """The close and the indicators the analysts cite, computed by the same code they used."""
    table = indicator_series(frame)
    return pd.DataFrame({"close": frame["close"].astype(float).sort_index().to_numpy(),
                         "sma50": table["SMA 50"], "sma200": table["SMA 200"],
                         "boll_ub": table["Boll Upper"], "boll_lb": table["Boll Lower"],
                         "rsi": table["RSI 14"]}, index=table.index)


def chart_figure(frame: pd.DataFrame, ticker: str, trade_date: str, *, lookback_days: int = 90,
                 entry: float | None = None, stop: float | None = None, label: str = "",
                 language: str = DEFAULT) -> go.Figure:
    """The decision's chart as a Plotly figure (`chart_spec`, every property checked by Plotly)."""
    return go.Figure(**chart_spec(frame, ticker, trade_date, lookback_days=lookback_days, entry=entry, stop=stop,
                                  label=label, language=language))


def chart_spec(frame: pd.DataFrame, ticker: str, trade_date: str, *, lookback_days: int = 90,
               entry: float | None = None, stop: float | None = None, label: str = "",
               language: str = DEFAULT) -> dict[str, Any]:
    """Close, SMA 50/200 and Bollinger bands over the analyst's window, RSI 14 below, computed by
    the code the analysts used (the last bar holds the values they cited); the legend lists
    what is drawn and nothing else, its title, names and levels in the thread's `language`."""
    def say(key: str) -> str:
        return phrase(language, "chat.chart_" + key)

    frame = frame.rename(columns=str.lower).sort_index()
    frame.index = pd.DatetimeIndex(pd.to_datetime(frame.index)).tz_localize(None)
    data = _series(frame)
    end = pd.Timestamp(trade_date)
    data = data[(data.index > end - pd.Timedelta(days=lookback_days)) & (data.index <= end)]
    if data.empty:
        raise ValueError("no prices in the chart window")
    days = list(data.index)

    def drawn(name: str) -> bool:
        return bool(data[name].notna().any())

    levels = [v for v in (entry, stop) if v is not None and math.isfinite(v)]
    closes = [float(v) for v in data["close"].dropna()]
    shown = closes + levels
    places = price_decimals(min((abs(v) for v in shown if v), default=1.0))
    price = f"%{{y:,.{places}f}}"
    # The figure is written out whole: make_subplots, add_trace, add_hline and update_* re-walked it at each
    # call, ~40 ms of the server's CPU per decision. The layout is what make_subplots(rows=2, cols=1,
    # shared_xaxes=True, row_heights=[0.74, 0.26], vertical_spacing=0.05) makes.
    traces: list[dict[str, Any]] = []
    if drawn("boll_ub") and drawn("boll_lb"):
        # The band is one legend entry: its upper edge, then the lower edge filled up to it.
        traces.append({"type": "scatter", "x": days, "y": data["boll_ub"], "name": say("bollinger"),
                       "legendgroup": "boll", "showlegend": False, "line": {"width": 0},
                       "hovertemplate": say("upper") + " " + price})
        traces.append({"type": "scatter", "x": days, "y": data["boll_lb"], "name": say("bollinger"),
                       "legendgroup": "boll", "fill": "tonexty", "fillcolor": COLOURS["band"], "line": {"width": 0},
                       "hovertemplate": say("lower") + " " + price})
    for key, name, width in (("sma200", say("sma200"), 1.5), ("sma50", say("sma50"), 1.5),
                             ("close", say("close"), 2.2)):
        if drawn(key):
            traces.append({"type": "scatter", "x": days, "y": data[key], "name": name, "mode": "lines",
                           "line": {"color": COLOURS[key], "width": width}, "hovertemplate": price})
    for trace in traces:
        trace |= {"xaxis": "x", "yaxis": "y"}
    shapes: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    drawn_levels = [(v, what) for v, what in ((entry, "entry"), (stop, "stop")) if v is not None and math.isfinite(v)]
    # The higher level's label sits above its line, the lower one's below it: near levels never overprint.
    for rank, (value, what) in enumerate(sorted(drawn_levels, key=lambda level: -level[0])):
        shapes.append(_hline(value, "", {"color": COLOURS[what], "dash": "dash", "width": 1.3}))
        annotations.append({"text": f"{say(what)} {value:,.{places}f}", "font": {"color": COLOURS[what]},
                            "showarrow": False, "x": 0, "xanchor": "left", "xref": "x domain", "y": value,
                            "yanchor": "top" if rank else "bottom", "yref": "y"})
    if drawn("rsi"):
        traces.append({"type": "scatter", "x": days, "y": data["rsi"], "name": say("rsi"), "mode": "lines",
                       "line": {"color": COLOURS["rsi"], "width": 1.5}, "hovertemplate": "%{y:.1f}",
                       "xaxis": "x2", "yaxis": "y2"})
        shapes += [_hline(level, "2", {"color": TEXT, "dash": "dot", "width": 1}) for level in (30, 70)]
    source = f" · {vendor_name(label, language)}" if label else ""
    title = phrase(language, "chat.chart_title", ticker=ticker, days=lookback_days, trade_date=trade_date)
    grid = {"gridcolor": GRID, "linecolor": GRID, "zeroline": False}
    x_axis = grid | {"showspikes": True, "spikecolor": TEXT, "spikethickness": 1, **date_axis(language)}
    layout = {
        "title": {"text": f"{title}<span style='font-size:12px'>{source}</span>",
                  "x": 0, "xanchor": "left", "font": {"size": 16}},
        "height": 480, "margin": {"l": 56, "r": 16, "t": 96, "b": 36},
        "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"color": TEXT, "size": 13, "family": "Inter, Helvetica, Arial, sans-serif"},
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom",
                   "bgcolor": "rgba(0,0,0,0)"},
        "hovermode": "x unified", "hoverlabel": {"font": {"size": 13}},
        "modebar": {"orientation": "h", "bgcolor": "rgba(0,0,0,0)", "color": TEXT, "activecolor": COLOURS["close"]},
        "xaxis": {"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False} | x_axis,
        "yaxis": {"anchor": "x", "domain": [0.297, 1.0], "tickformat": f",.{axis_decimals(min(shown), max(shown))}f"}
        | grid,
        "xaxis2": {"anchor": "y2", "domain": [0.0, 1.0]} | x_axis,
        "yaxis2": {"anchor": "x2", "domain": [0.0, 0.247], "range": [0, 100], "tickvals": [30, 70],
                   "title": {"text": say("rsi_axis"), "font": {"size": 12}}} | grid,
    }
    # An empty list is left out, as Plotly leaves it out of its JSON.
    layout |= {key: items for key, items in (("shapes", shapes), ("annotations", annotations)) if items}
    return {"data": traces, "layout": layout}


def _hline(y: float, axis: str, line: dict[str, Any]) -> dict[str, Any]:
    """A line across the plot at `y` of row `axis` ("" the prices, "2" the RSI), as Plotly's add_hline draws it."""
    return {"type": "line", "x0": 0, "x1": 1, "xref": f"x{axis} domain", "y0": y, "y1": y, "yref": f"y{axis}",
            "line": line}


def chart_element(fig: go.Figure, name: str) -> cl.Plotly:
    """The figure as Chainlit's Plotly element, with Plotly's options for the page."""
    element = cl.Plotly(name=name, figure=fig, display="inline", size="large")
    element.content = json.dumps({**json.loads(element.content), "config": PLOT_CONFIG})
    return element


@cl_dataclass
class _WrittenPlotly(cl.Plotly):
    """Chainlit's Plotly element with its JSON already written (`spec_element`): Chainlit's own turns a
    go.Figure into JSON in its __post_init__."""

    def __post_init__(self) -> None:
        self.mime = "application/json"
        Element.__post_init__(self)


def spec_element(spec: dict[str, Any], name: str) -> cl.Plotly:
    """A figure of `chart_spec`'s as `chart_element` makes it, written without building the go.Figure:
    Plotly's checks of every property and its conversion back to JSON were ~10 ms of the server's CPU per
    decision, for a figure whose shape is fixed here (tests/chat/test_card.py compares the two for every
    kind of chart it draws). What Plotly adds is added the same way: its default template, `autosize`,
    float arrays as typed arrays (base64 of little-endian float64) and dates as ISO text."""
    traces = [{key: _plotly_value(value) for key, value in trace.items()} for trace in spec["data"]]
    layout = {**spec["layout"], "template": _default_template(), "autosize": True}
    content = json.dumps({"data": traces, "layout": layout, "config": PLOT_CONFIG})
    return _WrittenPlotly(name=name, content=content, display="inline", size="large")


def _plotly_value(value: Any) -> Any:
    if isinstance(value, pd.Series):
        value = value.to_numpy()
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return {"dtype": "f8", "bdata": base64.b64encode(value.astype("<f8").tobytes()).decode("ascii")}
    if isinstance(value, list) and value and all(isinstance(v, pd.Timestamp) for v in value):
        return [v.isoformat() for v in value]
    return value


@functools.cache
def _default_template() -> dict[str, Any]:
    """The template Plotly writes into every figure's layout (its default, "plotly")."""
    return json.loads(go.Figure().to_json())["layout"]["template"]


async def price_chart(vendor: Vendor, decision: FinalDecision, lookback_days: int = 90,
                      language: str = DEFAULT) -> cl.Plotly:
    """The chart for a decision, from the same vendor the analysts used (sync, so off the loop)."""
    end = date.fromisoformat(decision.trade_date)
    frame = await asyncio.to_thread(indicator_rows, vendor, decision.ticker, end)
    spec = chart_spec(frame, decision.ticker, decision.trade_date, lookback_days=lookback_days,
                      entry=price_in(decision.entry), stop=price_in(decision.stop), label=getattr(vendor, "label", ""),
                      language=language)
    return spec_element(spec, f"{decision.ticker}-{decision.trade_date}-chart")


# ---------------------------------------------------------------------------
# the card


def spend(state: dict[str, Any]) -> tuple[str, str]:
    """The run's tokens (graph/core/usage.py) as the chat shows them when it ends, in the thread's
    language: the total line, and one line per persona to fold under it."""
    total, _, per_persona = usage_summary(this_run(state), language_of(state)).partition("\n")
    return total, per_persona


async def show_spend(parent: cl.Message, per_persona: str, language: str = DEFAULT) -> None:
    """Tokens per persona, folded under the message that ends the run."""
    if not per_persona:
        return
    await fold_under(parent, phrase(language, "chat.tokens_per_persona"), per_persona)


async def show_decision(thread_id: str, state: dict[str, Any], vendor: Vendor) -> None:
    """The run's decision (if it made one) as the Desk's card: the chart, the report to download, what
    an edit changed (chat/edits.py), the benchmark its call is scored against, and the tokens spent
    (chat/runs.py then names the thread after it:
    chat/views/thread_names.py)."""
    decision = state.get("final_decision")
    if decision is None:
        return
    label = vendor.label
    language = language_of(state)
    elements: list[cl.Element] = []
    note = ""
    try:
        elements.append(await price_chart(vendor, decision, state.get("chart_window_days") or 90, language))
    except Exception as exc:
        note = "\n\n_" + phrase(language, "chat.no_chart", reason=explain(exc, language)) + "_"
    report = report_markdown(state, label)
    elements.append(cl.File(name=f"{decision.ticker}-{decision.trade_date}-desk-report.md",
                            content=report.encode(), mime="text/markdown", display="inline"))
    total, per_persona = spend(state)
    debate = state.get("risk_debate")
    words = str(getattr(debate, "judge_decision", "") or "")
    card = cl.Message(content=card_markdown(decision, label, card_change(state), record_line(state), words,
                                            state.get("plan_calls"), language, state.get("sizing"),
                                            benchmark_for(decision.ticker, state.get("asset_class") or None),
                                            event_lines(state.get("events"), decision, language)) + note
                      + (f"\n\n_{total}_" if total else ""), author=DESK,
                      elements=elements, actions=card_actions(thread_id, state),
                      metadata=label_metadata(DESK, language=language))
    await card.send()
    # The page brings the card's top into view if it was following the run (chat/ui/public/desk.js).
    await cl.context.emitter.emit("desk_card", {"id": card.id})
    await show_spend(card, per_persona, language)
