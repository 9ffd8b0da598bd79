"""`python -m benchmarks.plan_fit [--json]`: the backtest plan's token estimate against what demo analyses spend.

A backtest states its expected tokens per deliberation before it runs (graph/backtest/tokens.py: a formula
fitted to the demo model's usage). This runs demo analyses as a backtest asks them ("analyze $AAPL on
2024-02-01", the run's today that day, synthetic data) over AAPL, NVDA and MSFT, 1–4 analysts (the default
ones in order) and 1, 3 and 5 debate and risk rounds (and 3 debate with 1 risk round), and prints each
run's tokens (prompt and completion, as the run's usage counts them: the card's and the CLI's token line)
beside the plan's fitted figure, the largest miss, and the fit of the formula's coefficients that makes
the largest miss over these runs smallest (to paste into tokens.py when the prompts change).
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
from scipy.optimize import linprog

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


def _minimax(relative: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The coefficients whose largest |relative · c − target| is smallest (a linear program: minimise t with
    −t ≤ relative · c − target ≤ t)."""
    rows, n = relative.shape
    bound = np.ones((rows, 1))
    found = linprog(np.r_[np.zeros(n), 1.0], A_ub=np.vstack([np.hstack([relative, -bound]),
                                                             np.hstack([-relative, -bound])]),
                    b_ub=np.r_[target, -target], bounds=[(None, None)] * (n + 1))
    if not found.success:
        raise RuntimeError(f"no fit: {found.message}")
    return np.asarray(found.x[:n])


def fit(terms: np.ndarray, used: np.ndarray) -> list[int]:
    """The formula's coefficients, in whole tokens, for the smallest largest relative miss over the runs: the
    goal bounds the largest miss (±6 %), which least squares does not minimise (it left 6.5 % where 4.6 % is
    possible, issue 41). The last coefficient (an earlier turn read, multiplied by up to ~500 pairs of speakers)
    is rounded first and the others fitted again around it, so rounding moves no run by more than a token
    or so per term."""
    relative = terms / used[:, None]
    target = np.ones(len(used))
    last = round(float(_minimax(relative, target)[-1]))
    rest = _minimax(relative[:, :-1], target - relative[:, -1] * last)
    return [*(round(float(c)) for c in rest), last]


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
    used = np.array([m[2] for m in measured], dtype=float)
    terms = np.array([features(shape) for _, shape, _, _ in measured], dtype=float)
    coef = fit(terms, used)
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
    print(f"\nplan's largest miss: {result['plan_worst']:.1%} (goal ≤ {LIMIT:.0%}); the fit of the largest miss over "
          "these runs: "
          f"tool loop per analyst {fit['loop']}, its report read by a later speaker {fit['report_read']}, "
          f"per speaker {fit['per_speaker']}, per earlier turn read {fit['per_turn_read']}: largest miss "
          f"{fit['worst']:.1%}")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
