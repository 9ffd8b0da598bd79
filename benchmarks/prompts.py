"""`python -m benchmarks.prompts [--by-persona] [--json] [--rounds 1,3] [--risk-rounds same]`: how much of
each prompt a server's prefix cache can skip.

Prefix caching (llama.cpp's prompt cache, vLLM's automatic prefix caching, OpenAI's prompt
caching) skips the part of a prompt that starts exactly like a prompt it has already seen. A
recorder (a callback, so it sees every chat-model call as sent, whatever the model) keeps each
prompt of a demo run (demo model, synthetic data) in the order of the calls, and this reports:

- **shared share** (the goal: >= 60% at 1 debate round): for each prompt, the longest common
  token prefix with any earlier prompt of the same run, summed over the run and divided by all
  prompt tokens of the run: what a cache that keeps every prompt of the run (vLLM, OpenAI,
  llama.cpp with several slots or its prompt cache in RAM) does not evaluate again. Also shown:
  the same against the previous prompt only, a cache of one prompt (llama-cpp-python's server
  reuses the prefix of the last prompt it evaluated);
- **prompt tokens per decision**: all prompt tokens of one analysis, at 1, 2 and 3 investment
  debate rounds (risk rounds 1): how the prompts grow with the debate;
- **the follow-up**: one question after the 1-round decision, and how much of its prompt
  repeats a prefix of the run's prompts;
- **the token line**: each run's own usage as the card and the CLI print it (the demo model's count: 4
  characters a token, "cached" the prefix of a recent prompt), each run's total against the first run's,
  and the ruling (signal, size, entry, stop), which no change of layout may move. `--risk-rounds same`
  gives each run as many risk rounds as debate rounds (issue 41: three rounds ≤ 2× one).

Tokens are estimated, not counted by a model's tokenizer (tiktoken needs to download its tables,
and every server has its own): a token is a run of letters and digits or one punctuation mark
(`\\w+|[^\\w\\s]`), whitespace dropped. On these prompts that is ~1.17 tokens per 4 characters,
near the usual ~4 characters per BPE token of English; the shares are ratios of the same
estimate, so they depend little on it.

A prompt is its messages in order, each opened by a role marker (as chat templates do). Where the
tool schemas of a call that binds tools go depends on the server, so both places are measured:
after the text of the first system message (llama-cpp-python's chatml-function-calling format,
Hermes and Qwen templates; first when there is no system message), the goal's figure, and
before every message (OpenAI: the schema is a prefix to the system message).

The figures before the case-file layout (the same benchmark at commit 95b81d3) are kept in
BEFORE and printed next to the current ones.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from graph import SERDE, DemoChatModel, DeskRuntime, ModelRegistry, Settings, SyntheticVendor, run_total

REQUEST = "should I buy NVDA today?"
TODAY = date(2024, 5, 6)
ROUNDS = (1, 2, 3)
GOAL = 0.6

_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> list[str]:
    """The estimate described in the module docstring."""
    return _TOKEN.findall(text)


TOOLS_AT = ("system", "first")


def prompt_tokens(messages: Sequence[BaseMessage], tools: Sequence[Any] = (), tools_at: str = "system") -> list[str]:
    """One call's prompt as the token sequence a server would see (approximately)."""
    schemas = ["<tools>", *tokens(json.dumps(list(tools), sort_keys=True))] if tools else []
    in_system = tools_at == "system" and bool(messages) and messages[0].type == "system"
    out: list[str] = [] if in_system else schemas
    for i, m in enumerate(messages):
        out.append(f"<{m.type}>")
        out += tokens(m.content if isinstance(m.content, str) else json.dumps(m.content))
        if i == 0 and in_system:
            out += schemas
        if isinstance(m, AIMessage) and m.tool_calls:
            out += tokens(json.dumps([{"name": c["name"], "args": c["args"]} for c in m.tool_calls], sort_keys=True))
        if isinstance(m, ToolMessage):
            out += tokens(str(m.name or ""))
    return out


