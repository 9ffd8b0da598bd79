"""The news analyst's tools: company and macro headlines with a keyword tone score."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date, timedelta

from langchain_core.tools import BaseTool, StructuredTool

from ..data.tone import news_tone
from ..data.vendor import NewsItem, Vendor
from .args import LookbackArgs, clamp
from .cutoff import cut_news, day_of
from .formatting import quoted
from .guarded import Figures, NoData, call_vendor, guarded_tool

MAX_HEADLINES = 10


def news_line(item: NewsItem) -> str:
    """One headline as a dated line (shared with the social tool's headline proxy)."""
    return f"{day_of(item.published):%Y-%m-%d} {item.publisher}: {item.title}"


def _headline_tool(
    name: str,
    description: str,
    tone_label: str,
    fetch: Callable[[date], Awaitable[list[NewsItem]]],
    vendor: Vendor,
    as_of: date,
    subject: str,
) -> StructuredTool:
    async def headlines(lookback_days: int = 7) -> tuple[str, Figures, list[str]]:
        lookback = clamp(lookback_days, 1, 90)
        start = as_of - timedelta(days=lookback - 1)
        news = cut_news(await fetch(start), start, as_of)
        if not news:
            raise NoData(f"no {subject} headlines from {start} to {as_of}")
        tone = news_tone(n.title for n in news)
        figures: Figures = {"Headlines": len(news), tone_label: tone}
        items = [news_line(n) for n in news[:MAX_HEADLINES]]
        text = "\n".join(
            [
                f"{subject} headlines {start} to {as_of}: {len(news)} found, "
                f"{tone_label.lower()} {tone} (-1..1, keyword score); latest {len(items)}:",
                *quoted(items),
            ]
        )
        return text, figures, items

    return guarded_tool(name, description, LookbackArgs, vendor, as_of, headlines)


def news_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    async def company(start: date) -> list[NewsItem]:
        return await call_vendor(vendor.news, ticker, start, as_of)

    async def macro(start: date) -> list[NewsItem]:
        return await call_vendor(vendor.macro_news, start, as_of)

    return [
        _headline_tool(
            "get_company_news",
            f"Recent news headlines about {ticker} up to {as_of}, with a -1..1 tone score.",
            "News Tone", company, vendor, as_of, ticker,
        ),
        _headline_tool(
            "get_macro_news",
            f"Recent market-wide and macroeconomic headlines up to {as_of}, "
            "with a -1..1 tone score.",
            "Macro Tone", macro, vendor, as_of, "Macro",
        ),
    ]
