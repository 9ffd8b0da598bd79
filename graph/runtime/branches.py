"""Editing the past: the steps of a thread's current branch, forks at a step, and switching branches.

Built on LangGraph's time travel, not on a copy of the graph. A thread's checkpoints form a tree
(each checkpoint names its parent); the *current branch* is the line of parents from the newest
checkpoint, which is the one every run and follow-up continues from. An edit finds the
checkpoint right after the edited step on that line, writes the new words there as the step's
node would have written them (`aupdate_state(..., as_node=<that node>)`), and the desk continues
with input None: LangGraph routes from the edited node, so only what follows is re-run. The old
branch keeps its checkpoints, readable and switchable back to.

Parallel analysts finish in one superstep, so "right after the Market report" is the checkpoint
after all four reports; the update as the market node routes to the first debater only, and no
analyst runs again.

Interjections: notes answered up to the edited step are in the fork's state and stay answered;
notes answered later on the old branch were read after the fork point, so the first speaker
re-run after the edit reads them again (the inbox keeps every note; state only counts them).
"""
from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import InvalidUpdateError
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateSnapshot

from graph.core import clock

from ..core.context import thread_config
from ..core.errors import DeskError
from ..core.personas import ANALYSTS, DEBATERS, PERSONA_OF_NODE
from ..core.plan import RESEARCH_MANAGER_NODE, RISK_JUDGE_NODE, TRADER_NODE, RunPlan, Slot
from ..core.state import Debate, FinalDecision
from ..models.ruling import stated_call
from ..record.case import checked_entries, turn_key
from ..record.edits import short_decision
from ..request import clean_message

Graph = CompiledStateGraph[Any, Any, Any, Any]

_ANALYST_OF_NODE = {a.node: a for a in ANALYSTS}
_STEP_OF_NODE = {RESEARCH_MANAGER_NODE: "manager", TRADER_NODE: "trader"}
FIRST_WORDS = 12
ORIGINAL = "original"  # the key of the branch before any edit


class EditRefused(DeskError):
    """An edit that cannot be made (no such step, no words, no such branch); the message says why."""


@dataclass(frozen=True)
class StepKey:
    """Where a contribution sits in the plan, and how to read it from a state."""
    id: str          # "market", "bull-1", "manager", "trader", "risky-2": the same position on every branch
    node: str
    persona: str
    round: int = 0

    @property
    def label(self) -> str:
        return f"{self.persona}, round {self.round}" if self.round else self.persona

    def text(self, state: Mapping[str, Any]) -> str | None:
        """The step's words in `state`, or None when it has not spoken there."""
        if (spec := _ANALYST_OF_NODE.get(self.node)) is not None:
            return state.get(spec.report_key) or None
        if self.node == RESEARCH_MANAGER_NODE:
            return state.get("investment_plan") or None
        if self.node == TRADER_NODE:
            return state.get("trader_plan") or None
        if self.node == RISK_JUDGE_NODE:
            ruled = state.get("final_decision") is not None
            return ((state.get("risk_debate") or Debate()).judge_decision or "(ruled)") if ruled else None
        turn = _turn_index(self.node, self.round)
        debate: Debate = state.get(DEBATERS[self.node].debate_key) or Debate()
        return debate.turns[turn].text if debate.count > turn and debate.turns[turn].side == self.node else None


def _turn_index(side: str, round_no: int) -> int:
    """A debate turn's position in its debate's transcript."""
    sides = [s for s in DEBATERS if DEBATERS[s].debate_key == DEBATERS[side].debate_key]
    return (round_no - 1) * len(sides) + sides.index(side)


def _key(slot: Slot) -> StepKey:
    if (spec := _ANALYST_OF_NODE.get(slot.node)) is not None:
        return StepKey(spec.kind, slot.node, slot.persona)
    if slot.node in DEBATERS:
        return StepKey(f"{slot.node}-{slot.round}", slot.node, slot.persona, slot.round)
    return StepKey(_STEP_OF_NODE.get(slot.node, slot.node), slot.node, slot.persona)


def _sequence(plan: RunPlan) -> list[tuple[StepKey, StepKey]]:
    """Each editable step with the step that comes after it (parallel analysts: the first turn)."""
    slots = plan.slots()
    keys = [_key(s) for s in slots]
    analysts = len(plan.analyst_slots())
    out = []
    for i, key in enumerate(keys[:-1]):  # the last is the Risk Judge: its ruling is the decision, not editable
        after = keys[analysts] if plan.parallel_analysts and i < analysts else keys[i + 1]
        out.append((key, after))
    return out


@dataclass(frozen=True)
class Step:
    """One finished contribution on the current branch."""
    id: str
    persona: str
    label: str        # "Bull Researcher, round 2"
    text: str
    checkpoint_id: str  # the checkpoint right after it: where an edit of it forks
    node: str
    round: int = 0

    @property
    def first_words(self) -> str:
        words = self.text.split()
        return " ".join(words[:FIRST_WORDS]) + (" …" if len(words) > FIRST_WORDS else "")


