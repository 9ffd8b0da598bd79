"""The fundamentals analyst's tools: company profile and valuation, quarterly statements; for what is not a
company, what its class has instead (issue 37, point 3):

* a fund: expense ratio, assets, NAV and the premium or discount to it, yield, top holdings and their weights;
* a cryptocurrency: market cap, circulating and maximum supply, a day's traded value;
* an index: its level and 52-week range, the funds that track it; breadth where the vendor has it;
* a currency pair or a commodity future: nothing a fundamentals analyst reads (no earnings, revenue, margins
  or multiples): the tool says so in one line (NOT_APPLICABLE in its artifact), and the analyst says so
  instead of inventing; its price action and the macro drivers are the Market and News Analysts'.

No statements tool for any of them (they file none). The class is the vendor's own (Yahoo's quoteType) when
the tool runs, the symbol's reading for the tools' list and descriptions.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
from langchain_core.tools import BaseTool

from ..core.assets import AssetClass, classify, tracking_funds
from ..data.vendor import StatementKind, Vendor, asset_class_of, finite
from .args import NoArgs, StatementArgs
from .cutoff import cut_grades, cut_statement, day_of
from .formatting import human, pct, r2, show, table, whole
from .guarded import Figures, NoData, call_vendor, guarded_tool, optional

# The artifact's key when a class has nothing for the fundamentals analyst (a currency pair, a future).
NOT_APPLICABLE = "not_applicable"
HOLDINGS_SHOWN = 10
_WHAT = {AssetClass.CURRENCY: "a currency pair", AssetClass.FUTURE: "a commodity future"}

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


def fund_figures(profile: dict[str, Any]) -> tuple[Figures, list[str]]:
    """A fund's figures and its top holdings (one item each: "Holding AAPL (Apple Inc.): 7.12%")."""
    figures: Figures = {
        "Expense Ratio %": pct(profile.get("expense_ratio")),
        "Total Assets": whole(profile.get("total_assets")),
        "NAV": r2(profile.get("nav_price")),
        "Premium/Discount %": pct(profile.get("premium_discount")),
        "Yield %": pct(profile.get("fund_yield")),
    }
    holdings = [h for h in profile.get("holdings") or [] if isinstance(h, dict) and h.get("symbol")]
    items = [f"{key.replace('_', ' ').title()}: {profile[key]}" for key in ("name", "category", "fund_family")
             if profile.get(key)]
    for rank, held in enumerate(holdings[:HOLDINGS_SHOWN], 1):
        weight = pct(held.get("weight"))
        figures[f"Holding {rank}"] = f"{held['symbol']} {show(weight)}%"
        name = f" ({held['name']})" if held.get("name") else ""
        items.append(f"Holding {held['symbol']}{name}: {show(weight)}%")
    if holdings:
        top = sum(finite(h.get("weight")) or 0 for h in holdings[:HOLDINGS_SHOWN])
        figures["Top Holdings Weight %"] = r2(top * 100)
    return figures, items


def crypto_figures(profile: dict[str, Any]) -> tuple[Figures, list[str]]:
    figures: Figures = {
        "Market Cap": whole(profile.get("market_cap")),
        "Circulating Supply": whole(profile.get("circulating_supply")),
        "Max Supply": whole(profile.get("max_supply")),
        "Volume 24H": whole(profile.get("volume_24h")),
        "Dominance %": pct(profile.get("dominance")),
    }
    supply, cap = finite(profile.get("circulating_supply")), finite(profile.get("max_supply"))
    if supply and cap:
        figures["Supply Issued %"] = pct(supply / cap)
    return figures, [f"Name: {profile['name']}"] if profile.get("name") else []


