"""Tokens a run spends, per persona: counted from the models' own usage reports, kept in the
thread's state, checked against the run's budget before every call, and summed up for the user.

Plain dicts (TypedDicts), not pydantic models: they checkpoint as they are, on any serializer.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from typing_extensions import TypedDict

from .errors import DeskError
from .personas import ALL_PERSONAS, persona_label
from .words import DEFAULT_LANGUAGE, phrase

# Characters per token for estimates (a model's own count is used whenever it sends one).
CHARS_PER_TOKEN = 4
# The completion a call is assumed to need when it has no output cap.
UNCAPPED_COMPLETION = 1000


class Usage(TypedDict, total=False):
    prompt: int       # prompt tokens, cached ones included
    cached: int       # prompt tokens the server served from its prefix cache
    completion: int
    calls: int
    # Calls whose server sent no counts (llama-cpp-python's server when streaming): their
    # tokens are estimated from the text, and the summary says so.
    estimated: int


class RunUsage(TypedDict):
    # The id of the user message that started the run: a new message starts a new count,
    # a resumed run goes on counting.
    run: str
    personas: dict[str, Usage]


def no_usage() -> Usage:
    return Usage(prompt=0, cached=0, completion=0, calls=0, estimated=0)


def added(a: Usage, b: Usage) -> Usage:
    # .get: counts checkpointed before `estimated` existed lack it
    return Usage(prompt=a.get("prompt", 0) + b.get("prompt", 0), cached=a.get("cached", 0) + b.get("cached", 0),
                 completion=a.get("completion", 0) + b.get("completion", 0),
                 calls=a.get("calls", 0) + b.get("calls", 0), estimated=a.get("estimated", 0) + b.get("estimated", 0))


def tokens(u: Usage) -> int:
    """What a budget counts: every token sent and received (cached prompt tokens too)."""
    return u["prompt"] + u["completion"]


def merge_usage(old: RunUsage, new: RunUsage) -> RunUsage:
    """The state's reducer: each speaker writes what it spent; parallel speakers add up, and a
    count from another run (a new user message) replaces the old one."""
    if not new:
        return old or RunUsage(run="", personas={})
    if not old or old.get("run") != new.get("run"):
        return RunUsage(run=new["run"], personas=dict(new["personas"]))
    personas = dict(old["personas"])
    for persona, spent in new["personas"].items():
        personas[persona] = added(personas.get(persona, no_usage()), spent)
    return RunUsage(run=old["run"], personas=personas)


def run_total(usage: RunUsage | None) -> Usage:
    total = no_usage()
    for spent in (usage["personas"] if usage else {}).values():
        total = added(total, spent)
    return total


def usage_of(message: BaseMessage, prompt: Sequence[BaseMessage] | None = None) -> Usage:
    """One reply's usage as the model reported it. A server that reported none gets an estimate
    from the prompt's and the reply's text (when the prompt is given), counted as estimated."""
    meta: Mapping[str, Any] = getattr(message, "usage_metadata", None) or {}
    if not (meta.get("input_tokens") or meta.get("output_tokens")) and prompt is not None:
        said = message.content if isinstance(message.content, str) else str(message.content)
        calls = "".join(str(c.get("name", "")) + str(c.get("args", "")) for c in getattr(message, "tool_calls", []))
        return Usage(prompt=estimate_prompt(prompt), cached=0, completion=estimate_tokens(said + calls),
                     calls=1, estimated=1)
    details: Mapping[str, Any] = meta.get("input_token_details") or {}
    return Usage(prompt=int(meta.get("input_tokens") or 0), cached=int(details.get("cache_read") or 0),
                 completion=int(meta.get("output_tokens") or 0), calls=1, estimated=0)


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def estimate_prompt(messages: Sequence[BaseMessage]) -> int:
    return sum(estimate_tokens(m.content if isinstance(m.content, str) else str(m.content)) for m in messages)


def run_of(state: Mapping[str, Any]) -> str:
    """The run a state belongs to: the id of its latest user message (resuming keeps it)."""
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage):
            return str(message.id or "")
    return ""


class BudgetReached(DeskError):
    """The run's token budget would be exceeded by the next call; the thread stays resumable."""


@dataclass
class Meter:
    """One speaker's model calls in a run: what the run had spent before it started, what it spends."""

    persona: str
    run: str
    before: int                  # tokens the run had spent when this speaker started
    budget: int | None = None
    used: Usage = field(default_factory=no_usage)

    @classmethod
    def of(cls, state: Mapping[str, Any], persona: str, budget: int | None) -> Meter:
        usage = this_run(state)
        return cls(persona, run_of(state), tokens(run_total(usage)) if usage else 0, budget)

    @property
    def spent(self) -> int:
        return self.before + tokens(self.used)

    def check(self, messages: Sequence[BaseMessage], max_tokens: int | None) -> None:
        """Before a call: stop if the run's spend plus this call's size would pass the budget.
        The call's size is its prompt (estimated from its text) and its whole output cap."""
        if self.budget is None:
            return
        need = estimate_prompt(messages) + (max_tokens or UNCAPPED_COMPLETION)
        if self.spent + need > self.budget:
            raise BudgetReached(key="errors.budget", persona=self.persona, budget=self.budget,
                                spent=self.spent, need=need)

    def add(self, message: BaseMessage, prompt: Sequence[BaseMessage] | None = None) -> None:
        self.used = added(self.used, usage_of(message, prompt))

    def update(self) -> dict[str, RunUsage]:
        """The state update that records this speaker's spend (nothing when it made no call)."""
        if not self.used["calls"]:
            return {}
        return {"usage": RunUsage(run=self.run, personas={self.persona: self.used})}


def _line(label: str, u: Usage, language: str) -> str:
    cached = phrase(language, "usage.cached", n=f"{u['cached']:,}") if u["cached"] else ""
    calls = phrase(language, "usage.one_call") if u["calls"] == 1 else phrase(language, "usage.calls", n=u["calls"])
    if u.get("estimated"):
        calls += phrase(language, "usage.estimated", n=u["estimated"])
    return phrase(language, "usage.line", label=label, total=f"{tokens(u):,}", prompt=f"{u['prompt']:,}",
                  cached=cached, completion=f"{u['completion']:,}", calls=calls)


def this_run(state: Mapping[str, Any]) -> RunUsage | None:
    """The state's spend if it is the latest run's: a follow-up answered without a model call leaves the
    analysis's before it in the state, which is not what this run spent."""
    usage: RunUsage | None = state.get("usage")
    return usage if usage and usage.get("run") == run_of(state) else None


def usage_summary(usage: RunUsage | None, language: str = DEFAULT_LANGUAGE) -> str:
    """The run's spend as text, for the CLI and the chat, in `language`: the total first, then each
    persona in speaking order. Empty when the run made no model call."""
    personas = usage["personas"] if usage else {}
    if not personas:
        return ""
    order = [p for p in ALL_PERSONAS if p in personas] + sorted(p for p in personas if p not in ALL_PERSONAS)
    lines = [_line(phrase(language, "usage.run"), run_total(usage), language)]
    lines += ["- " + _line(persona_label(p, language), personas[p], language) for p in order]
    return "\n".join(lines)
