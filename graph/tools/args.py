"""What a model may pass to the tools: the argument schemas, and the clamp on them.

No schema takes a date: the tools are bound to one trade date (see
:mod:`graph.tools`), so a model cannot ask for anything later.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, field_validator


def clamp(value: int, low: int, high: int) -> int:
    """A model-given number forced into [low, high]."""
    return max(low, min(high, int(value)))


class NoArgs(BaseModel):
    """This tool takes no arguments."""


class PriceHistoryArgs(BaseModel):
    lookback_days: int = Field(
        90, description="Calendar days of daily prices to show (5-730)."
    )


class LookbackArgs(BaseModel):
    lookback_days: int = Field(
        7, description="Calendar days back from the trade date (1-90)."
    )


_STATEMENT_ALIASES = {
    "income": "income", "balance": "balance", "cashflow": "cashflow",
    "incomestatement": "income", "financials": "income", "pl": "income",
    "profitandloss": "income",
    "balancesheet": "balance", "cashflowstatement": "cashflow", "cashflows": "cashflow",
}


class StatementArgs(BaseModel):
    statement: Literal["income", "balance", "cashflow"] = Field(
        "income", description="Which quarterly statement to read."
    )

    @field_validator("statement", mode="before")
    @classmethod
    def _accept_common_spellings(cls, value: object) -> object:
        # Models often write "cash_flow" or "balance sheet"; map them rather than fail.
        if value is None:
            return "income"
        if isinstance(value, str):
            key = re.sub(r"[^a-z]", "", value.lower())
            return _STATEMENT_ALIASES.get(key, value)
        return value
