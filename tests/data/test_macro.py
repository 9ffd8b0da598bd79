"""Macro series point in time (issue 38, point 2): FRED read through ALFRED vintages against recorded shapes on a
local stand-in, the demo's synthetic vintages, the tool's cut, and no key being no macro data, not an error."""
from __future__ import annotations

import asyncio
import json
from datetime import date, timedelta
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import ToolMessage
from pydantic import SecretStr

from graph.core.settings import Settings
from graph.data import make_vendor
from graph.data.fred import LABEL, FredClient, parse_observations
from graph.data.synthetic import SyntheticVendor
from graph.data.synthetic_macro import release_day, revision_day
from graph.data.vendor import Observation, VendorError
from graph.data.yfinance_vendor import YFinanceVendor
from graph.tools import make_toolkit
from graph.tools.macro import TOOL
from tests.support.fred import FIXTURES, KEY, fred_server, vintages

FIRST_PUBLISHED, REVISED = date(2024, 4, 10), date(2024, 5, 15)  # CPI for 2024-03 in the recorded vintages
BETWEEN = date(2024, 5, 1)


def _call(vendor, day: date) -> tuple[str, dict]:
    tool = next(t for t in make_toolkit(vendor, "NVDA", day)["macro"] if t.name == TOOL)
    message = asyncio.run(tool.ainvoke({"type": "tool_call", "name": TOOL, "args": {}, "id": "1"}))
    assert isinstance(message, ToolMessage)
    return str(message.content), message.artifact


@pytest.fixture
def fred():
    with fred_server({"CPIAUCSL": vintages("CPIAUCSL")}) as (url, fake):
        client = FredClient(KEY, base_url=url, retries=1)
        yield client, fake
        client.close()


# ------------------------------------------------------------------ FRED through ALFRED vintages

def test_a_revised_cpi_is_seen_as_first_published_between_the_two(fred) -> None:
    client, fake = fred
    seen = {o.day: o.value for o in client.observations("CPIAUCSL", date(2023, 1, 1), BETWEEN)}
    assert seen[date(2024, 3, 1)] == 312.230  # first published 2024-04-10, revised to 312.332 on 2024-05-15
    assert seen[date(2024, 2, 1)] == 310.311  # its own revision of 2024-04-10 was out by then
    later = {o.day: o.value for o in client.observations("CPIAUCSL", date(2023, 1, 1), date(2024, 5, 20))}
    assert later[date(2024, 3, 1)] == 312.332
    # What the client asked: one vintage (realtime_start = realtime_end = the trade date), as JSON, with the key.
    asked = fake.queries[0]
    assert asked["realtime_start"] == asked["realtime_end"] == BETWEEN.isoformat()
    assert asked["observation_end"] == BETWEEN.isoformat()
    assert asked["file_type"] == "json" and asked["api_key"] == KEY and asked["series_id"] == "CPIAUCSL"


def test_a_release_after_the_trade_date_is_never_seen(fred) -> None:
    client, _ = fred
    assert date(2024, 4, 1) not in {o.day for o in client.observations("CPIAUCSL", date(2023, 1, 1), BETWEEN)}
    day_before = REVISED - timedelta(days=1)
    assert max(o.day for o in client.observations("CPIAUCSL", date(2023, 1, 1), day_before)) == date(2024, 3, 1)
    # Even a source that answered the whole history is cut: a later vintage or a later date is dropped.
    everything = json.loads((FIXTURES / "fred_cpiaucsl_all_vintages.json").read_text())
    kept = parse_observations(everything, BETWEEN)
    assert all(o.day <= BETWEEN and o.realtime_start <= BETWEEN for o in kept)
    assert (date(2024, 3, 1), 312.332) not in {(o.day, o.value) for o in kept}


def test_the_macro_tool_reads_the_vintage_of_the_trade_date_and_names_what_failed(fred) -> None:
    client, _ = fred
    text, art = _call(YFinanceVendor(fred=client), BETWEEN)
    assert text.startswith(f"Source: {LABEL} · as of {BETWEEN}")
    assert "CPI index (CPIAUCSL) | 312.23 | 2024-03 | +3.45% year on year" in text  # 312.230 / 301.808
    assert art["figures"]["CPI YoY %"] == 3.45 and art["figures"]["CPI Month"] == "2024-03"
    assert "2024-04" not in text  # released after the trade date
    # The stand-in knows only CPI: the other six are named as unavailable, the run goes on with what answered.
    assert len(art["unavailable"]) == 6 and "DGS10: FRED refused DGS10: Bad Request." in text


