"""The demo model: a deterministic offline policy that calls the tools and argues from their numbers.

It is what runs when no model is configured. It is not canned text: analysts call the
bound tools and write from the tool artifacts; every later speaker reads the figures in
the analysts' "Key figure" tables, rebuts the previous speaker, quotes any user
interjection it answers, and the decision follows from the data. Its only contract with
the prompts is their visible structure: `**TICKER** (Company)`, `## Section` headings (the case
file's parts, each contribution under a `### Persona` heading), `| label | value |` rows and
the quoted interjection.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from ..core.personas import (
    ANALYST_PERSONAS,
    DESK,
    INVESTMENT_SIDES,
    RESEARCH_MANAGER,
    RISK_JUDGE,
    RISK_SIDES,
    SIDE_OF,
    TRADER,
)
from ..record.case import ANALYST_REPORTS, EARLIER_ANALYSES, INVESTMENT_DEBATE, RISK_DEBATE, STOPPED, gist
from .policy import PolicyChatModel
from .ruling import parse_ruling

_ROW = re.compile(r"^\|\s*([^|\n]+?)\s*\|\s*([^|\n]+?)\s*\|\s*$", re.M)
_SUBJECT = re.compile(r"\*\*(?P<ticker>[A-Z0-9][A-Z0-9.\-^=]*)\*\* \((?P<company>[^)]*)\)")
_DATE = re.compile(r"\*\*(\d{4}-\d{2}-\d{2})\*\*")
_NOTE = re.compile(r"interjected: “(.*?)”", re.S)
_PROPOSAL = re.compile(r"(?:FINAL TRANSACTION PROPOSAL|Recommendation|Signal):\s*\**\s*(BUY|SELL|HOLD)", re.I)
_STORY_TOOLS = {"get_company_news", "get_macro_news", "get_social_sentiment"}


# ---------------------------------------------------------------- reading the data

def number(value: Any) -> float | None:
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    cleaned = value.replace(",", "").replace("%", "").replace("$", "").strip()
    mult = 1.0
    for suffix, m in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if cleaned.endswith(suffix):
            cleaned, mult = cleaned[:-1], m
    try:
        return float(cleaned) * mult
    except ValueError:
        return None


def figures_in(text: str) -> dict[str, str]:
    """Every `| label | value |` row in a text, header and separator rows left out."""
    out: dict[str, str] = {}
    for label, value in _ROW.findall(text):
        if set(label) <= set("-: ") or label.lower() in {"key figure", "metric", "figure"}:
            continue
        out.setdefault(label, value)
    return out


def sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## +(.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def turns(section: str) -> list[tuple[str, str]]:
    """The `### Persona` contributions of a case-file part, in speaking order."""
    parts = re.split(r"^### +(.+)$", section, flags=re.M)
    return [(parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)]


def fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    if abs(x) >= 1e9:
        return f"{x / 1e9:,.1f}B"
    if abs(x) >= 1e6:
        return f"{x / 1e6:,.1f}M"
    return f"{x:,.2f}"


@dataclass(frozen=True)
class Point:
    stance: int   # +1 bullish, -1 bearish, 0 context
    label: str
    text: str


def read_points(fig: dict[str, Any]) -> list[Point]:
    """What the figures say for the trade; one rule per figure, in a fixed order."""
    n = {k: number(v) for k, v in fig.items()}
    return [point for rule in _RULES for point in rule(n, fig)]


Numbers = dict[str, float | None]


def _trend(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    close = n.get("Close")
    for avg in ("SMA 50", "SMA 200"):
        if close is not None and (level := n.get(avg)):
            up = close > level
            where = "above" if up else "below"
            yield Point(1 if up else -1, avg, f"the close of {fmt(close)} is {where} the {avg} of {fmt(level)}")


def _macd(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (h := n.get("MACD Hist")) is not None:
        yield Point(1 if h > 0 else -1, "MACD Hist",
                    f"the MACD histogram is {'positive' if h > 0 else 'negative'} at {fmt(h)}")


def _rsi(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (r := n.get("RSI 14")) is None:
        return
    if r >= 70:
        yield Point(-1, "RSI 14", f"RSI 14 at {fmt(r)} is overbought")
    elif r <= 30:
        yield Point(1, "RSI 14", f"RSI 14 at {fmt(r)} is oversold, a rebound setup")
    else:
        tone = "positive" if r >= 50 else "fading"
        yield Point(1 if r >= 50 else -1, "RSI 14", f"RSI 14 at {fmt(r)} shows {tone} momentum")


def _month_move(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (c := n.get("Change 1M %")) is not None and abs(c) >= 3:
        yield Point(1 if c > 0 else -1, "Change 1M %", f"the stock moved {c:+.2f}% over the last month")


def _social(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (s := n.get("Social Score")) is not None and abs(s) >= 0.1:
        bullish = n.get("Bullish %")
        basis = f"{fmt(bullish)}% bullish posts" if bullish is not None else f"proxy: {fig.get('Proxy', 'no posts')}"
        yield Point(1 if s > 0 else -1, "Social Score", f"social sentiment scores {s:+.2f} ({basis})")


def _news(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    for tone, what in (("News Tone", "company news"), ("Macro Tone", "macro news")):
        if (t := n.get(tone)) is not None and abs(t) >= 0.1:
            yield Point(1 if t > 0 else -1, tone, f"{what} tone is {'positive' if t > 0 else 'negative'} ({t:+.2f})")


def _valuation(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (pe := n.get("P/E")) is not None and pe > 0:
        if pe >= 40:
            yield Point(-1, "P/E", f"a P/E of {fmt(pe)} prices in a lot of growth")
        elif pe <= 15:
            yield Point(1, "P/E", f"a P/E of {fmt(pe)} is undemanding")


def _growth(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (g := n.get("Revenue Growth YoY %")) is not None:
        yield Point(1 if g > 5 else -1 if g < 0 else 0, "Revenue Growth YoY %", f"revenue grew {g:+.2f}% year on year")


def _margin(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (m := n.get("Profit Margin %")) is not None:
        yield Point(1 if m >= 15 else -1 if m < 5 else 0, "Profit Margin %", f"the profit margin is {fmt(m)}%")


def _leverage(n: Numbers, fig: dict[str, Any]) -> Iterator[Point]:
    if (ratio := n.get("Debt/Equity")) is not None:
        # Vendors deliver a plain multiple (1.5 = debt is 1.5x equity; see graph/data/vendor.py).
        if ratio >= 2:
            yield Point(-1, "Debt/Equity", f"leverage is high at {fmt(ratio)}x debt to equity")
        elif ratio <= 0.5:
            yield Point(1, "Debt/Equity", f"the balance sheet is light at {fmt(ratio)}x debt to equity")


# The rules of read_points, in the order their points are listed.
_RULES: tuple[Callable[[Numbers, dict[str, Any]], Iterator[Point]], ...] = (
    _trend, _macd, _rsi, _month_move, _social, _news, _valuation, _growth, _margin, _leverage,
)


def score(points: list[Point]) -> int:
    return sum(p.stance for p in points)


def signal_of(points: list[Point]) -> str:
    s = score(points)
    return "BUY" if s >= 2 else "SELL" if s <= -2 else "HOLD"


# ---------------------------------------------------------------- the policy

_TOPICS = {
    "RSI 14": ("rsi", "overbought", "oversold", "momentum"),
    "MACD Hist": ("macd",),
    "SMA 50": ("trend", "moving average", "sma", "50-day", "50 day"),
    "SMA 200": ("200-day", "200 day", "sma", "long-term trend"),
    "ATR 14": ("volatil", "atr", "swing", "risk"),
    "P/E": ("valuation", "expensive", "cheap", "p/e", "pe ", "multiple"),
    "Revenue Growth YoY %": ("growth", "revenue", "sales"),
    "Profit Margin %": ("margin", "profit"),
    "Debt/Equity": ("debt", "leverage", "balance sheet"),
    "Social Score": ("sentiment", "reddit", "social", "twitter", "retail", "crowd"),
    "News Tone": ("news", "headline", "earnings", "guidance"),
    "Macro Tone": ("macro", "fed", "rates", "china", "export", "tariff", "inflation", "recession", "war"),
    "Close": ("price", "entry", "close"),
}


# Words that carry no subject of their own in a note ("Bear, what about the ... ?").
_NOTE_FILLER = frozenset("""
    a an the and or but of to in on for at by with from as is are was were be been it its this that these those
    what whats about how why when where who which does do did can could would should will shall may might must
    you your we our us i me my he she they them his her their there here any some more most much many so than
    then too very just also not no yes if ok okay hey please think thoughts say said tell mean really still
    bull bear bulls bears researcher researchers analyst analysts risky safe neutral manager trader judge desk
    market social news fundamentals risk research
