"""A backtest's chart, one per ticker: the equity of the desk and of each baseline over the window (growth of 1,
in %), their drawdowns in a panel below, and markers on the days the desk's signal changed.

Drawn from the result's simulations (graph/backtest/simulate.py), the same days the table's figures come from,
in the price chart's look (chat/views/card.py): Chainlit's Plotly element, a transparent background and grey text that
read on either theme. A day with no return (the first, a gap) keeps the equity of the day before: the line shows
no move that was not measured.
"""
from __future__ import annotations

from collections.abc import Mapping

import chainlit as cl
import plotly.graph_objects as go  # type: ignore[import-untyped]
from plotly.subplots import make_subplots  # type: ignore[import-untyped]

from graph import DESK, DESK_STRATEGY, Simulation, persona_label, phrase

from ..languages import DEFAULT
from .card import GRID, TEXT, chart_element

DESK_COLOUR = "#3b82f6"
# The baselines in muted colours, so the desk's line stands out.
BASELINE_COLOURS = ("#8a8f98", "#f59e0b", "#a855f7", "#14b8a6", "#ec4899", "#84cc16")
SIGNAL_COLOURS = {"BUY": "#22c55e", "SELL": "#ef4444", "HOLD": "#eab308"}
SIGNAL_SYMBOLS = {"BUY": "triangle-up", "SELL": "triangle-down", "HOLD": "circle"}


def equity_curve(simulation: Simulation) -> tuple[list[str], list[float], list[float]]:
    """The days, the cumulative return in % and the drawdown from the running peak in % (≤ 0)."""
    days: list[str] = []
    equity: list[float] = []
    drawdown: list[float] = []
    level, peak = 1.0, 1.0
    for day in simulation.days:
        if day.ret is not None:
            level *= 1.0 + day.ret
        peak = max(peak, level)
        days.append(day.day)
        equity.append(round((level - 1.0) * 100, 4))
        drawdown.append(round((level / peak - 1.0) * 100, 4))
    return days, equity, drawdown


def signal_changes(simulation: Simulation) -> list[tuple[str, str]]:
    """The days the desk's signal differed from its last one (the first signal included): (day, signal)."""
    changes: list[tuple[str, str]] = []
    last: str | None = None
    for day in simulation.days:
        if day.signal is not None and day.signal != last:
            changes.append((day.day, day.signal))
            last = day.signal
    return changes


def equity_figure(simulations: Mapping[tuple[str, str], Simulation], ticker: str, title: str = "",
                  language: str = DEFAULT) -> go.Figure:
    """The ticker's strategies, the desk last (drawn on top); its title, axes, the desk's name and its turns in
    `language` (the baselines' names are the table's)."""
    def say(key: str, **fields: object) -> str:
        return phrase(language, "chat.backtest_chart_" + key, **fields)

    mine = [(strategy, sim) for (t, strategy), sim in simulations.items() if t == ticker]
    mine.sort(key=lambda pair: pair[0] == DESK_STRATEGY)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.7, 0.3], vertical_spacing=0.06)
    baseline = 0
    for strategy, sim in mine:
        days, equity, drawdown = equity_curve(sim)
        desk = strategy == DESK_STRATEGY
        colour = DESK_COLOUR if desk else BASELINE_COLOURS[baseline % len(BASELINE_COLOURS)]
        baseline += not desk
        line = {"color": colour, "width": 2.6 if desk else 1.3}
        name = persona_label(DESK, language) if desk and language != DEFAULT else strategy
        fig.add_trace(go.Scatter(x=days, y=equity, name=name, legendgroup=strategy, mode="lines", line=line,
                                 opacity=1.0 if desk else 0.8, hovertemplate="%{y:+.2f} %"), row=1, col=1)
        fig.add_trace(go.Scatter(x=days, y=drawdown, name=name, legendgroup=strategy, showlegend=False,
                                 mode="lines", line={**line, "width": 2.0 if desk else 1.0},
                                 fill="tozeroy" if desk else None, opacity=1.0 if desk else 0.7,
                                 hovertemplate="%{y:.2f} %"), row=2, col=1)
        if desk:
            at = dict(zip(days, equity, strict=True))
            for signal in ("BUY", "SELL", "HOLD"):
                marks = [day for day, said in signal_changes(sim) if said == signal]
                if marks:
                    fig.add_trace(go.Scatter(
                        x=marks, y=[at[d] for d in marks], mode="markers",
                        name=say("turn", signal=signal),
                        marker={"color": SIGNAL_COLOURS[signal], "symbol": SIGNAL_SYMBOLS[signal], "size": 11,
                                "line": {"color": "white", "width": 1}},
                        hovertemplate=f"{signal} %{{x}}<extra></extra>"), row=1, col=1)
    fig.update_layout(
        title={"text": title or say("title", ticker=ticker), "x": 0, "xanchor": "left", "font": {"size": 16},
               "y": 1, "yref": "container", "yanchor": "top", "pad": {"t": 12}},
        height=560, margin={"l": 64, "r": 16, "t": 112, "b": 16},
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
        font={"color": TEXT, "size": 13, "family": "Inter, Helvetica, Arial, sans-serif"},
        # Above the plot, under the title: a ticker has six strategies and the signal markers (two rows), and under
        # the plot the dates turn to fit a long window, which would run into a legend there.
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom",
                "bgcolor": "rgba(0,0,0,0)"},
        hovermode="x unified", hoverlabel={"font": {"size": 13}},
        modebar={"orientation": "h", "bgcolor": "rgba(0,0,0,0)", "color": TEXT, "activecolor": DESK_COLOUR},
    )
    # The trading days as they are (no weekend gaps, no hour ticks on a short window).
    # The dates turned or not, the margin under them grows to hold them (automargin).
    fig.update_xaxes(type="category", nticks=10, gridcolor=GRID, linecolor=GRID, zeroline=False, automargin=True)
    fig.update_yaxes(gridcolor=GRID, linecolor=GRID, zeroline=True, zerolinecolor=GRID, ticksuffix=" %")
    fig.update_yaxes(title={"text": say("return"), "font": {"size": 12}}, row=1, col=1)
    fig.update_yaxes(title={"text": say("drawdown"), "font": {"size": 12}}, row=2, col=1)
    return fig


def equity_chart(simulations: Mapping[tuple[str, str], Simulation], ticker: str, backtest_id: str,
                 title: str = "", language: str = DEFAULT) -> cl.Plotly:
    return chart_element(equity_figure(simulations, ticker, title, language), f"backtest-{backtest_id}-{ticker}-equity")
