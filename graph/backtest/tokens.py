"""How many model calls and tokens one deliberation of a backtest is expected to cost, before it runs.

Two sources, the better one first:

- **Measured**: the tokens the backtest's own finished days spent (a resumed backtest knows them), when
  there are enough of them; these are the model's own usage reports (graph/core/usage.py), or the demo's.
- **Fitted**: a formula fitted to the demo model's own usage (its counts are estimated at 4 characters a
  token, graph/core/usage.py), measured over 141 analyses (`python -m benchmarks.plan_fit`: AAPL, NVDA,
  MSFT; every set of the default analysts; 1, 3 and 5 debate and risk rounds; every fit within ±6 %). It
  follows how the desk builds its prompts: each analyst's tool loop costs what its data costs, every speaker
  after the analysts reads the reports (so each analyst adds its report to every later prompt) and each
  earlier turn by its claims, the last one whole (so each turn adds a little to every later one: the cost
  still grows with the square of the speakers, but slowly). A live model writes at its own length, so for
  a live model the fitted figure is an estimate until the first days have run; benchmarks/RESULTS.md
  ("Fewer tokens per decision") gives the figures.

What is not in a run's usage is added apart: the track record's recall (up to ~1,100 prompt tokens a
decision once the record is full, measured in RESULTS.md) and, live, the reflection the deep model writes
on each call once it settles (one call; its prompt quotes the call and the debaters' words).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.words import DEFAULT_LANGUAGE, phrase

# The fit (the coefficients whose largest relative miss over 141 demo analyses is smallest, `python -m
# benchmarks.plan_fit`; a fit, so a kind's loop and its report read trade off against each other):
# tokens = Σ over the analysts (LOOP[kind] + REPORT_READ[kind]·speakers) + PER_SPEAKER·speakers
# + PER_TURN_READ·speakers·(speakers − 1)/2, "speakers" counting every call after the analysts' (the Risk
# Judge once). Since issue 41 a later speaker reads each earlier debate turn by its claims (the last one whole),
# so an earlier turn costs a later one ~25 tokens, not ~79.
LOOP = {"market": 1542, "social": 1110, "news": 1532, "fundamentals": 1513}  # an analyst's tool loop (two calls)
REPORT_READ = {"market": 263, "social": 118, "news": 238, "fundamentals": 215}  # its report, read by one speaker
PER_ANALYST = round(sum(LOOP.values()) / len(LOOP))  # an analyst of another kind, or of no kind given: the mean
PER_REPORT_READ = round(sum(REPORT_READ.values()) / len(REPORT_READ))
PER_SPEAKER = 412          # a later speaker's own prompt (its role, the last turn whole) and turn
PER_TURN_READ = 25         # one earlier turn's claims, read by one later speaker
RECALL_TOKENS = 1100       # the track record's blocks once full (benchmarks/RESULTS.md, issue 22)
REFLECTION_TOKENS = 1500   # live only: the reflection's prompt (call, figures, ~600 chars per debater) and reply
REFLECTION_CALLS = 1
MEASURED_AFTER = 3         # finished days needed before their own figure replaces the fit


@dataclass(frozen=True)
class Shape:
    """What a deliberation's cost depends on: how many analysts (and which, when known), the rounds."""

    analysts: int
    debate_rounds: int
    risk_rounds: int
    kinds: tuple[str, ...] = ()  # the analysts' kinds; () counts each as the default analysts' mean

    @property
    def speakers(self) -> int:
        """Every call after the analysts': the turns, the manager, the trader and the judge (once)."""
        return 2 * self.debate_rounds + 3 * self.risk_rounds + 3

    @property
    def calls(self) -> int:
        """Model calls of one analysis: two per analyst (a tool call, then the report), one per debate turn
        (Bull and Bear each round; Risky, Safe and Neutral each round), the manager, the trader, and the
        Risk Judge's two (its words, then the ruling read into its fields). Checked against all 39 runs."""
        return 2 * self.analysts + 2 * self.debate_rounds + 3 * self.risk_rounds + 4

    def fitted_tokens(self) -> int:
        speakers = self.speakers
        kinds = self.kinds or ("",) * self.analysts
        analysts = sum(LOOP.get(k, PER_ANALYST) + REPORT_READ.get(k, PER_REPORT_READ) * speakers for k in kinds)
        return round(analysts + PER_SPEAKER * speakers + PER_TURN_READ * speakers * (speakers - 1) / 2)


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