""".split())
# What a note's words are about, when our data has no word of them: the figure closest to it.
_NEAR = {"ban": "Macro Tone", "sanction": "Macro Tone", "regulat": "Macro Tone", "election": "Macro Tone",
         "demand": "News Tone", "lawsuit": "News Tone", "ceo": "News Tone", "product": "News Tone"}


# Cues that name an event, not a figure: the figure is only the nearest thing our data has on it.
_EVENT_CUES = frozenset({"china", "export", "tariff", "war", "fed", "rates", "inflation", "recession"})
# A speaker's earlier answer to a note is not data about it.
_ANSWERS = re.compile(r"You asked|interjected|Nothing in our data|Our data does mention|nearest figures")


def note_words(note: str) -> list[str]:
    """The words a note is about: "Bear, what about the China export ban?" -> china, export, ban."""
    words = [w for w in re.findall(r"[a-z][a-z0-9'/-]*", note.lower()) if w not in _NOTE_FILLER and len(w) > 2]
    return list(dict.fromkeys(words))


def _mentions(text: str, words: list[str]) -> list[str]:
    """Headlines, posts and sentences of `text` that contain one of `words` (whole words)."""
    if not words:
        return []
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.I)
    out = []
    for piece in re.split(r"(?<=[.!?])\s+|\s+·\s+|\n", text):
        piece = piece.strip().lstrip("-*#> ").strip()
        if piece and not piece.startswith("|") and pattern.search(piece) and piece not in out:
            out.append(piece)
    return out


def answer_note(note: str, fig: dict[str, str], points: list[Point], record: str = "", stance: int = 0) -> str:
    """A speaker's answer to the user's note: it quotes the note, says what our data has on its
    words (the headlines or posts that mention them, the figures on its subject), what that
    means for this speaker's side (`stance`: +1 bull, -1 bear, 0 neither), and says plainly
    when the data has nothing on it, instead of guessing."""
    words = note_words(note)
    lower = note.lower()
    named = [label for label, cues in _TOPICS.items()
             if label in fig and any(c in lower for c in cues if c not in _EVENT_CUES)]
    near = [label for label, cues in _TOPICS.items()
            if label in fig and label not in named and any(c in lower for c in cues if c in _EVENT_CUES)]
    near += [label for cue, label in _NEAR.items() if cue in lower and label in fig and label not in named + near]
    hits = named + near
    mentioned = [m.removeprefix("Notable: ") for m in _mentions(record, words)
                 if not _ANSWERS.search(m) and note not in m][:2]
    about = ", ".join(f"“{w}”" for w in words[:4]) or "that"
    out = [f"You asked: “{note}”."]
    if mentioned:
        out.append("Our data does mention it: " + "; ".join(f"“{m}”" for m in mentioned) + ".")
    elif not named:
        out.append(f"Nothing in our data mentions {about}: no headline, post or figure, so I will not put a "
                   "number on it.")
    on_it = [p for p in points if p.label in hits]
    if on_it:
        lead = "What our figures say on it: " if mentioned or named else "The nearest figures we have: "
        out.append(lead + "; ".join(p.text for p in on_it[:3]) + ".")
        if stance:
            mine = [p for p in on_it if p.stance == stance]
            against = [p for p in on_it if p.stance == -stance]
            side = "bull" if stance > 0 else "bear"
            if mine and not against:
                out.append(f"That backs the {side} case.")
            elif against and not mine:
                out.append(f"That cuts against the {side} case, and I grant it; it does not outweigh the rest.")
            else:
                out.append("It cuts both ways, so it does not change my case.")
    elif hits:
        out.append("The figures on it: " + ", ".join(f"{h} {fig[h]}" for h in hits[:3]) + ".")
    elif points:
        out.append(f"What the data does show that comes closest: {points[0].text}.")
    return " ".join(out)


class DemoChatModel(PolicyChatModel):
    """Deterministic offline desk model (see module docstring)."""

    @property
    def _llm_type(self) -> str:
        return "demo"

    async def reply(self, messages, *, persona, tools, tool_choice) -> AIMessage:
        system = "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))
        human = "\n".join(str(m.content) for m in messages if isinstance(m, HumanMessage))
        notes = _NOTE.findall(human)
        if tools and tool_choice and any(t["function"]["name"] == "FinalDecision" for t in tools):
            return _extract_decision(system + "\n" + human)
        if persona in ANALYST_PERSONAS:
            return _analyst(persona, messages, system, tools, notes)
        if persona in SIDE_OF:
            return AIMessage(content=_debater(persona, SIDE_OF[persona], system, notes))
        if persona == RESEARCH_MANAGER:
            return AIMessage(content=_manager(system, notes))
        if persona == TRADER:
            return AIMessage(content=_trader(system, notes))
        if persona == RISK_JUDGE:
            return AIMessage(content=_judge(system, notes))
        if persona == DESK:
            return AIMessage(content=_desk(system, human))
        return AIMessage(content="I have no role on this desk.")


def _subject(system: str) -> tuple[str, str, str]:
    m = _SUBJECT.search(system)
    d = _DATE.search(system)
    return (m["ticker"] if m else "the stock", m["company"] if m else "", d[1] if d else "the trade date")


def _notes_block(notes: list[str], fig, points, record: str = "", stance: int = 0) -> list[str]:
    # What the data says is in the analysts' reports (their headlines and posts), not in the debate.
    record = sections(record).get(ANALYST_REPORTS, record)
    return [answer_note(n, fig, points, record, stance) for n in notes]


def _analyst(persona: str, messages: list[BaseMessage], system: str, tools: list[dict], notes) -> AIMessage:
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if tools and not results:
        # First round: gather everything this analyst's tools offer, in one parallel round. No
        # words with the calls: the message the user reads opens with the analyst's conclusion.
        calls = [{"name": t["function"]["name"], "args": {}, "id": None, "type": "tool_call"} for t in tools]
        return AIMessage(content="", tool_calls=calls)
    ticker, _, date = _subject(system)
    figures: dict[str, Any] = {}
    missing, items, sources = [], [], set()
    for r in results:
        art = r.artifact if isinstance(r.artifact, dict) else {}
        if art.get("error") or not art:
            missing.append(f"{art.get('tool', r.name)}: no data ({art.get('error', r.content)})")
            continue
        figures.update({k: v for k, v in art.get("figures", {}).items() if v is not None})
        if art.get("tool") in _STORY_TOOLS:  # headlines and posts are worth quoting; price rows are not
            items.extend(art.get("items", [])[:2])
        sources.add(art.get("source", "unknown"))
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


_REBUTTAL = re.compile(r"^(You asked|The [A-Z]\w+ [A-Z]\w+( (says|argues)|'s “))")


_DEBATE_OF = {**dict.fromkeys(INVESTMENT_SIDES, INVESTMENT_DEBATE), **dict.fromkeys(RISK_SIDES, RISK_DEBATE)}
_SIZE = re.compile(r"\d+(?:\.\d+)?% of the portfolio")


def _said(system: str, side: str) -> list[tuple[str, str]]:
    """This side's debate so far in the case file: (persona, words) in speaking order."""
    return turns(sections(system).get(_DEBATE_OF[side], ""))


