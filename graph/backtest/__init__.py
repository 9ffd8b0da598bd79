"""The backtest: the desk run day by day over a window, scored like the paper's Table 1.

The pure computing (no I/O, no model): simulating daily signals on closes (simulate), the paper's metrics
(metrics), the rule baselines (baselines), Table 1 and its exports (table, export). Above it, the runner
over days, which sits above the runtime: the plan and its cost stated before anything runs (plan, tokens),
each (ticker, day) a real deliberation in its own thread, resumable (runner, record), the vendor watched for
failures and the day each call is for (watch), the result scored and written (result), and the headless
command with its progress bar (headless, progress)."""
