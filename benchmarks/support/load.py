"""Many users on the chat at once: the tickers they ask about, logins that wait out the server's
throttle, and percentiles of what they saw."""
from __future__ import annotations

import asyncio

import httpx

from .socket_client import DeskClient

TICKERS = ("NVDA", "AAPL", "MSFT", "TSLA", "AMZN", "META", "GOOGL", "JPM", "XOM", "KO",
           "PFE", "AMD", "NFLX", "DIS", "WMT", "BA", "INTC", "CSCO", "ORCL", "NKE")
LOGINS_AT_ONCE = 8  # a login throttle may refuse many attempts in flight from one address


class LoadClient(DeskClient):
    """A DeskClient whose login waits out the server's throttle (429 with Retry-After): many
    users logging in from one address at once is this benchmark's setup, not an attack."""

    def __init__(self, base: str, username: str, logins: asyncio.Semaphore) -> None:
        super().__init__(base, username=username)
        self.logins = logins  # logins in flight at once; the sockets themselves all open at once

    async def login(self) -> str:
        for _ in range(20):
            async with self.logins:
                try:
                    return await super().login()
                except httpx.HTTPStatusError as exc:
                    if exc.response.status_code != 429:
                        raise
                    wait = float(exc.response.headers.get("retry-after") or 1)
            await asyncio.sleep(min(wait, 10))
        raise RuntimeError(f"login of {self.username} throttled 20 times")


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return round(s[lo] + (s[hi] - s[lo]) * (k - lo), 2)