def _previous(said: list[tuple[str, str]], persona: str) -> tuple[str, str]:
    """The debater who spoke last (not this one) and its words; ("", "") when this turn opens."""
    who, words = said[-1] if said else ("", "")
    return (who, words) if who in SIDE_OF and who != persona else ("", "")


def _phrase(words: str, points: list[Point], stance: int) -> str:
    """A short quote of an earlier turn: the first data point of `stance` it made, else its first words."""
    made = [p.text for p in points if p.stance == stance and p.text in words]
    if made:
        return made[0]
    first = re.split(r"(?<=[.!?:])\s", words.replace("\n", " ").replace("**", ""))[0]
    short = " ".join(first.split()[:8])
    return short.rstrip(".:;,") + (" …" if len(first.split()) > 8 else "")


def _debater(persona: str, side: str, system: str, notes: list[str]) -> str:
    """Conclusion first, then a brief quote of the previous speaker and an answer to it; a later
    round says what is new since this debater's last turn instead of repeating it."""
    ticker, _, _ = _subject(system)
    fig = figures_in(system)
    points = read_points(fig)
    said = _said(system, side)
    rnd = 1 + sum(1 for who, _ in said if who == persona)
    who, words = _previous(said, persona)
    if side in ("bull", "bear"):
        stance = 1 if side == "bull" else -1
        lines = _case(side, stance, ticker, points, rnd, who, words)
        return "\n\n".join([*_notes_block(notes, fig, points, system, stance), *lines])
    # risk committee: argue about size and stop from the trader's plan, the close and the ATR
    lines = _risk(side, ticker, _plan(system, "Trader's plan"), rnd, who, words)
    return "\n\n".join([*_notes_block(notes, fig, points, system), *lines])


