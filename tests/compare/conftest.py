"""A comparison's desk in-process: the demo model (at a pace a test chooses), in-memory checkpoints and store, and
a vendor that counts what each ticker's data is asked for."""
from __future__ import annotations

import threading
from collections import Counter
from datetime import date

import pandas as pd
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from graph.core.settings import Settings
from graph.data.synthetic import SyntheticVendor
from graph.models.demo import DemoChatModel
from graph.models.registry import ModelRegistry
from graph.persistence.checkpoint import SERDE
from graph.runtime.desk import DeskRuntime

TODAY = date(2024, 5, 6)  # a Monday


class CountingVendor(SyntheticVendor):
    """The synthetic vendor, counting each ticker's price fetches and refusing any date after the trade date."""

    def __init__(self, cutoff: date = TODAY) -> None:
        self.fetches: Counter[str] = Counter()
        self.late: list[str] = []
        self.cutoff = cutoff
        self.lock = threading.Lock()

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        with self.lock:
            self.fetches[ticker] += 1
            if end > self.cutoff:
                self.late.append(f"{ticker} {end}")
        return super().ohlcv(ticker, start, end)


def demo_desk(settings: Settings, model: DemoChatModel | None = None, vendor: SyntheticVendor | None = None,
              **kept) -> DeskRuntime:
    models = ModelRegistry.fixed(model or DemoChatModel(delay_ms=0), settings, notice="demo")
    return DeskRuntime.build(settings, kept.get("checkpointer") or InMemorySaver(serde=SERDE),
                             kept.get("store") or InMemoryStore(), models=models, vendor=vendor or CountingVendor())
