"""The fundamentals analyst's tools: company profile and valuation, quarterly statements."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from langchain_core.tools import BaseTool

from ..data.vendor import StatementKind, Vendor, finite
from .args import NoArgs, StatementArgs
from .cutoff import cut_grades, cut_statement, day_of
from .formatting import human, pct, r2, show, table, whole
from .guarded import Figures, NoData, call_vendor, guarded_tool, optional

MAX_GRADES_SHOWN = 5
STATEMENT_PERIODS_SHOWN = 4

_REVENUE_ROWS = ("Total Revenue", "Revenue", "Operating Revenue")
_NET_INCOME_ROWS = (
    "Net Income", "Net Income Common Stockholders", "Net Income From Continuing Operations",
)
_FCF_ROWS = ("Free Cash Flow",)


def _first_row(frame: pd.DataFrame, names: tuple[str, ...]) -> str | None:
    return next((name for name in names if name in frame.index), None)


def statement_figures(frame: pd.DataFrame) -> Figures:
    """Latest-period figures from a filed-only, newest-first statement frame."""
    latest = frame.iloc[:, 0]
    figures: Figures = {}
    for label, names in (
        ("Revenue", _REVENUE_ROWS),
        ("Net Income", _NET_INCOME_ROWS),
        ("Free Cash Flow", _FCF_ROWS),
    ):
        row = _first_row(frame, names)
        if row is not None:
            figures[label] = whole(latest[row])
    cash_lines = {"Operating Cash Flow", "Capital Expenditure"}
    if "Free Cash Flow" not in figures and cash_lines <= set(frame.index):
        figures["Free Cash Flow"] = whole(
            latest["Operating Cash Flow"] + latest["Capital Expenditure"]
        )
    figures["Period"] = pd.Timestamp(frame.columns[0]).strftime("%Y-%m-%d")
    return figures


def revenue_growth_yoy(income: pd.DataFrame) -> float | None:
    """Latest quarter's revenue vs the same quarter a year earlier, as a fraction."""
    row = _first_row(income, _REVENUE_ROWS)
    if row is None or income.shape[1] < 2:
        return None
    periods = [pd.Timestamp(c) for c in income.columns]
    latest = periods[0]
    for column, period in zip(income.columns, periods, strict=True):
        if 350 <= (latest - period).days <= 380:
            then = finite(income.loc[row, column])
            now = finite(income.loc[row, income.columns[0]])
            if now is None or not then:
                return None
            return now / then - 1
    return None


def _grade_line(grade: dict[str, Any]) -> str:
    to_grade = grade.get("to_grade")
    moved = f"{grade.get('from_grade')} -> {to_grade}" if grade.get("from_grade") else to_grade
    return f"{day_of(grade['date']):%Y-%m-%d} {grade.get('firm')}: {moved} ({grade.get('action')})"


def fundamental_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    async def fundamentals() -> tuple[str, Figures, list[str]]:
        profile = await call_vendor(vendor.profile, ticker, as_of)
        if not profile or all(v is None for v in profile.values()):
            raise NoData(f"no company profile for {ticker}")
        statement = await optional(vendor.statements, ticker, as_of, "income")
        income, _ = cut_statement(statement, as_of)
        # Prefer growth from statements filed by the trade date; a live
        # profile's growth figure is "as of now" and would leak the future.
        growth = revenue_growth_yoy(income) if not income.empty else None
        if growth is None:
            growth = profile.get("revenue_growth")
        figures: Figures = {
            "Market Cap": whole(profile.get("market_cap")),
            "P/E": r2(profile.get("pe")),
            "Forward P/E": r2(profile.get("forward_pe")),
            "P/B": r2(profile.get("pb")),
            "Profit Margin %": pct(profile.get("profit_margin")),
            "Debt/Equity": r2(profile.get("debt_to_equity")),
            "Dividend Yield %": pct(profile.get("dividend_yield")),
            "Beta": r2(profile.get("beta")),
            "Revenue Growth YoY %": pct(growth),
        }
        grades = cut_grades(await optional(vendor.recommendations, ticker, as_of), as_of)
        items = [
            f"{key.title()}: {profile[key]}"
            for key in ("name", "sector", "industry") if profile.get(key)
        ]
        items += [f"Grade {_grade_line(g)}" for g in grades[:MAX_GRADES_SHOWN]]
        shown = {k: (human(v) if k == "Market Cap" else show(v)) for k, v in figures.items()}
        text = "\n".join(
            [
                f"{ticker} fundamentals as of {as_of}.",
                *items,
                table(["metric", "value"], [[k, v] for k, v in shown.items()]),
            ]
        )
        return text, figures, items

    async def financial_statements(
        statement: StatementKind = "income",
    ) -> tuple[str, Figures, list[str]]:
        raw = await call_vendor(vendor.statements, ticker, as_of, statement)
        frame, filed = cut_statement(raw, as_of)
        if frame.empty:
            raise NoData(f"no {statement} statement for {ticker} filed on or before {as_of}")
        figures = statement_figures(frame)
        filed_on = f"{filed[pd.Timestamp(frame.columns[0])]:%Y-%m-%d}"
        items = [f"Filed: {filed_on}"]
        items += [f"{line}: {human(value)}" for line, value in frame.iloc[:, 0].items()]
        shown = frame.iloc[:, :STATEMENT_PERIODS_SHOWN]
        header = ["line item"] + [f"{pd.Timestamp(c):%Y-%m-%d}" for c in shown.columns]
        rows = [[line, *(human(v) for v in values)] for line, values in shown.iterrows()]
        text = "\n".join(
            [
                f"{ticker} quarterly {statement} statement, periods filed on or before"
                f" {as_of} (newest first); latest period {figures['Period']} filed {filed_on}.",
                table(header, rows),
            ]
        )
        return text, figures, items

    return [
        guarded_tool(
            "get_fundamentals",
            f"Company profile and valuation for {ticker} as of {as_of}: market cap, P/E, "
            "forward P/E, P/B, profit margin, debt/equity, dividend yield, beta, revenue "
            "growth and recent analyst grades.",
            NoArgs, vendor, as_of, fundamentals,
        ),
        guarded_tool(
            "get_financial_statements",
            f"Quarterly income, balance-sheet or cash-flow statement for {ticker}, only "
            f"periods filed on or before {as_of}.",
            StatementArgs, vendor, as_of, financial_statements,
        ),
    ]