def _case(side: str, stance: int, ticker: str, points: list[Point], rnd: int, who: str, words: str) -> list[str]:
    """A bull's or a bear's turn: its count of the signals, its answer to the other side, the
    evidence not said yet, and what it grants."""
    lines: list[str] = []
    mine = [p for p in points if p.stance == stance]
    theirs = [p for p in points if p.stance == -stance]
    count = f"{len(mine)} signal(s) for it, {len(theirs)} against"
    if rnd == 1:
        verdict = "holds" if len(mine) > len(theirs) else "is the weaker one, argued for balance"
        lines.append(f"The {side} case for {ticker} {verdict}: {count}.")
    else:
        lines.append(f"Round {rnd}, still the {side} case for {ticker}: nothing new changes the count ({count}).")
    if who:
        counter = mine[(rnd - 1) % len(mine)].text if mine else "that is one signal among several"
        lines.append(f"The {who}'s “{_phrase(words, points, -stance)}”: but {counter}.")
    fresh = mine[3 * (rnd - 1):3 * rnd]
    if fresh:
        lines.append(("My evidence: " if rnd == 1 else "Not said yet: ") + "; ".join(p.text for p in fresh) + ".")
    elif rnd == 1:
        lines.append("Very little in the data supports my side, and I will not pretend otherwise.")
    else:
        lines.append(f"I have no new figure to add; my round {rnd - 1} case stands.")
    if len(theirs) >= rnd:
        lines.append(f"I grant that {theirs[rnd - 1].text}.")
    return lines