def test_fred_errors_are_stated_without_the_key() -> None:
    body = json.loads((FIXTURES / "fred_error_bad_key.json").read_text())
    client = FredClient("wrong-key", transport=httpx.MockTransport(lambda request: httpx.Response(400, json=body)))
    with pytest.raises(VendorError) as refused:
        client.observations("CPIAUCSL", date(2024, 1, 1), BETWEEN)
    assert "api_key is not registered" in str(refused.value) and "wrong-key" not in str(refused.value)
    calls: list[int] = []

    def limited(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(429, json={"error_code": 429, "error_message": "Too Many Requests."})

    slow = FredClient(KEY, transport=httpx.MockTransport(limited), retries=2, sleep=lambda s: None)
    with pytest.raises(VendorError, match="rate limited by FRED"):
        slow.observations("UNRATE", date(2024, 1, 1), BETWEEN)
    assert len(calls) == 2


# ------------------------------------------------------------------ the demo's synthetic vintages

def test_the_demo_cpi_is_revised_later_and_seen_point_in_time() -> None:
    vendor, month = SyntheticVendor(), date(2024, 3, 1)
    first, revised = release_day("CPIAUCSL", month), revision_day("CPIAUCSL", month)
    assert revised is not None and first < revised

    def value(day: date) -> float | None:
        return {o.day: o.value for o in vendor.macro_series("CPIAUCSL", date(2023, 1, 1), day)}.get(month)

    assert value(first - timedelta(days=1)) is None  # not released yet
    between = value(first + timedelta(days=1))
    assert between is not None and between == value(revised - timedelta(days=1))
    assert value(revised) is not None and value(revised) != between  # revised, and seen only from then
    assert vendor.macro_series("CPIAUCSL", date(2023, 1, 1), BETWEEN) == \
        SyntheticVendor().macro_series("CPIAUCSL", date(2023, 1, 1), BETWEEN)  # deterministic
    daily = vendor.macro_series("DGS10", date(2024, 4, 1), date(2024, 5, 6))
    assert daily[-1].day == date(2024, 5, 3)  # a day's yield is out the next weekday
    with pytest.raises(VendorError):
        vendor.macro_series("NOPE", date(2024, 1, 1), BETWEEN)


def test_the_tool_cuts_what_a_leaky_vendor_sends() -> None:
    class Leaky(SyntheticVendor):
        def macro_series(self, series_id, start, as_of):
            later = as_of + timedelta(days=40)
            return [*super().macro_series(series_id, start, as_of),
                    Observation(later, 999.0, as_of, as_of),  # dated after the trade date
                    Observation(as_of - timedelta(days=3), 999.0, later, later)]  # a revision published later

    text, art = _call(Leaky(), BETWEEN)
    _, honest_art = _call(SyntheticVendor(), BETWEEN)
    assert art["figures"] == honest_art["figures"] and "999" not in text


# ------------------------------------------------------------------ no key: no macro data, not an error

def test_without_a_key_there_is_no_macro_source_and_no_macro_tool(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FRED_API_KEY", raising=False)
    live = Settings(DESK_MODE="live", OPENAI_API_KEY="sk-test", DESK_DATA_DIR=tmp_path, _env_file=None)
    vendor = make_vendor(live)
    assert vendor.macro_source is None and make_toolkit(vendor, "NVDA", BETWEEN)["macro"] == []
    keyed = make_vendor(live.model_copy(update={"fred_api_key": SecretStr("k")}))
    assert keyed.macro_source == LABEL


def test_an_outage_of_every_series_is_a_failure_and_one_series_leaves_the_rest() -> None:
    class Down(SyntheticVendor):
        def macro_series(self, series_id, start, as_of):
            raise VendorError("FRED unreachable: ConnectError")

    text, art = _call(Down(), BETWEEN)
    assert text.startswith("no data: DFF: FRED unreachable") and art["failed"] is True

    class OneDown(SyntheticVendor):
        def macro_series(self, series_id, start, as_of):
            if series_id == "VIXCLS":
                raise VendorError("rate limited by FRED")
            return super().macro_series(series_id, start, as_of)

    text, art = _call(OneDown(), BETWEEN)
    assert "VIX" not in art["figures"] and "CPI YoY %" in art["figures"]
    assert art["unavailable"] == ["VIXCLS: rate limited by FRED"] and not art.get("failed")


def test_a_past_vintage_is_cached_and_the_source_is_the_inner_vendors(tmp_path: Path) -> None:
    from graph.data.cache import CachedVendor

    asked: list[str] = []

    class Counting(SyntheticVendor):
        def macro_series(self, series_id, start, as_of):
            asked.append(series_id)
            return super().macro_series(series_id, start, as_of)

    cached = CachedVendor(Counting(), tmp_path / "cache.sqlite", today=lambda: date(2024, 6, 3))
    first = cached.macro_series("CPIAUCSL", date(2023, 1, 1), BETWEEN)
    assert cached.macro_series("CPIAUCSL", date(2023, 1, 1), BETWEEN) == first and asked == ["CPIAUCSL"]
    assert cached.macro_source == SyntheticVendor.macro_source
    cached.close()
