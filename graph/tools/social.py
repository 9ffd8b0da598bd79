"""The social analyst's tool: social-media posts, or news-headline tone when no feed answers."""

from __future__ import annotations

from datetime import date, timedelta

from langchain_core.tools import BaseTool

from ..data.tone import news_tone
from ..data.vendor import NewsItem, Post, Vendor
from .args import LookbackArgs, clamp
from .cutoff import cut_news, cut_posts, day_of
from .formatting import quoted, r2, table
from .guarded import Figures, NoData, call_vendor, guarded_tool, reason
from .news import MAX_HEADLINES, news_line

MAX_POSTS_SHOWN = 10
# The "Proxy" figure when the score comes from headlines instead of posts.
SOCIAL_PROXY = "news headlines"


def social_figures(posts: list[Post]) -> Figures:
    """Counts and bullish/bearish shares of a non-empty list of posts."""
    bullish = sum(post.sentiment == "bullish" for post in posts)
    bearish = sum(post.sentiment == "bearish" for post in posts)
    labelled = bullish + bearish
    return {
        "Posts": len(posts),
        "Bullish %": r2(100 * bullish / len(posts)),
        "Bearish %": r2(100 * bearish / len(posts)),
        # Net mood of posts that take a side: +1 all bullish, -1 all bearish.
        "Social Score": r2((bullish - bearish) / labelled) if labelled else 0.0,
    }


def _post_line(post: Post) -> str:
    mood = post.sentiment or "unlabelled"
    return f"{day_of(post.created):%Y-%m-%d} {post.source} [{mood}]: {post.text}"


def _from_posts(ticker: str, as_of: date, posts: list[Post], start: date) -> tuple[str, Figures, list[str]]:
    """The tool's answer from posts: the figures, a table of posts per day and the latest posts."""
    figures = social_figures(posts)
    by_day: dict[date, list[int]] = {}
    for post in posts:
        counts = by_day.setdefault(day_of(post.created), [0, 0, 0])
        counts[0] += 1
        counts[1] += post.sentiment == "bullish"
        counts[2] += post.sentiment == "bearish"
    daily = [[f"{day:%Y-%m-%d}", *counts] for day, counts in sorted(by_day.items())]
    items = [_post_line(post) for post in posts[:MAX_POSTS_SHOWN]]
    summary = "; ".join(f"{k} {v}" for k, v in figures.items())
    text = "\n".join(
        [
            f"{ticker} social posts {start} to {as_of}: {summary}",
            table(["date", "posts", "bullish", "bearish"], daily),
            f"Latest {len(items)} posts:",
            *quoted(items),
        ]
    )
    return text, figures, items


def _from_headlines(
    ticker: str, as_of: date, news: list[NewsItem], start: date, social_reason: str
) -> tuple[str, Figures, list[str]]:
    """The proxy: no post was found, so read the tone of the company's headlines."""
    tone = news_tone(n.title for n in news)
    figures: Figures = {
        "Posts": 0,
        "Bullish %": None,
        "Bearish %": None,
        "Social Score": tone,
        "Proxy": SOCIAL_PROXY,
    }
    items = [news_line(n) for n in news[:MAX_HEADLINES]]
    text = "\n".join(
        [
            f"no social feed answered ({social_reason}); using news-headline tone as a proxy.",
            f"{ticker} headlines {start} to {as_of}: {len(news)} found, headline tone {tone}"
            f" (-1..1, keyword score; reported as Social Score); latest {len(items)}:",
            *quoted(items),
        ]
    )
    return text, figures, items


def social_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    async def social_sentiment(lookback_days: int = 7) -> tuple[str, Figures, list[str]]:
        lookback = clamp(lookback_days, 1, 90)
        start = as_of - timedelta(days=lookback - 1)
        try:
            answered = await call_vendor(vendor.social_posts, ticker, start, as_of)
        except Exception as exc:  # any feed failure: fall back to the headlines
            posts, social_reason = [], reason(exc)
        else:
            posts = cut_posts(answered, start, as_of)
            social_reason = f"no social posts about {ticker} from {start} to {as_of}"
        if posts:
            return _from_posts(ticker, as_of, posts, start)

        try:
            news = cut_news(await call_vendor(vendor.news, ticker, start, as_of), start, as_of)
        except Exception as exc:
            news_reason = reason(exc)
        else:
            if news:
                return _from_headlines(ticker, as_of, news, start, social_reason)
            news_reason = f"no {ticker} headlines from {start} to {as_of}"
        raise NoData(
            f"no social feed answered ({social_reason}) and no news headlines to fall back on"
            f" ({news_reason})"
        )

    return [
        guarded_tool(
            "get_social_sentiment",
            f"Social-media posts about {ticker} up to {as_of}: counts, bullish/bearish share, "
            "a -1..1 social score and the latest posts. When no social feed answers, the "
            "score is the tone of the company's news headlines instead (figure Proxy says so).",
            LookbackArgs, vendor, as_of, social_sentiment,
        )
    ]
