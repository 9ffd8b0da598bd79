"""The demo analysts: call every tool offered in one round, then write the report from the
tool results (the read, notable headlines and posts, and the key figures table)."""
from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from .demo_figures import _subject, read_points, score
from .demo_notes import _notes_block

_STORY_TOOLS = {"get_company_news", "get_macro_news", "get_social_sentiment"}
NOT_APPLICABLE = "not_applicable"  # graph/tools/fundamentals.py's artifact key
_KIND = {"currency": "a currency pair", "future": "a commodity future"}


def _nothing_for(ticker: str, results: list[ToolMessage]) -> AIMessage | None:
    """A class with nothing for this analyst (a currency pair's fundamentals): one line, nothing invented."""
    arts = [r.artifact if isinstance(r.artifact, dict) else {} for r in results]
    if not arts or not all(art.get(NOT_APPLICABLE) for art in arts):
        return None
    what = _KIND.get(str(arts[0][NOT_APPLICABLE]), "not a company")
    return AIMessage(content=f"{ticker} is {what}: it has no company fundamentals (no earnings, revenue, "
                             "margins or valuation multiples), so I have nothing to report and estimate none.")


def _gathered(results: list[ToolMessage]) -> tuple[dict[str, Any], list[str], list[str], set[str]]:
    """The figures of every tool that answered, what did not, the headlines and posts, the sources."""
    figures: dict[str, Any] = {}
    missing: list[str] = []
    items: list[str] = []
    sources: set[str] = set()
    for r in results:
        art = r.artifact if isinstance(r.artifact, dict) else {}
        if art.get("failed"):  # a vendor failure: the analyst node adds its own line (graph/nodes/analysts.py)
            continue
        if art.get("error") or not art:
            missing.append(f"{art.get('tool', r.name)}: no data ({art.get('error', r.content)})")
            continue
        figures.update({k: v for k, v in art.get("figures", {}).items() if v is not None})
        if art.get("tool") in _STORY_TOOLS:  # headlines and posts are worth quoting; price rows are not
            items.extend(art.get("items", [])[:2])
        sources.add(art.get("source", "unknown"))
    return figures, missing, items, sources


def _analyst(persona: str, messages: list[BaseMessage], system: str, tools: list[dict], notes) -> AIMessage:
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if tools and not results:
        # First round: gather everything this analyst's tools offer, in one parallel round. No
        # words with the calls: the message the user reads opens with the analyst's conclusion.
        calls = [{"name": t["function"]["name"], "args": {}, "id": None, "type": "tool_call"} for t in tools]
        return AIMessage(content="", tool_calls=calls)
    ticker, _, date = _subject(system)
    if (nothing := _nothing_for(ticker, results)) is not None:
        return nothing
    figures, missing, items, sources = _gathered(results)
    points = read_points(figures)
    s = score(points)
    lean = "bullish" if s > 0 else "bearish" if s < 0 else "mixed"
    lines = _notes_block(notes, {k: str(v) for k, v in figures.items()}, points, "\n".join(map(str, items)))
    if points:
        lines.append(f"My read on {ticker} as of {date} is **{lean}**: " + "; ".join(p.text for p in points) + ".")
    elif figures:
        lines.append(f"The data on {ticker} as of {date} gives no clear lean.")
    if items:
        lines.append("Notable: " + " · ".join(items[:3]))
    if missing:
        lines.append("Unavailable, so not used: " + "; ".join(missing) + ".")
    if not figures:
        lines.append(f"I have no data to report on {ticker}; I will not estimate figures.")
    else:
        lines.append(f"Key figures (source: {', '.join(sorted(sources))}):\n\n| Key figure | Value |\n|---|---|")
        lines[-1] += "".join(f"\n| {k} | {v} |" for k, v in figures.items())
    return AIMessage(content="\n\n".join(lines))