@dataclass(frozen=True)
class Prompt:
    persona: str
    messages: tuple[BaseMessage, ...]
    tools: tuple[Any, ...] = ()
    tokens: tuple[str, ...] = ()

    def placed(self, tools_at: str) -> Prompt:
        """The same prompt with its tool schemas where `tools_at` says."""
        return Prompt(self.persona, self.messages, self.tools,
                      tuple(prompt_tokens(self.messages, self.tools, tools_at)))


class PromptRecorder(BaseCallbackHandler):
    """Every chat-model prompt of a run, as sent, in the order the calls start."""

    run_inline = True  # called in the caller's task, so the order is the order of the calls

    def __init__(self) -> None:
        self.prompts: list[Prompt] = []

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *,
                            metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:
        tools = tuple((kwargs.get("invocation_params") or {}).get("tools") or ())
        persona = str((metadata or {}).get("persona") or "?")
        for batch in messages:
            self.prompts.append(Prompt(persona, tuple(batch), tools).placed("system"))


def common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def shared_prefixes(prompts: Sequence[Prompt], previous_only: bool = False) -> list[int]:
    """For each prompt, the longest common token prefix with any earlier prompt (a cache that keeps
    every prompt of the run), or with the one just before it (a cache of one prompt)."""
    if previous_only:
        return [common_prefix(p.tokens, prompts[i - 1].tokens) if i else 0 for i, p in enumerate(prompts)]
    return [max((common_prefix(p.tokens, q.tokens) for q in prompts[:i]), default=0)
            for i, p in enumerate(prompts)]


# The caches measured: (label, where the tool schemas go, against the previous prompt only)
CACHES = (("any earlier prompt", "system", False), ("any earlier prompt, tools first", "first", False),
          ("previous prompt only", "system", True), ("previous prompt only, tools first", "first", True))
FOLLOW_UP = "why was the bear worried?"


