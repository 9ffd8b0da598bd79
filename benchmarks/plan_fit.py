"""`python -m benchmarks.plan_fit [--json]`: the backtest plan's token estimate against what demo analyses spend.

A backtest states its expected tokens per deliberation before it runs (graph/backtest/tokens.py: a formula
fitted to the demo model's usage). This runs demo analyses as a backtest asks them ("analyze $AAPL on
2024-02-01", the run's today that day, synthetic data) over AAPL, NVDA and MSFT, 1–4 analysts (the default
ones in order) and 1, 3 and 5 debate and risk rounds (and 3 debate with 1 risk round), and prints each
run's tokens (prompt and completion, as the run's usage counts them: the card's and the CLI's token line)
beside the plan's fitted figure, the largest miss, and the least-squares fit of the formula's four
coefficients to these runs (to paste into tokens.py when the prompts change).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import uuid
from datetime import date
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from graph import (
    DEFAULT_ANALYST_KINDS,
    SERDE,
    DemoChatModel,
    DeskRuntime,
    ModelRegistry,
    Settings,
    SyntheticVendor,
    run_total,
)
from graph.backtest.runner import request_text
from graph.backtest.tokens import Shape

TICKERS = ("AAPL", "NVDA", "MSFT")
DAY = date(2024, 2, 1)
KINDS = DEFAULT_ANALYST_KINDS
SHAPES = (*(Shape(len(kinds), r, r, kinds) for n in range(1, len(KINDS) + 1) for kinds in combinations(KINDS, n)
            for r in (1, 3, 5)), Shape(len(KINDS), 3, 1, KINDS), Shape(len(KINDS), 1, 3, KINDS))
LIMIT = 0.06  # the plan's fit is within ±6 % of every run


async def spent(runtime: DeskRuntime, ticker: str, shape: Shape) -> tuple[int, int]:
    """One analysis's (tokens, calls), as the run's usage counts them."""
    thread, context = uuid.uuid4().hex, runtime.context(today=DAY, source="backtest")
    plan = runtime.plan(debate_rounds=shape.debate_rounds, risk_rounds=shape.risk_rounds,
                        analysts=list(shape.kinds))
    async for _ in runtime.events(await runtime.new_input(thread, request_text(ticker, DAY), plan), thread, context):
        pass
    total = run_total((await runtime.state(thread)).get("usage"))
    return total["prompt"] + total["completion"], total["calls"]


def features(shape: Shape) -> list[float]:
    """The fitted formula's terms (tokens.py): per analyst kind, its tool loop and its report read by each
    later speaker; then each later speaker's own prompt and turn, and each earlier turn it reads."""
    speakers = shape.speakers
    return [*(float(k in shape.kinds) for k in KINDS), *(speakers * (k in shape.kinds) for k in KINDS),
            speakers, speakers * (speakers - 1) / 2]


async def measure() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="desk-plan-fit-") as tmp:
        settings = Settings(DESK_DATA_DIR=Path(tmp), DESK_MODE="demo", DESK_PARALLEL_ANALYSTS=False)
        async with DeskRuntime.open(settings, models=ModelRegistry.fixed(DemoChatModel(delay_ms=0), notice="bench"),
                                    vendor=SyntheticVendor(), checkpointer=InMemorySaver(serde=SERDE),
                                    store=InMemoryStore()) as runtime:
            measured = [(ticker, shape, *(await spent(runtime, ticker, shape)))
                        for ticker in TICKERS for shape in SHAPES]
    runs = [{"ticker": ticker, "analysts": ",".join(shape.kinds), "debate_rounds": shape.debate_rounds,
             "risk_rounds": shape.risk_rounds, "tokens": used, "calls": calls, "plan_calls": shape.calls,
             "plan_tokens": shape.fitted_tokens()} for ticker, shape, used, calls in measured]
    # Least squares of the relative miss (each row divided by its run's tokens): the goal is a share (±6 %).
    used = np.array([m[2] for m in measured], dtype=float)
    terms = np.array([features(shape) for _, shape, _, _ in measured], dtype=float)
    coef = [round(float(c)) for c in np.linalg.lstsq(terms / used[:, None], np.ones(len(measured)), rcond=None)[0]]
    fitted = [sum(c * t for c, t in zip(coef, row, strict=True)) for row in terms.tolist()]
    n = len(KINDS)
    return {"day": DAY.isoformat(), "runs": runs,
            "plan_worst": max(abs(shape.fitted_tokens() / u - 1) for _, shape, u, _ in measured),
            "refit": {"loop": dict(zip(KINDS, coef[:n], strict=True)),
                      "report_read": dict(zip(KINDS, coef[n:2 * n], strict=True)),
                      "per_speaker": coef[-2], "per_turn_read": coef[-1],
                      "worst": max(abs(f / m[2] - 1) for f, m in zip(fitted, measured, strict=True))}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.plan_fit", description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args(argv)
    result = asyncio.run(measure())
    print("| ticker | analysts | debate, risk rounds | calls (plan) | tokens | plan's estimate | miss |")
    print("|---|---|---|---|---|---|---|")
    for r in result["runs"]:
        print(f"| {r['ticker']} | {r['analysts']} | {r['debate_rounds']}, {r['risk_rounds']} | {r['calls']} "
              f"({r['plan_calls']}) | {r['tokens']:,} | {r['plan_tokens']:,} | "
              f"{r['plan_tokens'] / r['tokens'] - 1:+.1%} |")
    fit = result["refit"]
    print(f"\nplan's largest miss: {result['plan_worst']:.1%} (goal ≤ {LIMIT:.0%}); least squares over these runs: "
          f"tool loop per analyst {fit['loop']}, its report read by a later speaker {fit['report_read']}, "
          f"per speaker {fit['per_speaker']}, per earlier turn read {fit['per_turn_read']}: largest miss "
          f"{fit['worst']:.1%}")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
