"""The paper's Table 1 as data: strategies × tickers × CR / ARR / SR / MDD, and its Markdown.

Layout as in the paper (TradingAgents, Xiao et al., arXiv 2412.20138, Table 1): one row per strategy, the
market baseline first, then the rule baselines, then the desk; for each ticker four columns, CR %, ARR %
and SR (higher is better) and MDD % (lower is better, printed as a positive number).

On the paper's own window the paper's published TradingAgents figures can sit beside ours, labelled
"published" (``published_rows``); they are quoted, never recomputed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from graph.backtest.metrics import Metrics

COLUMNS: tuple[str, ...] = ("CR%", "ARR%", "SR", "MDD%")
PUBLISHED = "published"


@dataclass(frozen=True)
class Figures:
    """One strategy on one ticker, as the table prints it: CR, ARR and MDD in percent, SR as is."""

    cr: float | None
    arr: float | None
    sr: float | None
    mdd: float | None

    @classmethod
    def of(cls, scores: Metrics) -> Figures:
        def percent(value: float | None) -> float | None:
            return None if value is None else 100 * value

        return cls(percent(scores.cumulative_return), percent(scores.annualized_return), scores.sharpe,
                   percent(scores.max_drawdown))


@dataclass(frozen=True)
class Row:
    strategy: str  # as printed: "MACD", "TradingAgents (published)"
    figures: Mapping[str, Figures]  # ticker → figures; a ticker absent prints as —
    source: str | None = None  # where published figures come from


@dataclass(frozen=True)
class Table:
    tickers: tuple[str, ...]
    rows: tuple[Row, ...]
    title: str = "Backtest"
    notes: tuple[str, ...] = field(default=())  # printed under the table: the window, the rules, "synthetic"

    def markdown(self) -> str:
        lines = [f"**{self.title}**", "", *self.grid()]
        if notes := self.note_lines():
            lines += ["", *notes]
        return "\n".join(lines) + "\n"

    def grid(self, tickers: Sequence[str] | None = None) -> list[str]:
        """The table's lines in Markdown, for `tickers` (all by default; a narrow page shows one at a time)."""
        tickers = self.tickers if tickers is None else tuple(tickers)
        header = ["Strategy", *(f"{ticker} {column}" for ticker in tickers for column in COLUMNS)]
        lines = [_line(header), _line(["---", *["---:"] * (len(header) - 1)])]
        for row in self.rows:
            cells = [_escape(row.strategy)]
            for ticker in tickers:
                figures = row.figures.get(ticker)
                values = (None,) * 4 if figures is None else (figures.cr, figures.arr, figures.sr, figures.mdd)
                cells += [_number(value) for value in values]
            lines.append(_line(cells))
        return lines

    def note_lines(self) -> list[str]:
        """What is printed under the table, a Markdown list: its notes, then the published figures' sources."""
        sources = [f"{row.strategy}: {row.source}" for row in self.rows if row.source]
        return bullets((*self.notes, *(f"Source of {text}" for text in sources)))


def bullets(texts: Sequence[str]) -> list[str]:
    """Notes as a Markdown list, one line each."""
    return [f"- {_escape(text)}" for text in texts]


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table(
    scores: Mapping[str, Mapping[str, Metrics]],
    tickers: Sequence[str],
    strategies: Sequence[str],
    title: str = "Backtest",
    notes: Sequence[str] = (),
    extra_rows: Sequence[Row] = (),
) -> Table:
    """Lay out ``scores[strategy][ticker]`` in the order given (the paper's: B&H, MACD, KDJ&RSI, ZMR, SMA,
    then the desk), followed by ``extra_rows`` (for example ``published_rows``)."""
    rows = [
        Row(strategy, {t: Figures.of(scores[strategy][t]) for t in tickers if t in scores.get(strategy, {})})
        for strategy in strategies
    ]
    return Table(tuple(tickers), (*rows, *extra_rows), title, tuple(notes))


# --- the paper's published figures ----------------------------------------------------------------------

# The paper's window: 2024-01-01 … 2024-03-29. Both ends were NYSE holidays or closures (New Year's Day,
# Good Friday), so a window asked as 2024-01-02 … 2024-03-28 holds the same trading days.
PAPER_STARTS = (date(2024, 1, 1), date(2024, 1, 2))
PAPER_ENDS = (date(2024, 3, 28), date(2024, 3, 29))

# TradingAgents' row of the paper's Table 1 (CR %, ARR %, SR, MDD %). Quoted from the table as restated on
# https://www.tradingagents-cn.com/en/research/ ("the TradingAgents row from the reported comparison
# table"); AAPL's CR 26.62 % is also quoted in TradingAgents issue #168 and in this project's issue 23.
# Not checked against the PDF itself (arXiv 2412.20138), which was not readable here.
# The paper's buy-and-hold figures were not found in a source that could be cited, so none are shown.
PUBLISHED_SOURCE = "TradingAgents paper (arXiv 2412.20138), Table 1, as quoted on tradingagents-cn.com/en/research"
PUBLISHED_TRADINGAGENTS: dict[str, Figures] = {
    "AAPL": Figures(cr=26.62, arr=30.50, sr=8.21, mdd=0.91),
    "GOOGL": Figures(cr=24.36, arr=27.58, sr=6.39, mdd=1.69),
    "AMZN": Figures(cr=23.21, arr=24.90, sr=5.60, mdd=2.11),
}


def is_paper_window(start: date, end: date) -> bool:
    return start in PAPER_STARTS and end in PAPER_ENDS


def published_rows(tickers: Sequence[str], start: date, end: date) -> tuple[Row, ...]:
    """The paper's published rows for the tickers it covers, only on the paper's own window (elsewhere they
    would compare different days); empty when none apply."""
    if not is_paper_window(start, end):
        return ()
    figures = {t: PUBLISHED_TRADINGAGENTS[t] for t in tickers if t in PUBLISHED_TRADINGAGENTS}
    if not figures:
        return ()
    return (Row(f"TradingAgents ({PUBLISHED})", figures, PUBLISHED_SOURCE),)
