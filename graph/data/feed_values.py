"""Reading values out of a data feed's answer (Yahoo, StockTwits, Reddit): text that may be
blank or NaN, times as epoch seconds or ISO-8601 (to naive US/Eastern), URL fields; and a
failure cut down to a short reason."""
from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

NEWS_TZ = ZoneInfo("America/New_York")  # news/post times are shown in US/Eastern


def _text(value: object) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    return text or None


def _local_naive(moment: datetime) -> datetime:
    """Aware -> US/Eastern naive; naive values are taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(NEWS_TZ).replace(tzinfo=None)


def _parse_time(value: object) -> datetime | None:
    """Epoch seconds or an ISO-8601 string ("2024-05-01T12:00:00Z") -> naive US/Eastern."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            return None
        return _local_naive(datetime.fromtimestamp(value, tz=UTC))
    if isinstance(value, str) and value.strip():
        try:
            return _local_naive(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def _url(value: object) -> str | None:
    if isinstance(value, dict):
        return _text(value.get("url"))
    return _text(value)


def _short(exc: BaseException, limit: int = 160) -> str:
    """``Type: message`` without curl's trailing "See https://..." advice, capped."""
    message = re.split(r"\.?\s+See https?://", str(exc), maxsplit=1)[0].strip()
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
