"""The run plan: who speaks, in which order, in which stage — the one source for the graph's
routing, the chat's progress list and the prediction of who reads an interjection.

An analysis is a fixed sequence once its shape is known (which analysts, how many rounds):
the analysts (together or one after another), then one speaker at a time —
Bull ⇄ Bear × N, Research Manager, Trader, Risky → Safe → Neutral × M, Risk Judge.
Where a run stands is read from the state (turns spoken, plans written), so any point of the
sequence, an edited one included, knows what remains.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .personas import (
    ANALYST_BY_KIND,
    ANALYST_KINDS,
    DEBATERS,
    DEFAULT_ANALYST_KINDS,
    INVESTMENT_SIDES,
    RESEARCH_MANAGER,
    RISK_JUDGE,
    RISK_SIDES,
    TRADER,
)
from .settings import Settings
from .state import Debate

RESEARCH_MANAGER_NODE, TRADER_NODE, RISK_JUDGE_NODE = "research_manager", "trader", "risk_judge"


@dataclass(frozen=True)
class Slot:
    """One speaking turn of the plan."""
    node: str
    persona: str
    stage: str
    round: int = 0   # 1-based within a debate; 0 outside one


@dataclass(frozen=True)
class Stage:
    title: str
    personas: frozenset[str]


def _rounds(n: int) -> str:
    return f"{n} round{'s' * (n > 1)}"


@dataclass(frozen=True)
class RunPlan:
    analysts: tuple[str, ...] = DEFAULT_ANALYST_KINDS
    debate_rounds: int = 1
    risk_rounds: int = 1
    parallel_analysts: bool = True

    @classmethod
    def of(cls, settings: Settings, *, analysts: Iterable[str] | None = None, debate_rounds: int | None = None,
           risk_rounds: int | None = None) -> RunPlan:
        """The next analysis' shape: the settings' defaults, overridden by what a user chose."""
        kinds = tuple(k for k in ANALYST_KINDS if k in set(analysts or settings.analysts))
        return cls(analysts=kinds or DEFAULT_ANALYST_KINDS, debate_rounds=debate_rounds or settings.debate_rounds,
                   risk_rounds=risk_rounds or settings.risk_rounds, parallel_analysts=settings.parallel_analysts)

    @classmethod
    def from_state(cls, state: Mapping[str, Any], parallel_analysts: bool = True) -> RunPlan:
        kinds = tuple(k for k in ANALYST_KINDS if k in set(state.get("analysts") or DEFAULT_ANALYST_KINDS))
        return cls(analysts=kinds or DEFAULT_ANALYST_KINDS, debate_rounds=state.get("debate_rounds") or 1,
                   risk_rounds=state.get("risk_rounds") or 1, parallel_analysts=parallel_analysts)

    def state_fields(self) -> dict[str, Any]:
        """The plan as the graph's input fields (the coordinator keeps them for the run)."""
        return {"analysts": list(self.analysts), "debate_rounds": self.debate_rounds,
                "risk_rounds": self.risk_rounds}

    # -- the order ---------------------------------------------------------

    @property
    def investment_stage(self) -> str:
        return f"Bull ⇄ Bear debate ({_rounds(self.debate_rounds)})"

    @property
    def risk_stage(self) -> str:
        return f"Risk debate ({_rounds(self.risk_rounds)})"

    def analyst_slots(self) -> tuple[Slot, ...]:
        specs = (ANALYST_BY_KIND[k] for k in self.analysts)
        return tuple(Slot(a.node, a.persona, a.persona) for a in specs)

    def turns(self) -> tuple[Slot, ...]:
        """The speakers after the analysts, one at a time."""
        def debate(sides: Sequence[str], rounds: int, stage: str) -> list[Slot]:
            return [Slot(side, DEBATERS[side].persona, stage, r + 1) for r in range(rounds) for side in sides]

        return (*debate(INVESTMENT_SIDES, self.debate_rounds, self.investment_stage),
                Slot(RESEARCH_MANAGER_NODE, RESEARCH_MANAGER, RESEARCH_MANAGER),
                Slot(TRADER_NODE, TRADER, TRADER),
                *debate(RISK_SIDES, self.risk_rounds, self.risk_stage),
                Slot(RISK_JUDGE_NODE, RISK_JUDGE, RISK_JUDGE))

    def slots(self) -> tuple[Slot, ...]:
        return (*self.analyst_slots(), *self.turns())

    def stages(self) -> list[Stage]:
        """Progress stages in order: a title and the personas that speak in it."""
        titles: dict[str, set[str]] = {}
        for slot in self.slots():
            titles.setdefault(slot.stage, set()).add(slot.persona)
        return [Stage(title, frozenset(who)) for title, who in titles.items()]

    # -- where a run stands ------------------------------------------------

    @staticmethod
    def turns_done(state: Mapping[str, Any]) -> int:
        """How many of the turns after the analysts are in the state: debate turns count one
        each, a written plan one; the order of `turns()` makes that a position."""
        investment = state.get("investment_debate") or Debate()
        risk = state.get("risk_debate") or Debate()
        return (investment.count + bool(state.get("investment_plan")) + bool(state.get("trader_plan"))
                + risk.count + (state.get("final_decision") is not None))

    def spoken(self, state: Mapping[str, Any]) -> list[str]:
        """The personas whose turns are in the state, in plan order (a resumed run starts after them)."""
        specs = (ANALYST_BY_KIND[k] for k in self.analysts)
        analysts = [a.persona for a in specs if state.get(a.report_key)]
        return analysts + [s.persona for s in self.turns()[:self.turns_done(state)]]

    def next_node(self, state: Mapping[str, Any]) -> str:
        """The graph's route after any speaker: the next turn, or the judge when all were spoken."""
        turns = self.turns()
        return turns[min(self.turns_done(state), len(turns) - 1)].node

    def next_analyst(self, node: str) -> str | None:
        """In sequence, the analyst after `node`; None when the analysts are done (or run together)."""
        nodes = [s.node for s in self.analyst_slots()]
        if self.parallel_analysts or node not in nodes or nodes.index(node) + 1 == len(nodes):
            return None
        return nodes[nodes.index(node) + 1]

    def first_nodes(self) -> list[str]:
        """Where an analysis starts: every selected analyst at once, or the first of them."""
        nodes = [s.node for s in self.analyst_slots()]
        return nodes if self.parallel_analysts else nodes[:1]

    def next_reader(self, started: Iterable[str]) -> Slot | None:
        """The speaker that reads a note posted now, given the personas whose turns have started
        (speakers read the inbox when their turn starts). None before the desk has started."""
        started = list(started)
        if not started:
            return None
        left = Counter(started)
        analysts = self.analyst_slots()
        if self.parallel_analysts and any(s.persona in left for s in analysts):
            left.update(s.persona for s in analysts if s.persona not in left)  # they start together
        for slot in self.slots():
            if left[slot.persona]:
                left[slot.persona] -= 1
            else:
                return slot
        return None
