"""Macro series from FRED, read through ALFRED's vintages (issue 38, point 2).

One endpoint: ``fred/series/observations`` with ``realtime_start`` = ``realtime_end`` = the trade date, which
answers each observation as it was published on that day: a CPI figure revised later comes back at its
first-published value, a month released after that day does not come back at all (TradingAgents leaked
revised figures into historical runs until its v0.4, #1275). Observations dated after the trade date are
dropped here too, and again by the tool (graph/tools/cutoff.py).

Written on httpx rather than a FRED package: fredapi (the maintained one) reads through urllib with no time
limit and no way to hand it a transport, and its ALFRED call (``get_series_as_of_date``) fetches every
vintage since 1776 to keep one; the desk needs one small request per series, a time limit, retries that stop
when the tool gave up (``abandoned``), and a transport a test can replace.

Failures raise :class:`VendorError` with FRED's own reason ("Bad Request. The value for variable api_key is
not registered ...") and never the key: a bad key, an unknown series, a rate limit (429), an outage.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from typing import Any

import httpx

from graph.data.vendor import Observation, VendorError, abandoned, finite

FRED_URL = "https://api.stlouisfed.org/fred"
LABEL = "FRED (ALFRED vintages, St. Louis Fed)"
TIMEOUT_S = 15.0
_RETRIED = {429, 500, 502, 503, 504}


def parse_observations(payload: object, as_of: date) -> list[Observation]:
    """FRED's observations answer (``{"observations": [{"realtime_start", "realtime_end", "date", "value"}]}``)
    as observations dated on or before ``as_of`` and published by then, oldest first; "." is no value."""
    if not isinstance(payload, dict) or not isinstance(payload.get("observations"), list):
        raise VendorError("FRED answered without observations")
    out: list[Observation] = []
    for row in payload["observations"]:
        try:
            day = date.fromisoformat(str(row["date"]))
            start = date.fromisoformat(str(row["realtime_start"]))
            end = date.fromisoformat(str(row["realtime_end"]))
        except (KeyError, TypeError, ValueError):
            continue  # a row without its dates cannot be placed in time: left out
        if day <= as_of and start <= as_of:
            out.append(Observation(day, finite(row.get("value")), start, end))
    return sorted(out, key=lambda o: o.day)


class FredClient:
    """FRED's observations endpoint at one vintage; ``transport`` and ``base_url`` are a test's to replace."""

    label = LABEL

    def __init__(self, api_key: str, *, base_url: str = FRED_URL, transport: httpx.BaseTransport | None = None,
                 timeout_s: float = TIMEOUT_S, retries: int = 3, backoff_s: float = 1.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._key = api_key
        self._client = httpx.Client(base_url=base_url.rstrip("/") + "/", transport=transport, timeout=timeout_s)
        self.retries = max(1, retries)
        self.backoff_s = backoff_s
        self._sleep = sleep

    def observations(self, series_id: str, start: date, as_of: date) -> list[Observation]:
        """``series_id``'s observations dated in [start, as_of] as published on ``as_of``."""
        params = {"series_id": series_id, "realtime_start": as_of.isoformat(), "realtime_end": as_of.isoformat(),
                  "observation_start": start.isoformat(), "observation_end": as_of.isoformat(),
                  "api_key": self._key, "file_type": "json"}
        return parse_observations(self._get("series/observations", params, series_id), as_of)

    def _get(self, path: str, params: dict[str, str], what: str) -> Any:
        last = "no answer"
        for attempt in range(self.retries):
            if attempt:
                self._sleep(self.backoff_s * 2 ** (attempt - 1))
            if abandoned():  # the tool's time limit passed, or the run stopped: no more tries
                raise VendorError(f"FRED gave no answer for {what} in time")
            try:
                answer = self._client.get(path, params=params)
            except httpx.TransportError as exc:  # the message names the host, never the query (the key)
                last = f"FRED unreachable: {type(exc).__name__}"
                continue
            if answer.status_code in _RETRIED:
                last = "rate limited by FRED" if answer.status_code == 429 else f"FRED error {answer.status_code}"
                continue
            if answer.status_code != 200:
                raise VendorError(f"FRED refused {what}: {_reason(answer)}")
            try:
                return answer.json()
            except ValueError:
                raise VendorError(f"FRED answered {what} with no JSON") from None
        raise VendorError(last)

    def close(self) -> None:
        self._client.close()


def _reason(answer: httpx.Response) -> str:
    """FRED's ``error_message`` (its errors are JSON), else the status."""
    try:
        body = answer.json()
    except ValueError:
        body = None
    message = body.get("error_message") if isinstance(body, dict) else None
    return str(message)[:200] if message else f"HTTP {answer.status_code}"