@dataclass(frozen=True)
class Branch:
    """One line of the thread's checkpoint tree, named by its newest checkpoint."""
    head: str
    current: bool
    forked: Mapping[str, Any] | None   # the edit that started it (None: the original line)
    decision: FinalDecision | None
    created_at: str

    @property
    def key(self) -> str:
        """What stays the branch's name as it grows (its head moves with every checkpoint): the
        id of the edit that started it, "original" for the line before any edit."""
        return str(self.forked["id"]) if self.forked else ORIGINAL

    @property
    def title(self) -> str:
        what = f"edit of {self.forked['label']}" if self.forked else "original"
        return f"{what} → {short_decision(self.decision)}"


@dataclass(frozen=True)
class Fork:
    """A fork made: the edited step, the new checkpoint, who speaks when it continues."""
    step: Step
    checkpoint_id: str
    next_personas: tuple[str, ...]


# -- the checkpoint tree ------------------------------------------------------------------


def _id(config: RunnableConfig | None) -> str:
    return str(((config or {}).get("configurable") or {}).get("checkpoint_id") or "")


class Tree:
    """Every checkpoint of a thread, by id, with the line back from any of them."""

    def __init__(self, snapshots: Sequence[StateSnapshot]):
        self.by_id = {_id(s.config): s for s in snapshots}
        self.parent = {i: _id(s.parent_config) for i, s in self.by_id.items()}
        # Checkpoint ids are time-ordered (uuid6), so the largest is the newest.
        self.newest = max(self.by_id, default="")

    def line(self, head: str) -> list[StateSnapshot]:
        """`head` and its ancestors, newest first."""
        out, at = [], head
        while at and at in self.by_id:
            out.append(self.by_id[at])
            at = self.parent[at]
        return out

    def leaves(self) -> list[str]:
        parents = set(self.parent.values())
        return sorted(i for i in self.by_id if i not in parents)


async def tree(graph: Graph, thread_id: str) -> Tree:
    return Tree([s async for s in graph.aget_state_history(thread_config(thread_id))])


# -- steps -----------------------------------------------------------------------------------


def steps_on(line: Sequence[StateSnapshot], parallel_analysts: bool) -> list[Step]:
    """The finished contributions of the analysis at the line's head, each with the newest
    checkpoint of the line where it is the latest word (its successor has not spoken yet)."""
    if not line:
        return []
    head = line[0].values or {}
    plan = RunPlan.from_state(head, parallel_analysts)
    out = []
    for key, after in _sequence(plan):
        text = key.text(head)
        if text is None:
            continue
        at = next((s for s in line if key.text(s.values or {}) is not None and after.text(s.values or {}) is None),
                  None)
        if at is None:  # only a state written outside the graph could have it without a checkpoint
            continue
        out.append(Step(key.id, key.persona, key.label, text, _id(at.config), key.node, key.round))
    return out


async def steps(graph: Graph, thread_id: str, parallel_analysts: bool) -> list[Step]:
    """The steps of the thread's current branch, in speaking order."""
    t = await tree(graph, thread_id)
    return steps_on(t.line(t.newest), parallel_analysts)


def _step(found: Sequence[Step], step_id: str) -> Step:
    for step in found:
        if step.id == step_id:
            return step
    ids = ", ".join(s.id for s in found) or "none yet"
    raise EditRefused(f"no step {step_id!r} on this thread's current branch (steps: {ids})")


# -- a fork -----------------------------------------------------------------------------------


def _said(messages: Sequence[BaseMessage], persona: str, text: str) -> list[AIMessage]:
    """The persona's message in the conversation, rewritten in place (same id: add_messages replaces it)."""
    mine = next((m for m in reversed(messages) if isinstance(m, AIMessage) and m.name == persona), None)
    return [AIMessage(content=text, name=persona, **({"id": mine.id} if mine is not None and mine.id else {}))]


def edited_values(step: Step, state: Mapping[str, Any], text: str) -> dict[str, Any]:
    """What the step's node would have written had it said `text` (the state is the one right after it)."""
    update: dict[str, Any] = {"messages": _said(state.get("messages") or [], step.persona, text)}
    if (spec := _ANALYST_OF_NODE.get(step.node)) is not None:
        update[spec.report_key] = text
    elif step.node == RESEARCH_MANAGER_NODE:
        debate: Debate = state.get("investment_debate") or Debate()
        update |= {"investment_plan": text, "investment_debate": debate.model_copy(update={"judge_decision": text}),
                   "plan_calls": {step.persona: stated_call(text)}}  # the edited words' own call (or none)
    elif step.node == TRADER_NODE:
        update |= {"trader_plan": text, "plan_calls": {step.persona: stated_call(text)}}
    else:
        key = DEBATERS[step.node].debate_key
        debate = state.get(key) or Debate()
        index = _turn_index(step.node, step.round)
        turns = list(debate.turns)
        turns[index] = turns[index].model_copy(update={"text": text})
        update[key] = debate.model_copy(update={"turns": turns})
    return update


