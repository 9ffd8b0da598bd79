"""How the desk's runs look on the page: the streamed turns, the stage list, the card and
its charts, tables, the track record, a comparison's and a backtest's views, and the thread's name."""