def index_figures(profile: dict[str, Any], ticker: str) -> tuple[Figures, list[str]]:
    figures: Figures = {
        "Level": r2(profile.get("level")),
        "Advancers": whole(profile.get("advancers")),
        "Decliners": whole(profile.get("decliners")),
    }
    items = [f"Name: {profile['name']}"] if profile.get("name") else []
    if funds := tracking_funds(ticker):
        items.append("Tracked by: " + ", ".join(funds))
    if figures["Advancers"] is None:
        items.append("Breadth (advancers/decliners): not in the vendor's data")
    return figures, items


_CLASS_FIGURES = {AssetClass.FUND: "a fund", AssetClass.CRYPTO: "a cryptocurrency", AssetClass.INDEX: "an index"}
_HUMAN = {"Market Cap", "Total Assets", "Circulating Supply", "Max Supply", "Volume 24H"}


def not_applicable(ticker: str, kind: AssetClass) -> str:
    """The one line a class with nothing for the fundamentals analyst gets."""
    return (f"{ticker} is {_WHAT.get(kind, 'not a company')}: it has no company fundamentals (no earnings, revenue, "
            "margins, valuation multiples or statements). Nothing to report here; its price action and the macro "
            "drivers are the Market and News Analysts'.")


async def class_fundamentals(vendor: Vendor, ticker: str, as_of: date,
                             kind: AssetClass) -> tuple[str, Figures, list[str], dict[str, Any]]:
    """get_fundamentals for what is not a company (the module docstring)."""
    if kind not in _CLASS_FIGURES:  # a currency pair, a future: nothing to read, said in one line
        return not_applicable(ticker, kind), {}, [], {NOT_APPLICABLE: kind.value, "asset_class": kind.value}
    profile = await call_vendor(vendor.profile, ticker, as_of)
    if not profile or all(v is None for v in profile.values()):
        raise NoData(f"no profile for {ticker}")
    if kind is AssetClass.FUND:
        figures, items = fund_figures(profile)
    elif kind is AssetClass.CRYPTO:
        figures, items = crypto_figures(profile)
    else:
        figures, items = index_figures(profile, ticker)
    figures = {k: v for k, v in figures.items() if v is not None}
    if not figures:
        raise NoData(f"no {kind.value} figures for {ticker} as of {as_of}")
    shown = {k: (human(v) if k in _HUMAN else show(v)) for k, v in figures.items()}
    text = "\n".join([
        f"{ticker} ({kind.value}) as of {as_of}: no earnings, revenue, margins or P/E apply to "
        f"{_CLASS_FIGURES[kind]}.",
        *items,
        table(["metric", "value"], [[k, v] for k, v in shown.items()]),
    ])
    return text, figures, items, {"asset_class": kind.value}


def _class_tools(vendor: Vendor, ticker: str, as_of: date, listed: AssetClass,
                 fundamentals: Any) -> list[BaseTool]:
    """The one tool of what is not a company: get_fundamentals, described for its class."""
    what = {AssetClass.FUND: "expense ratio, total assets, NAV and premium/discount, yield, top holdings and "
                             "their weights",
            AssetClass.CRYPTO: "market cap, circulating and maximum supply, 24-hour traded value",
            AssetClass.INDEX: "level, the funds that track it, breadth where available"}.get(
                listed, "whether anything applies (a currency pair or a future has no company fundamentals)")
    return [guarded_tool(
        "get_fundamentals",
        f"What {ticker} ({listed.value}) has instead of company fundamentals, as of {as_of}: {what}.",
        NoArgs, vendor, as_of, fundamentals,
    )]


def fundamental_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    listed = classify(ticker)

    async def fundamentals() -> tuple[str, Figures, list[str]] | tuple[str, Figures, list[str], dict[str, Any]]:
        kind = await call_vendor(asset_class_of, vendor, ticker)
        if kind is not AssetClass.EQUITY:
            return await class_fundamentals(vendor, ticker, as_of, kind)
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

    if listed is not AssetClass.EQUITY:
        return _class_tools(vendor, ticker, as_of, listed, fundamentals)
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
