"""The demo debaters: the bull and the bear argue the signals' count, the risk committee (risky,
safe, neutral) argues the size and the stop of the trader's plan; each quotes and answers the
previous speaker, and a later round adds what is new."""
from __future__ import annotations

import re

from ..core.personas import INVESTMENT_SIDES, RISK_SIDES, SIDE_OF
from ..record.case import INVESTMENT_DEBATE, RISK_DEBATE
from .demo_decision import _Plan, _plan
from .demo_figures import Point, _subject, figures_in, fmt, read_points, sections, turns
from .demo_notes import _notes_block

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
