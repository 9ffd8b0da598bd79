"""Several tickers at once: "NVDA or AMD?", "compare AAPL and MSFT", "比较苹果和微软".

One ordinary deliberation per ticker, side by side on the same trade date, each in its own thread (so stop, resume
and edit-the-past work per desk as for any analysis), then a Comparison turn that ranks them from each desk's own
debate. Above the backtest's floor: it reads a backtest's asking-by-name to step aside for it, and its token
estimate to state a live comparison's cost. The ask (ask), the desks (runner), the Comparison turn and its
ranking (comparison), the record under the user (store), the flow the CLI and the chat share (flow), and the
CLI's run (headless)."""