def _risk(side: str, ticker: str, p: _Plan, rnd: int, who: str, words: str) -> list[str]:
    """A risk debater's turn on the trader's plan: for a HOLD, standing aside; else its size and stop."""
    backing = [x for x in p.points if x.stance == (-1 if p.signal == "SELL" else 1)]
    against = [x for x in p.points if x.stance == (1 if p.signal == "SELL" else -1)]
    if p.signal == "HOLD":
        return _risk_on_hold(side, ticker, p, rnd, backing, against)
    return _risk_on_trade(side, ticker, p, rnd, who, words, backing, against)


def _risk_on_hold(side: str, ticker: str, p: _Plan, rnd: int, backing: list[Point], against: list[Point]) -> list[str]:
    lines: list[str] = []
    hold = {"risky": "Standing aside has a cost too: if the data turns, we should be ready to act.",
            "safe": "Staying flat is the right call; there is no edge worth paying for.",
            "neutral": "Holding is reasonable; I would set alerts rather than a position."}[side]
    lines.append(f"HOLD on {ticker}: {hold}" if rnd == 1 else f"Round {rnd}, still HOLD on {ticker}.")
    watch = (backing or against or p.points)[(rnd - 1) % max(1, len(p.points)):][:1]
    if watch and rnd > 1:
        lines.append(f"The signal to watch: {watch[0].text}.")
    return lines


