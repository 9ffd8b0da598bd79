"""How a comparison looks in the chat: each desk's turns labelled with its ticker, one stage list for all the
desks, and the side-by-side card with a chart of the closes normalised to the start.

- `TickerRenderer` is the chat's ordinary renderer (chat/views/render.py) for one desk, its speakers labelled
  "Bear Researcher · AMD" (chat/speakers.py: the label travels in the message's metadata; public/desk.js draws it,
  the avatar route maps it back to the persona's picture), its stages kept in the comparison's list.
- `CompareStages` is one "desk_stages" list (chat/views/stages.py) for every desk: the page has one stage list, so the
  desks' lists are drawn as one, each stage named with its ticker ("AMD · Bear Researcher").
- `card` is the Desk's side-by-side table (graph's `side_by_side`: the CLI prints the same), the Comparison's
  ranking read and a link to each desk's thread (opened, it is an analysis like any: follow-ups, Edit);
  `normalised_chart` draws every ticker's closes over the analysts' window, 100 at its first day.
"""
from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

import chainlit as cl
import pandas as pd
import plotly.graph_objects as go  # type: ignore[import-untyped]

from graph import DESK, DeskOutcome, RunPlan, Vendor, explain, phrase, side_by_side, vendor_name

from ..speakers import label_metadata
from .card import GRID, SIGNAL_MARK, TEXT, chart_element, date_axis
from .render import Renderer
from .stages import StageList

CARD = "compare_card"  # a side-by-side card's metadata mark (an edit of a desk folds the card it outdates)
LINE_COLOURS = ("#3b82f6", "#f59e0b", "#a855f7", "#14b8a6", "#ec4899")  # one per ticker (at most five)
WINDOW_DAYS = 90  # the analysts' default chart window (graph's chart_window_days)


class CompareStages(StageList):
    """The one stage list of a comparison: every desk's stages, each named with its ticker."""

    def __init__(self, title: str, language: str) -> None:
        super().__init__(RunPlan(), language)
        self.title = title
        self.members: dict[str, StageList] = {}

    def member(self, ticker: str, plan: RunPlan, language: str) -> StageList:
        self.members[ticker] = TickerStages(self, plan, language)
        return self.members[ticker]

    def payload(self) -> dict[str, Any]:
        return {"title": self.title,
                "stages": [{"title": f"{ticker} · {title}", "status": status}
                           for ticker, stages in self.members.items()
                           for title, status in zip(stages.titles, stages.status, strict=True)]}

    async def close(self, title: str, failed: bool = False) -> None:
        for stages in self.members.values():
            stages.status = [("failed" if failed and s == "running" else "done" if not failed else s)
                             for s in stages.status]
        await super().close(title, failed)


class TickerStages(StageList):
    """One desk's stages: its changes are drawn through the comparison's list."""

    def __init__(self, group: CompareStages, plan: RunPlan, language: str) -> None:
        super().__init__(plan, language)
        self.group = group

    async def _send(self, now: bool = False) -> None:
        self.sent = True
        await self.group._send(now)

    async def close(self, title: str, failed: bool = False) -> None:
        """A desk done (or stopped): its stages marked, the comparison's title kept until it ends."""
        self.status = [("failed" if s == "running" else s) if failed else "done" for s in self.status]
        await self._send(now=True)

    async def drained(self) -> None:
        await self.group.drained()


class TickerRenderer(Renderer):
    """One desk of a comparison: the ordinary renderer, its speakers labelled with the ticker, its stages the
    comparison's."""

    def __init__(self, ticker: str, plan: RunPlan, stages: CompareStages, **kwargs: Any) -> None:
        super().__init__(plan, tag=ticker, **kwargs)
        self.ticker = ticker
        self.group = stages

    async def _started(self, persona: str) -> None:
        if self.progress is None:
            self.progress = self.group.member(self.ticker, self.plan, self.language)
        await super()._started(persona)


def card_markdown(outcomes: Sequence[DeskOutcome], rows: Sequence[dict[str, Any]], trade_date: str, read: str,
                  links: dict[str, str], language: str, change: str = "") -> str:
    """The side-by-side card: its title, what an edit of a desk changed (`change`, quoted, as on a decision's
    card), the table (a signal's mark before it, as on a decision's card), how the ranking was read and the desks'
    threads."""
    headers, body = side_by_side(outcomes, rows, language)
    lines = [f"### {phrase(language, 'compare.card_title', trade_date=trade_date)}", ""]
    if change:
        lines += [f"> {change}", ""]
    lines += ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in body:
        mark = SIGNAL_MARK.get(row[2], "⚠️")
        lines.append("| " + " | ".join([row[0], f"**{row[1]}**", f"{mark} {row[2]}", *row[3:]]) + " |")
    lines.append("")
    lines.append(phrase(language, "compare.card_read", how=phrase(language, "read." + read)) if read else
                 phrase(language, "compare.card_read_none"))
    if links:
        shown = " · ".join(f"[{ticker}]({url})" for ticker, url in links.items())
        lines += ["", phrase(language, "compare.card_desks", links=shown)]
    return "\n".join(lines)


