"""The demo Desk's follow-up answers, from the stored record: what a persona said, a figure
asked about, the sentences nearest the question, or the thread's earlier analyses compared."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.chinese_script import to_simplified
from ..core.personas import DEBATERS, RESEARCH_MANAGER, RISK_JUDGE, TRADER
from ..core.prompts import without_instructions
from ..notes.address import named
from ..record.case import CUT, EARLIER_ANALYSES, STOPPED, gist
from .demo_debate import _REBUTTAL
from .demo_figures import _subject, figures_in, sections, turns
from .demo_notes import _TOPICS

_STOP = frozenset(
    """
    the a an and or of to in on for is was were what why how did does do about it its this that
    with me you your our we i be at by as from so
    """.split()
)


# The words of a question and the turns that answer it, as a live model would read them: how
# cautious, how big, where the stop is, is the risk debate's and the ruling's; the entry is the
# Trader's; the plan, the Research Manager's. Speakers in the order they are quoted.
_PARTS: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (frozenset("""
        conservative conservatively cautious caution careful safe safer risk risks risky riskier aggressive
        aggressively size sizing sized position halve halved halving smaller bigger larger stop stops
        volatility volatile drawdown exposure downside loss losses lose
        """.split()),
     (RISK_JUDGE, DEBATERS["safe"].persona, DEBATERS["risky"].persona, DEBATERS["neutral"].persona)),
    (frozenset("entry enter execute execution order target targets".split()), (TRADER,)),
    (frozenset("plan thesis verdict".split()), (RESEARCH_MANAGER,)),
)


# The same parts asked in Chinese ("风险裁判为什么谨慎？"): each word read as the English one it means.
_ZH_ASKED = {"谨慎": "cautious", "保守": "conservative", "小心": "careful", "风险": "risk", "仓位": "size",
             "止损": "stop", "波动": "volatility", "回撤": "drawdown", "下行": "downside", "亏损": "loss",
             "入场": "entry", "买入价": "entry", "目标": "target", "计划": "plan", "论点": "thesis"}


def _asked(q: str) -> set[str]:
    """A question's words, its Chinese ones as the English words they mean."""
    simplified = to_simplified(q)
    return set(re.findall(r"[a-z]+", q)) | {word for zh, word in _ZH_ASKED.items() if zh in simplified}


def _part_of(q: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """The part of the deliberation a question asks about (the first its words name), or None."""
    asked = _asked(q)
    return next(((words, speakers) for words, speakers in _PARTS if asked & words), None)


def _answering_turns(secs: dict[str, str], q: str, first: Sequence[str] = ()) -> list[str]:
    """Quotes from the turns that answer a question of one part of the deliberation: each speaker's
    sentence sharing the most words with the question and the part, the personas it names first."""
    part = _part_of(q)
    if part is None:
        return []
    words, speakers = part
    asked = _asked(q)
    out = []
    for name in (s for s in dict.fromkeys([*first, *speakers]) if secs.get(s)):
        sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s|\n", secs[name]) if s.strip()]
        best = max(sentences, key=lambda s: len((asked | words) & set(re.findall(r"[a-z]+", s.lower()))))
        out.append(f"- {name}: “{best.lstrip('*# ')}”")
    return out[:3]


def _record(system: str) -> dict[str, str]:
    """The Desk's prompt by who said it: each persona's contributions to the case file, merged,
    and the notes after it (the final decision, interjections, earlier decisions)."""
    out: dict[str, str] = {}
    for name, text in sections(system).items():
        # The Desk's own instructions; other analyses; the track record (answered on its own, when asked).
        if name in ("Your role", EARLIER_ANALYSES) or _TRACK in name.lower():
            continue
        said = turns(text)
        if not said:  # a section the desk wrote for its models: its facts, not its instructions
            out[name] = without_instructions(text)
        for persona, words in said:
            if words.endswith(CUT):  # a turn's claims only: the Desk reads it whole further on (record/case.py)
                continue
            out[persona] = f"{out[persona]}\n\n{words}" if persona in out else words
    return out


def _persona_hits(names, q: str) -> list[str]:
    """The personas among `names` a question asks about: a word of their name ("bear", "judge"), or their
    name in Chinese (graph's notes read it: "空头为什么担心？")."""
    said = named(q)
    return [name for name in names if name in said or
            any(w in q for w in name.lower().split() if w not in _STOP and w not in ("analyst", "researcher"))]


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


_TRACK = "track record"
# A question about the track record shown or recalled, rather than about this deliberation.
_ABOUT_RECORD = re.compile(r"\b(?:record|track|past\s+calls?|lessons?|history|last\s+time|were\s+you\s+right|"
                           r"calls?\s+(?:was|were)|worst|best|alpha|hit\s+rate)\b")


def _about_record(system: str, q: str) -> str | None:
    """The lines of the track record (as recalled for this analysis, or as /record showed it) that
    answer a question about it: those sharing the most words with it, else all its entries."""
    tracks = [body for name, body in sections(system).items() if _TRACK in name.lower()]
    if not tracks or not _ABOUT_RECORD.search(q):
        return None
    lines = [line.strip() for body in tracks for line in body.splitlines()
             if line.strip().startswith(("- ", "| 20"))]
    words = {w for w in re.findall(r"[a-z]+", q) if w not in _STOP and len(w) > 2}
    scored = sorted(((len(words & set(re.findall(r"[a-z]+", line.lower()))), i, line)
                     for i, line in enumerate(lines)), key=lambda x: (-x[0], x[1]))
    chosen = [line for n, _, line in scored if n][:3] or lines[:3]
    if not chosen:
        return "From your track record: no call is on record yet."
    return "From your track record:\n" + "\n".join(f"- {line.lstrip('- ')}" for line in chosen)


def _desk(system: str, question: str) -> str:
    """A follow-up's answer: about the track record when it asks about it, else about the deliberation."""
    return _about_record(system, question.lower()) or _about_deliberation(system, question)


def _persona_quotes(secs: dict[str, str], names: list[str], q: str) -> list[str]:
    """What the personas a question names said: for a question of their part of the deliberation ("why was
    the judge cautious?"), their reason for it; else each one's conclusion and evidence."""
    part = _part_of(q)
    if names and part is not None and all(name in part[1] for name in names):
        return _answering_turns(secs, q, first=names)
    out = []
    for name in names[:2]:
        paragraphs = [p.strip() for p in secs[name].split("\n\n") if p.strip()]
        # Its own words (its conclusion, then its evidence), not its quote of someone else.
        own = " ".join(p for p in paragraphs if not _REBUTTAL.match(p)) or (paragraphs[0] if paragraphs else "")
        body = re.split(r"(?<=[.!?])\s", own.replace("\n", " "))
        out.append(f"- {name}: “{' '.join(body[:2]).strip()}”")
    return out


def _about_deliberation(system: str, question: str) -> str:
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
    out = [f"From the stored deliberation on {ticker} for {date}:", *_persona_quotes(secs, persona_hits, q)]
    for label in figure_hits[:4]:
        out.append(f"- {label} was {fig[label]} (from the analysts' key figures).")
    if len(out) == 1:
        out += _answering_turns(secs, q)
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
