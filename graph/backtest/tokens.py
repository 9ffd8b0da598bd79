"""How many model calls and tokens one deliberation of a backtest is expected to cost, before it runs.

Two sources, the better one first:

- **Measured**: the tokens the backtest's own finished days spent (a resumed backtest knows them), when
  there are enough of them; these are the model's own usage reports (graph/core/usage.py), or the demo's.
- **Fitted**: a formula fitted to the demo model's own usage (its counts are estimated at 4 characters a
  token, graph/core/usage.py), measured here over 39 analyses (AAPL, NVDA, MSFT; 1–4 analysts, 1–5 debate
  and risk rounds; every fit within ±6 %). It follows how the desk builds its prompts: each analyst's tool
  loop costs about the same, and every speaker after the analysts reads the reports (so each analyst adds to
  every later prompt) and the whole deliberation before it (so each turn adds to every later one: the cost
  grows with the square of the speakers). A live model writes at its own length, so for a live model the
  fitted figure is an estimate until the first days have run; benchmarks/RESULTS.md ("Tokens per decision")
  gives the same order (13,179 at one round, before the track record's recall existed).

What is not in a run's usage is added apart: the track record's recall (up to ~1,100 prompt tokens a
decision once the record is full, measured in RESULTS.md) and, live, the reflection the deep model writes
on each call once it settles (one call; its prompt quotes the call and the debaters' words).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.words import DEFAULT_LANGUAGE, phrase

# The fit (least squares over the 39 demo analyses): tokens = A·analysts + B·speakers + C·analysts·speakers
# + D·speakers·(speakers − 1)/2, "speakers" counting every call after the analysts' (the Risk Judge once).
PER_ANALYST = 1233         # an analyst's tool loop (two calls)
PER_SPEAKER = 382          # a later speaker's own prompt and turn
PER_REPORT_READ = 122      # one analyst's report, read by one later speaker
PER_TURN_READ = 79         # one earlier turn, read by one later speaker
RECALL_TOKENS = 1100       # the track record's blocks once full (benchmarks/RESULTS.md, issue 22)
REFLECTION_TOKENS = 1500   # live only: the reflection's prompt (call, figures, ~600 chars per debater) and reply
REFLECTION_CALLS = 1
MEASURED_AFTER = 3         # finished days needed before their own figure replaces the fit


@dataclass(frozen=True)
class Shape:
    """What a deliberation's cost depends on."""

    analysts: int
    debate_rounds: int
    risk_rounds: int

    @property
    def calls(self) -> int:
        """Model calls of one analysis: two per analyst (a tool call, then the report), one per debate turn
        (Bull and Bear each round; Risky, Safe and Neutral each round), the manager, the trader, and the
        Risk Judge's two (its words, then the ruling read into its fields). Checked against all 39 runs."""
        return 2 * self.analysts + 2 * self.debate_rounds + 3 * self.risk_rounds + 4

    def fitted_tokens(self) -> int:
        speakers = 2 * self.debate_rounds + 3 * self.risk_rounds + 3  # the turns, manager, trader and judge
        return round(PER_ANALYST * self.analysts + PER_SPEAKER * speakers
                     + PER_REPORT_READ * self.analysts * speakers + PER_TURN_READ * speakers * (speakers - 1) / 2)


@dataclass(frozen=True)
class Estimate:
    """One deliberation's expected cost, and where the figure comes from (said with the plan)."""

    calls: int
    tokens: int
    measured_days: int = 0  # the finished days whose mean it is; 0: fitted to the demo model's usage
    live: bool = False  # a live model's, which writes at its own length

    def times(self, n: int) -> tuple[int, int]:
        return self.calls * n, self.tokens * n

    def source_in(self, language: str) -> str:
        """Where the figure comes from, in `language`."""
        if self.measured_days:
            return phrase(language, "backtest.source_measured", n=self.measured_days)
        return phrase(language, "backtest.source_fitted") + (phrase(language, "backtest.source_live") if self.live
                                                             else "")

    @property
    def source(self) -> str:
        return self.source_in(DEFAULT_LANGUAGE)


def estimate(shape: Shape, *, live: bool, measured: Sequence[tuple[int, int]] = ()) -> Estimate:
    """The expected calls and tokens of one deliberation of `shape`. `measured`: (tokens, calls) of this
    backtest's finished days, used once there are MEASURED_AFTER of them."""
    reflection_calls, reflection_tokens = (REFLECTION_CALLS, REFLECTION_TOKENS) if live else (0, 0)
    if len(measured) >= MEASURED_AFTER:
        tokens = round(sum(t for t, _ in measured) / len(measured))
        calls = round(sum(c for _, c in measured) / len(measured))
        return Estimate(calls + reflection_calls, tokens + reflection_tokens, measured_days=len(measured), live=live)
    tokens = shape.fitted_tokens() + RECALL_TOKENS + reflection_tokens
    return Estimate(shape.calls + reflection_calls, tokens, live=live)