def _risk_on_trade(side: str, ticker: str, p: _Plan, rnd: int, who: str, words: str, backing: list[Point],
                   against: list[Point]) -> list[str]:
    lines: list[str] = []
    mult, size = {"risky": (3.0, "4%"), "safe": (1.5, "1%"), "neutral": (2.0, "2%")}[side]
    stop = p.stop(mult)
    level = f"stop at {fmt(stop)} ({mult:g} ATR from the {fmt(p.close)} close)" if stop else "no stop I can size"
    why = {"risky": "so normal swings do not shake us out",
           "safe": "losing less matters more than catching every move",
           "neutral": "between the other two sizes"}[side]
    if rnd == 1:
        lines.append(f"{size} of the portfolio on the {p.signal} of {ticker}, {level}: {why}.")
    else:
        lines.append(f"Round {rnd}, still {size} of the portfolio on {ticker}, {level}.")
    if who:
        proposed = _SIZE.search(words)
        quoted = proposed[0] if proposed else _phrase(words, p.points, 0)
        reply = {"risky": "that leaves the trade too small to matter",
                 "safe": "one bad week would cost more than the signal is worth",
                 "neutral": "each side has a point; the middle keeps us in at a cost we can carry"}[side]
        lines.append(f"The {who}'s “{quoted}”: {reply}.")
    if rnd > 1:
        extra = (against if side == "safe" else backing)[(rnd - 2):(rnd - 1)]
        if extra:
            lines.append(("The risk I would not ignore: " if side == "safe" else "What backs the trade: ")
                         + f"{extra[0].text}.")
    return lines


def _manager(system: str, notes) -> str:
    ticker, _, date = _subject(system)
    fig = figures_in(system)
    points = read_points(fig)
    sig = signal_of(points)
    lines = _notes_block(notes, fig, points, system)
    bulls = [p for p in points if p.stance > 0]
    bears = [p for p in points if p.stance < 0]
    lines.append(f"Recommendation: **{sig}** {ticker} as of {date}. The evidence scores {score(points):+d} "
                 f"({len(bulls)} bullish signals, {len(bears)} bearish).")
    if sig != "SELL" and bulls:
        lines.append("Strongest for it: " + "; ".join(p.text for p in bulls[:3]) + ".")
    if sig != "BUY" and bears:
        lines.append("Strongest against: " + "; ".join(p.text for p in bears[:3]) + ".")
    lines.append("I would change my mind if the trend and momentum signals flip.")
    return "\n\n".join(lines)


@dataclass(frozen=True)
class _Plan:
    """What the trader and the judge read: the signal handed to them and the levels to trade."""
    ticker: str
    points: list[Point]
    fig: dict[str, str]
    signal: str
    close: float | None
    atr: float | None

    @property
    def size(self) -> float:
        return min(5.0, 1.0 + 0.5 * abs(score(self.points)))

    def stop(self, atr_multiple: float = 2.0) -> float | None:
        if self.signal == "HOLD" or not (self.close and self.atr):
            return None
        offset = atr_multiple * self.atr
        return self.close - offset if self.signal == "BUY" else self.close + offset


def _plan(system: str, handed_over_in: str) -> _Plan:
    fig = figures_in(system)
    points = read_points(fig)
    handed = sections(system).get(handed_over_in, "")
    sig = m[1].upper() if (m := _PROPOSAL.search(handed)) else signal_of(points)
    return _Plan(_subject(system)[0], points, fig, sig, number(fig.get("Close")), number(fig.get("ATR 14")))


def _trader(system: str, notes) -> str:
    p = _plan(system, "Investment plan")
    lines = _notes_block(notes, p.fig, p.points, system)
    if p.signal == "HOLD" or not p.close:
        lines.append(f"No new position in {p.ticker}: the plan is to hold and watch the signals.")
    else:
        lines.append(f"{'Buy' if p.signal == 'BUY' else 'Sell'} {p.ticker} at {fmt(p.close)} (the last close), "
                     f"{p.size:.1f}% of the portfolio, stop at {fmt(p.stop())}"
                     + (f" (2 × ATR {fmt(p.atr)})" if p.atr else " (no ATR available: set it from your own levels)")
                     + ", horizon 2-6 weeks.")
    lines.append(f"FINAL TRANSACTION PROPOSAL: **{p.signal}**")
    return "\n\n".join(lines)


