"""The social feeds, read without a key: the StockTwits symbol stream and Reddit's JSON search
(their addresses, the HTTP GET and the parsing of each answer into posts). The Yahoo vendor asks
both and merges their posts (:meth:`graph.data.yfinance_vendor.YFinanceVendor.social_posts`)."""
from __future__ import annotations

import json
import urllib.request
from datetime import date

from graph.data.feed_values import _parse_time, _text
from graph.data.tone import headline_tone
from graph.data.vendor import Post, Sentiment, VendorError

STOCKTWITS_URL = "https://api.stocktwits.com/api/2/streams/symbol/{symbol}.json"
STOCKTWITS_TIMEOUT_S = 5.0
REDDIT_SEARCH_URL = "https://www.reddit.com/search.json?q={query}&sort=new&limit=100&t=month"
REDDIT_TEXT_CHARS = 280  # a post's title plus the start of its body, enough for tone
# Reddit asks API clients for a unique, descriptive User-Agent (generic or
# browser-like ones are throttled hardest); StockTwits accepts it as well.
USER_AGENT = "trading-desk/0.1 (social sentiment reader; python urllib)"


def parse_stocktwits(payload: object, start: date, end: date) -> list[Post]:
    """StockTwits ``streams/symbol`` JSON -> posts in [start, end], newest first.

    Shape: ``{"response": {"status": 200}, "messages": [{"id", "body",
    "created_at": "2024-05-01T13:45:12Z", "entities": {"sentiment":
    {"basic": "Bullish"} | null}}, ...]}``.
    """
    if not isinstance(payload, dict):
        raise VendorError("social feed unreachable: unexpected response")
    status = (payload.get("response") or {}).get("status")
    if status not in (None, 200):
        errors = payload.get("errors") or []
        detail = errors[0].get("message") if errors and isinstance(errors[0], dict) else f"status {status}"
        raise VendorError(f"social feed unreachable: {detail}")
    messages = payload.get("messages")
    if not isinstance(messages, list):
        raise VendorError("social feed unreachable: no messages in response")
    posts = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        text = _text(message.get("body"))
        created = _parse_time(message.get("created_at"))
        if not text or created is None or not start <= created.date() <= end:
            continue
        sentiment = ((message.get("entities") or {}).get("sentiment") or {}).get("basic")
        label = str(sentiment).lower()
        mood: Sentiment | None = "bullish" if label == "bullish" else "bearish" if label == "bearish" else None
        posts.append(Post(created=created, text=text, sentiment=mood, source="stocktwits"))
    return sorted(posts, key=lambda p: p.created, reverse=True)


_REDDIT_GONE = {"[removed]", "[deleted]"}


def _reddit_text(title: str, body: str | None) -> str:
    text = f"{title} -- {' '.join(body.split())}" if body and body not in _REDDIT_GONE else title
    return text if len(text) <= REDDIT_TEXT_CHARS else text[: REDDIT_TEXT_CHARS - 3].rstrip() + "..."


def parse_reddit(payload: object, start: date, end: date) -> list[Post]:
    """Reddit ``search.json`` Listing -> posts in [start, end], newest first.

    Shape: ``{"kind": "Listing", "data": {"children": [{"kind": "t3", "data":
    {"id", "title", "selftext", "created_utc": 1714571112.0, "subreddit",
    "permalink"}}, ...]}}``. An error answers ``{"message": "Too Many
    Requests", "error": 429}``. Sentiment comes from the keyword tone of the
    title and body (None when no tone word matches); the source is
    ``"reddit r/<subreddit>"``.
    """
    if not isinstance(payload, dict):
        raise VendorError("social feed unreachable: unexpected response")
    if payload.get("error") is not None:
        detail = _text(payload.get("message")) or "error"
        raise VendorError(f"social feed unreachable: {detail} ({payload.get('error')})")
    listing = payload.get("data")
    children = listing.get("children") if isinstance(listing, dict) else None
    if payload.get("kind") != "Listing" or not isinstance(children, list):
        raise VendorError("social feed unreachable: no listing in response")
    seen: set[str] = set()
    posts = []
    for child in children:
        data = child.get("data") if isinstance(child, dict) else None
        if not isinstance(data, dict):
            continue
        title = _text(data.get("title"))
        created = _parse_time(data.get("created_utc"))
        if not title or created is None or not start <= created.date() <= end:
            continue
        key = _text(data.get("id")) or _text(data.get("permalink")) or title
        if key in seen:
            continue
        seen.add(key)
        body = _text(data.get("selftext"))
        tone = headline_tone(f"{title} {body or ''}")
        mood: Sentiment | None = "bullish" if tone > 0 else "bearish" if tone < 0 else None
        subreddit = _text(data.get("subreddit"))
        source = f"reddit r/{subreddit}" if subreddit else "reddit"
        posts.append(Post(created=created, text=_reddit_text(title, body), sentiment=mood, source=source))
    return sorted(posts, key=lambda p: p.created, reverse=True)


def fetch_json(url: str, timeout: float = STOCKTWITS_TIMEOUT_S) -> object:
    """GET ``url`` and decode JSON (the default, injectable, social fetcher)."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read().decode("utf-8"))