def normalised_figure(closes: dict[str, pd.Series], trade_date: str, days: int, label: str = "",
                      language: str = "en") -> go.Figure:
    """Every ticker's closes over the window, each 100 at its first day: which moved more, on one scale."""
    fig = go.Figure()
    for i, (ticker, series) in enumerate(closes.items()):
        series = series.dropna()
        if series.empty:
            continue
        scaled = series / float(series.iloc[0]) * 100
        fig.add_trace(go.Scatter(x=list(scaled.index), y=list(scaled.to_numpy()), name=ticker, mode="lines",
                                 line={"color": LINE_COLOURS[i % len(LINE_COLOURS)], "width": 2.2},
                                 hovertemplate="%{y:.1f}"))
    fig.add_hline(y=100, line={"color": TEXT, "dash": "dot", "width": 1})
    source = f" · {label}" if label else ""
    title = phrase(language, "compare.chart_title", days=days, trade_date=trade_date)
    fig.update_layout(
        title={"text": f"{title}<span style='font-size:12px'>{source}</span>", "x": 0, "xanchor": "left",
               "font": {"size": 15}},
        height=380, margin={"l": 48, "r": 16, "t": 80, "b": 36},
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
        font={"color": TEXT, "size": 13, "family": "Inter, Helvetica, Arial, sans-serif"},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"},
        hovermode="x unified")
    fig.update_xaxes(gridcolor=GRID, linecolor=GRID, zeroline=False, **date_axis(language))
    fig.update_yaxes(gridcolor=GRID, linecolor=GRID, zeroline=False, tickformat=",.0f")
    return fig


async def normalised_chart(vendor: Vendor, tickers: Sequence[str], trade_date: str, days: int = WINDOW_DAYS,
                           language: str = "en") -> cl.Plotly:
    """The chart from the vendor the desks used (cut at the trade date, like their tools; sync, so off the loop)."""
    end = date.fromisoformat(trade_date)
    start = end - timedelta(days=days)
    closes: dict[str, pd.Series] = {}
    for ticker in tickers:
        frame = await asyncio.to_thread(vendor.ohlcv, ticker, start, end)
        frame = frame.rename(columns=str.lower).sort_index()
        frame.index = pd.DatetimeIndex(pd.to_datetime(frame.index)).tz_localize(None)
        closes[ticker] = frame["close"].astype(float)
    fig = normalised_figure(closes, trade_date, days, vendor_name(getattr(vendor, "label", ""), language), language)
    return chart_element(fig, f"compare-{'-'.join(tickers)}-{trade_date}-chart")


def is_card(message: dict[str, Any]) -> bool:
    """Whether a stored message is a comparison's side-by-side card (marked; one stored before the mark, by its
    table's head)."""
    if (message.get("metadata") or {}).get(CARD):
        return True
    output = str(message.get("output") or "")
    return message.get("name") == DESK and any(
        f"| {phrase(lang, 'compare.card_rank')} | {phrase(lang, 'compare.card_ticker')} |" in output
        for lang in ("en", "zh", "zh-Hant"))


async def show_card(outcomes: Sequence[DeskOutcome], rows: Sequence[dict[str, Any]], trade_date: str, read: str,
                    links: dict[str, str], vendor: Vendor, language: str, change: str = "") -> cl.Message:
    elements: list[cl.Element] = []
    note = ""
    try:
        elements.append(await normalised_chart(vendor, [o.ticker for o in outcomes], trade_date, language=language))
    except Exception as exc:  # a chart that cannot be drawn must not cost the table
        note = "\n\n_" + phrase(language, "chat.no_chart", reason=explain(exc, language)) + "_"
    card = cl.Message(content=card_markdown(outcomes, rows, trade_date, read, links, language, change) + note,
                      author=DESK, elements=elements, metadata={**label_metadata(DESK, language=language), CARD: True})
    await card.send()
    await cl.context.emitter.emit("desk_card", {"id": card.id})  # the page brings it into view (desk.js)
    return card
