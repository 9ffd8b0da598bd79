"""The paper book's charts and the calibration's (the answer to "/paper", and beside "/record"'s table).

* **Equity**: the paper book's value at each session's close against the benchmark of each asset class it traded (the
  stated amount held in each from the book's first open, graph/paper/keeper.py), with each one's drawdown from its
  running peak (the stated amount counts as the first peak, as Table 1's MDD counts it) in a panel below. Only the
  closes the ledger has: a session left off (a gap) is not drawn, no value is made up.
* **Calibration**: the reliability chart, each confidence bucket's hit rate at its mean stated confidence against the
  diagonal (a calibrated desk's hit rate is what it says), with its count of calls; the bucket farthest from the
  diagonal is annotated in words ("Says 0.80, right 50 %"), so overconfidence shows at a glance; the Brier score in
  the title; beside it, each persona's accuracy.

In the price chart's look (chat/views/card.py): Chainlit's Plotly element, transparent background, grey text.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal

import chainlit as cl
import plotly.graph_objects as go  # type: ignore[import-untyped]
from plotly.subplots import make_subplots  # type: ignore[import-untyped]

from graph import Calibration, Paper, paper_tickers, persona_label, phrase

from ..languages import DEFAULT
from .card import GRID, TEXT, chart_element, date_axis

PAPER_COLOUR = "#3b82f6"
BENCHMARK_COLOUR = "#8a8f98"
# The second and later class benchmarks (a book of US stocks and coins: SPY grey, BTC-USD amber).
MORE_BENCHMARKS = ("#f59e0b", "#a855f7", "#14b8a6", "#ec4899")
RIGHT_COLOUR = "#22c55e"
OFF_COLOUR = "#ef4444"
LOW_HIT = 0.35  # below this hit rate the note on the farthest bucket goes above its point


def _say(language: str, key: str, **fields: object) -> str:
    return phrase(language, f"paper.{key}", **fields)


def drawdown(start: Decimal, values: Sequence[Decimal]) -> list[float]:
    """Each value's fall from the running peak, in % (≤ 0), the stated amount `start` the first peak."""
    peak = start
    out: list[float] = []
    for value in values:
        peak = max(peak, value)
        out.append(round(float(value / peak - 1) * 100, 4) if peak else 0.0)
    return out


def curve_series(start: Decimal, curve: Sequence[tuple[date, Decimal]]) -> tuple[list[str], list[float], list[float]]:
    """The days, the values (as floats, to the cent) and the drawdowns in %."""
    return ([d.isoformat() for d, _ in curve], [float(v) for _, v in curve],
            drawdown(start, [v for _, v in curve]))


def equity_figure(paper: Paper, language: str = DEFAULT) -> go.Figure:
    """The paper book's value against each class benchmark's, and their drawdowns below; titled in `language`."""
    start = paper.book.start_amount
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32], vertical_spacing=0.07)
    colours = (BENCHMARK_COLOUR, *MORE_BENCHMARKS)
    lines = [*((b.name, b.curve, colours[i % len(colours)], 1.5) for i, b in enumerate(paper.benchmarks)),
             (_say(language, "equity_name"), paper.ledger.curve, PAPER_COLOUR, 2.6)]
    for name, curve, colour, width in lines:  # the book last, drawn on top
        days, values, falls = curve_series(start, curve)
        mine = colour == PAPER_COLOUR
        fig.add_trace(go.Scatter(x=days, y=values, name=name, legendgroup=name, mode="lines+markers",
                                 line={"color": colour, "width": width}, marker={"size": 5 if mine else 3},
                                 hovertemplate="%{y:,.2f}"), row=1, col=1)
        fig.add_trace(go.Scatter(x=days, y=falls, name=name, legendgroup=name, showlegend=False, mode="lines",
                                 line={"color": colour, "width": width - 0.5}, fill="tozeroy" if mine else None,
                                 hovertemplate="%{y:.2f} %"), row=2, col=1)
    fig.add_hline(y=float(start), line={"color": TEXT, "dash": "dot", "width": 1}, row=1, col=1)
    fig.update_layout(
        title={"text": _say(language, "equity_title", benchmark=paper_tickers([b.name for b in paper.benchmarks],
                                                                                language))
               if paper.benchmarks else _say(language, "equity_title_alone"), "x": 0, "xanchor": "left",
               "font": {"size": 16}},
        height=480, margin={"l": 72, "r": 16, "t": 84, "b": 40},
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
        font={"color": TEXT, "size": 13, "family": "Inter, Helvetica, Arial, sans-serif"},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom",
                "bgcolor": "rgba(0,0,0,0)"},
        hovermode="x unified", hoverlabel={"font": {"size": 13}},
        modebar={"orientation": "h", "bgcolor": "rgba(0,0,0,0)", "color": TEXT, "activecolor": PAPER_COLOUR},
    )
    fig.update_xaxes(type="date", gridcolor=GRID, linecolor=GRID, zeroline=False, **date_axis(language))
    fig.update_yaxes(gridcolor=GRID, linecolor=GRID, zeroline=False)
    fig.update_yaxes(title={"text": _say(language, "equity_axis"), "font": {"size": 12}}, tickformat=",.0f",
                     row=1, col=1)
    fig.update_yaxes(title={"text": _say(language, "drawdown_axis"), "font": {"size": 12}}, ticksuffix=" %",
                     row=2, col=1)
    return fig