def _check_key(step: Step, state: Mapping[str, Any]) -> str:
    """The step's key in state["unverified"]: right after it, it is its persona's latest entry."""
    keys = [key for entry, key in checked_entries(state) if entry.persona == step.persona]
    return keys[-1] if keys else turn_key(step.persona, 0)


async def fork(graph: Graph, thread_id: str, step_id: str, new_text: str, parallel_analysts: bool,
               posted: Sequence[str] = (), rerun: Mapping[str, Any] | None = None) -> Fork:
    """Fork the current branch right after `step_id`, with `new_text` as that persona's words.
    Continue the thread with input None (`DeskRuntime.events(None, ...)`) to re-run what follows.
    `posted`: the keys of the notes posted before the fork, which belong to the branch left behind (a
    note sent to the Bear there, after its turn, was answered by the Bear of the new branch). `rerun`: values the
    re-run reads as they are now, not as the forked analysis read them (the user's book), unless nothing that
    reads them runs again (the Risk Judge's own words edited)."""
    cleaned = clean_message(new_text)
    if not cleaned.usable:
        raise EditRefused("the edited text is empty; write what the persona should have said")
    t = await tree(graph, thread_id)
    line = t.line(t.newest)
    step = _step(steps_on(line, parallel_analysts), step_id)
    base = t.by_id[step.checkpoint_id]
    head = line[0].values or {}
    values = edited_values(step, base.values or {}, cleaned.text)
    values["forked"] = {
        "id": uuid.uuid4().hex, "at": clock.now().isoformat(),
        "step": step.id, "persona": step.persona, "label": step.label, "was": step.text, "now": cleaned.text,
        "from_checkpoint": step.checkpoint_id, "parent_head": _id(line[0].config),
        "parent_decision": head.get("final_decision"),
    }
    # The edited words are the user's own: the figure check's flags of the persona's words are
    # dropped (what later speakers cite from them counts as checked, like the user's messages).
    values["unverified"] = {_check_key(step, base.values or {}): []}
    if posted:
        values["inbox_read"] = list(posted)
    if rerun and step.node != RISK_JUDGE_NODE:
        values |= rerun
    config = await graph.aupdate_state(base.config, values, as_node=step.node)
    after = await graph.aget_state(config)
    return Fork(step, _id(config), tuple(PERSONA_OF_NODE.get(n, n) for n in after.next))


# -- branches ------------------------------------------------------------------------------


def _fork_on(line: Sequence[StateSnapshot]) -> Mapping[str, Any] | None:
    """The newest edit on a line (a later analysis clears `forked`; its branch still began there)."""
    return next((f for s in line if (f := (s.values or {}).get("forked"))), None)


async def branches(graph: Graph, thread_id: str) -> list[Branch]:
    """Every branch of the thread, the original first, then by when their edit was made; the
    current one is marked."""
    t = await tree(graph, thread_id)
    out = []
    for leaf in t.leaves():
        line = t.line(leaf)
        values = line[0].values or {}
        out.append(Branch(leaf, leaf == t.newest, _fork_on(line), values.get("final_decision"),
                          str(line[0].created_at or "")))
    return sorted(out, key=lambda b: str(b.forked["at"]) if b.forked else "")


async def branch_of(graph: Graph, thread_id: str, checkpoint_id: str) -> Branch | None:
    """The branch a checkpoint was on: a leaf whose line holds it and whose edit is the one in
    effect there (a fork right at the checkpoint holds it too, under its own edit)."""
    t = await tree(graph, thread_id)
    if checkpoint_id not in t.by_id:
        return None
    at = (t.by_id[checkpoint_id].values or {}).get("forked")
    heads = [leaf for leaf in t.leaves() if checkpoint_id in {_id(s.config) for s in t.line(leaf)}
             and ((_fork_on(t.line(leaf)) or {}).get("id") == (at or {}).get("id"))]
    found = {b.head: b for b in await branches(graph, thread_id)}
    return found[max(heads)] if heads else None


async def switch(graph: Graph, thread_id: str, head: str) -> Branch:
    """Make the branch whose newest checkpoint is `head` (or starts with it) the current one.

    A checkpoint is written on top of it, with nothing changed: being the newest, it is where
    runs and follow-ups continue; its old head gains a child, so the branch is still one leaf."""
    t = await tree(graph, thread_id)
    found = [leaf for leaf in t.leaves() if leaf.startswith(head)] if head else []
    if len(found) != 1:
        raise EditRefused(f"no single branch {head!r} on this thread (branches: {', '.join(t.leaves())})")
    leaf = found[0]
    if leaf != t.newest:
        snapshot = t.by_id[leaf]
        try:  # as the node that wrote it last (LangGraph infers it): its route leads where it led
            await graph.aupdate_state(snapshot.config, {})
        except InvalidUpdateError:  # parallel analysts wrote it together: any of them routes the same
            first = RunPlan.from_state(snapshot.values or {}).analyst_slots()[0].node
            await graph.aupdate_state(snapshot.config, {}, as_node=first)
    return next(b for b in await branches(graph, thread_id) if b.current)


# -- what changed ----------------------------------------------------------------------------------