@dataclass
class RunFigures:
    debate_rounds: int
    prompts: list[Prompt] = field(repr=False)
    followup: Prompt | None = field(default=None, repr=False)
    risk_rounds: int = 1
    usage: dict[str, int] = field(default_factory=dict)  # the run's own count, as the card's token line says it
    decision: dict[str, str] = field(default_factory=dict)  # the ruling's signal, size, entry and stop

    def placed(self, tools_at: str) -> list[Prompt]:
        return [p.placed(tools_at) for p in self.prompts]

    @property
    def total(self) -> int:
        return sum(len(p.tokens) for p in self.prompts)

    def shared(self, tools_at: str = "system", previous_only: bool = False) -> int:
        return sum(shared_prefixes(self.placed(tools_at), previous_only))

    def share(self, tools_at: str = "system", previous_only: bool = False) -> float:
        return self.shared(tools_at, previous_only) / self.total if self.total else 0.0

    def by_persona(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for p, s in zip(self.prompts, shared_prefixes(self.prompts), strict=True):
            row = out.setdefault(p.persona, {"calls": 0, "tokens": 0, "shared": 0})
            row["calls"] += 1
            row["tokens"] += len(p.tokens)
            row["shared"] += s
        return out

    def summary(self) -> dict[str, Any]:
        out = {"debate_rounds": self.debate_rounds, "risk_rounds": self.risk_rounds, "calls": len(self.prompts),
               "prompt_tokens": self.total,
               "largest_prompt": max((len(p.tokens) for p in self.prompts), default=0),
               "shared_share": round(self.share(), 3), "evaluated": self.total - self.shared(),
               "caches": {label: round(self.share(at, prev), 3) for label, at, prev in CACHES},
               "usage": self.usage, "decision": self.decision}
        if self.followup is not None:
            out["followup"] = {"question": FOLLOW_UP, "prompt_tokens": len(self.followup.tokens),
                               "shared": shared_prefixes([*self.prompts, self.followup])[-1]}
        return out


async def record_run(debate_rounds: int = 1, risk_rounds: int = 1, *, text: str = REQUEST, today: date = TODAY,
                     followup: str | None = None, analysts: Sequence[str] | None = None) -> RunFigures:
    """One demo analysis on a fresh desk (in-memory checkpoints), then `followup` if given. The
    analysts speak one after another, as a server that serves one request at a time wants, so
    the order of the prompts (and "the previous prompt") is the same on every run; the prompts
    themselves are the same either way."""
    with tempfile.TemporaryDirectory(prefix="desk-prompts-") as tmp:
        settings = Settings(DESK_DATA_DIR=Path(tmp), DESK_MODE="demo", DESK_PARALLEL_ANALYSTS=False)
        recorder, after = PromptRecorder(), PromptRecorder()
        async with DeskRuntime.open(settings, models=ModelRegistry.fixed(DemoChatModel(delay_ms=0), notice="bench"),
                                    vendor=SyntheticVendor(), checkpointer=InMemorySaver(serde=SERDE),
                                    store=InMemoryStore()) as runtime:
            thread, context = uuid.uuid4().hex, runtime.context(today=today)
            plan = runtime.plan(debate_rounds=debate_rounds, risk_rounds=risk_rounds,
                                analysts=list(analysts) if analysts else None)
            async for _ in runtime.events(await runtime.new_input(thread, text, plan), thread, context,
                                          callbacks=[recorder]):
                pass
            state = await runtime.state(thread)
            if (decision := state.get("final_decision")) is None:
                raise RuntimeError("the demo run ended without a decision")
            spent = run_total(state.get("usage"))
            usage = {"tokens": spent["prompt"] + spent["completion"], "prompt": spent["prompt"],
                     "cached": spent["cached"], "completion": spent["completion"], "calls": spent["calls"]}
            ruling = {k: str(getattr(decision, k)) for k in ("signal", "position_size", "entry", "stop")}
            if followup:
                async for _ in runtime.events(await runtime.new_input(thread, followup), thread, context,
                                              callbacks=[after]):
                    pass
        return RunFigures(debate_rounds, recorder.prompts, after.prompts[-1] if after.prompts else None,
                          risk_rounds, usage, ruling)


async def measure(rounds: Sequence[int] = ROUNDS, analysts: Sequence[str] | None = None,
                  risk: str = "1") -> dict[str, Any]:
    """`risk`: "1" (one risk round each) or "same" (as many risk rounds as debate rounds)."""
    runs = [await record_run(n, n if risk == "same" else 1, followup=FOLLOW_UP if n == rounds[0] else None,
                             analysts=analysts) for n in rounds]
    return {"request": REQUEST, "today": TODAY.isoformat(), "risk_rounds": risk, "goal_shared_share": GOAL,
            "analysts": list(analysts) if analysts else "default",
            "runs": [r.summary() for r in runs], "by_persona_1_round": runs[0].by_persona()}


def _caches(*shares: float) -> dict[str, float]:
    return dict(zip((label for label, _, _ in CACHES), shares, strict=True))


# `python -m benchmarks.prompts --json` at commit 95b81d3, before the case-file layout.
BEFORE: dict[str, Any] = {"runs": [
    {"debate_rounds": 1, "calls": 17, "prompt_tokens": 13770, "evaluated": 11876, "largest_prompt": 1338,
     "shared_share": 0.138, "caches": _caches(0.138, 0.14, 0.138, 0.139),
     "followup": {"question": FOLLOW_UP, "prompt_tokens": 1696, "shared": 3}},
    {"debate_rounds": 2, "calls": 19, "prompt_tokens": 16567, "evaluated": 13050, "largest_prompt": 1338,
     "shared_share": 0.212, "caches": _caches(0.212, 0.214, 0.115, 0.116)},
    {"debate_rounds": 3, "calls": 21, "prompt_tokens": 19980, "evaluated": 14308, "largest_prompt": 1643,
     "shared_share": 0.284, "caches": _caches(0.284, 0.285, 0.096, 0.097)},
]}


def table(result: dict[str, Any], before: dict[str, Any] | None = None) -> str:
    """One row per debate round count; with `before`, each figure as before → now."""
    old = {r["debate_rounds"]: r for r in (before or {}).get("runs", [])  # BEFORE ran one risk round
           if str(result.get("risk_rounds", "1")) == "1" or r["debate_rounds"] == 1}

    def cell(row: dict[str, Any], get: Any, fmt: str) -> str:
        now = format(get(row), fmt)
        was = old.get(row["debate_rounds"])
        return f"{format(get(was), fmt)} → {now}" if was else now

    labels = [label for label, _, _ in CACHES]
    rows = ["| debate rounds | calls | prompt tokens per decision | of which not a repeated prefix | largest prompt | "
            + " | ".join(f"shared: {label}" for label in labels) + " |", "|---" * (5 + len(labels)) + "|"]
    for r in result["runs"]:
        rows.append(f"| {r['debate_rounds']} | {r['calls']} | {cell(r, lambda x: x['prompt_tokens'], ',')} | "
                    f"{cell(r, lambda x: x['evaluated'], ',')} | {cell(r, lambda x: x['largest_prompt'], ',')} | "
                    + " | ".join(cell(r, lambda x, k=label: x['caches'][k], '.1%') for label in labels) + " |")
    return "\n".join(rows)


def usage_table(result: dict[str, Any]) -> str:
    """The runs as the card's and the CLI's token line count them (the demo model's usage: 4 characters a
    token, "cached" the prefix of a recent prompt), each against the first run's total, and the ruling."""
    runs = result["runs"]
    first = runs[0]["usage"]["tokens"] if runs and runs[0].get("usage") else 0
    rows = ["| debate, risk rounds | tokens per decision (token line) | × the first | prompt | of which cached | "
            "completion | calls | ruling |", "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        u, d = r.get("usage") or {}, r.get("decision") or {}
        if not u:
            continue
        rows.append(f"| {r['debate_rounds']}, {r.get('risk_rounds', 1)} | {u['tokens']:,} | "
                    f"{u['tokens'] / first:.2f}× | "
                    f"{u['prompt']:,} | {u['cached']:,} ({u['cached'] / u['prompt']:.1%}) | {u['completion']:,} | "
                    f"{u['calls']} | {d.get('signal')} {d.get('position_size')}, entry {d.get('entry')}, "
                    f"stop {d.get('stop')} |")
    return "\n".join(rows)


def persona_table(result: dict[str, Any]) -> str:
    rows = ["| persona (1 round) | calls | prompt tokens | shared prefix | share |", "|---|---|---|---|---|"]
    for persona, row in result["by_persona_1_round"].items():
        share = row["shared"] / row["tokens"] if row["tokens"] else 0.0
        rows.append(f"| {persona} | {row['calls']} | {row['tokens']:,} | {row['shared']:,} | {share:.0%} |")
    return "\n".join(rows)


def followup_line(result: dict[str, Any]) -> str:
    f = result["runs"][0].get("followup")
    if not f:
        return ""
    return (f"follow-up “{f['question']}” after the 1-round decision: {f['prompt_tokens']:,} prompt tokens, "
            f"{f['shared']:,} ({f['shared'] / f['prompt_tokens']:.0%}) a prefix of the run's prompts")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.prompts", description=__doc__.split("\n\n")[0])
    ap.add_argument("--by-persona", action="store_true", help="also the 1-round run per persona")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    ap.add_argument("--analysts", type=lambda s: [a.strip() for a in s.split(",") if a.strip()],
                    help="the analysts of the runs (default: the desk's default), e.g. "
                         "market,social,news,fundamentals,macro")
    ap.add_argument("--rounds", type=lambda s: [int(n) for n in s.split(",")], default=list(ROUNDS),
                    help="the debate rounds measured, e.g. 1 (default 1,2,3)")
    ap.add_argument("--risk-rounds", choices=("1", "same"), default="1",
                    help="one risk round in every run (default), or as many as debate rounds")
    args = ap.parse_args(argv)
    result = asyncio.run(measure(args.rounds, args.analysts, args.risk_rounds))
    print("Before (commit 95b81d3) → now; tokens estimated (see the module's docstring).\n" if BEFORE else "", end="")
    print(table(result, BEFORE))
    print()
    print(usage_table(result))
    if args.by_persona:
        print()
        print(persona_table(result))
    print()
    if BEFORE:
        print(f"before: {followup_line(BEFORE)}")
    print(f"now:    {followup_line(result)}" if BEFORE else followup_line(result))
    share = result["runs"][0]["shared_share"]
    print(f"shared share at 1 debate round: {share:.1%} (goal ≥ {GOAL:.0%}): {'met' if share >= GOAL else 'missed'}")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
