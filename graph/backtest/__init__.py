"""The backtest's pure computing: simulating daily signals on closes, the paper's metrics, the rule
baselines, and the paper's Table 1 with its exports. No I/O and no model calls: a runner over days
(later, above the runtime) feeds it signals and closes."""
