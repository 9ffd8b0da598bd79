"""A FRED stand-in on 127.0.0.1 that answers the observations endpoint the way ALFRED does, from recorded
vintages (tests/data/fixtures/fred_*_all_vintages.json: every value a series ever had, each with the real-time
period it was the published one, FRED's documented shape for realtime_start=1776-07-04&realtime_end=9999-12-31).

A request for ``realtime_start`` = ``realtime_end`` = D gets each observation as published on D, with D as its
real-time period, as FRED answers it; an unknown series or api key gets FRED's 400 error body. Every query is
kept (``queries``) for a test to check what the client asked."""
from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

FIXTURES = Path(__file__).parents[1] / "data" / "fixtures"
KEY = "test-key-0123456789abcdef0123456789"


def vintages(series_id: str) -> list[dict[str, str]]:
    return json.loads((FIXTURES / f"fred_{series_id.lower()}_all_vintages.json").read_text())["observations"]


def as_published(rows: list[dict[str, str]], day: str, start: str = "", end: str = "9999-12-31") -> list[dict]:
    """ALFRED's answer for one real-time day: the row whose real-time period holds it, per observation."""
    return [{**row, "realtime_start": day, "realtime_end": day} for row in rows
            if row["realtime_start"] <= day <= row["realtime_end"] and start <= row["date"] <= end]


class FakeFred:
    def __init__(self, series: dict[str, list[dict[str, str]]]) -> None:
        self.series = series
        self.queries: list[dict[str, str]] = []

    def answer(self, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        self.queries.append(query)
        if query.get("api_key") != KEY:
            return 400, json.loads((FIXTURES / "fred_error_bad_key.json").read_text())
        rows = self.series.get(query.get("series_id", ""))
        if rows is None:
            return 400, {"error_code": 400, "error_message": "Bad Request.  The series does not exist."}
        day = query["realtime_start"]
        assert query["realtime_end"] == day, "a vintage is one day"
        found = as_published(rows, day, query.get("observation_start", ""), query.get("observation_end", "9999-12-31"))
        return 200, {"realtime_start": day, "realtime_end": day, "count": len(found), "observations": found}


@contextmanager
def fred_server(series: dict[str, list[dict[str, str]]]) -> Iterator[tuple[str, FakeFred]]:
    """The stand-in served on 127.0.0.1 (a free port); its base URL and the fake."""
    fake = FakeFred(series)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlparse(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            status, body = (fake.answer(query) if url.path == "/fred/series/observations"
                            else (404, {"error_code": 404, "error_message": "Not Found"}))
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/fred", fake
    finally:
        server.shutdown()
        server.server_close()