def _judge(system: str, notes) -> str:
    """The ruling in one line (what the card will show), then the reasoning in a line or two."""
    p = _plan(system, "Trader's plan")
    lines = _notes_block(notes, p.fig, p.points, system)
    volatile = bool(p.close and p.atr and p.atr / p.close > 0.03)
    size = 0.0 if p.signal == "HOLD" else p.size / (2 if volatile else 1)
    stop = p.stop()
    conf = round(min(0.9, 0.45 + 0.07 * abs(score(p.points))), 2)
    sized = f"{size:.1f}% of the portfolio at {fmt(p.close)}" if size else "no new position (0%)"
    stopped = f", stop {fmt(stop)}" if stop else ""
    lines.append(f"**{p.signal} {p.ticker}**: {sized}{stopped}, for 2-6 weeks; confidence {conf}.")
    why = [x.text for x in p.points if (x.stance > 0) == (p.signal != "SELL") and x.stance][:3]
    lines.append(f"Why: the evidence nets {score(p.points):+d}; "
                 f"{'; '.join(why) or 'no signal is strong enough to act on'}.")
    if volatile and size:
        lines.append("The Safe Analyst's point on volatility wins: the size is halved.")
    return "\n\n".join(lines)


_LEAD = re.compile(r"\*\*(?P<signal>BUY|SELL|HOLD) [^*]+\*\*: (?P<size>.+?)(?: at (?P<entry>[\d,.]+))?"
                   r"(?:, stop (?P<stop>[\d,.]+))?, for (?P<horizon>[^;]+); confidence (?P<confidence>[\d.]+)\.")


def _read_ruling(text: str) -> dict[str, object]:
    """The demo judge's ruling: `Field: value` lines (a scripted judge's), else its one-line lead."""
    args = parse_ruling(text)
    if args["signal"] is not None or not (m := _LEAD.search(text)):
        return args
    rest = text[m.end():].strip()
    return {"signal": m["signal"], "position_size": m["size"], "entry": m["entry"] or "n/a",
            "stop": m["stop"] or "n/a", "horizon": m["horizon"], "confidence": float(m["confidence"]),
            "rationale": " ".join(rest.replace("Why: ", "").split()) or "n/a"}


def _extract_decision(text: str) -> AIMessage:
    args = _read_ruling(sections(text).get("Ruling", text))
    return AIMessage(content="", tool_calls=[{"name": "FinalDecision", "args": args, "id": None, "type": "tool_call"}])


_STOP = frozenset(
    """
    the a an and or of to in on for is was were what why how did does do about it its this that
    with me you your our we i be at by as from so
    """.split()
)


def _record(system: str) -> dict[str, str]:
    """The Desk's prompt by who said it: each persona's contributions to the case file, merged,
    and the notes after it (the final decision, interjections, earlier decisions)."""
    out: dict[str, str] = {}
    for name, text in sections(system).items():
        if name in ("Your role", EARLIER_ANALYSES):  # the Desk's own instructions; other analyses
            continue
        said = turns(text)
        if not said:
            out[name] = text
        for persona, words in said:
            out[persona] = f"{out[persona]}\n\n{words}" if persona in out else words
    return out


def _persona_hits(names, q: str) -> list[str]:
    return [name for name in names if any(w in q for w in name.lower().split() if w not in ("analyst", "researcher"))]


@dataclass(frozen=True)
class _Earlier:
    """One of the thread's earlier analyses as the Desk's notes list it."""
    decision: str            # "AAPL 2024-05-06: BUY (confidence 0.66)"
    said: dict[str, str]     # persona (and "Rationale") -> its gist

    @property
    def ticker(self) -> str:
        return self.decision.split()[0]


def _earlier(system: str) -> list[_Earlier]:
    out = []
    for heading, body in turns(sections(system).get(EARLIER_ANALYSES, "")):
        said = {m[1]: m[2] for m in re.finditer(r"^- ([^:\n]+): (.+)$", body, re.M)}
        out.append(_Earlier(heading, said))
    return out


_COMPARE = re.compile(r"\b(?:compar\w*|versus|vs|differ\w*|previous|earlier|last\s+decision)\b")


