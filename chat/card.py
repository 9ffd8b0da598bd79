"""What the user takes away from a run: the decision card and a price chart (the report is
graph/record.py's, shared with the CLI and the follow-up Desk).

The chart is an SVG drawn here (no plotting dependency): it opens in any browser, persists as a
small file, and shows the close with the indicators the market analyst cites (SMA 50/200,
Bollinger bands, RSI 14) over the window it read, with the entry and stop lines.
"""
from __future__ import annotations

import asyncio
import math
import re
from datetime import date, timedelta
from html import escape

import pandas as pd

from graph.data.indicators import compute_indicators, indicator_series
from graph.data.vendor import Vendor
from graph.state import FinalDecision

SIGNAL_MARK = {"BUY": "🟢", "SELL": "🔴", "HOLD": "🟡"}
HISTORY_DAYS = 420  # enough rows for a 200-day average at the start of the window


def _value(text: str) -> float | None:
    m = re.search(r"-?\d+(?:\.\d+)?", text or "")
    return float(m[0]) if m else None


def card_markdown(decision: FinalDecision, data_label: str = "") -> str:
    """The final decision as a card a trader can read at a glance."""
    filled = round(decision.confidence * 10)
    shown = {"Signal": f"{SIGNAL_MARK.get(decision.signal, '')} **{decision.signal}**",
             "Confidence": f"{decision.confidence:.0%} {'█' * filled}{'░' * (10 - filled)}"}
    rows = [(label, shown.get(label, value)) for label, value in decision.rows() if label != "Rationale"]
    cells = [f"| **{k}** | {str(v).replace('|', '/')} |" for k, v in rows]
    # The signal row is the table's header: an empty header row would show as a blank band.
    lines = [f"## {SIGNAL_MARK.get(decision.signal, '')} {decision.signal} {decision.ticker} · {decision.trade_date}",
             "", cells[0], "|---|---|", *cells[1:]]
    lines += ["", f"**Rationale.** {decision.rationale}"]
    if data_label:
        lines += ["", f"_Figures from {data_label}._"]
    lines += ["", "The chart and the full report of the deliberation are attached. "
              "Ask a follow-up (“why was the bear worried?”) or a new ticker any time."]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# chart


def _series(frame: pd.DataFrame) -> pd.DataFrame:
    """The close and the indicators the analysts cite, computed by the same code they used."""
    table = indicator_series(frame)
    return pd.DataFrame({"close": frame["close"].astype(float).sort_index().to_numpy(),
                         "sma50": table["SMA 50"], "sma200": table["SMA 200"],
                         "boll_ub": table["Boll Upper"], "boll_lb": table["Boll Lower"],
                         "rsi": table["RSI 14"]}, index=table.index)


def _path(xs: list[float], ys: list[float | None]) -> str:
    parts, pen_down = [], False
    for x, y in zip(xs, ys):
        if y is None or not math.isfinite(y):
            pen_down = False
            continue
        parts.append(f"{'L' if pen_down else 'M'}{x:.1f},{y:.1f}")
        pen_down = True
    return " ".join(parts)


