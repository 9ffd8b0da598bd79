"""The track record in the chat: the chart of the desk's cumulative alpha and its calibration's
(chat/views/paper_view.py) beside the record's table
(the answer to "/record" or "how have your calls done?").

The graph words the record (the table, the "Track record" step an analysis shows, the card's line);
this module draws its curve, in the price chart's look (chat/views/card.py): Chainlit's Plotly element,
hover and zoom in the page, a transparent background and grey text that read on either theme.
The Renderer (chat/views/render.py) calls `show_alpha_curve` when the graph's AlphaCurve event arrives.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Any

import chainlit as cl
import plotly.graph_objects as go  # type: ignore[import-untyped]

from graph import AlphaCurve, calibration_from, phrase

from ..languages import DEFAULT
from .card import GRID, TEXT, chart_element, date_axis

TITLE = phrase(DEFAULT, "chat.alpha_title")  # "Cumulative alpha vs benchmark"; the thread's language's is drawn
RISING, FALLING = "#22c55e", "#ef4444"


def curve_series(points: Iterable[Sequence[Any]]) -> tuple[list[str], list[float]]:
    """The settle dates and the cumulative alpha in percent. The points are (date, fraction) pairs,
    or [date, fraction] lists when the event came through JSON (graph/core/events.py `decode`)."""
    days: list[str] = []
    values: list[float] = []
    for day, alpha in points:
        days.append(str(day))
        values.append(round(float(alpha) * 100, 4))
    return days, values


def alpha_figure(points: Iterable[Sequence[Any]], ticker: str = "", language: str = DEFAULT) -> go.Figure:
    """The running sum of alpha, one point per settled call at its settle date, against a zero line:
    above it the desk's calls beat their benchmarks overall, below it they lagged. Titled in `language`."""
    days, values = curve_series(points)
    last = values[-1] if values else 0.0
    colour = RISING if last >= 0 else FALLING
    fig = go.Figure(go.Scatter(x=days, y=values, name="Cumulative alpha", mode="lines+markers",
                               line={"color": colour, "width": 2.2, "shape": "hv"}, marker={"size": 7},
                               hovertemplate="%{x}<br>%{y:+.2f} %<extra></extra>"))
    fig.add_hline(y=0, line={"color": TEXT, "dash": "dot", "width": 1})
    title = phrase(language, "chat.alpha_title") + (f" · {ticker}" if ticker else "")
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left", "font": {"size": 16}},
        height=340, margin={"l": 64, "r": 16, "t": 56, "b": 40}, showlegend=False,
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
        font={"color": TEXT, "size": 13, "family": "Inter, Helvetica, Arial, sans-serif"},
        hovermode="closest", hoverlabel={"font": {"size": 13}},
        modebar={"orientation": "h", "bgcolor": "rgba(0,0,0,0)", "color": TEXT, "activecolor": colour},
    )
    fig.update_xaxes(type="date", range=_date_range(days), gridcolor=GRID, linecolor=GRID, zeroline=False,
                     **{**date_axis(language), "hoverformat": "%Y-%m-%d"})
    fig.update_yaxes(gridcolor=GRID, linecolor=GRID, zeroline=False, ticksuffix=" %")
    return fig


def _date_range(days: list[str]) -> list[str] | None:
    """The settle dates with room either side, so the first and last markers are not cut at the
    plot's edges and a lone point gets an axis of days around it, not of hours."""
    if not days:
        return None
    first, last = date.fromisoformat(min(days)[:10]), date.fromisoformat(max(days)[:10])
    pad = timedelta(days=max(3, (last - first).days // 20))
    return [(first - pad).isoformat(), (last + pad).isoformat()]


def alpha_chart(curve: AlphaCurve, language: str = DEFAULT) -> cl.Plotly:
    """The curve as Chainlit's Plotly element, shown inline."""
    figure = alpha_figure(curve.points, curve.ticker, language)
    return chart_element(figure, f"cumulative-alpha-{curve.ticker or 'all'}")


async def show_alpha_curve(parent: cl.Message, curve: AlphaCurve, language: str = DEFAULT) -> None:
    """The chart, attached to the Desk message that carried the record's table (stored with the thread)."""
    if not curve.points:
        return
    await alpha_chart(curve, language).send(for_id=parent.id)
    if curve.calibration:  # the same calls' calibration: the reliability chart, the Brier score, the personas
        from .paper_view import calibration_chart  # plotly's subplots only for a record that has one

        calibrated = calibration_from(curve.calibration)
        if calibrated.scored or calibrated.sides:
            await calibration_chart(calibrated, language, f"calibration-{curve.ticker or 'all'}").send(for_id=parent.id)