def _current_line(secs: dict[str, str], ticker: str, date: str) -> str:
    decision = dict(re.findall(r"^(Signal|Confidence|Rationale): (.+)$", secs.get("Final decision", ""), re.M))
    if not decision:
        return f"{ticker} {date}: {STOPPED}"
    line = f"{ticker} {date}: {decision['Signal']} (confidence {decision.get('Confidence', 'n/a')})"
    return line + (f". {gist(decision['Rationale'])}" if decision.get("Rationale") else "")


def _about_earlier(secs: dict[str, str], earlier: list[_Earlier], question: str, ticker: str, date: str) -> str:
    """A follow-up about the thread's earlier analyses: one named by its ticker, or a comparison."""
    q = question.lower()
    named = [e for e in earlier if e.ticker != ticker and re.search(rf"(?<![\w.]){re.escape(e.ticker)}\b", question,
                                                                     re.I)]
    if _COMPARE.search(q):
        other = named[-1] if named else earlier[-1]
        now = _current_line(secs, ticker, date)
        out = ["Comparing with the earlier analysis in this chat:", f"- Now: {now}",
               f"- Before: {other.decision}" + (f". {other.said['Rationale']}" if "Rationale" in other.said else "")]
        sig_now = re.search(r": (BUY|SELL|HOLD)\b", now)
        sig_then = re.search(r": (BUY|SELL|HOLD)\b", other.decision)
        if sig_now and sig_then:
            out.append("Same call both times." if sig_now[1] == sig_then[1] else
                       f"The call changed from {sig_then[1]} ({other.ticker}) to {sig_now[1]} ({ticker}).")
        if len(earlier) > 1:
            out.append("The chat's earlier analyses: " + "; ".join(e.decision for e in earlier) + ".")
        return "\n".join(out)
    target = named[-1]
    out = [f"From the earlier analysis in this chat, {target.decision}:"]
    hits = _persona_hits([name for name in target.said if name != "Rationale"], q)
    out += [f"- {name}: “{target.said[name]}”" for name in hits[:2]]
    if not hits:
        out.append(f"- Rationale: {target.said.get('Rationale', 'none recorded (the run was stopped)')}")
    return "\n".join(out)


def _desk(system: str, question: str) -> str:
    secs = _record(system)
    ticker, _, date = _subject(system)
    q = question.lower()
    earlier = _earlier(system)
    if earlier and (_COMPARE.search(q) or any(
            e.ticker != ticker and re.search(rf"(?<![\w.]){re.escape(e.ticker)}\b", question, re.I) for e in earlier)):
        return _about_earlier(secs, earlier, question, ticker, date)
    fig = figures_in(system)
    persona_hits = _persona_hits(secs, q)
    figure_hits = [label for label, words in _TOPICS.items() if label in fig and
                   (any(w in q for w in words) or label.lower() in q)]
    out = [f"From the stored deliberation on {ticker} for {date}:"]
    for name in persona_hits[:2]:
        paragraphs = [p.strip() for p in secs[name].split("\n\n") if p.strip()]
        # Its own words (its conclusion, then its evidence), not its quote of someone else.
        own = " ".join(p for p in paragraphs if not _REBUTTAL.match(p)) or (paragraphs[0] if paragraphs else "")
        body = re.split(r"(?<=[.!?])\s", own.replace("\n", " "))
        out.append(f"- {name}: “{' '.join(body[:2]).strip()}”")
    for label in figure_hits[:4]:
        out.append(f"- {label} was {fig[label]} (from the analysts' key figures).")
    if len(out) == 1:
        words = {w for w in re.findall(r"[a-z/%]+", q) if w not in _STOP and len(w) > 2}
        best = []
        for name, section in secs.items():
            for sentence in re.split(r"(?<=[.!?])\s|\n", section):
                overlap = len(words & set(re.findall(r"[a-z/%]+", sentence.lower())))
                if overlap:
                    best.append((overlap, name, sentence.strip()))
        best.sort(key=lambda b: -b[0])
        out += [f"- {name}: “{s}”" for _, name, s in best[:3]]
    if len(out) == 1:
        decision = secs.get("Final decision", "no decision is stored")
        first = decision.splitlines()[0] if decision else "n/a"
        out.append(f"The record does not cover that. The decision was: {first}. "
                   "Ask for a new analysis if you need fresh data.")
    return "\n".join(out)