def reliability_points(c: Calibration) -> list[tuple[str, float, float, int]]:
    """Each bucket with calls: its label, its mean stated confidence, its hit rate (fractions) and its calls."""
    return [(b.label, b.mean_confidence, b.hit_rate, b.calls) for b in c.buckets
            if b.calls and b.mean_confidence is not None and b.hit_rate is not None]


def most_off(c: Calibration) -> tuple[str, float, float, int] | None:
    """The bucket farthest from the diagonal (|hit rate − mean confidence|), the first of equals; None if none."""
    points = reliability_points(c)
    return max(points, key=lambda p: abs(p[2] - p[1])) if points else None


def calibration_figure(c: Calibration, language: str = DEFAULT) -> go.Figure:
    """The reliability chart against the diagonal, with counts, and the personas' accuracy beside it."""
    fig = make_subplots(rows=1, cols=2, column_widths=[0.58, 0.42], horizontal_spacing=0.2,
                        subplot_titles=("", _say(language, "personas_title")))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 100], mode="lines", name=_say(language, "diagonal"),
                             line={"color": TEXT, "dash": "dash", "width": 1}, hoverinfo="skip"), row=1, col=1)
    points = reliability_points(c)
    fig.add_trace(go.Scatter(
        x=[p[1] for p in points], y=[round(p[2] * 100, 2) for p in points], name=_say(language, "hit_rate_name"),
        mode="lines+markers+text", text=[f"n={p[3]}" for p in points], textposition="top center",
        line={"color": PAPER_COLOUR, "width": 2},
        marker={"size": [min(10 + 2 * p[3], 26) for p in points], "color": PAPER_COLOUR},
        customdata=[[p[0], p[3]] for p in points],
        hovertemplate="%{customdata[0]}: %{y:.0f} % (%{customdata[1]})<extra></extra>"), row=1, col=1)
    if (off := most_off(c)) is not None and abs(off[2] - off[1]) >= 0.1:
        # Away from the diagonal, on the side the bucket fell: below it when the desk said more than it was right,
        # unless the point is too low for that (a hit rate near 0: the note would fall on the axis and the legend).
        over = off[2] < off[1] and off[2] >= LOW_HIT
        fig.add_annotation(x=off[1], y=off[2] * 100, xref="x", yref="y", showarrow=True, arrowhead=2,
                           arrowcolor=OFF_COLOUR, ax=-40 if off[1] > 0.5 else 40, ay=56 if over else -56,
                           text=_say(language, "off_diagonal", said=f"{off[1]:.2f}", hit=f"{off[2] * 100:.0f} %",
                                     calls=off[3]),
                           font={"color": OFF_COLOUR, "size": 13}, bgcolor="rgba(239, 68, 68, 0.12)",
                           bordercolor=OFF_COLOUR, borderpad=4)
    sides = list(c.sides.items())
    fig.add_trace(go.Bar(
        y=[persona_label(p, language) for p, _ in sides], x=[round(r / n * 100, 2) for _, (r, n) in sides],
        orientation="h", text=[f"{r}/{n}" for _, (r, n) in sides], textposition="auto", showlegend=False,
        marker={"color": [RIGHT_COLOUR if r * 2 > n else OFF_COLOUR if r * 2 < n else BENCHMARK_COLOUR
                          for _, (r, n) in sides]},
        hovertext=[_say(language, "persona_hover", right=r, of=n) for _, (r, n) in sides],
        hovertemplate="%{y}: %{x:.0f} % · %{hovertext}<extra></extra>"), row=1, col=2)
    title = (_say(language, "calibration_title", brier=f"{c.brier:.4f}", n=c.scored) if c.brier is not None
             else _say(language, "calibration_title_none"))
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left", "font": {"size": 16}},
        height=380, margin={"l": 64, "r": 16, "t": 72, "b": 48},
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
        font={"color": TEXT, "size": 13, "family": "Inter, Helvetica, Arial, sans-serif"},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": -0.18, "yanchor": "top",
                "bgcolor": "rgba(0,0,0,0)"},
        hoverlabel={"font": {"size": 13}},
        modebar={"orientation": "h", "bgcolor": "rgba(0,0,0,0)", "color": TEXT, "activecolor": PAPER_COLOUR},
    )
    fig.update_xaxes(gridcolor=GRID, linecolor=GRID, zeroline=False)
    fig.update_yaxes(gridcolor=GRID, linecolor=GRID, zeroline=False)
    fig.update_xaxes(range=[0, 1.02], dtick=0.1, title={"text": _say(language, "reliability_x"), "font": {"size": 12}},
                     row=1, col=1)
    fig.update_yaxes(range=[0, 105], ticksuffix=" %", title={"text": _say(language, "reliability_y"),
                                                            "font": {"size": 12}}, row=1, col=1)
    fig.update_xaxes(range=[0, 100], ticksuffix=" %", row=1, col=2)
    fig.update_yaxes(automargin=True, row=1, col=2)
    return fig


def equity_chart(paper: Paper, language: str = DEFAULT) -> cl.Plotly:
    return chart_element(equity_figure(paper, language), "paper-equity")


def calibration_chart(c: Calibration, language: str = DEFAULT, name: str = "calibration") -> cl.Plotly:
    return chart_element(calibration_figure(c, language), name)