def chart_svg(frame: pd.DataFrame, ticker: str, trade_date: str, *, lookback_days: int = 90,
              entry: float | None = None, stop: float | None = None, label: str = "") -> str:
    """Close, SMA 50/200 and Bollinger bands over the analyst's window; RSI 14 below."""
    frame = frame.rename(columns=str.lower).sort_index()
    frame.index = pd.DatetimeIndex(pd.to_datetime(frame.index)).tz_localize(None)
    data = _series(frame)
    end = pd.Timestamp(trade_date)
    data = data[(data.index > end - pd.Timedelta(days=lookback_days)) & (data.index <= end)]
    if data.empty:
        raise ValueError("no prices in the chart window")
    cited = compute_indicators(frame[frame.index <= end])

    width, height, left, right = 860, 470, 58, 150
    top, price_h, gap, rsi_h = 36, 280, 30, 90
    plot_w = width - left - right
    n = len(data)
    xs = [left + (i * plot_w / max(n - 1, 1)) for i in range(n)]
    cols = ["close", "sma50", "sma200", "boll_ub", "boll_lb"]
    values = [v for c in cols for v in data[c].tolist() if v is not None and math.isfinite(v)]
    values += [v for v in (entry, stop) if v is not None]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.06 or 1.0
    lo, hi = lo - pad, hi + pad

    def py(v):
        return None if v is None or not math.isfinite(v) else top + price_h * (hi - v) / (hi - lo)

    rsi_top = top + price_h + gap

    def ry(v):
        return None if v is None or not math.isfinite(v) else rsi_top + rsi_h * (100 - v) / 100

    def col(name):
        return [None if pd.isna(v) else float(v) for v in data[name].tolist()]

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{left}" y="22" font-size="15" font-weight="bold" fill="#111">'
           f'{escape(ticker)} · {lookback_days} days to {escape(trade_date)}</text>']
    if label:
        out.append(f'<text x="{width - right}" y="22" text-anchor="end" fill="#888">{escape(label)}</text>')
    # grid and price axis
    for i in range(5):
        v = lo + (hi - lo) * i / 4
        y = py(v)
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#666">{v:.2f}</text>')
    # Bollinger band as a filled area where both edges exist
    ub, lb = col("boll_ub"), col("boll_lb")
    band = [(x, py(u), py(b)) for x, u, b in zip(xs, ub, lb) if u is not None and b is not None]
    if len(band) > 1:
        pts = [f"{x:.1f},{u:.1f}" for x, u, _ in band] + [f"{x:.1f},{b:.1f}" for x, _, b in reversed(band)]
        out.append(f'<polygon points="{" ".join(pts)}" fill="#7aa6ff" fill-opacity="0.13" stroke="none"/>')
    lines = [("sma200", "#8e44ad", "SMA 200"), ("sma50", "#e67e22", "SMA 50"), ("close", "#1f4e9c", "Close")]
    for name, color, _ in lines:
        w = 2 if name == "close" else 1.4
        d = _path(xs, [py(v) for v in col(name)])
        out.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{w}"/>')
    for value, color, text in ((entry, "#2e7d32", "entry"), (stop, "#c62828", "stop")):
        if value is not None and lo <= value <= hi:
            y = py(value)
            out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="{color}" '
                       f'stroke-dasharray="5,4"/>')
            out.append(f'<text x="{left + plot_w - 4}" y="{y - 4:.1f}" text-anchor="end" fill="{color}">'
                       f'{text} {value:.2f}</text>')
    # legend with the values the analyst cited (last bar)
    legend = [("Close", "#1f4e9c", float(data["close"].iloc[-1])), ("SMA 50", "#e67e22", cited["SMA 50"].value),
              ("SMA 200", "#8e44ad", cited["SMA 200"].value), ("Boll Upper", "#7aa6ff", cited["Boll Upper"].value),
              ("Boll Lower", "#7aa6ff", cited["Boll Lower"].value), ("RSI 14", "#555", cited["RSI 14"].value),
              ("MACD Hist", "#555", cited["MACD Hist"].value)]
    lx = left + plot_w + 14
    for i, (name, color, value) in enumerate(legend):
        y = top + 12 + i * 18
        shown = "n/a" if value is None else f"{value:.2f}"
        out.append(f'<rect x="{lx}" y="{y - 8}" width="10" height="10" fill="{color}"/>')
        out.append(f'<text x="{lx + 15}" y="{y + 1}" fill="#333">{name}: {shown}</text>')
    # x axis dates
    for i in sorted({0, n // 3, 2 * n // 3, n - 1}):
        out.append(f'<text x="{xs[i]:.1f}" y="{top + price_h + 14}" text-anchor="middle" fill="#666">'
                   f'{data.index[i]:%Y-%m-%d}</text>')
    # RSI panel
    out.append(f'<rect x="{left}" y="{rsi_top}" width="{plot_w}" height="{rsi_h}" fill="none" stroke="#ddd"/>')
    for level in (30, 70):
        y = ry(level)
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#bbb" '
                   f'stroke-dasharray="3,3"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#666">{level}</text>')
    out.append(f'<path d="{_path(xs, [ry(v) for v in col("rsi")])}" fill="none" stroke="#555" stroke-width="1.3"/>')
    out.append(f'<text x="{left + 4}" y="{rsi_top + 12}" fill="#555">RSI 14</text>')
    out.append("</svg>")
    return "\n".join(out)


async def price_chart(vendor: Vendor, decision: FinalDecision, lookback_days: int = 90) -> str:
    """The chart for a decision, from the same vendor the analysts used (sync, so off the loop)."""
    end = date.fromisoformat(decision.trade_date)
    start = end - timedelta(days=HISTORY_DAYS + lookback_days)
    frame = await asyncio.to_thread(vendor.ohlcv, decision.ticker, start, end)
    return chart_svg(frame, decision.ticker, decision.trade_date, lookback_days=lookback_days,
                     entry=_value(decision.entry), stop=_value(decision.stop),
                     label=getattr(vendor, "label", ""))
