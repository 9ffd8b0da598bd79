"""The analysts' data tools, bound to one ticker and one trade date.

No look-ahead, twice over:

1. Structural: ``make_toolkit`` closes over the ticker and trade date, and no
   tool takes a date argument, so a model cannot ask for anything later.
2. Defensive: every row and item a vendor returns is filtered again to
   ``<= trade_date`` before it is shown or counted, so a sloppy vendor (or a
   live API that ignores ``end``) still cannot leak the future.

Each tool answers ``(content, artifact)``: ``content`` is a compact text table
for the model, ``artifact`` a structured dict that the offline demo model
reads. The artifact shape is a contract::

    {"tool": str, "source": vendor.name, "as_of": "YYYY-MM-DD",
     "figures": {label: float | int | str | None}, "items": [str, ...]}

plus ``"error": reason`` (with empty figures/items) when there is no data.
Figures are never invented: missing inputs give ``None``, failures give the
error shape.

Layout: one module per analyst kind (:mod:`.market`, :mod:`.social`,
:mod:`.news`, :mod:`.fundamentals`, :mod:`.macro`) holds its tools and the figures
they compute; :mod:`.events` (the calendar in the holding window) is the news and
fundamentals analysts', :mod:`.options` (today's option chain) the social
analyst's. What they share: :mod:`.cutoff` (guard 2, the cuts at the trade
date), :mod:`.guarded` (vendor calls with a time limit, and the wrapper that
turns any failure into the error shape), :mod:`.args` (the argument schemas a
model fills in) and :mod:`.formatting` (numbers and text tables).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from langchain_core.tools import BaseTool

from ..core.personas import ANALYST_KINDS
from ..data.vendor import Vendor
from .cutoff import day_of
from .events import event_tools
from .fundamentals import fundamental_tools
from .macro import macro_tools
from .market import market_tools
from .news import news_tools
from .options import option_tools
from .social import social_tools

__all__ = ["ANALYST_KINDS", "make_toolkit"]

# The analysts who read the calendar: the news (what is coming) and the fundamentals (the report date).
EVENT_ANALYSTS = ("news", "fundamentals")
# Who reads today's option chain: positioning is the crowd's, in money rather than posts.
OPTION_ANALYSTS = ("social",)

_BUILDERS: dict[str, Callable[[Vendor, str, date], list[BaseTool]]] = {
    "market": market_tools,
    "social": social_tools,
    "news": news_tools,
    "fundamentals": fundamental_tools,
    "macro": macro_tools,  # none without a macro source: the Macro Analyst then says so in one line
}


def make_toolkit(vendor: Vendor, ticker: str, trade_date: date) -> dict[str, list[BaseTool]]:
    """Tools per analyst kind, all bound to ``ticker`` and ``trade_date``."""
    as_of = day_of(trade_date)
    symbol = ticker.strip().upper()
    kits = {kind: _BUILDERS[kind](vendor, symbol, as_of) for kind in ANALYST_KINDS}
    for kind in EVENT_ANALYSTS:  # what is scheduled in the window (graph/tools/events.py)
        kits[kind] = [*kits[kind], *event_tools(vendor, symbol, as_of)]
    for kind in OPTION_ANALYSTS:  # today's option chain (graph/tools/options.py)
        kits[kind] = [*kits[kind], *option_tools(vendor, symbol, as_of)]
    return kits
